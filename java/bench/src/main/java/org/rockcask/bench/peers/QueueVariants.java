package org.rockcask.bench.peers;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.rockcask.StoreOptions;
import org.rockcask.bench.Dirs;
import org.rockcask.bench.Median;

/**
 * The queue-cycle workload ({@link PeerWorkload#QUEUE}: depth 1,000, each synced transaction
 * polls 100 and enqueues 100 payloads of 64 bytes, one thread) on RockCask under pairs of store
 * options, to measure what an option costs (metrics, delivery tracking). The two variants of a pair run in turns in this one
 * JVM, round after round, each on a fresh store, the order swapped every round, so that the
 * disk's drift and noise fall on both alike; the table gives each variant's median and range and
 * the ratio of the medians.
 *
 * <p>Arguments: rounds (default 9) and the workload's scale (default 0.2: 2,000 transactions
 * timed per run). Add a comparison to {@link #PAIRS}.
 */
public final class QueueVariants {
    /** RockCask under one set of options. */
    static final class Variant {
        final String name;
        final StoreOptions options;

        Variant(String name, StoreOptions options) {
            this.name = name;
            this.options = options;
        }
    }

    /**
     * Each comparison: the variant measured, then the one it is measured against. Without sync
     * the disk no longer hides what the CPU pays. Delivery tracking is on for a queue with a
     * delivery limit (here every queue's, from the store's default): each poll then records its
     * deliveries in the WAL.
     */
    static final List<Variant[]> PAIRS = Arrays.asList(
            new Variant[] {new Variant("metrics on", StoreOptions.defaults()), new Variant("metrics off", StoreOptions.defaults().metrics(false))},
            new Variant[] {new Variant("metrics on, no sync", StoreOptions.defaults().syncOnCommit(false)),
                new Variant("metrics off, no sync", StoreOptions.defaults().syncOnCommit(false).metrics(false))},
            new Variant[] {new Variant("tracking on", StoreOptions.defaults().maxDeliveries(5)), new Variant("tracking off", StoreOptions.defaults())},
            new Variant[] {new Variant("tracking on, no sync", StoreOptions.defaults().syncOnCommit(false).maxDeliveries(5)),
                new Variant("tracking off, no sync", StoreOptions.defaults().syncOnCommit(false))});

    private QueueVariants() {}

    public static void main(String[] args) throws Exception {
        int rounds = args.length > 0 ? Integer.parseInt(args[0]) : 9;
        double scale = args.length > 1 ? Double.parseDouble(args[1]) : 0.2;
        Path root = Dirs.benchRoot().resolve("queue-variants");
        System.out.println(PeerWorkload.QUEUE.title + String.format(" (scale %.2f, %d rounds, order swapped each round)", scale, rounds));
        System.out.println();
        System.out.println(String.format("%-28s %14s %14s %14s   %s", "variant", "median", "min", "max", PeerWorkload.QUEUE.unit));
        for (Variant[] pair : PAIRS) {
            Map<Variant, List<Double>> rates = new LinkedHashMap<>();
            for (Variant v : pair) {
                rates.put(v, new ArrayList<>());
            }
            for (int round = 0; round < rounds; round++) {
                List<Variant> order = new ArrayList<>(Arrays.asList(pair));
                if (round % 2 == 1) {
                    Collections.reverse(order);
                }
                for (Variant v : order) {
                    rates.get(v).add(run(v, root.resolve("round-" + round), scale));
                }
            }
            for (Variant v : pair) {
                List<Double> r = rates.get(v);
                System.out.println(String.format("%-28s %,14.0f %,14.0f %,14.0f", v.name, Median.of(r), Collections.min(r), Collections.max(r)));
            }
            double ratio = Median.of(rates.get(pair[0])) / Median.of(rates.get(pair[1]));
            System.out.println(String.format("%-28s %14.3f   (%s is %.1f%% %s)", pair[0].name + " / " + pair[1].name, ratio, pair[0].name,
                    Math.abs(1 - ratio) * 100, ratio < 1 ? "slower" : "faster"));
            System.out.println();
        }
    }

    /** One run of the workload on a fresh store; its rate. */
    private static double run(Variant v, Path dir, double scale) throws Exception {
        Dirs.delete(dir);
        try (RockCaskPeer peer = new RockCaskPeer(dir, false, v.options)) {
            return PeerWorkload.QUEUE.run(peer, scale).values().iterator().next();
        } finally {
            Dirs.delete(dir);
        }
    }

}
