package org.rockcask.bench.kv;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.rockcask.MapReader;
import org.rockcask.Store;
import org.rockcask.StoreOptions;
import org.rockcask.Transaction;
import org.rockcask.bench.Dirs;

/**
 * What a transaction costs from Java when the data is all in the map cache: 1,000 records of
 * 1,000 bytes, unsynced; an empty transaction ({@code begin}, {@code close}; and with a
 * {@code commit}), a one-read transaction, and {@link MapReader#get} for comparison, each in a loop
 * on 1 and 4 threads for 2 s, two rounds (the first warms the JIT up; the second is printed).
 * Arguments: thread counts, comma-separated (default {@code 1,4}).
 */
public final class TransactionCost {
    private static final int RECORDS = 1000;

    private interface Op {
        void run(int i);
    }

    public static void main(String[] args) throws Exception {
        int[] threads = java.util.Arrays.stream((args.length > 0 ? args[0] : "1,4").split(",")).mapToInt(Integer::parseInt).toArray();
        Path dir = Files.createTempDirectory(Dirs.benchRoot(), "transaction-cost");
        try (Store store = Store.open(dir, StoreOptions.defaults().syncOnCommit(false))) {
            byte[][] keys = new byte[RECORDS][];
            try (Transaction tx = store.begin()) {
                for (int i = 0; i < RECORDS; i++) {
                    keys[i] = ("user" + (1_000_000 + i)).getBytes(StandardCharsets.US_ASCII);
                    tx.map("t").put(keys[i], new byte[1000]);
                }
                tx.commit();
            }
            MapReader reader = store.mapReader("t");
            Map<String, Op> ops = new LinkedHashMap<>();
            ops.put("begin, close", i -> store.begin().close());
            ops.put("begin, commit, close", i -> {
                try (Transaction tx = store.begin()) {
                    tx.commit();
                }
            });
            ops.put("one-read transaction", i -> {
                try (Transaction tx = store.begin()) {
                    tx.map("t").get(keys[i]);
                    tx.commit();
                }
            });
            ops.put("MapReader.get", i -> reader.get(keys[i]));
            System.out.printf("%-22s | %s | %12s | %12s%n", "operation", "T", "ns/op/thread", "ops/s");
            for (int round = 0; round < 2; round++) {
                for (int t : threads) {
                    for (Map.Entry<String, Op> e : ops.entrySet()) {
                        long n = run(e.getValue(), t, 2_000);
                        if (round == 1) {
                            System.out.printf("%-22s | %d | %,12.0f | %,12d%n", e.getKey(), t, 2e9 * t / n, n / 2);
                        }
                    }
                }
            }
        } finally {
            Dirs.delete(dir);
        }
    }

    private static long run(Op op, int threads, long millis) throws Exception {
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        try {
            long end = System.nanoTime() + millis * 1_000_000;
            List<Future<Long>> counts = new ArrayList<>();
            for (int t = 0; t < threads; t++) {
                counts.add(pool.submit(() -> {
                    long n = 0;
                    int i = 0;
                    while ((n & 255) != 0 || System.nanoTime() < end) {
                        op.run(i);
                        i = (i + 7) % RECORDS;
                        n++;
                    }
                    return n;
                }));
            }
            long total = 0;
            for (Future<Long> f : counts) {
                total += f.get();
            }
            return total;
        } finally {
            pool.shutdown();
        }
    }
}
