package org.rockcask;

import java.nio.ByteBuffer;
import org.rockcask.internal.NativeLibrary;

/**
 * The native calls of a transaction (declared in {@code rust/jni/src/transaction.rs},
 * registered when this class initializes, after the library has checked the operation codes
 * of {@link PendingOps}). The caller serializes the calls of one transaction; a call that finds
 * it busy fails with {@link IllegalStateException}. Package-private, as every native class: a
 * handle is trusted to come from {@link Transaction}.
 */
final class TransactionNative {
    static {
        NativeLibrary.register(TransactionNative.class);
    }

    private TransactionNative() {}

    /** Frees the transaction; an open one rolls back. */
    static native void free(long tx);

    /** Applies the first {@code length} bytes of operations buffered in the direct buffer {@code pending}. */
    static native void apply(long tx, ByteBuffer pending, int length);

    static native void enqueueNew(long tx, byte[] queue, long msb, long lsb, byte[] payload);

    static native void enqueueId(long tx, byte[] queue, long msb, long lsb);

    /** Messages packed as {@link Wire#messages} reads them. */
    static native byte[] poll(long tx, byte[] queue, int max);

    static native byte[] peek(long tx, byte[] queue, int max);

    /** Zero or one message, packed. */
    static native byte[] take(long tx, byte[] queue, long timeoutMillis);

    static native void put(long tx, long msb, long lsb, byte[] payload);

    /** The payload, or null when there is no such object. */
    static native byte[] get(long tx, long msb, long lsb);

    /** {@code ids}: two longs (most, then least significant bits) per id; one element (or null) per id. */
    static native byte[][] getAll(long tx, long[] ids);

    static native boolean delete(long tx, long msb, long lsb);

    /**
     * Commits, waiting up to {@code waitMillis} for room in a full queue. Once it has committed,
     * {@code tx} has started again as a new transaction of the store (ready for the pool); when
     * it fails, {@code tx} has ended, or, for a full queue, is still open.
     */
    static native void commitWaiting(long tx, long waitMillis);

    /** Ends the transaction as {@link #free} would (an open one rolls back) and starts {@code tx} again as a new one. */
    static native void restart(long tx);

    static native void rollback(long tx);

    /** {@code retryAfterMillis} 0: no delay. */
    static native void rollbackBecause(long tx, byte[] reason, long retryAfterMillis);

    /** {@code sequences} null: every dead letter of the queue. How many it requeues. */
    static native long requeueDeadLetters(long tx, byte[] queue, long[] sequences);

    /** {@code sequences} null: every dead letter of the queue. How many it drops. */
    static native long dropDeadLetters(long tx, byte[] queue, long[] sequences);

    /** How many entries the drop removes. */
    static native long dropQueue(long tx, byte[] queue);

    /** How many entries move. */
    static native long moveQueue(long tx, byte[] from, byte[] to);
}
