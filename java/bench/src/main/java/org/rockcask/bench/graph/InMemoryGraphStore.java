package org.rockcask.bench.graph;

/**
 * The baseline: the graph as Java objects on the heap, a {@link Vertex} per vertex in an array
 * indexed by vertex number (the number in the key's label), each holding its {@link Edge}
 * objects (distance, destination number and key, payload). A read is an array index and a walk
 * over the edges: the cost of the walk itself, without any store. Nothing is on disk.
 */
final class InMemoryGraphStore implements GraphStore {
    private static final class Edge {
        final int distance;
        final int destinationId;
        final byte[] destinationKey;
        /** Held, never read: the padded variant's weight on the heap. */
        @SuppressWarnings("unused")
        final byte[] payload;

        Edge(int distance, int destinationId, byte[] destinationKey, byte[] payload) {
            this.distance = distance;
            this.destinationId = destinationId;
            this.destinationKey = destinationKey;
            this.payload = payload;
        }
    }

    private static final class Vertex {
        final Edge[] edges;

        Vertex(Edge[] edges) {
            this.edges = edges;
        }
    }

    private Vertex[] vertices;
    private KeyOrder order;

    @Override
    public void load(GraphSource source) {
        order = source.order();
        vertices = new Vertex[source.vertexCount()];
        for (int v = 0; v < vertices.length; v++) {
            Edge[] edges = new Edge[source.degree(v)];
            for (int e = 0; e < edges.length; e++) {
                edges[e] = new Edge(source.distance(v, e), source.destinationId(v, e), source.destinationKey(v, e), source.payload(v, e));
            }
            vertices[order.vertexId(source.key(v))] = new Vertex(edges);
        }
    }

    @Override
    public void reopen() {
        // Nothing to reopen: the objects are the store.
    }

    @Override
    public VertexReader openReader() {
        return new VertexReader() {
            private final Cursor cursor = new Cursor();

            @Override
            public EdgeCursor edges(byte[] key) {
                int id = order.vertexId(key);
                Vertex v = id < vertices.length ? vertices[id] : null;
                if (v == null) {
                    throw VertexReader.missing(key);
                }
                return cursor.reset(v.edges);
            }

            @Override
            public void close() {}
        };
    }

    private static final class Cursor implements EdgeCursor {
        private Edge[] edges;
        private int next;
        private Edge edge;

        Cursor reset(Edge[] edges) {
            this.edges = edges;
            next = 0;
            return this;
        }

        @Override
        public boolean next() {
            if (next == edges.length) {
                return false;
            }
            edge = edges[next++];
            return true;
        }

        @Override
        public int distance() {
            return edge.distance;
        }

        @Override
        public int destinationId() {
            return edge.destinationId;
        }

        @Override
        public byte[] destinationKey() {
            return edge.destinationKey;
        }
    }

    @Override
    public void close() {
        vertices = null;
    }
}
