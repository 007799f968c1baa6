package org.rockcask;

import org.rockcask.internal.NativeLibrary;

/**
 * The native calls reading a store's figures (declared in {@code rust/jni/src/metrics.rs},
 * registered when this class initializes; slot orders in {@link Wire}). Package-private, as
 * every native class: a handle is trusted to come from {@link Store}.
 */
final class MetricsNative {
    static {
        NativeLibrary.register(MetricsNative.class);
    }

    private MetricsNative() {}

    /**
     * Everything, packed as {@link StoreMetrics#unpack} reads it (big-endian): the store record's
     * longs, then i32 queue count, then per queue i32 name length, UTF-8 name and the
     * {@code QUEUE_} slots.
     */
    static native byte[] snapshot(long store);

    /** The store record alone: the {@code METRICS_} slots, then the {@code SUMMARY_} blocks. */
    static native long[] store(long store);

    /** The {@code QUEUE_} slots of the queue named {@code name} (UTF-8); empty when there is no such queue. */
    static native long[] queue(long store, byte[] name);

    /** Changes whenever a queue appears or is forgotten. */
    static native long queueSetVersion(long store);
}
