package org.rockcask.bench.graph;

/**
 * The Z-order (Morton) code of a point with non-negative 32-bit coordinates: the bits of x and
 * y interleaved, x in the even bit positions (bit 0 is x's lowest bit), y in the odd ones. Points
 * close together in the plane mostly get codes close together, so stored in the code's order
 * they mostly share pages and blocks.
 */
final class Morton {
    private Morton() {}

    static long code(int x, int y) {
        if (x < 0 || y < 0) {
            throw new IllegalArgumentException("Morton coordinates must not be negative: " + x + ", " + y);
        }
        return spread(x) | (spread(y) << 1);
    }

    /** The 32 bits of v in the even positions of a long. */
    private static long spread(int v) {
        long b = v & 0xFFFFFFFFL;
        b = (b | (b << 16)) & 0x0000FFFF0000FFFFL;
        b = (b | (b << 8)) & 0x00FF00FF00FF00FFL;
        b = (b | (b << 4)) & 0x0F0F0F0F0F0F0F0FL;
        b = (b | (b << 2)) & 0x3333333333333333L;
        b = (b | (b << 1)) & 0x5555555555555555L;
        return b;
    }
}
