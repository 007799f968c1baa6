package org.rockcask.bench.graph;

import java.util.Arrays;

/**
 * A generated graph as a store loads it: each vertex's key in one {@link KeyOrder}, its value in
 * {@link EdgeListLayout} with the {@link Variant}'s payloads, and the vertices in key order (for
 * the stores that load sorted input fastest). Counts the values it has made, so that a slow load
 * can be told apart from a stuck one.
 */
public final class GraphSource {
    private final RoadGraph graph;
    private final Variant variant;
    private final KeyOrder order;
    private final byte[][] keys;
    private volatile long valuesMade;

    GraphSource(RoadGraph graph, Variant variant, KeyOrder order) {
        this.graph = graph;
        this.variant = variant;
        this.order = order;
        keys = new byte[graph.vertexCount()][];
        for (int v = 0; v < keys.length; v++) {
            keys[v] = order.key(graph, v);
        }
    }

    public int vertexCount() {
        return graph.vertexCount();
    }

    public Variant variant() {
        return variant;
    }

    public KeyOrder order() {
        return order;
    }

    public byte[] key(int v) {
        return keys[v];
    }

    /** The key of the vertex where the walks start. */
    public byte[] startKey() {
        return keys[graph.startVertex()];
    }

    /** Every vertex, its keys in ascending unsigned byte order. */
    public int[] verticesInKeyOrder() {
        Integer[] boxed = new Integer[keys.length];
        for (int v = 0; v < boxed.length; v++) {
            boxed[v] = v;
        }
        Arrays.sort(boxed, (a, b) -> Arrays.compareUnsigned(keys[a], keys[b]));
        return Arrays.stream(boxed).mapToInt(Integer::intValue).toArray();
    }

    /** Vertex v's value: its edge list in {@link EdgeListLayout}. */
    public byte[] value(int v) {
        int degree = degree(v);
        int[] distances = new int[degree];
        byte[][] destinations = new byte[degree][];
        byte[][] payloads = new byte[degree][];
        for (int e = 0; e < degree; e++) {
            distances[e] = distance(v, e);
            destinations[e] = destinationKey(v, e);
            payloads[e] = payload(v, e);
        }
        valuesMade++;
        return EdgeListLayout.encode(distances, destinations, payloads);
    }

    /** How many values {@link #value} has made so far (read by another thread to report progress). */
    public long valuesMade() {
        return valuesMade;
    }

    public int degree(int v) {
        return graph.degree(v);
    }

    public int distance(int v, int e) {
        return graph.edgeDistance[graph.edgeStart[v] + e];
    }

    public int destinationId(int v, int e) {
        return graph.labelId[graph.edgeTarget[graph.edgeStart[v] + e]];
    }

    public byte[] destinationKey(int v, int e) {
        return keys[graph.edgeTarget[graph.edgeStart[v] + e]];
    }

    /** The pseudo-random payload of vertex v's edge e, the same bytes every time it is asked for. */
    public byte[] payload(int v, int e) {
        byte[] payload = new byte[variant.payloadLength(destinationKey(v, e).length)];
        long state = SeededRandom.mix(graph.seed ^ ((long) graph.edgeStart[v] + e));
        for (int i = 0; i < payload.length; i++) {
            if (i % Long.BYTES == 0) {
                state = SeededRandom.mix(state + i);
            }
            payload[i] = (byte) (state >>> (8 * (i % Long.BYTES)));
        }
        return payload;
    }
}
