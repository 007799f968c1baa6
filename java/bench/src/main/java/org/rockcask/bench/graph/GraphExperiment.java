package org.rockcask.bench.graph;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.rockcask.bench.ChildJvm;
import org.rockcask.bench.DiskLimits;
import org.rockcask.bench.Dirs;

/**
 * The street-graph experiment: a road-like graph ({@link RoadGraphGenerator}) in each contender
 * ({@link GraphStores}), one child JVM each ({@link GraphRun}), back to back, then the table
 * ({@link GraphTable}) between the disk limits measured before and after. The parent computes the
 * reference tree from the generated graph itself, so that every row, the baseline's too, is
 * checked against it.
 *
 * <p>Arguments, all optional: {@code variant=small|padded} (default small), {@code vertices=N}
 * (default 1000000), {@code order=label|morton|both} (default both), {@code contenders=NAME,...}
 * (default all), {@code seed=S} (default {@value #SEED}), {@code timeout=SECONDS} per child
 * (default {@value #TIMEOUT_SECONDS}: a child still running then is stopped, and its row reports
 * how far its load had come).
 */
public final class GraphExperiment {
    static final long SEED = 20240611L;
    private static final int TIMEOUT_SECONDS = 900;

    private GraphExperiment() {}

    public static void main(String[] args) throws Exception {
        Variant variant = Variant.SMALL;
        int vertices = 1_000_000;
        List<KeyOrder> orders = Arrays.asList(KeyOrder.values());
        List<String> contenders = new ArrayList<>(GraphStores.all().keySet());
        long seed = SEED;
        int timeout = TIMEOUT_SECONDS;
        for (String arg : args) {
            String value = arg.substring(arg.indexOf('=') + 1);
            if (arg.startsWith("variant=")) {
                variant = Variant.byName(value);
            } else if (arg.startsWith("vertices=")) {
                vertices = Integer.parseInt(value);
            } else if (arg.startsWith("order=")) {
                orders = value.equals("both") ? Arrays.asList(KeyOrder.values()) : Collections.singletonList(KeyOrder.byName(value));
            } else if (arg.startsWith("contenders=")) {
                contenders = Arrays.asList(value.split(","));
                contenders.forEach(GraphStores::factory);
            } else if (arg.startsWith("seed=")) {
                seed = Long.parseLong(value);
            } else if (arg.startsWith("timeout=")) {
                timeout = Integer.parseInt(value);
            } else {
                throw new IllegalArgumentException("unknown argument " + arg
                        + " (variant=small|padded, vertices=N, order=label|morton|both, contenders=NAME,..., seed=S, timeout=SECONDS)");
            }
        }

        Path root = Dirs.benchRoot();
        System.out.println(String.format("Street graph experiment: %s variant, %,d vertices, seed %d; java %s, %d cores, dir %s", variant, vertices, seed,
                System.getProperty("java.version"), Runtime.getRuntime().availableProcessors(), root));
        String diskBefore = DiskLimits.measure(root).toString();
        System.out.println("before: " + diskBefore);
        TreeChecksum reference = reference(vertices, seed);
        System.out.println("reference tree (reached/sum of distances/hash): " + reference);

        long start = System.nanoTime();
        List<GraphPlan.Row> rows = GraphPlan.rows(variant, orders, contenders);
        Map<GraphPlan.Row, GraphRunResult> results = new LinkedHashMap<>();
        for (GraphPlan.Row row : rows) {
            System.out.println(String.format("[%d/%d] %s (elapsed %.0f s)", results.size() + 1, rows.size(), row, (System.nanoTime() - start) / 1e9));
            long t0 = System.nanoTime();
            GraphRunResult r = runChild(root, row, variant, vertices, seed, timeout);
            System.out.println(String.format("        %.1f s: %s", (System.nanoTime() - t0) / 1e9, r.error() != null ? "failed: " + r.error() : r.fields));
            results.put(row, r);
        }
        String diskAfter = DiskLimits.measure(root).toString();

        System.out.println();
        System.out.println(String.format("Street graph experiment, %s variant, %,d vertices, seed %d, %.0f s; times of Dijkstra's tree exhausted from V0", variant,
                vertices, seed, (System.nanoTime() - start) / 1e9));
        System.out.println("before: " + diskBefore);
        System.out.println("after:  " + diskAfter);
        System.out.print(GraphTable.format(results, reference));
    }

    /** The tree of the generated graph itself, walked in memory: what every contender must reach. */
    @SuppressWarnings("try") // VertexReader.close() may throw any exception
    static TreeChecksum reference(int vertices, long seed) throws Exception {
        GraphSource source = new GraphSource(RoadGraphGenerator.generate(vertices, seed), Variant.SMALL, KeyOrder.LABEL);
        try (InMemoryGraphStore store = new InMemoryGraphStore()) {
            store.load(source);
            try (VertexReader reader = store.openReader()) {
                return ShortestPathTree.walk(reader, KeyOrder.LABEL, source.startKey(), vertices);
            }
        }
    }

    /** Runs one row's child JVM, its other output echoed, indented; stops it after {@code timeout} seconds. */
    private static GraphRunResult runChild(Path root, GraphPlan.Row row, Variant variant, int vertices, long seed, int timeout) {
        Path dir = root.resolve("graph-" + row.contender.replaceAll("[^A-Za-z0-9]", "") + "-" + System.nanoTime());
        List<String> cmd = ChildJvm.command(row.heap, root, GraphRun.class.getName(),
                Arrays.asList(row.contender, variant.name(), row.order.name(), Integer.toString(vertices), Long.toString(seed), dir.toString()));
        try {
            ChildJvm.Outcome out = ChildJvm.run(cmd, line -> GraphRunResult.parse(line) != null, timeout);
            return out.resultLine != null ? GraphRunResult.parse(out.resultLine) : GraphRunResult.failed(out.failure());
        } catch (Exception e) {
            return GraphRunResult.failed(e);
        } finally {
            try {
                Dirs.delete(dir);
            } catch (java.io.IOException e) {
                System.out.println("        cannot delete " + dir + ": " + e);
            }
        }
    }
}
