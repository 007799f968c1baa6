package org.rockcask.bench;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.UUID;
import org.rockcask.Store;
import org.rockcask.StoreOptions;
import org.rockcask.Transaction;

/**
 * Seed experiment 1, as the original Tokyo Cabinet stress test: for N = 1, 10, ..., max, open a
 * fresh store, begin, N times { new random UUID, enqueue it on queue "queue", store it as an
 * object under its own id }, commit with sync, close, delete. Time is begin to commit returned,
 * averaged over repetitions. Three contenders in one process and one run:
 * <ul>
 *   <li>RockCask put+enqueue: {@code tx.put(id, bytes); tx.enqueue("queue", id)} — the object under its own id;</li>
 *   <li>RockCask enqueue: {@code tx.enqueue("queue", bytes)} — one call, the object gets a new time-ordered id;</li>
 *   <li>RocksJava: the same two puts per item in one WriteBatch, same layout and options.</li>
 * </ul>
 * Usage: {@code SeedExperiment1 [maxN]} (default 1000000).
 */
public final class SeedExperiment1 {
    private interface Run {
        void run(Path dir, UUID[] ids, byte[][] payloads) throws Exception;
    }

    public static void main(String[] args) throws Exception {
        long maxN = args.length > 0 ? Long.parseLong(args[0]) : 1_000_000;
        Path root = Dirs.benchRoot();
        DiskLimits disk = DiskLimits.measure(root);
        System.out.println("Seed experiment 1: transactional enqueue of N items, one synced commit (items/s; time = begin..commit)");
        System.out.println(disk);
        System.out.println(String.format("java %s, %d cores, dir %s", System.getProperty("java.version"), Runtime.getRuntime().availableProcessors(), root));

        Run putEnqueue = (dir, ids, payloads) -> {
            try (Store store = Store.open(dir, StoreOptions.defaults()); Transaction tx = store.begin()) {
                long t0 = System.nanoTime();
                for (int i = 0; i < ids.length; i++) {
                    tx.put(ids[i], payloads[i]);
                    tx.enqueue("queue", ids[i]);
                }
                tx.commit();
                record(t0);
            }
        };
        Run enqueue = (dir, ids, payloads) -> {
            try (Store store = Store.open(dir, StoreOptions.defaults()); Transaction tx = store.begin()) {
                long t0 = System.nanoTime();
                for (int i = 0; i < ids.length; i++) {
                    tx.enqueue("queue", payloads[i]);
                }
                tx.commit();
                record(t0);
            }
        };
        Run rocksJava = (dir, ids, payloads) -> {
            try (RocksJavaPeer peer = new RocksJavaPeer(dir)) {
                long t0 = System.nanoTime();
                peer.enqueueAll(ids, payloads);
                record(t0);
            }
        };
        Run[] runs = {putEnqueue, enqueue, rocksJava};

        // Warm-up (JIT, page cache) for every contender; not reported.
        for (Run r : runs) {
            measure(r, root, 10_000, 2);
        }
        System.out.println();
        System.out.println(String.format("%9s %5s | %12s %11s | %12s %11s | %12s %11s | %9s %9s", "N", "reps", "put+enq ms", "items/s",
                "enqueue ms", "items/s", "RocksJava ms", "items/s", "ratio p+e", "ratio enq"));
        for (long n = 1; n <= maxN; n *= 10) {
            int reps = n <= 100 ? 30 : n <= 10_000 ? 8 : n <= 100_000 ? 4 : 2;
            double[] ms = new double[runs.length];
            for (int r = 0; r < runs.length; r++) {
                ms[r] = measure(runs[r], root, (int) n, reps);
            }
            System.out.println(String.format("%9d %5d | %12.3f %11.0f | %12.3f %11.0f | %12.3f %11.0f | %8.2fx %8.2fx", n, reps, ms[0],
                    n / ms[0] * 1000, ms[1], n / ms[1] * 1000, ms[2], n / ms[2] * 1000, ms[2] / ms[0], ms[2] / ms[1]));
        }
        System.out.println("ratio = RocksJava time / RockCask time (above 1.00x: RockCask is faster)");
    }

    private static long lastNanos;

    private static void record(long t0) {
        lastNanos = System.nanoTime() - t0;
    }

    /** Mean milliseconds of {@code reps} runs, each on a fresh store deleted afterwards. */
    private static double measure(Run run, Path root, int n, int reps) throws Exception {
        long total = 0;
        for (int rep = 0; rep < reps; rep++) {
            UUID[] ids = new UUID[n];
            byte[][] payloads = new byte[n][];
            for (int i = 0; i < n; i++) {
                ids[i] = UUID.randomUUID();
                payloads[i] = ids[i].toString().getBytes(StandardCharsets.US_ASCII);
            }
            Path dir = root.resolve("seed1-" + System.nanoTime());
            run.run(dir, ids, payloads);
            total += lastNanos;
            Dirs.delete(dir);
        }
        return total / 1e6 / reps;
    }
}
