package org.rockcask;

import org.rockcask.management.StoreMXBean;

/** A store's {@link StoreMXBean}: each read of any attribute brings the store's queue beans up to date, then reads the store. */
final class StoreBean implements StoreMXBean {
    private final MetricsBeans owner;

    StoreBean(MetricsBeans owner) {
        this.owner = owner;
    }

    private StoreMetrics figures() {
        owner.refresh();
        return owner.source().store();
    }

    @Override
    public String getPath() {
        owner.refresh();
        return owner.source().storePath();
    }

    @Override
    public boolean isReadOnly() {
        owner.refresh();
        return owner.source().readOnly();
    }

    @Override
    public long getUptimeMillis() {
        return figures().uptimeMillis();
    }

    @Override
    public long getCommits() {
        return figures().commits();
    }

    @Override
    public double getCommitsPerSecond() {
        return figures().commitsPerSecond();
    }

    private Distribution latency() {
        return figures().commitLatencyNanos();
    }

    @Override
    public double getCommitLatencyMeanNanos() {
        return latency().mean();
    }

    @Override
    public long getCommitLatencyP50Nanos() {
        return latency().p50();
    }

    @Override
    public long getCommitLatencyP90Nanos() {
        return latency().p90();
    }

    @Override
    public long getCommitLatencyP99Nanos() {
        return latency().p99();
    }

    @Override
    public long getCommitLatencyP999Nanos() {
        return latency().p999();
    }

    @Override
    public long getCommitLatencyMaxNanos() {
        return latency().max();
    }

    private Distribution write() {
        return figures().syncedWriteNanos();
    }

    @Override
    public long getSyncedWrites() {
        return write().count();
    }

    @Override
    public long getSyncedWriteP50Nanos() {
        return write().p50();
    }

    @Override
    public long getSyncedWriteP90Nanos() {
        return write().p90();
    }

    @Override
    public long getSyncedWriteP99Nanos() {
        return write().p99();
    }

    @Override
    public long getSyncedWriteP999Nanos() {
        return write().p999();
    }

    @Override
    public long getSyncedWriteMaxNanos() {
        return write().max();
    }

    @Override
    public double getGroupCommitMeanSize() {
        return figures().groupCommitSize().mean();
    }

    @Override
    public long getGroupCommitMaxSize() {
        return figures().groupCommitSize().max();
    }

    @Override
    public long getQueues() {
        return figures().queueCount();
    }

    @Override
    public long getQueuedItems() {
        return figures().queuedItems();
    }

    @Override
    public long getObjectsEstimate() {
        return figures().objectsEstimate();
    }

    @Override
    public long getDiskBytes() {
        return figures().diskBytes();
    }

    @Override
    public long getLiveSstBytes() {
        return figures().liveSstBytes();
    }

    @Override
    public long getWalBytes() {
        return figures().walBytes();
    }

    @Override
    public long getMemtableBytes() {
        return figures().memtableBytes();
    }

    @Override
    public long getBlockCacheBytes() {
        return figures().blockCacheBytes();
    }

    @Override
    public long getTableReaderBytes() {
        return figures().tableReaderBytes();
    }

    @Override
    public long getNativeMemoryBytes() {
        return figures().nativeMemoryBytes();
    }

    @Override
    public long getDelayedWriteRate() {
        return figures().delayedWriteRate();
    }

    @Override
    public boolean isWriteStopped() {
        return figures().writeStopped();
    }

    @Override
    public long getWriteStallDelays() {
        return figures().writeStallDelays();
    }

    @Override
    public long getWriteStallStops() {
        return figures().writeStallStops();
    }

    @Override
    public long getMapCacheBytes() {
        return figures().mapCacheBytes();
    }

    @Override
    public long getMapCacheHits() {
        return figures().mapCacheHits();
    }

    @Override
    public long getMapCacheMisses() {
        return figures().mapCacheMisses();
    }

    @Override
    public long getObjectCacheBytes() {
        return figures().objectCacheBytes();
    }

    @Override
    public long getObjectCacheHits() {
        return figures().objectCacheHits();
    }

    @Override
    public long getObjectCacheMisses() {
        return figures().objectCacheMisses();
    }

    @Override
    public long getQueueCacheBytes() {
        return figures().queueCacheBytes();
    }
}
