package org.rockcask.bench.peers;

import java.util.UUID;

/**
 * One embedded store doing a flow's work, each commit durable (synced) before it returns. Every
 * implementation says in its class comment how its commit is made durable and which of its
 * documented settings it uses, and opens its store at the settings its documentation gives for
 * this kind of work: a slow peer because of a bad setting proves nothing.
 *
 * <p>Key-value stores lay a queue out as entries keyed by the queue's id and a big-endian
 * sequence number, the payload in the entry; objects under their 16-byte id. Every result is
 * read back and returned so that nothing is optimised away; the caller checks it.
 */
// "try": close() may throw any exception, as the stores' own close methods do.
@SuppressWarnings("try")
public interface Peer extends AutoCloseable {
    /** Objects per synced transaction in {@link #putObjects}. */
    int PUT_BATCH = 10_000;

    /** Queue cycles: makes queue "q" hold {@code depth} entries of {@code payload}, committed. */
    void fillQueue(int depth, byte[] payload) throws Exception;

    /**
     * One synced transaction: consumes the {@code polls} oldest entries of "q" and appends
     * {@code payloads} at its tail. Returns the bytes of the payloads consumed.
     */
    long cycle(int polls, byte[][] payloads) throws Exception;

    /**
     * Concurrent components: one queue of this store, numbered, to be cycled by one thread while
     * other threads cycle the others. The peer's class comment says how its commits from several
     * threads are made, as the store's documentation recommends.
     */
    interface Component {
        /** Makes this queue hold {@code depth} entries of {@code payload}, committed. */
        void fill(int depth, byte[] payload) throws Exception;

        /** {@link Peer#cycle} on this queue: one synced transaction. */
        long cycle(int polls, byte[][] payloads) throws Exception;
    }

    /**
     * The components of queues {@code first} to {@code first + count - 1}, empty queues that no
     * other component of this store uses; each is used by one thread at a time. Called from one
     * thread, before the components are handed to theirs.
     */
    java.util.List<Component> components(int first, int count) throws Exception;

    /** Seed experiment 1: one synced transaction appending every payload to queue "q" as a new item. */
    void enqueueAll(byte[][] payloads) throws Exception;

    /** Random reads, loading: stores {@code payloads[i]} under {@code ids[i]}, in synced transactions of 10,000. */
    void putObjects(UUID[] ids, byte[][] payloads) throws Exception;

    /** Random reads: reads every id, {@code perTransaction} gets per read transaction. Returns the bytes read. */
    long readObjects(UUID[] ids, int perTransaction) throws Exception;

    /**
     * Random reads, batched: {@link #readObjects}, each transaction's ids read with the store's
     * own call for many keys where it has one (RockCask's {@code getAll}, RocksDB's
     * {@code MultiGet}); a store without one reads them one by one, as in {@link #readObjects}.
     */
    default long readObjectsBatched(UUID[] ids, int perTransaction) throws Exception {
        return readObjects(ids, perTransaction);
    }
}
