package org.rockcask.bench.graph;

import java.util.HashSet;
import java.util.Set;

/**
 * Generates a street-grid-like {@link RoadGraph} from a seed, the same graph for the same seed
 * and size on every JVM ({@link SeededRandom}):
 *
 * <ol>
 * <li>The vertices fill a grid row by row, {@code side} columns wide (about the square root of
 * n), {@value #SPACING} m apart, each moved by up to {@value #JITTER} m in x and y.</li>
 * <li>Each vertex is linked to its grid neighbours (right and below); a random spanning tree of
 * those links (Kruskal's algorithm over the links in a shuffled order) is always kept, so the
 * whole graph is connected; every other link is removed with probability {@value #REMOVAL}
 * unless that would leave one of its ends with fewer than two roads. Grid degrees are so 2 to 4.</li>
 * <li>One vertex in {@value #LONG_EDGE_EVERY} gets a long road to a random vertex up to
 * {@value #LONG_EDGE_REACH} grid steps away in each direction (never a grid neighbour).</li>
 * <li>Distances are the rounded Euclidean lengths (from a correctly rounded square root: the same on every JVM) in metres (at least 1); labels are a shuffled
 * numbering, so the label order says nothing about where a vertex is.</li>
 * </ol>
 */
final class RoadGraphGenerator {
    static final int SPACING = 100;
    static final int JITTER = 30;
    static final double REMOVAL = 0.5;
    static final int LONG_EDGE_EVERY = 100;
    static final int LONG_EDGE_REACH = 30;

    private RoadGraphGenerator() {}

    static RoadGraph generate(int n, long seed) {
        if (n < 4) {
            throw new IllegalArgumentException("a road graph needs at least 4 vertices, not " + n);
        }
        SeededRandom random = new SeededRandom(seed);
        int side = gridSide(n);
        int[] x = new int[n];
        int[] y = new int[n];
        for (int v = 0; v < n; v++) {
            x[v] = (v % side) * SPACING + SPACING / 2 + random.nextInt(2 * JITTER + 1) - JITTER;
            y[v] = (v / side) * SPACING + SPACING / 2 + random.nextInt(2 * JITTER + 1) - JITTER;
        }
        long[] grid = gridLinks(n, side);
        boolean[] kept = thinOut(n, grid, random);
        long[] longLinks = longLinks(n, side, random);
        int[] labelId = shuffledIdentity(n, random);
        return adjacency(seed, x, y, labelId, grid, kept, longLinks);
    }

    /** About the square root of n, never leaving a last row of a single vertex (it would have one road only). */
    private static int gridSide(int n) {
        int side = (int) Math.ceil(Math.sqrt(n));
        while (n % side == 1) {
            side++;
        }
        return side;
    }

    private static long link(int a, int b) {
        return ((long) a << 32) | b;
    }

    private static int from(long link) {
        return (int) (link >>> 32);
    }

    private static int to(long link) {
        return (int) link;
    }

    private static long[] gridLinks(int n, int side) {
        long[] links = new long[2 * n];
        int count = 0;
        for (int v = 0; v < n; v++) {
            if ((v + 1) % side != 0 && v + 1 < n) {
                links[count++] = link(v, v + 1);
            }
            if (v + side < n) {
                links[count++] = link(v, v + side);
            }
        }
        return java.util.Arrays.copyOf(links, count);
    }

    /** Which grid links stay: a random spanning tree, plus each other link unless removed (see the class comment). */
    private static boolean[] thinOut(int n, long[] links, SeededRandom random) {
        int[] degree = new int[n];
        for (long l : links) {
            degree[from(l)]++;
            degree[to(l)]++;
        }
        int[] order = shuffledIdentity(links.length, random);
        int[] parent = new int[n];
        for (int v = 0; v < n; v++) {
            parent[v] = v;
        }
        boolean[] inTree = new boolean[links.length];
        for (int i : order) {
            int a = root(parent, from(links[i]));
            int b = root(parent, to(links[i]));
            if (a != b) {
                parent[a] = b;
                inTree[i] = true;
            }
        }
        boolean[] kept = new boolean[links.length];
        java.util.Arrays.fill(kept, true);
        for (int i : order) {
            int a = from(links[i]);
            int b = to(links[i]);
            if (!inTree[i] && random.nextDouble() < REMOVAL && degree[a] > 2 && degree[b] > 2) {
                kept[i] = false;
                degree[a]--;
                degree[b]--;
            }
        }
        return kept;
    }

    private static int root(int[] parent, int v) {
        while (parent[v] != v) {
            parent[v] = parent[parent[v]];
            v = parent[v];
        }
        return v;
    }

    private static long[] longLinks(int n, int side, SeededRandom random) {
        int wanted = n / LONG_EDGE_EVERY;
        long[] links = new long[wanted];
        Set<Long> seen = new HashSet<>();
        int count = 0;
        while (count < wanted) {
            int a = random.nextInt(n);
            int dr = random.nextInt(2 * LONG_EDGE_REACH + 1) - LONG_EDGE_REACH;
            int dc = random.nextInt(2 * LONG_EDGE_REACH + 1) - LONG_EDGE_REACH;
            int row = a / side + dr;
            int col = a % side + dc;
            if (Math.abs(dr) + Math.abs(dc) < 2 || row < 0 || col < 0 || col >= side || (long) row * side + col >= n) {
                continue;
            }
            int b = row * side + col;
            if (seen.add(link(Math.min(a, b), Math.max(a, b)))) {
                links[count++] = link(a, b);
            }
        }
        return links;
    }

    private static int[] shuffledIdentity(int n, SeededRandom random) {
        int[] a = new int[n];
        for (int i = 0; i < n; i++) {
            a[i] = i;
        }
        for (int i = n - 1; i > 0; i--) {
            int j = random.nextInt(i + 1);
            int t = a[i];
            a[i] = a[j];
            a[j] = t;
        }
        return a;
    }

    /** Both directions of every kept grid link and every long link, each vertex's edges in link order. */
    private static RoadGraph adjacency(long seed, int[] x, int[] y, int[] labelId, long[] grid, boolean[] kept, long[] longLinks) {
        int n = x.length;
        int[] start = new int[n + 1];
        for (int i = 0; i < grid.length; i++) {
            if (kept[i]) {
                start[from(grid[i]) + 1]++;
                start[to(grid[i]) + 1]++;
            }
        }
        for (long l : longLinks) {
            start[from(l) + 1]++;
            start[to(l) + 1]++;
        }
        for (int v = 0; v < n; v++) {
            start[v + 1] += start[v];
        }
        int[] fill = java.util.Arrays.copyOf(start, n);
        int[] target = new int[start[n]];
        int[] distance = new int[start[n]];
        boolean[] isLong = new boolean[start[n]];
        for (int i = 0; i < grid.length; i++) {
            if (kept[i]) {
                addRoad(grid[i], false, x, y, fill, target, distance, isLong);
            }
        }
        for (long l : longLinks) {
            addRoad(l, true, x, y, fill, target, distance, isLong);
        }
        return new RoadGraph(seed, x, y, labelId, start, target, distance, isLong);
    }

    /** Exact in a double (coordinates stay far below 2^26 m), so the square root, correctly rounded, is the same everywhere. */
    private static double squared(int d) {
        return (double) d * d;
    }

    private static void addRoad(long link, boolean isLongRoad, int[] x, int[] y, int[] fill, int[] target, int[] distance, boolean[] isLong) {
        int a = from(link);
        int b = to(link);
        int metres = (int) Math.max(1, Math.round(Math.sqrt(squared(x[a] - x[b]) + squared(y[a] - y[b]))));
        for (int end = 0; end < 2; end++) {
            int src = end == 0 ? a : b;
            int i = fill[src]++;
            target[i] = end == 0 ? b : a;
            distance[i] = metres;
            isLong[i] = isLongRoad;
        }
    }
}
