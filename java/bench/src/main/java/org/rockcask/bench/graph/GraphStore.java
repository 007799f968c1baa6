package org.rockcask.bench.graph;

/**
 * A contender of the graph experiment: a store holding each vertex's edge list under its key.
 * {@link GraphRun} loads it, {@link #reopen reopens} it and walks it with
 * {@link ShortestPathTree}, one {@link VertexReader} per tree; every implementation says in its
 * class comment which of its store's documented settings it uses and why. Adding a contender is
 * one implementation and one line in {@link GraphStores}.
 */
// "try": close() may throw any exception, as the stores' own close methods do.
@SuppressWarnings("try")
public interface GraphStore extends AutoCloseable {
    /** Opens a contender's store in a directory of its own, empty before the load. */
    interface Factory {
        GraphStore open(java.nio.file.Path dir) throws Exception;
    }

    /**
     * Stores every vertex of {@code source}: {@code source.value(v)} under {@code source.key(v)}.
     * Returns once the load is durable (synced), as a program that loads and then serves would.
     */
    void load(GraphSource source) throws Exception;

    /**
     * Closes and reopens the store, so that the walks start from the store as a later run of the
     * program would find it (nothing of the load in the store's own caches). A store that lives
     * only in memory keeps its contents.
     */
    void reopen() throws Exception;

    /** A reader for one tree (one read transaction where the store has them). */
    VertexReader openReader() throws Exception;

    /** What the store counts while it is read, for the table (e.g. "block cache hits 93.1%"); empty if nothing. */
    default String readCounters() {
        return "";
    }
}
