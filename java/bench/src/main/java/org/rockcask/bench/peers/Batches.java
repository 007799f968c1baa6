package org.rockcask.bench.peers;

/** Work over items 0..count in consecutive batches (one transaction each), as the workloads' puts and reads are done. */
final class Batches {
    /** One batch: items {@code from} (inclusive) to {@code to} (exclusive); returns the bytes it read, or 0. */
    interface Batch {
        long run(int from, int to) throws Exception;
    }

    private Batches() {}

    /** Runs every batch of at most {@code size} items in order; returns the sum of their results. */
    static long sum(int count, int size, Batch batch) throws Exception {
        long total = 0;
        for (int from = 0; from < count; from += size) {
            total += batch.run(from, Math.min(count, from + size));
        }
        return total;
    }
}
