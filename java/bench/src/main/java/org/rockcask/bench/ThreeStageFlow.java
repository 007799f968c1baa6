package org.rockcask.bench;

import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.LockSupport;
import org.rockcask.Message;
import org.rockcask.Store;
import org.rockcask.StoreMetrics;
import org.rockcask.StoreOptions;
import org.rockcask.Transaction;

/**
 * A three-stage flow on one store: a producer enqueues items on {@code in}, a transformer polls
 * them, rewrites each and enqueues the result on {@code out}, a consumer polls {@code out} and
 * checks every item arrived once, in order and transformed. Each firing is one synced
 * transaction of up to {@code batch} items. The same firings run two ways, alternately:
 * <ul>
 *   <li>one thread: producer, transformer, consumer in turn, so each commit waits for the one
 *       before it;
 *   <li>three threads, one per stage, so their commits can share a synced write (group
 *       commit).
 * </ul>
 * Items/s counts items the consumer committed, from the first firing to the last. Usage:
 * {@code ThreeStageFlow [items] [batch] [rounds] [inline]} (default 300000 100 3 0; {@code inline}
 * is the store's {@link StoreOptions#inlinePayloadBytes}, 1024 to keep every payload in its entry).
 */
public final class ThreeStageFlow {
    private static final int PAYLOAD_BYTES = 64;
    /** Items the producer may run ahead of the consumer, so the queues stay shallow. */
    private static final long MAX_IN_FLIGHT = 20 * 100;
    /** The stores' {@link StoreOptions#inlinePayloadBytes}. */
    private static int inlinePayloadBytes;

    public static void main(String[] args) throws Exception {
        long items = args.length > 0 ? Long.parseLong(args[0]) : 300_000;
        int batch = args.length > 1 ? Integer.parseInt(args[1]) : 100;
        int rounds = args.length > 2 ? Integer.parseInt(args[2]) : 3;
        inlinePayloadBytes = args.length > 3 ? Integer.parseInt(args[3]) : 0;
        if (items < 1 || batch < 1 || rounds < 1 || items % batch != 0) {
            throw new IllegalArgumentException("items, batch and rounds must be positive and items a multiple of batch");
        }
        Path root = Dirs.benchRoot();
        DiskLimits disk = DiskLimits.measure(root);
        System.out.println(String.format(
                "Three-stage flow: %,d items of %d bytes, producer -> transformer -> consumer, each firing one synced transaction of %d; payloads %s",
                items, PAYLOAD_BYTES, batch, inlinePayloadBytes >= PAYLOAD_BYTES ? "inline" : "in objects"));
        System.out.println(disk);
        System.out.println("cores: the process's CPU time over the run's wall time (RocksDB's background threads included);");
        System.out.println("group: commits per synced write (mean); sync: microseconds per synced write (mean), from store.metrics()");
        System.out.println(String.format("%6s %20s %6s %6s %6s %22s %6s %6s %6s %8s", "round", "one thread items/s", "cores", "group", "sync", "three threads items/s", "cores", "group", "sync", "ratio"));
        double[] one = new double[rounds];
        double[] three = new double[rounds];
        for (int r = 0; r < rounds; r++) {
            Result single = run(root, items, batch, false);
            Result threaded = run(root, items, batch, true);
            one[r] = single.itemsPerSecond;
            three[r] = threaded.itemsPerSecond;
            System.out.println(String.format("%6d %,20.0f %6.2f %6.2f %6.0f %,22.0f %6.2f %6.2f %6.0f %7.2fx", r + 1,
                    one[r], single.coresBusy, single.groupSize, single.syncMicros,
                    three[r], threaded.coresBusy, threaded.groupSize, threaded.syncMicros, three[r] / one[r]));
        }
        double oneMedian = Median.of(one);
        double threeMedian = Median.of(three);
        System.out.println(String.format("%6s %,20.0f %6s %6s %6s %,22.0f %6s %6s %6s %7.2fx", "median", oneMedian, "", "", "", threeMedian, "", "", "", threeMedian / oneMedian));
        System.out.println(DiskLimits.measure(root));
    }

    /**
     * Items consumed per second, the CPU cores the process kept busy meanwhile, and the store's
     * mean group commit size and synced write time.
     */
    private static final class Result {
        final double itemsPerSecond;
        final double coresBusy;
        final double groupSize;
        final double syncMicros;

        Result(double itemsPerSecond, double coresBusy, StoreMetrics metrics) {
            this.itemsPerSecond = itemsPerSecond;
            this.coresBusy = coresBusy;
            this.groupSize = metrics.groupCommitSize().mean();
            this.syncMicros = metrics.syncedWriteNanos().mean() / 1e3;
        }
    }

    /** One flow of {@code items} on a fresh store. */
    private static Result run(Path root, long items, int batch, boolean threaded) throws Exception {
        Path dir = root.resolve("three-stage-" + System.nanoTime());
        try (Store store = Store.open(dir, StoreOptions.defaults().inlinePayloadBytes(inlinePayloadBytes))) {
            Stages stages = new Stages(store, items, batch);
            long cpu0 = cpuNanos();
            long t0 = System.nanoTime();
            if (threaded) {
                stages.runOnThreads();
            } else {
                stages.runInTurn();
            }
            long wall = System.nanoTime() - t0;
            long cpu = cpuNanos() - cpu0;
            stages.checkDrained();
            return new Result(items / (wall / 1e9), (double) cpu / wall, store.metrics());
        } finally {
            Dirs.delete(dir);
        }
    }

    private static long cpuNanos() {
        return ProcessHandle.current().info().totalCpuDuration().orElseThrow(() -> new IllegalStateException("no CPU time for this process")).toNanos();
    }

    /** The three stages' firings and what they have done so far. */
    private static final class Stages {
        private final Store store;
        private final long items;
        private final int batch;
        private long produced;
        private long transformed;
        private final AtomicLong consumed = new AtomicLong();
        private final AtomicReference<Throwable> failure = new AtomicReference<>();

        Stages(Store store, long items, int batch) {
            this.store = store;
            this.items = items;
            this.batch = batch;
        }

        void runInTurn() {
            while (consumed.get() < items) {
                produce();
                transform(Duration.ZERO);
                consume(Duration.ZERO);
            }
        }

        void runOnThreads() throws Exception {
            List<Thread> threads = new ArrayList<>();
            threads.add(stage("producer", () -> {
                while (produced < items && failure.get() == null) {
                    while (produced - consumed.get() >= MAX_IN_FLIGHT && failure.get() == null) {
                        LockSupport.parkNanos(50_000);
                    }
                    produce();
                }
            }));
            threads.add(stage("transformer", () -> {
                while (transformed < items && failure.get() == null) {
                    transform(Duration.ofSeconds(30));
                }
            }));
            threads.add(stage("consumer", () -> {
                while (consumed.get() < items && failure.get() == null) {
                    consume(Duration.ofSeconds(30));
                }
            }));
            for (Thread t : threads) {
                t.join();
            }
            if (failure.get() != null) {
                throw new AssertionError("a stage failed", failure.get());
            }
        }

        private Thread stage(String name, Runnable body) {
            Thread t = new Thread(() -> {
                try {
                    body.run();
                } catch (Throwable e) {
                    failure.compareAndSet(null, e);
                    throw e;
                }
            }, "three-stage-" + name);
            t.start();
            return t;
        }

        /** Enqueues the next batch of items on {@code in}, each payload its sequence number. */
        private void produce() {
            try (Transaction tx = store.begin()) {
                for (int i = 0; i < batch; i++) {
                    byte[] payload = new byte[PAYLOAD_BYTES];
                    ByteBuffer.wrap(payload).putLong(produced + i);
                    tx.enqueue("in", payload);
                }
                tx.commit();
            }
            produced += batch;
        }

        /**
         * Moves up to a batch from {@code in} to {@code out}, each payload's sequence number
         * negated (the transformation the consumer checks). Waits up to {@code wait} for the
         * first item.
         */
        private void transform(Duration wait) {
            try (Transaction tx = store.begin()) {
                List<Message> got = firing(tx, "in", wait);
                if (got.isEmpty()) {
                    return;
                }
                for (Message m : got) {
                    byte[] payload = m.payload().clone();
                    ByteBuffer b = ByteBuffer.wrap(payload);
                    b.putLong(0, -b.getLong(0) - 1);
                    tx.enqueue("out", payload);
                }
                tx.commit();
                transformed += got.size();
            }
        }

        /** Polls up to a batch from {@code out} and checks each is the next one, transformed. */
        private void consume(Duration wait) {
            try (Transaction tx = store.begin()) {
                List<Message> got = firing(tx, "out", wait);
                if (got.isEmpty()) {
                    return;
                }
                long next = consumed.get();
                for (Message m : got) {
                    long seq = -ByteBuffer.wrap(m.payload()).getLong(0) - 1;
                    if (seq != next) {
                        throw new AssertionError("consumer expected item " + next + " and got " + seq);
                    }
                    next++;
                }
                tx.commit();
                consumed.set(next);
            }
        }

        /** The items of one firing: the first waited for (up to {@code wait}), then the rest of a batch. */
        private List<Message> firing(Transaction tx, String queue, Duration wait) {
            if (wait.isZero()) {
                return tx.poll(queue, batch);
            }
            Message first = tx.take(queue, wait);
            if (first == null) {
                if (failure.get() != null) {
                    return new ArrayList<>();
                }
                throw new AssertionError("nothing arrived on " + queue + " for " + wait);
            }
            List<Message> got = new ArrayList<>(batch);
            got.add(first);
            if (batch > 1) {
                got.addAll(tx.poll(queue, batch - 1));
            }
            return got;
        }

        void checkDrained() {
            try (Transaction tx = store.begin()) {
                if (!tx.peek("in", 1).isEmpty() || !tx.peek("out", 1).isEmpty()) {
                    throw new AssertionError("items left in the flow's queues after every item was consumed");
                }
            }
            if (produced != items || transformed != items || consumed.get() != items) {
                throw new AssertionError("produced " + produced + ", transformed " + transformed + ", consumed " + consumed.get() + " of " + items);
            }
        }
    }
}
