package org.rockcask.bench.kv;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Random;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicLong;
import org.rockcask.bench.Dirs;

/**
 * One (store, durability, workload) of the key-value benchmark, the only work of its JVM: loads
 * the records into a fresh store, runs the workload at each thread count, prints one
 * {@link #RESULT} line and deletes the store.
 *
 * <p>Usage: {@code KvRun STORE synced|unsynced WORKLOAD RECORDS OPERATIONS THREADS,...}; the
 * line is {@code KVRESULT T:ops/s:read p50:read p99:update p50:update p99;...} (microseconds,
 * -1 where the workload has no such operation), or {@code KVRESULT error MESSAGE}.
 */
public final class KvRun {
    static final String RESULT = "KVRESULT ";
    private static final int LOAD_BATCH = 1_000;

    private KvRun() {}

    static KvStore open(String store, Path dir, boolean synced) throws Exception {
        switch (store) {
            case "rockcask":
                return new RockCaskKv(dir, synced);
            case "rocksjava":
                return new RocksJavaKv(dir, synced);
            case "lmdb":
                return new LmdbKv(dir, synced);
            default:
                throw new IllegalArgumentException("no store " + store + " (rockcask, rocksjava, lmdb)");
        }
    }

    @SuppressWarnings("try") // KvStore.close() may throw any exception, InterruptedException too
    public static void main(String[] args) throws Exception {
        String line;
        Path dir = Dirs.benchRoot().resolve("kv-" + ProcessHandle.current().pid());
        try {
            String store = args[0];
            boolean synced = args[1].equals("synced");
            KvWorkload workload = KvWorkload.byName(args[2]);
            long records = Long.parseLong(args[3]);
            int operations = Integer.parseInt(args[4]);
            Files.createDirectories(dir);
            StringBuilder out = new StringBuilder();
            try (KvStore kv = open(store, dir, synced)) {
                Random loading = new Random(1);
                for (long from = 0; from < records; from += LOAD_BATCH) {
                    kv.load(from, Math.min(records, from + LOAD_BATCH), () -> KvStore.randomRecord(loading));
                }
                AtomicLong inserted = new AtomicLong(records);
                ScrambledZipfian keys = new ScrambledZipfian(records);
                // Warm-up (JIT, caches), not measured.
                run(kv, workload, keys, inserted, 1, Math.max(100, operations / 10));
                for (String t : args[5].split(",")) {
                    int threads = Integer.parseInt(t);
                    if (out.length() > 0) {
                        out.append(';');
                    }
                    out.append(threads).append(':').append(run(kv, workload, keys, inserted, threads, operations));
                }
            }
            line = RESULT + out;
        } catch (Throwable e) {
            e.printStackTrace();
            line = RESULT + "error " + e.toString().replace('\n', ' ');
        } finally {
            Dirs.delete(dir);
        }
        System.out.println(line);
        System.exit(line.startsWith(RESULT + "error") ? 1 : 0);
    }

    /** {@code operations} in all from {@code threads} threads started together: "ops/s:r50:r99:u50:u99". */
    private static String run(KvStore kv, KvWorkload w, ScrambledZipfian keys, AtomicLong inserted, int threads, int operations)
            throws Exception {
        int perThread = Math.max(1, operations / threads);
        long[][] reads = new long[threads][];
        long[][] updates = new long[threads][];
        int[] readCounts = new int[threads];
        int[] updateCounts = new int[threads];
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        CyclicBarrier start = new CyclicBarrier(threads + 1);
        List<Future<?>> runs = new ArrayList<>();
        try {
            for (int t = 0; t < threads; t++) {
                int me = t;
                reads[t] = new long[perThread];
                updates[t] = new long[perThread];
                runs.add(pool.submit(() -> {
                    ThreadLocalRandom r = ThreadLocalRandom.current();
                    start.await();
                    for (int i = 0; i < perThread; i++) {
                        double p = r.nextDouble();
                        long t0 = System.nanoTime();
                        boolean isRead = true;
                        if (p < w.read) {
                            if (kv.read(KvStore.key(keys.next())) != KvStore.RECORD_BYTES) {
                                throw new IllegalStateException("a loaded record is missing or changed size");
                            }
                        } else if (p < w.read + w.update) {
                            kv.write(KvStore.key(keys.next()), KvStore.randomRecord(r));
                            isRead = false;
                        } else if (p < w.read + w.update + w.scan) {
                            kv.scan(KvStore.key(keys.next()), 1 + r.nextInt(KvWorkload.MAX_SCAN));
                        } else if (p < w.read + w.update + w.scan + w.insert) {
                            kv.write(KvStore.key(inserted.getAndIncrement()), KvStore.randomRecord(r));
                            isRead = false;
                        } else {
                            kv.readModifyWrite(KvStore.key(keys.next()), KvStore.randomRecord(r));
                            isRead = false;
                        }
                        long nanos = System.nanoTime() - t0;
                        if (isRead) {
                            reads[me][readCounts[me]++] = nanos;
                        } else {
                            updates[me][updateCounts[me]++] = nanos;
                        }
                    }
                    return null;
                }));
            }
            // Timed from before the threads are released: they may finish a short run before
            // this thread would otherwise read the clock.
            long t0 = System.nanoTime();
            start.await();
            for (Future<?> f : runs) {
                f.get();
            }
            double seconds = (System.nanoTime() - t0) / 1e9;
            long[] r = merged(reads, readCounts);
            long[] u = merged(updates, updateCounts);
            return String.format(Locale.ROOT, "%.1f:%.1f:%.1f:%.1f:%.1f", threads * (double) perThread / seconds, micros(r, 0.5), micros(r, 0.99),
                    micros(u, 0.5), micros(u, 0.99));
        } finally {
            pool.shutdownNow();
        }
    }

    private static long[] merged(long[][] perThread, int[] counts) {
        int n = Arrays.stream(counts).sum();
        long[] all = new long[n];
        int at = 0;
        for (int t = 0; t < perThread.length; t++) {
            System.arraycopy(perThread[t], 0, all, at, counts[t]);
            at += counts[t];
        }
        Arrays.sort(all);
        return all;
    }

    /** The quantile in microseconds; -1 for no samples. */
    static double micros(long[] sorted, double q) {
        if (sorted.length == 0) {
            return -1;
        }
        return sorted[(int) Math.min(sorted.length - 1, Math.floor(q * sorted.length))] / 1e3;
    }
}
