package org.rockcask.examples;

import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.time.Duration;
import java.util.BitSet;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.Stream;
import org.rockcask.ExportOptions;
import org.rockcask.ImportOptions;
import org.rockcask.Message;
import org.rockcask.SnapshotInfo;
import org.rockcask.Store;
import org.rockcask.StoreOptions;
import org.rockcask.Transaction;

/**
 * A small Meandre-like flow on one RockCask store: producer -> transformer -> consumer.
 * Each output port is a durable queue; each firing of a component is one transaction (take
 * inputs, push outputs, commit), so a crash at any point neither loses nor duplicates an item.
 * Half-way through, the node's state is saved to a snapshot file while the components keep
 * firing, and at the end restored into a new store and checked: no item in two places.
 *
 * <p>Usage: {@code FlowDemo [items] [storeDir]} (default 200000 items, ./flow-store).
 */
public final class FlowDemo {
    static final String PRODUCED = "producer.out";
    static final String TRANSFORMED = "transformer.out";
    static final int FIRING_BATCH = 100;

    public static void main(String[] args) throws Exception {
        int items = args.length > 0 ? Integer.parseInt(args[0]) : 200_000;
        Path dir = Paths.get(args.length > 1 ? args[1] : "flow-store").toAbsolutePath();
        deleteRecursively(dir);
        AtomicLong produced = new AtomicLong();
        AtomicLong transformed = new AtomicLong();
        AtomicLong consumed = new AtomicLong();
        BitSet seen = new BitSet(items);
        long[] duplicates = {0};

        try (Store store = Store.open(dir, StoreOptions.defaults())) {
            Thread producer = component("producer", () -> {
                // One firing: emit a batch of records, committed together.
                try (Transaction tx = store.begin()) {
                    long start = produced.get();
                    long end = Math.min(items, start + FIRING_BATCH);
                    for (long i = start; i < end; i++) {
                        tx.enqueue(PRODUCED, ByteBuffer.allocate(12).putInt((int) i).putLong(i * i).array());
                    }
                    tx.commit();
                    produced.set(end);
                    return end < items;
                }
            });
            Thread transformer = component("transformer", () -> {
                // One firing: take inputs, push transformed outputs, commit — an atomic move.
                try (Transaction tx = store.begin()) {
                    Message first = tx.take(PRODUCED, Duration.ofMillis(200));
                    if (first == null) {
                        return transformed.get() < items;
                    }
                    List<Message> rest = tx.poll(PRODUCED, FIRING_BATCH - 1);
                    int n = 1 + rest.size();
                    tx.enqueue(TRANSFORMED, transform(first.payload()));
                    for (Message m : rest) {
                        tx.enqueue(TRANSFORMED, transform(m.payload()));
                    }
                    tx.commit();
                    return transformed.addAndGet(n) < items;
                }
            });
            Thread consumer = component("consumer", () -> {
                try (Transaction tx = store.begin()) {
                    Message first = tx.take(TRANSFORMED, Duration.ofMillis(200));
                    if (first == null) {
                        return consumed.get() < items;
                    }
                    List<Message> rest = tx.poll(TRANSFORMED, FIRING_BATCH - 1);
                    tx.commit();
                    synchronized (seen) {
                        check(first.payload(), seen, duplicates);
                        for (Message m : rest) {
                            check(m.payload(), seen, duplicates);
                        }
                    }
                    return consumed.addAndGet(1 + rest.size()) < items;
                }
            });
            long t0 = System.nanoTime();
            for (Thread t : new Thread[] {producer, transformer, consumer}) {
                t.start();
            }
            Path snapshot = dir.resolveSibling(dir.getFileName() + ".rcs");
            SnapshotInfo saved = null;
            while (consumer.isAlive()) {
                consumer.join(500);
                if (saved == null && produced.get() >= items / 2) {
                    // Save the node's state while the components keep firing: the file holds
                    // the store at one instant, each firing's move entirely or not at all.
                    saved = store.exportTo(snapshot, ExportOptions.defaults().overwrite(true));
                    System.out.printf("  snapshot taken mid-flow: %,d items in flight, %,d bytes%n", saved.entries(), saved.fileBytes());
                }
                double s = (System.nanoTime() - t0) / 1e9;
                System.out.printf("  %6.1f s  produced %,9d  transformed %,9d  consumed %,9d  (%,.0f items/s end to end)%n", s, produced.get(),
                        transformed.get(), consumed.get(), consumed.get() / s);
            }
            producer.join();
            transformer.join();
            double seconds = (System.nanoTime() - t0) / 1e9;
            System.out.printf("flow finished in %.1f s; queues left: %s=%d, %s=%d; %s%n", seconds, PRODUCED, store.queueSize(PRODUCED),
                    TRANSFORMED, store.queueSize(TRANSFORMED), store.stats());
            long restoredTwice = restoreAndCountDuplicates(snapshot, dir.resolveSibling(dir.getFileName() + "-restored"));
            boolean ok = seen.cardinality() == items && duplicates[0] == 0 && store.queueSize(PRODUCED) == 0 && store.queueSize(TRANSFORMED) == 0
                    && saved != null && restoredTwice == 0;
            System.out.printf("CHECK %s: %,d produced, %,d distinct consumed, %d duplicates, %d missing; mid-flow snapshot restored, "
                    + "%d items in two places%n", ok ? "OK" : "FAILED", items, seen.cardinality(), duplicates[0], items - seen.cardinality(), restoredTwice);
            if (!ok) {
                System.exit(1);
            }
        } finally {
            deleteRecursively(dir);
        }
    }

    /**
     * Restores a snapshot into a new store (as when moving a node's state elsewhere) and counts
     * items found both before and after the transformer: none if the snapshot held whole
     * firings only.
     */
    static long restoreAndCountDuplicates(Path snapshot, Path copyDir) throws java.io.IOException {
        deleteRecursively(copyDir);
        try {
            Store.importFrom(snapshot, copyDir, ImportOptions.defaults());
            BitSet found = new BitSet();
            long twice = 0;
            try (Store copy = Store.open(copyDir, StoreOptions.defaults()); Transaction tx = copy.begin()) {
                for (String queue : new String[] {PRODUCED, TRANSFORMED}) {
                    for (Message m : tx.peek(queue, (int) Math.max(1, copy.queueSize(queue)))) {
                        int index = ByteBuffer.wrap(m.payload()).getInt();
                        twice += found.get(index) ? 1 : 0;
                        found.set(index);
                    }
                }
            }
            System.out.printf("  restored the snapshot into a new store: %,d items in flight, %d in two places%n", found.cardinality(), twice);
            return twice;
        } finally {
            deleteRecursively(copyDir);
            Files.deleteIfExists(snapshot);
        }
    }

    /** The transformer's work: keep the record number, replace the value by its square root. */
    static byte[] transform(byte[] in) {
        ByteBuffer b = ByteBuffer.wrap(in);
        int index = b.getInt();
        long square = b.getLong();
        return ByteBuffer.allocate(12).putInt(index).putDouble(Math.sqrt((double) square)).array();
    }

    static void check(byte[] payload, BitSet seen, long[] duplicates) {
        ByteBuffer b = ByteBuffer.wrap(payload);
        int index = b.getInt();
        if (b.getDouble() != index) {
            throw new AssertionError("item " + index + " was not transformed correctly");
        }
        if (seen.get(index)) {
            duplicates[0]++;
        }
        seen.set(index);
    }

    interface Firing {
        /** Fires once; returns whether the component has more work. */
        boolean fire() throws Exception;
    }

    static Thread component(String name, Firing firing) {
        Thread t = new Thread(() -> {
            try {
                while (firing.fire()) {
                    // keep firing
                }
            } catch (Exception e) {
                throw new RuntimeException(name + " failed", e);
            }
        }, name);
        t.setUncaughtExceptionHandler((th, e) -> {
            e.printStackTrace();
            System.exit(2);
        });
        return t;
    }

    static void deleteRecursively(Path dir) throws java.io.IOException {
        if (Files.exists(dir)) {
            try (Stream<Path> s = Files.walk(dir)) {
                for (Path p : (Iterable<Path>) s.sorted(Comparator.reverseOrder())::iterator) {
                    Files.delete(p);
                }
            }
        }
    }
}
