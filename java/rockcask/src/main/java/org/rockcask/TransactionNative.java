package org.rockcask.internal;

import java.nio.ByteBuffer;

/**
 * The native calls of a transaction (declared in {@code rust/jni/src/transaction.rs},
 * registered when this class initializes, after the library has checked the operation codes
 * of {@code org.rockcask.PendingOps}). The caller serializes the calls of one transaction;
 * a call that finds it busy fails with {@link IllegalStateException}.
 */
public final class TransactionNative {
    static {
        NativeLibrary.register(TransactionNative.class);
    }

    private TransactionNative() {}

    /** Frees the transaction; an open one rolls back. */
    public static native void free(long tx);

    /** Applies the first {@code length} bytes of operations buffered in the direct buffer {@code pending}. */
    public static native void apply(long tx, ByteBuffer pending, int length);

    public static native void enqueueNew(long tx, byte[] queue, long msb, long lsb, byte[] payload);

    public static native void enqueueId(long tx, byte[] queue, long msb, long lsb);

    /** Messages packed as {@code Wire.messages} reads them. */
    public static native byte[] poll(long tx, byte[] queue, int max);

    public static native byte[] peek(long tx, byte[] queue, int max);

    /** Zero or one message, packed. */
    public static native byte[] take(long tx, byte[] queue, long timeoutMillis);

    public static native void put(long tx, long msb, long lsb, byte[] payload);

    /** The payload, or null when there is no such object. */
    public static native byte[] get(long tx, long msb, long lsb);

    /** {@code ids}: two longs (most, then least significant bits) per id; one element (or null) per id. */
    public static native byte[][] getAll(long tx, long[] ids);

    public static native boolean delete(long tx, long msb, long lsb);

    public static native void commit(long tx);

    /** Waits up to {@code waitMillis} for room in a full queue. */
    public static native void commitWaiting(long tx, long waitMillis);

    public static native void rollback(long tx);

    /** {@code retryAfterMillis} 0: no delay. */
    public static native void rollbackBecause(long tx, String reason, long retryAfterMillis);

    /** {@code sequences} null: every dead letter of the queue. How many it requeues. */
    public static native long requeueDeadLetters(long tx, byte[] queue, long[] sequences);

    /** {@code sequences} null: every dead letter of the queue. How many it drops. */
    public static native long dropDeadLetters(long tx, byte[] queue, long[] sequences);

    /** How many entries the drop removes. */
    public static native long dropQueue(long tx, byte[] queue);

    /** How many entries move. */
    public static native long moveQueue(long tx, byte[] from, byte[] to);
}
