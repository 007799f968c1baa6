package org.rockcask.bench.peers;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.rockcask.bench.ChildJvm;
import org.rockcask.bench.DiskLimits;
import org.rockcask.bench.Dirs;

/**
 * The peer benchmark: every (workload, peer) pair in a child JVM of its own ({@link PeerRun}),
 * back to back, then one table per workload ({@link PeerTable}) between the disk limits measured
 * before and after the run.
 *
 * <p>Arguments, all optional: {@code quick} (1/100 of the items and transactions: a smoke run),
 * {@code scale=X} (default 1: the full sizes), {@code workloads=queue,components,seed1,reads} and
 * {@code peers=NAME,...} (names as the tables print them, case, spaces and punctuation ignored:
 * {@code peers=rockcask,rockcaskputid,lmdb}) and {@code rounds=N} (default 1: each pair runs N
 * times, the peers' order reversed every other round, and each cell is the median of its rounds,
 * so that no peer owes its figure to its place in the run). The children's classpath is the
 * system property {@code rockcask.bench.classpath} (else this JVM's).
 */
public final class PeerBenchmark {
    /** More rounds than this would run for hours: a typo, not a plan. */
    private static final int MAX_ROUNDS = 99;

    private PeerBenchmark() {}

    public static void main(String[] args) throws Exception {
        double scale = 1;
        int rounds = 1;
        List<PeerWorkload> workloads = new ArrayList<>(Arrays.asList(PeerWorkload.values()));
        List<String> peers = new ArrayList<>(Peers.all().keySet());
        for (String arg : args) {
            if (arg.equals("quick")) {
                scale = 0.01;
            } else if (arg.startsWith("scale=")) {
                scale = Double.parseDouble(arg.substring("scale=".length()));
            } else if (arg.startsWith("workloads=")) {
                workloads.clear();
                for (String w : arg.substring("workloads=".length()).split(",")) {
                    workloads.add(PeerWorkload.byKey(w));
                }
            } else if (arg.startsWith("rounds=")) {
                rounds = Integer.parseInt(arg.substring("rounds=".length()));
                if (rounds < 1 || rounds > MAX_ROUNDS) {
                    throw new IllegalArgumentException("rounds=" + rounds + ": between 1 and " + MAX_ROUNDS);
                }
            } else if (arg.startsWith("peers=")) {
                peers = choosePeers(arg.substring("peers=".length()).split(","));
            } else {
                throw new IllegalArgumentException("unknown argument " + arg + " (quick, scale=X, workloads=queue,components,seed1,reads, peers=NAME,..., rounds=N)");
            }
        }

        Path root = Dirs.benchRoot();
        System.out.println(String.format("Peer benchmark, scale %s: java %s, %d cores, dir %s", scale, System.getProperty("java.version"),
                Runtime.getRuntime().availableProcessors(), root));
        String diskBefore = DiskLimits.measure(root).toString();
        System.out.println("before: " + diskBefore);

        long start = System.nanoTime();
        int planned = workloads.size() * peers.size() * rounds;
        int done = 0;
        Map<PeerWorkload, Map<String, PeerResult>> results = new LinkedHashMap<>();
        for (PeerWorkload workload : workloads) {
            Map<String, List<PeerResult>> byPeer = new LinkedHashMap<>();
            peers.forEach(peer -> byPeer.put(peer, new ArrayList<>()));
            for (int round = 0; round < rounds; round++) {
                List<String> order = new ArrayList<>(peers);
                if (round % 2 == 1) {
                    Collections.reverse(order);
                }
                for (String peer : order) {
                    done++;
                    System.out.println(String.format("[%d/%d] %s / %s%s (elapsed %.0f s)", done, planned, workload.key, peer,
                            rounds > 1 ? ", round " + (round + 1) : "", (System.nanoTime() - start) / 1e9));
                    long t0 = System.nanoTime();
                    PeerResult r = run(root, workload, peer, scale);
                    System.out.println(String.format("        %.1f s: %s", (System.nanoTime() - t0) / 1e9, r.error != null ? r.error : summary(r.rows)));
                    byPeer.get(peer).add(r);
                }
            }
            Map<String, PeerResult> medians = new LinkedHashMap<>();
            byPeer.forEach((peer, runs) -> medians.put(peer, PeerResult.median(runs)));
            results.put(workload, medians);
        }
        String diskAfter = DiskLimits.measure(root).toString();

        String baseline = results.isEmpty() ? null : PeerTable.baseline(results.values().iterator().next().keySet());
        System.out.println();
        System.out.println(String.format("Peer benchmark, scale %s, %.0f s; each cell: %s (ratio to %s; above 1.00x the peer is faster)", scale,
                (System.nanoTime() - start) / 1e9, rounds > 1 ? "median rate of " + rounds + " rounds, the order reversed every other round" : "rate",
                baseline == null ? "no RockCask column: none ran" : baseline));
        System.out.println("before: " + diskBefore);
        System.out.println("after:  " + diskAfter);
        results.forEach((workload, byPeer) -> {
            System.out.println();
            System.out.print(PeerTable.format(workload, byPeer));
        });
    }

    private static String summary(Map<String, Double> rows) {
        StringBuilder b = new StringBuilder();
        rows.forEach((label, rate) -> b.append(b.length() == 0 ? "" : "; ").append(label).append(String.format(": %,.0f", rate)));
        return b.toString();
    }

    private static List<String> choosePeers(String[] wanted) {
        List<String> chosen = new ArrayList<>();
        for (String w : wanted) {
            String found = null;
            for (String name : Peers.all().keySet()) {
                if (normalized(name).equals(normalized(w))) {
                    found = name;
                }
            }
            if (found == null) {
                throw new IllegalArgumentException("no peer " + w + " (" + Peers.all().keySet() + ")");
            }
            chosen.add(found);
        }
        return chosen;
    }

    private static String normalized(String name) {
        return name.toLowerCase(Locale.ROOT).replaceAll("[^a-z0-9]", "");
    }

    /** Runs one pair: in one child JVM, or, for a workload that loads first, a loading child and then the measuring one. */
    private static PeerResult run(Path root, PeerWorkload workload, String peer, double scale) {
        if (!workload.loadsFirst()) {
            return runChild(root, workload, peer, scale, workload.heap, Collections.emptyList());
        }
        Path dir = root.resolve("peer-" + workload.key + "-" + System.nanoTime());
        try {
            Files.createDirectories(dir);
            PeerResult loaded = runChild(root, workload, peer, scale, PeerWorkload.LOAD_HEAP, Arrays.asList("load", dir.toString()));
            if (loaded.error != null) {
                return PeerResult.failed("loading: " + loaded.error);
            }
            return runChild(root, workload, peer, scale, workload.heap, Arrays.asList("run", dir.toString()));
        } catch (Exception e) {
            return PeerResult.failed(e);
        } finally {
            try {
                Dirs.delete(dir);
            } catch (IOException e) {
                System.out.println("        cannot delete " + dir + ": " + e);
            }
        }
    }

    /** Runs one child JVM; its other output is echoed, indented. */
    private static PeerResult runChild(Path root, PeerWorkload workload, String peer, double scale, String heap, List<String> phase) {
        List<String> args = new ArrayList<>(Arrays.asList(workload.key, peer, Double.toString(scale)));
        args.addAll(phase);
        List<String> cmd = ChildJvm.command(heap, root, PeerRun.class.getName(), args);
        try {
            ChildJvm.Outcome out = ChildJvm.run(cmd, line -> PeerResult.parse(line) != null, 0);
            return out.resultLine != null ? PeerResult.parse(out.resultLine) : PeerResult.failed(out.failure());
        } catch (Exception e) {
            return PeerResult.failed(e);
        }
    }
}
