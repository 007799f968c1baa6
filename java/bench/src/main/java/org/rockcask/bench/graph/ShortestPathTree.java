package org.rockcask.bench.graph;

import java.util.Arrays;

/**
 * Dijkstra's algorithm, exhausted from one vertex, the same code for every contender: distances
 * in a primitive array indexed by vertex number (the number in the label), a
 * {@link DistanceHeap} with lazy deletion (a vertex is pushed again when its distance shrinks;
 * a popped entry longer than the vertex's distance is stale and skipped). A vertex's edges are
 * read from the store when it is settled, once per vertex reached.
 */
public final class ShortestPathTree {
    private ShortestPathTree() {}

    /** The tree from the vertex under {@code startKey}, in a graph of {@code vertexCount} vertices. */
    public static TreeChecksum walk(VertexReader reader, KeyOrder order, byte[] startKey, int vertexCount) throws Exception {
        long[] distance = new long[vertexCount];
        Arrays.fill(distance, Long.MAX_VALUE);
        byte[][] keyOf = new byte[vertexCount][];
        DistanceHeap heap = new DistanceHeap();
        int start = order.vertexId(startKey);
        distance[start] = 0;
        keyOf[start] = startKey;
        heap.push(0, start);
        long reached = 0;
        long sum = 0;
        long hash = 0;
        while (!heap.isEmpty()) {
            long d = heap.peekDistance();
            int v = heap.pop();
            if (d > distance[v]) {
                continue;
            }
            reached++;
            sum += d;
            hash += TreeChecksum.pairHash(v, d);
            EdgeCursor edges = reader.edges(keyOf[v]);
            while (edges.next()) {
                long through = d + edges.distance();
                int t = edges.destinationId();
                if (through < distance[t]) {
                    if (keyOf[t] == null) {
                        keyOf[t] = edges.destinationKey();
                    }
                    distance[t] = through;
                    heap.push(through, t);
                }
            }
        }
        return new TreeChecksum(reached, sum, hash);
    }
}
