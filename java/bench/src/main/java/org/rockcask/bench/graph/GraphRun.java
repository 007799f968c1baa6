package org.rockcask.bench.graph;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.Map;
import org.rockcask.bench.Dirs;
import org.rockcask.bench.Median;

/**
 * One contender of the graph experiment, the only work of its JVM: generates the graph, loads it
 * into the contender's store in a fresh directory (timed, until durable), reopens the store, walks
 * {@value #TREES} shortest-path trees from the same vertex, and prints one {@link GraphRunResult}
 * line: load seconds, the first tree's seconds and the median of the others, the heap peaks
 * (after collections) of the load and of the walks, resident memory, the directory's disk use,
 * the store's read counters and the trees' checksum (all trees must agree). A failure, an
 * {@link OutOfMemoryError} included, becomes the line's error, naming the phase. Deletes the
 * directory (the parent deletes it too, for a child it had to stop). While loading, prints the
 * values made every {@value #PROGRESS_SECONDS} s.
 *
 * <p>Usage: {@code GraphRun CONTENDER small|padded label|morton VERTICES SEED DIR}.
 */
public final class GraphRun {
    static final int TREES = 8;
    private static final int PROGRESS_SECONDS = 30;
    private static final double MIB = 1 << 20;

    private GraphRun() {}

    public static void main(String[] args) throws Exception {
        GraphStore.Factory factory = GraphStores.factory(args[0]);
        Variant variant = Variant.byName(args[1]);
        KeyOrder order = KeyOrder.byName(args[2]);
        int vertices = Integer.parseInt(args[3]);
        long seed = Long.parseLong(args[4]);
        Path dir = Path.of(args[5]);
        GraphRunResult result;
        String[] phase = {"generating"};
        try {
            Files.createDirectories(dir);
            result = run(factory, variant, order, vertices, seed, dir, phase);
        } catch (Throwable t) {
            result = GraphRunResult.failed(phase[0] + ": " + t);
        } finally {
            Dirs.delete(dir);
        }
        System.out.println(result.line());
        System.exit(result.error() == null ? 0 : 1);
    }

    @SuppressWarnings("try") // GraphStore.close() may throw any exception
    private static GraphRunResult run(GraphStore.Factory factory, Variant variant, KeyOrder order, int vertices, long seed, Path dir, String[] phase)
            throws Exception {
        HeapPeak heap = new HeapPeak();
        Map<String, String> f = new LinkedHashMap<>();
        GraphSource source = new GraphSource(RoadGraphGenerator.generate(vertices, seed), variant, order);
        byte[] startKey = source.startKey();
        try (GraphStore store = factory.open(dir)) {
            phase[0] = "loading";
            Thread progress = progress(source);
            long t0 = System.nanoTime();
            store.load(source);
            f.put("load", seconds(t0));
            progress.interrupt();
            source = null; // the walks run without the generated graph on the heap
            heap.sample();
            f.put("loadHeap", mib(heap.takePeak()));

            phase[0] = "reopening";
            store.reopen();
            heap.sample();
            heap.takePeak();
            phase[0] = "walking";
            double[] treeSeconds = new double[TREES];
            TreeChecksum checksum = null;
            for (int i = 0; i < TREES; i++) {
                long t = System.nanoTime();
                TreeChecksum c;
                try (VertexReader reader = store.openReader()) {
                    c = ShortestPathTree.walk(reader, order, startKey, vertices);
                }
                treeSeconds[i] = (System.nanoTime() - t) / 1e9;
                if (checksum != null && !checksum.equals(c)) {
                    throw new IllegalStateException("tree " + (i + 1) + " differs from tree 1: " + c + " vs " + checksum);
                }
                checksum = c;
            }
            heap.sample();
            f.put("first", String.valueOf(treeSeconds[0]));
            f.put("median", String.valueOf(Median.of(Arrays.copyOfRange(treeSeconds, 1, TREES))));
            f.put("walkHeap", mib(heap.takePeak()));
            ProcessMemory memory = ProcessMemory.read();
            f.put("rss", mib(memory.residentBytes));
            f.put("hwm", mib(memory.peakResidentBytes));
            f.put("disk", mib(DiskUsage.allocatedBytes(dir)));
            f.put("counters", store.readCounters());
            f.put("checksum", checksum.toString());
        }
        return new GraphRunResult(f);
    }

    private static Thread progress(GraphSource source) {
        long start = System.nanoTime();
        Thread t = new Thread(() -> {
            try {
                while (true) {
                    Thread.sleep(PROGRESS_SECONDS * 1000L);
                    double s = (System.nanoTime() - start) / 1e9;
                    System.out.println(String.format("loading: %,d of %,d vertices in %.0f s (%,.0f a second)", source.valuesMade(), source.vertexCount(), s,
                            source.valuesMade() / s));
                }
            } catch (InterruptedException done) {
                // the load is over
            }
        }, "load-progress");
        t.setDaemon(true);
        t.start();
        return t;
    }

    private static String seconds(long since) {
        return String.valueOf((System.nanoTime() - since) / 1e9);
    }

    private static String mib(long bytes) {
        return String.format("%.1f", bytes / MIB);
    }
}
