package org.rockcask.bench;

import java.nio.file.Path;
import org.rockcask.Message;
import org.rockcask.Store;
import org.rockcask.StoreOptions;
import org.rockcask.StoreStats;
import org.rockcask.Transaction;

/**
 * Queue steady state: a queue kept at a constant depth while every transaction polls `batch`
 * items and enqueues `batch` new ones (synced commits). Prints throughput per window of
 * `window` cycles and the store's disk use, so a slowdown from consumed entries would show.
 * Usage: {@code QueueSteadyState [cycles] [batch] [window]} (default 10000000 100 1000000).
 */
public final class QueueSteadyState {
    public static void main(String[] args) throws Exception {
        long cycles = args.length > 0 ? Long.parseLong(args[0]) : 10_000_000;
        int batch = args.length > 1 ? Integer.parseInt(args[1]) : 100;
        long window = args.length > 2 ? Long.parseLong(args[2]) : 1_000_000;
        int depth = 1_000;
        Path root = Dirs.benchRoot();
        DiskLimits disk = DiskLimits.measure(root);
        Path dir = root.resolve("steady-" + System.nanoTime());
        byte[] payload = new byte[64];
        System.out.println(String.format("Queue steady state: %d enqueue+poll cycles, transactions of %d, queue depth %d, 64-byte payloads, synced commits", cycles, batch, depth));
        System.out.println(disk);
        System.out.println(String.format("%8s %12s %14s %14s", "window", "cycles", "cycles/s", "disk MB"));
        double first = 0;
        double last = 0;
        try (Store store = Store.open(dir, StoreOptions.defaults())) {
            try (Transaction tx = store.begin()) {
                for (int i = 0; i < depth; i++) {
                    tx.enqueue("q", payload);
                }
                tx.commit();
            }
            long done = 0;
            int w = 0;
            while (done < cycles) {
                long t0 = System.nanoTime();
                long inWindow = 0;
                while (inWindow < window && done < cycles) {
                    try (Transaction tx = store.begin()) {
                        for (Message m : tx.poll("q", batch)) {
                            if (m.payload() == null) {
                                throw new AssertionError("lost payload of " + m.id());
                            }
                        }
                        for (int i = 0; i < batch; i++) {
                            tx.enqueue("q", payload);
                        }
                        tx.commit();
                    }
                    inWindow += batch;
                    done += batch;
                }
                double rate = inWindow / ((System.nanoTime() - t0) / 1e9);
                if (w == 0) {
                    first = rate;
                }
                last = rate;
                System.out.println(String.format("%8d %12d %14.0f %14.1f", ++w, done, rate, Dirs.size(dir) / 1e6));
            }
            StoreStats stats = store.stats();
            if (stats.queuedItems() != depth) {
                throw new AssertionError("queue depth drifted to " + stats.queuedItems());
            }
            System.out.println(String.format("last window / first window = %.3f; disk at end %.1f MB (%s)", last / first, Dirs.size(dir) / 1e6, stats));
        } finally {
            Dirs.delete(dir);
        }
    }
}
