package org.rockcask.bench.peers;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.UUID;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

/**
 * The flow workloads of the peer benchmark, at a scale (1 = the full sizes, 0.01 = a smoke
 * run with 1/100 of the items and transactions). Each returns its rows (label -> rate) and
 * checks what it read back, throwing if a peer lost or changed anything.
 */
enum PeerWorkload {
    QUEUE("queue", "Queue cycles: a queue at depth 1,000; each synced transaction polls 100 and enqueues 100 payloads of 64 bytes",
            "items moved/s", "2g") {
        @Override
        Map<String, Double> run(Peer peer, double scale) throws Exception {
            int depth = 1_000;
            int perTransaction = 100;
            int transactions = scaled(10_000, scale);
            Random random = new Random(1);
            byte[][] payloads = new byte[perTransaction][64];
            for (byte[] p : payloads) {
                random.nextBytes(p);
            }
            peer.fillQueue(depth, payloads[0]);
            // Warm-up (JIT, the store's first flushes), not timed.
            cycles(peer, Math.max(10, transactions / 10), payloads);
            long t0 = System.nanoTime();
            cycles(peer, transactions, payloads);
            double seconds = (System.nanoTime() - t0) / 1e9;
            check("drained bytes", peer.cycle(depth, new byte[0][]), (long) depth * 64);
            return row(String.format("%,d transactions of %d+%d", transactions, perTransaction, perTransaction),
                    (double) transactions * perTransaction / seconds);
        }

        private void cycles(Peer peer, int transactions, byte[][] payloads) throws Exception {
            for (int t = 0; t < transactions; t++) {
                check("polled bytes", peer.cycle(payloads.length, payloads), (long) payloads.length * 64);
            }
        }
    },

    SEED1("seed1", "Seed experiment 1: N items (each a UUID's 36-character string) enqueued in one synced transaction", "items/s", "2g") {
        @Override
        Map<String, Double> run(Peer peer, double scale) throws Exception {
            seconds(peer, scaled(10_000, scale));
            seconds(peer, scaled(10_000, scale));
            Map<String, Double> rows = new LinkedHashMap<>();
            for (int full : new int[] {100, 1_000, 10_000, 100_000}) {
                int n = scaled(full, scale);
                int reps = n <= 100 ? 30 : n <= 10_000 ? 8 : 4;
                double total = 0;
                for (int r = 0; r < reps; r++) {
                    total += seconds(peer, n);
                }
                rows.put(String.format("N = %,d (%d reps)", n, reps), n / (total / reps));
            }
            return rows;
        }

        /** Seconds of one transaction of {@code n} items; the queue is drained (untimed) and checked afterwards. */
        private double seconds(Peer peer, int n) throws Exception {
            byte[][] payloads = new byte[n][];
            for (int i = 0; i < n; i++) {
                payloads[i] = UUID.randomUUID().toString().getBytes(StandardCharsets.US_ASCII);
            }
            long t0 = System.nanoTime();
            peer.enqueueAll(payloads);
            double seconds = (System.nanoTime() - t0) / 1e9;
            check("drained bytes", peer.cycle(n, new byte[0][]), 36L * n);
            return seconds;
        }
    },

    COMPONENTS("components", "Concurrent components: T threads, each cycling its own queue of one store (depth 1,000; each synced"
            + " transaction polls 100 and enqueues 100 payloads of 64 bytes), committing at once as the store's documentation recommends",
            "items moved/s", "2g") {
        @Override
        Map<String, Double> run(Peer peer, double scale) throws Exception {
            int depth = 1_000;
            int perTransaction = 100;
            byte[][] payloads = new byte[perTransaction][64];
            Random random = new Random(1);
            for (byte[] p : payloads) {
                random.nextBytes(p);
            }
            Map<String, Double> rows = new LinkedHashMap<>();
            int firstQueue = 0;
            for (int threads : THREADS) {
                // The same transactions in all at every T, shared among the threads.
                int perThread = Math.max(1, scaled(10_000, scale) / threads);
                List<Peer.Component> components = peer.components(firstQueue, threads);
                firstQueue += threads;
                for (Peer.Component c : components) {
                    c.fill(depth, payloads[0]);
                }
                // Warm-up (JIT, the store's first flushes), not timed.
                concurrently(components, Math.max(10, perThread / 10), payloads);
                long t0 = System.nanoTime();
                concurrently(components, perThread, payloads);
                double seconds = (System.nanoTime() - t0) / 1e9;
                for (Peer.Component c : components) {
                    check("drained bytes", c.cycle(depth, new byte[0][]), (long) depth * 64);
                }
                rows.put(String.format("T = %d, %,d transactions of %d+%d each", threads, perThread, perTransaction, perTransaction),
                        (double) threads * perThread * perTransaction / seconds);
            }
            return rows;
        }

        /** Each component cycles {@code transactions} times on a thread of its own, all started together; returns when all are done. */
        private void concurrently(List<Peer.Component> components, int transactions, byte[][] payloads) throws Exception {
            ExecutorService pool = Executors.newFixedThreadPool(components.size());
            CyclicBarrier start = new CyclicBarrier(components.size());
            try {
                List<Future<?>> runs = new ArrayList<>();
                for (Peer.Component c : components) {
                    runs.add(pool.submit(() -> {
                        start.await();
                        for (int t = 0; t < transactions; t++) {
                            check("polled bytes", c.cycle(payloads.length, payloads), (long) payloads.length * 64);
                        }
                        return null;
                    }));
                }
                for (Future<?> f : runs) {
                    f.get();
                }
            } finally {
                pool.shutdownNow();
            }
        }
    },

    READS("reads", "Random reads: objects of 256 bytes under random UUIDs, loaded by another JVM, warm, every id once in a shuffled order,"
            + " 1,000 reads per read transaction (one by one, then batched where the store has a call for many keys), -Xmx128m", "reads/s", "128m") {
        @Override
        boolean loadsFirst() {
            return true;
        }

        @Override
        void load(Peer peer, double scale) throws Exception {
            int n = scaled(1_000_000, scale);
            Ids ids = new Ids(n);
            Random random = new Random(2);
            // A batch at a time: the payloads of all objects would not fit in the heap.
            for (int from = 0; from < n; from += Peer.PUT_BATCH) {
                int count = Math.min(Peer.PUT_BATCH, n - from);
                byte[][] payloads = new byte[count][OBJECT_BYTES];
                for (byte[] p : payloads) {
                    random.nextBytes(p);
                }
                peer.putObjects(ids.batch(from, count), payloads);
            }
        }

        @Override
        Map<String, Double> run(Peer peer, double scale) throws Exception {
            int n = scaled(1_000_000, scale);
            Ids ids = new Ids(n);
            check("warm-up bytes", readAll(peer, ids, false), (long) n * OBJECT_BYTES);
            Map<String, Double> rows = new LinkedHashMap<>();
            ids.shuffle(new Random(3));
            rows.put(String.format("%,d objects, one get per id", n), n / timed(peer, ids, false));
            ids.shuffle(new Random(4));
            rows.put(String.format("%,d objects, batched", n), n / timed(peer, ids, true));
            rows.put(RESIDENT_ROW, residentMegabytes());
            return rows;
        }

        /** The reading JVM's resident memory (heap, native caches, mapped pages touched), from /proc. */
        private double residentMegabytes() throws Exception {
            for (String line : java.nio.file.Files.readAllLines(java.nio.file.Path.of("/proc/self/status"))) {
                if (line.startsWith("VmRSS:")) {
                    return Long.parseLong(line.replaceAll("[^0-9]", "")) / 1024.0;
                }
            }
            throw new IllegalStateException("no VmRSS in /proc/self/status");
        }

        /** Seconds to read every id once, checked. */
        private double timed(Peer peer, Ids ids, boolean batched) throws Exception {
            long t0 = System.nanoTime();
            long bytes = readAll(peer, ids, batched);
            double seconds = (System.nanoTime() - t0) / 1e9;
            check("bytes read", bytes, (long) ids.count() * OBJECT_BYTES);
            return seconds;
        }

        /** Every id, one read transaction per 1,000. */
        private long readAll(Peer peer, Ids ids, boolean batched) throws Exception {
            long bytes = 0;
            for (int from = 0; from < ids.count(); from += READS_PER_TRANSACTION) {
                int count = Math.min(READS_PER_TRANSACTION, ids.count() - from);
                UUID[] batch = ids.batch(from, count);
                bytes += batched ? peer.readObjectsBatched(batch, READS_PER_TRANSACTION) : peer.readObjects(batch, READS_PER_TRANSACTION);
            }
            return bytes;
        }
    };

    static final int OBJECT_BYTES = 256;
    /** The concurrent components' thread counts. */
    static final int[] THREADS = {1, 2, 4, 8, 16};
    /**
     * The cache of values in front of RocksDB that both RocksDB-based peers get, sized to hold
     * the random reads' 10^6 objects (about 350 MB charged): RockCask's object cache
     * ({@code StoreOptions.objectCacheBytes}), RocksDB's row cache for RocksJava
     * ({@code DBOptions.setRowCache}), each store's documented setting for point reads of data
     * that fits in memory. LMDB reads the OS page cache through its mapping of the whole file.
     */
    static final long VALUE_CACHE_BYTES = 512L << 20;
    static final int READS_PER_TRANSACTION = 1_000;
    /** A size, not a rate: above 1.00x the peer holds more memory. */
    static final String RESIDENT_ROW = "resident MB of the reading JVM after the reads (a size: less is less memory)";

    /**
     * The random reads' ids, the same in the loading and the reading JVM (one seed), held as
     * two longs each (16 MB for 10^6) so that the reading JVM's small heap is the peer's.
     */
    private static final class Ids {
        private final long[] msb;
        private final long[] lsb;

        Ids(int n) {
            msb = new long[n];
            lsb = new long[n];
            Random random = new Random(1);
            for (int i = 0; i < n; i++) {
                msb[i] = random.nextLong();
                lsb[i] = random.nextLong();
            }
        }

        int count() {
            return msb.length;
        }

        UUID[] batch(int from, int count) {
            UUID[] out = new UUID[count];
            for (int i = 0; i < count; i++) {
                out[i] = new UUID(msb[from + i], lsb[from + i]);
            }
            return out;
        }

        void shuffle(Random random) {
            for (int i = msb.length - 1; i > 0; i--) {
                int j = random.nextInt(i + 1);
                long m = msb[i];
                long l = lsb[i];
                msb[i] = msb[j];
                lsb[i] = lsb[j];
                msb[j] = m;
                lsb[j] = l;
            }
        }
    }

    final String key;
    final String title;
    final String unit;
    /** The child JVM's -Xmx. */
    final String heap;

    PeerWorkload(String key, String title, String unit, String heap) {
        this.key = key;
        this.title = title;
        this.unit = unit;
        this.heap = heap;
    }

    /** The heap of the JVM that loads the store when the workload {@link #loadsFirst()}. */
    static final String LOAD_HEAP = "2g";

    /** Runs the workload on an open peer (empty, or as {@link #load} left it); label -> rate, in the table's row order. */
    abstract Map<String, Double> run(Peer peer, double scale) throws Exception;

    /** Whether the store is loaded by a JVM of its own (with {@link #LOAD_HEAP}) before the measured one opens it. */
    boolean loadsFirst() {
        return false;
    }

    /** Fills the store for {@link #run}, in the loading JVM. */
    void load(Peer peer, double scale) throws Exception {}

    static PeerWorkload byKey(String key) {
        for (PeerWorkload w : values()) {
            if (w.key.equals(key)) {
                return w;
            }
        }
        throw new IllegalArgumentException("no workload " + key + " (queue, components, seed1, reads)");
    }

    static int scaled(int full, double scale) {
        return (int) Math.max(1, Math.round(full * scale));
    }

    static Map<String, Double> row(String label, double rate) {
        Map<String, Double> rows = new LinkedHashMap<>();
        rows.put(label, rate);
        return rows;
    }

    static void check(String what, long got, long expected) {
        if (got != expected) {
            throw new IllegalStateException(what + ": " + got + ", expected " + expected);
        }
    }
}
