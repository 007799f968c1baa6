package org.rockcask.bench.graph;

/**
 * SplitMix64 (Steele, Lea, Flood 2014), written out here rather than taken from the JDK so that
 * the same seed gives the same numbers, and so the same graph, on every JVM and release.
 */
final class SeededRandom {
    private static final long GOLDEN_GAMMA = 0x9E3779B97F4A7C15L;

    private long state;

    SeededRandom(long seed) {
        state = seed;
    }

    long nextLong() {
        state += GOLDEN_GAMMA;
        return mix(state);
    }

    /** Uniform in [0, bound): the top 31 bits scaled, without the modulo's bias towards small values. */
    int nextInt(int bound) {
        if (bound <= 0) {
            throw new IllegalArgumentException("bound must be positive: " + bound);
        }
        return (int) (((nextLong() >>> 33) * bound) >>> 31);
    }

    /** Uniform in [0, 1). */
    double nextDouble() {
        return (nextLong() >>> 11) * 0x1.0p-53;
    }

    /** SplitMix64's finalizer: a bijection of 64 bits, each input bit reaching every output bit. */
    static long mix(long z) {
        z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
        z = (z ^ (z >>> 27)) * 0x94D049BB133111EBL;
        return z ^ (z >>> 31);
    }
}
