package org.rockcask.bench.graph;

/**
 * How much an edge weighs: {@link #SMALL}, a distance and the destination's key only;
 * {@link #PADDED}, each edge record made {@value #PADDED_EDGE_BYTES} bytes long by a payload (as
 * a road's name, class and geometry would), of pseudo-random bytes so that no store can
 * compress it away.
 */
public enum Variant {
    SMALL, PADDED;

    static final int PADDED_EDGE_BYTES = 256;

    /** The payload's length for an edge whose destination key is {@code keyLength} bytes ({@link EdgeListLayout}). */
    int payloadLength(int keyLength) {
        if (this == SMALL) {
            return 0;
        }
        int fixed = EdgeListLayout.edgeBytes(keyLength, 0) + 1; // the payload's length takes a second varint byte
        return PADDED_EDGE_BYTES - fixed;
    }

    static Variant byName(String name) {
        for (Variant v : values()) {
            if (v.name().equalsIgnoreCase(name)) {
                return v;
            }
        }
        throw new IllegalArgumentException("no variant " + name + " (small, padded)");
    }
}
