package org.rockcask;

import org.rockcask.internal.NativeLibrary;

/**
 * The native calls on a store (declared in {@code rust/jni/src/store.rs}, registered when this
 * class initializes). Every call checks its handle and throws a Java exception on any failure.
 * Package-private, as every native class: a handle is trusted to come from {@link Store}.
 */
final class StoreNative {
    static {
        NativeLibrary.register(StoreNative.class);
    }

    private StoreNative() {}

    /**
     * {@code path}: {@link Wire#path}; {@code options}: {@code StoreOptions.record()};
     * {@code queueCodecs}: {@link Wire#queueCodecs}.
     */
    static native long open(byte[] path, long[] options, byte[] queueCodecs);

    /** Closes RocksDB; the handle stays valid (calls then fail) until {@link #free}. */
    static native void close(long store);

    static native void free(long store);

    static native long begin(long store);

    /** Names of the queues starting with {@code prefix} (UTF-8), packed as {@link Wire#strings} reads them. */
    static native byte[] queueNames(long store, byte[] prefix);

    static native long queueSize(long store, byte[] queue);

    /** The {@code STATS_} slots of {@link Wire}. */
    static native long[] stats(long store);

    static native void compact(long store);

    /** {@code maxDeliveries} -1: the store's default; {@code deadLetterQueue} null: {@code <queue>.dead}; capacities 0: none. */
    static native void configureQueue(long store, byte[] queue, long maxDeliveries, byte[] deadLetterQueue, long capacity, long capacityBytes);

    /** The queue's settings, packed as {@link Wire#queueOptions} reads them. */
    static native byte[] queueOptions(long store, byte[] queue);

    /** Dead letters, packed as {@link Wire#deadLetters} reads them. */
    static native byte[] deadLetters(long store, byte[] queue, int max);
}
