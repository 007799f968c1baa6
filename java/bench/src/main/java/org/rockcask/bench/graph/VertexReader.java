package org.rockcask.bench.graph;

/** Reads vertices of a {@link GraphStore} within one read transaction (where the store has them). */
// "try": close() may throw any exception, as the stores' own close methods do.
@SuppressWarnings("try")
public interface VertexReader extends AutoCloseable {
    /** The edges of the vertex under {@code key}, valid until the next call; fails naming the key if it is missing. */
    EdgeCursor edges(byte[] key) throws Exception;

    /**
     * A reader over a store whose lookup returns each value as a new array ({@code null} when
     * there is none), with nothing to close.
     */
    static VertexReader ofArrays(KeyOrder order, java.util.function.Function<byte[], byte[]> lookup) {
        EdgeListReader reader = new EdgeListReader(order);
        return new VertexReader() {
            @Override
            public EdgeCursor edges(byte[] key) {
                byte[] value = lookup.apply(key);
                if (value == null) {
                    throw missing(key);
                }
                return reader.reset(java.nio.ByteBuffer.wrap(value));
            }

            @Override
            public void close() {}
        };
    }

    /** A lookup into a direct buffer, as RocksJava's and RockCask's are. */
    interface IntoBuffer {
        /**
         * The length of the value under {@code key} (negative when there is none), copied into
         * {@code into} (cleared) with its limit set when it fits; when it does not, {@code into}
         * holds nothing of it.
         */
        int get(byte[] key, java.nio.ByteBuffer into) throws Exception;
    }

    /**
     * A reader over a store whose lookup copies each value into one reused direct buffer, grown
     * when a value does not fit; {@code resources} are closed with the reader.
     */
    static VertexReader ofDirectBuffers(KeyOrder order, IntoBuffer lookup, AutoCloseable resources) {
        EdgeListReader reader = new EdgeListReader(order);
        return new VertexReader() {
            private java.nio.ByteBuffer value = java.nio.ByteBuffer.allocateDirect(4096);

            @Override
            public EdgeCursor edges(byte[] key) throws Exception {
                value.clear();
                int size = lookup.get(key, value);
                if (size > value.capacity()) {
                    value = java.nio.ByteBuffer.allocateDirect(Math.max(size, 2 * value.capacity()));
                    size = lookup.get(key, value);
                }
                if (size < 0) {
                    throw missing(key);
                }
                return reader.reset(value);
            }

            @Override
            public void close() throws Exception {
                resources.close();
            }
        };
    }

    /** The error for a key the store does not hold. */
    static IllegalStateException missing(byte[] key) {
        StringBuilder hex = new StringBuilder();
        for (byte b : key) {
            hex.append(String.format("%02x", b & 0xFF));
        }
        return new IllegalStateException("no vertex under key " + hex + " (" + new String(key, java.nio.charset.StandardCharsets.ISO_8859_1) + ")");
    }
}
