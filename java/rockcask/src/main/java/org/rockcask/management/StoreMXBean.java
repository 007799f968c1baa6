package org.rockcask.management;

/**
 * A store's figures over JMX: the attributes of {@link org.rockcask.StoreMetrics}, read live at
 * each attribute read. Latencies are in nanoseconds, sizes in bytes, rates per second over the
 * last minute; counts are since the store was opened.
 */
public interface StoreMXBean {
    /** The store's directory (absolute). */
    String getPath();

    boolean isReadOnly();

    long getUptimeMillis();

    long getCommits();

    double getCommitsPerSecond();

    double getCommitLatencyMeanNanos();

    long getCommitLatencyP50Nanos();

    long getCommitLatencyP90Nanos();

    long getCommitLatencyP99Nanos();

    long getCommitLatencyP999Nanos();

    long getCommitLatencyMaxNanos();

    /** Group writes (each one RocksDB write, synced when the store syncs on commit). */
    long getSyncedWrites();

    long getSyncedWriteP50Nanos();

    long getSyncedWriteP90Nanos();

    long getSyncedWriteP99Nanos();

    long getSyncedWriteP999Nanos();

    long getSyncedWriteMaxNanos();

    /** Commits per group write, on average. */
    double getGroupCommitMeanSize();

    long getGroupCommitMaxSize();

    long getQueues();

    long getQueuedItems();

    long getObjectsEstimate();

    long getDiskBytes();

    long getLiveSstBytes();

    long getWalBytes();

    long getMemtableBytes();

    long getBlockCacheBytes();

    long getTableReaderBytes();

    long getNativeMemoryBytes();

    /** Bytes per second RocksDB slows writes to now; 0 when it does not. */
    long getDelayedWriteRate();

    boolean isWriteStopped();

    long getWriteStallDelays();

    long getWriteStallStops();

    long getMapCacheBytes();

    long getMapCacheHits();

    long getMapCacheMisses();

    long getObjectCacheBytes();

    long getObjectCacheHits();

    long getObjectCacheMisses();

    long getQueueCacheBytes();
}
