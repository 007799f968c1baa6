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

    /** The error for a key the store does not hold. */
    static IllegalStateException missing(byte[] key) {
        StringBuilder hex = new StringBuilder();
        for (byte b : key) {
            hex.append(String.format("%02x", b & 0xFF));
        }
        return new IllegalStateException("no vertex under key " + hex + " (" + new String(key, java.nio.charset.StandardCharsets.ISO_8859_1) + ")");
    }
}
