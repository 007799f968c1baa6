package org.rockcask.bench.graph;

import java.util.Arrays;

/** A binary min-heap of (distance, vertex) pairs in two primitive arrays: no object per entry. */
final class DistanceHeap {
    private long[] distances = new long[1024];
    private int[] vertices = new int[1024];
    private int size;

    boolean isEmpty() {
        return size == 0;
    }

    void push(long distance, int vertex) {
        if (size == distances.length) {
            distances = Arrays.copyOf(distances, 2 * size);
            vertices = Arrays.copyOf(vertices, 2 * size);
        }
        int i = size++;
        while (i > 0) {
            int parent = (i - 1) >>> 1;
            if (distances[parent] <= distance) {
                break;
            }
            distances[i] = distances[parent];
            vertices[i] = vertices[parent];
            i = parent;
        }
        distances[i] = distance;
        vertices[i] = vertex;
    }

    /** The smallest distance; only when not empty. */
    long peekDistance() {
        return distances[0];
    }

    /** Removes the entry of the smallest distance, returning its vertex; only when not empty. */
    int pop() {
        int top = vertices[0];
        size--;
        long distance = distances[size];
        int vertex = vertices[size];
        int i = 0;
        while (true) {
            int child = 2 * i + 1;
            if (child >= size) {
                break;
            }
            if (child + 1 < size && distances[child + 1] < distances[child]) {
                child++;
            }
            if (distances[child] >= distance) {
                break;
            }
            distances[i] = distances[child];
            vertices[i] = vertices[child];
            i = child;
        }
        distances[i] = distance;
        vertices[i] = vertex;
        return top;
    }
}
