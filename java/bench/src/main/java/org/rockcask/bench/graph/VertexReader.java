package org.rockcask.bench.graph;

/** Reads vertices of a {@link GraphStore} within one read transaction (where the store has them). */
// "try": close() may throw any exception, as the stores' own close methods do.
@SuppressWarnings("try")
public interface VertexReader extends AutoCloseable {
    /** The edges of the vertex under {@code key}, valid until the next call; fails naming the key if it is missing. */
    EdgeCursor edges(byte[] key) throws Exception;

    /** The error for a key the store does not hold. */
    static IllegalStateException missing(byte[] key) {
        StringBuilder hex = new StringBuilder();
        for (byte b : key) {
            hex.append(String.format("%02x", b & 0xFF));
        }
        return new IllegalStateException("no vertex under key " + hex + " (" + new String(key, java.nio.charset.StandardCharsets.ISO_8859_1) + ")");
    }
}
