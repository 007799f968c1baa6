package org.rockcask.bench.graph;

/**
 * A generated road-like graph in compressed adjacency arrays ({@link RoadGraphGenerator}):
 * vertex {@code v} (0..n-1, its place in the grid, row by row) has coordinates in metres
 * ({@code x[v]}, {@code y[v]}), the label number {@code labelId[v]} (its label is
 * {@code "V" + labelId[v]}, in an order unrelated to the coordinates), and the directed edges
 * {@code edgeStart[v]} .. {@code edgeStart[v + 1] - 1}, each to {@code edgeTarget[i]} at
 * {@code edgeDistance[i]} metres; every road is an edge in each direction. {@code longEdge[i]}
 * marks the edges of the few long roads, which are not links between grid neighbours.
 */
final class RoadGraph {
    final long seed;
    final int[] x;
    final int[] y;
    final int[] labelId;
    final int[] edgeStart;
    final int[] edgeTarget;
    final int[] edgeDistance;
    final boolean[] longEdge;

    RoadGraph(long seed, int[] x, int[] y, int[] labelId, int[] edgeStart, int[] edgeTarget, int[] edgeDistance, boolean[] longEdge) {
        this.seed = seed;
        this.x = x;
        this.y = y;
        this.labelId = labelId;
        this.edgeStart = edgeStart;
        this.edgeTarget = edgeTarget;
        this.edgeDistance = edgeDistance;
        this.longEdge = longEdge;
    }

    int vertexCount() {
        return x.length;
    }

    int edgeCount() {
        return edgeTarget.length;
    }

    int degree(int v) {
        return edgeStart[v + 1] - edgeStart[v];
    }

    /** The vertex labelled "V0": where every shortest-path tree of the experiment starts. */
    int startVertex() {
        for (int v = 0; v < labelId.length; v++) {
            if (labelId[v] == 0) {
                return v;
            }
        }
        throw new IllegalStateException("no vertex is labelled V0");
    }
}
