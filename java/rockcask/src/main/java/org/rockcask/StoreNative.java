package org.rockcask.internal;

/**
 * The native calls on a store (declared in {@code rust/jni/src/store.rs}, registered when this
 * class initializes). Every call checks its handle and throws a Java exception on any failure.
 */
public final class StoreNative {
    static {
        NativeLibrary.register(StoreNative.class);
    }

    private StoreNative() {}

    /** {@code options}: {@code StoreOptions.record()}. */
    public static native long open(byte[] path, byte[] options);

    /** Closes RocksDB; the handle stays valid (calls then fail) until {@link #free}. */
    public static native void close(long store);

    public static native void free(long store);

    public static native long begin(long store);

    /**
     * Names of the queues starting with {@code prefix} (UTF-8), packed: i32 count, then per name
     * i32 length and UTF-8 bytes.
     */
    public static native byte[] queueNames(long store, byte[] prefix);

    public static native long queueSize(long store, byte[] queue);

    /** The {@code STATS_} slots of {@code org.rockcask.Wire}. */
    public static native long[] stats(long store);

    public static native void compact(long store);

    /** {@code maxDeliveries} -1: the store's default; {@code deadLetterQueue} null: {@code <queue>.dead}; capacities 0: none. */
    public static native void configureQueue(long store, byte[] queue, long maxDeliveries, String deadLetterQueue, long capacity, long capacityBytes);

    /** The queue's settings, packed as {@code Wire.queueOptions} reads them. */
    public static native byte[] queueOptions(long store, byte[] queue);

    /** Dead letters, packed as {@code Wire.deadLetters} reads them. */
    public static native byte[] deadLetters(long store, byte[] queue, int max);
}
