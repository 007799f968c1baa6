package org.rockcask.internal;

/**
 * The native calls reading a store's figures (declared in {@code rust/jni/src/metrics.rs},
 * registered when this class initializes; slot orders in {@code org.rockcask.Wire}).
 */
public final class MetricsNative {
    static {
        NativeLibrary.register(MetricsNative.class);
    }

    private MetricsNative() {}

    /**
     * Everything, packed (big-endian): the store record's longs, then i32 queue count, then per
     * queue i32 name length, UTF-8 name and the {@code QUEUE_} slots.
     */
    public static native byte[] snapshot(long store);

    /** The store record alone: the {@code METRICS_} slots, then the {@code SUMMARY_} blocks. */
    public static native long[] store(long store);

    /** The {@code QUEUE_} slots of the queue named {@code name} (UTF-8); empty when there is no such queue. */
    public static native long[] queue(long store, byte[] name);

    /** Changes whenever a queue appears or is forgotten. */
    public static native long queueSetVersion(long store);
}
