package org.rockcask.bench.kv;

import java.util.concurrent.ThreadLocalRandom;

/**
 * YCSB's scrambled Zipfian key choice (site.ycsb core's {@code ScrambledZipfianGenerator}, written
 * out here): a Zipfian draw with constant 0.99 over 10^10 items, whose rank is hashed (FNV-1a,
 * 64 bits) onto {@code [0, items)}, so that the popular keys are spread over the key space
 * instead of sitting at its start. Thread-safe (each thread draws from its own random source).
 */
final class ScrambledZipfian {
    static final double CONSTANT = 0.99;
    private static final long ITEM_COUNT = 10_000_000_000L;
    /** zeta(10^10, 0.99), the constant YCSB uses rather than summing 10^10 terms. */
    private static final double ZETAN = 26.46902820178302;

    private final long items;
    private final double alpha;
    private final double eta;
    private final double half;

    ScrambledZipfian(long items) {
        this.items = items;
        double zeta2 = 1 + Math.pow(0.5, CONSTANT);
        alpha = 1 / (1 - CONSTANT);
        eta = (1 - Math.pow(2.0 / ITEM_COUNT, 1 - CONSTANT)) / (1 - zeta2 / ZETAN);
        half = 1 + Math.pow(0.5, CONSTANT);
    }

    long next() {
        double u = ThreadLocalRandom.current().nextDouble();
        double uz = u * ZETAN;
        long rank;
        if (uz < 1) {
            rank = 0;
        } else if (uz < half) {
            rank = 1;
        } else {
            rank = (long) (ITEM_COUNT * Math.pow(eta * u - eta + 1, alpha));
        }
        return Math.floorMod(fnv64(rank), items);
    }

    /** FNV-1a over the value's 8 bytes, low byte first, as YCSB's {@code Utils.fnvhash64}. */
    static long fnv64(long value) {
        long hash = 0xCBF29CE484222325L;
        for (int i = 0; i < 8; i++) {
            hash ^= value & 0xff;
            hash *= 1099511628211L;
            value >>>= 8;
        }
        return Math.abs(hash);
    }
}
