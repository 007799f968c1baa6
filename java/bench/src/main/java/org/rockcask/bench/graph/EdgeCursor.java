package org.rockcask.bench.graph;

/** The edges of one vertex, one at a time; valid until the reader that gave it is asked for another vertex. */
public interface EdgeCursor {
    /** Moves to the next edge; false when there is none. */
    boolean next();

    /** The edge's length in metres. */
    int distance();

    /** The destination's vertex number, the one in its label. */
    int destinationId();

    /** The destination's key, in the store's key order: the caller may keep it and never changes it. */
    byte[] destinationKey();
}
