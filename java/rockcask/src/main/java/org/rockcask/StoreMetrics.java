package org.rockcask;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Optional;

/**
 * A store's figures at one moment, from {@link Store#metrics()}: what it did since it was opened
 * (by this process; all 0 when {@link StoreOptions#metrics()} is off, and for commits on a
 * read-only store), what RocksDB holds in memory and on disk, whether RocksDB is slowing writes,
 * and each queue's figures. Immutable. Rates are per second over the last minute (see
 * {@link QueueMetrics}).
 */
public final class StoreMetrics {
    private final long[] v;
    private final Distribution commitLatency;
    private final Distribution syncedWrite;
    private final Distribution groupCommitSize;
    private final List<QueueMetrics> queues;

    /** From the store record ({@code METRICS_} slots, then the summaries) and the queues. */
    StoreMetrics(long[] v, List<QueueMetrics> queues) {
        this.v = v;
        this.commitLatency = summary(v, Wire.SUMMARY_OF_COMMIT_LATENCY);
        this.syncedWrite = summary(v, Wire.SUMMARY_OF_SYNCED_WRITE);
        this.groupCommitSize = summary(v, Wire.SUMMARY_OF_GROUP_COMMIT_SIZE);
        this.queues = queues;
    }

    private static Distribution summary(long[] v, int block) {
        return new Distribution(v, Wire.METRICS_SLOTS + block * Wire.SUMMARY_SLOTS);
    }

    /** Decodes {@code MetricsNative.snapshot}'s packed form. */
    static StoreMetrics unpack(byte[] packed) {
        ByteBuffer b = ByteBuffer.wrap(packed);
        long[] store = longs(b, Wire.METRICS_SLOTS + Wire.SUMMARY_OF_SLOTS * Wire.SUMMARY_SLOTS);
        int n = b.getInt();
        List<QueueMetrics> queues = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            int len = b.getInt();
            String name = new String(packed, b.position(), len, StandardCharsets.UTF_8);
            b.position(b.position() + len);
            queues.add(new QueueMetrics(name, longs(b, Wire.QUEUE_SLOTS)));
        }
        return new StoreMetrics(store, Collections.unmodifiableList(queues));
    }

    private static long[] longs(ByteBuffer b, int n) {
        long[] out = new long[n];
        b.asLongBuffer().get(out);
        b.position(b.position() + 8 * n);
        return out;
    }

    /** The record as it crossed from the native side (for this package's tests of its layout). */
    long[] values() {
        return v;
    }

    /** Whether the store counts ({@link StoreOptions#metrics()}). */
    public boolean counting() {
        return v[Wire.METRICS_COUNTING] != 0;
    }

    /** Milliseconds since the store was opened. */
    public long uptimeMillis() {
        return v[Wire.METRICS_UPTIME_MILLIS];
    }

    /** Transactions committed (written and published). */
    public long commits() {
        return v[Wire.METRICS_COMMITS];
    }

    public double commitsPerSecond() {
        return Double.longBitsToDouble(v[Wire.METRICS_COMMITS_PER_SECOND]);
    }

    /** Nanoseconds from {@link Transaction#commit()} called to written and published, per commit. */
    public Distribution commitLatencyNanos() {
        return commitLatency;
    }

    /**
     * Nanoseconds of the RocksDB write of one group of commits (write-ahead log append, and its
     * fsync when the store syncs on commit), per group write.
     */
    public Distribution syncedWriteNanos() {
        return syncedWrite;
    }

    /** Commits written together by one group write (group commit), per group write. */
    public Distribution groupCommitSize() {
        return groupCommitSize;
    }

    /** Queues listed by {@link Store#queues()}. */
    public long queueCount() {
        return v[Wire.METRICS_QUEUES];
    }

    /** Committed entries over all queues (exact). */
    public long queuedItems() {
        return v[Wire.METRICS_QUEUED_ITEMS];
    }

    /** Objects stored, as RocksDB estimates them. */
    public long objectsEstimate() {
        return v[Wire.METRICS_OBJECTS_ESTIMATE];
    }

    /** Bytes of all files in the store directory. */
    public long diskBytes() {
        return v[Wire.METRICS_DISK_BYTES];
    }

    /** Bytes of the table files the store's current version uses. */
    public long liveSstBytes() {
        return v[Wire.METRICS_LIVE_SST_BYTES];
    }

    /** Bytes of the write-ahead log files in the store directory. */
    public long walBytes() {
        return v[Wire.METRICS_WAL_BYTES];
    }

    /** Native memory held by memtables. */
    public long memtableBytes() {
        return v[Wire.METRICS_MEMTABLE_BYTES];
    }

    /** Native memory held by the block cache. */
    public long blockCacheBytes() {
        return v[Wire.METRICS_BLOCK_CACHE_BYTES];
    }

    /** Native memory held by table readers outside the block cache. */
    public long tableReaderBytes() {
        return v[Wire.METRICS_TABLE_READER_BYTES];
    }

    /** Memtables + block cache + table readers + map cache + object cache + queue entry cache. */
    public long nativeMemoryBytes() {
        return memtableBytes() + blockCacheBytes() + tableReaderBytes() + mapCacheBytes() + objectCacheBytes() + queueCacheBytes();
    }

    /** Payload bytes committed since open, as given ({@link StoreStats#payloadBytes()}). */
    public long payloadBytes() {
        return v[Wire.METRICS_PAYLOAD_BYTES];
    }

    /** The same payloads as stored, after compression where it paid. */
    public long storedPayloadBytes() {
        return v[Wire.METRICS_STORED_PAYLOAD_BYTES];
    }

    /** Bytes per second RocksDB currently slows writes to; 0 when it does not delay them. */
    public long delayedWriteRate() {
        return v[Wire.METRICS_DELAYED_WRITE_RATE];
    }

    /** Whether RocksDB has stopped writes until flushes or compactions catch up. */
    public boolean writeStopped() {
        return v[Wire.METRICS_WRITE_STOPPED] != 0;
    }

    /** Times RocksDB delayed writes since the store opened (every column family). */
    public long writeStallDelays() {
        return v[Wire.METRICS_WRITE_STALL_DELAYS];
    }

    /** Times RocksDB stopped writes since the store opened (every column family, and the whole database). */
    public long writeStallStops() {
        return v[Wire.METRICS_WRITE_STALL_STOPS];
    }

    /** Bytes the map cache ({@link StoreOptions#mapCacheBytes}) charges for the values it keeps now. */
    public long mapCacheBytes() {
        return v[Wire.METRICS_MAP_CACHE_BYTES];
    }

    /** Map point reads the map cache answered since the store opened. */
    public long mapCacheHits() {
        return v[Wire.METRICS_MAP_CACHE_HITS];
    }

    /** Map point reads that went to RocksDB since the store opened (0 when the cache is off). */
    public long mapCacheMisses() {
        return v[Wire.METRICS_MAP_CACHE_MISSES];
    }

    /** Bytes the object cache ({@link StoreOptions#objectCacheBytes}) charges for the objects it keeps now. */
    public long objectCacheBytes() {
        return v[Wire.METRICS_OBJECT_CACHE_BYTES];
    }

    /** Object reads ({@code get}, {@code getAll}) the object cache answered since the store opened. */
    public long objectCacheHits() {
        return v[Wire.METRICS_OBJECT_CACHE_HITS];
    }

    /** Object reads that went to RocksDB since the store opened (0 when the cache is off). */
    public long objectCacheMisses() {
        return v[Wire.METRICS_OBJECT_CACHE_MISSES];
    }

    /** Bytes the queue entry cache ({@link StoreOptions#queueCacheBytes}) charges for the committed entries it keeps now. */
    public long queueCacheBytes() {
        return v[Wire.METRICS_QUEUE_CACHE_BYTES];
    }

    /** Every queue's figures, sorted by name. */
    public List<QueueMetrics> queues() {
        return queues;
    }

    /** The figures of {@code name}, if the store lists such a queue. */
    public Optional<QueueMetrics> queue(String name) {
        return queues.stream().filter(q -> q.name().equals(name)).findFirst();
    }

    @Override
    public String toString() {
        return "StoreMetrics[commits=" + commits() + ", commitLatencyNanos=" + commitLatency + ", syncedWriteNanos=" + syncedWrite
                + ", groupCommitSize=" + groupCommitSize + ", queues=" + queueCount() + ", queuedItems=" + queuedItems() + ", diskBytes="
                + diskBytes() + ", nativeMemoryBytes=" + nativeMemoryBytes() + ", writeStopped=" + writeStopped() + "]";
    }
}
