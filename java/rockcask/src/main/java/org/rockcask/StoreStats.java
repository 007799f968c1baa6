package org.rockcask;

/** Figures about a store at one moment, from {@link Store#stats()}. */
public final class StoreStats {
    private final long queues;
    private final long queuedItems;
    private final long objectsEstimate;
    private final long diskBytes;
    private final long memtableBytes;
    private final long blockCacheBytes;
    private final long tableReaderBytes;

    StoreStats(long queues, long queuedItems, long objectsEstimate, long diskBytes, long memtableBytes, long blockCacheBytes,
            long tableReaderBytes, long payloadBytes, long storedPayloadBytes, long maps, long mapEntriesEstimate) {
        this.maps = maps;
        this.mapEntriesEstimate = mapEntriesEstimate;
        this.payloadBytes = payloadBytes;
        this.storedPayloadBytes = storedPayloadBytes;
        this.queues = queues;
        this.queuedItems = queuedItems;
        this.objectsEstimate = objectsEstimate;
        this.diskBytes = diskBytes;
        this.memtableBytes = memtableBytes;
        this.blockCacheBytes = blockCacheBytes;
        this.tableReaderBytes = tableReaderBytes;
    }

    private final long payloadBytes;
    private final long storedPayloadBytes;
    private final long maps;
    private final long mapEntriesEstimate;

    /** Maps ({@link Transaction#map(String)}). */
    public long maps() {
        return maps;
    }

    /** Pairs over all maps, as RocksDB estimates them. */
    public long mapEntriesEstimate() {
        return mapEntriesEstimate;
    }

    /**
     * Payload bytes written by transactions committed since the store was opened, as given
     * (a payload overwritten within its transaction counts too).
     */
    public long payloadBytes() {
        return payloadBytes;
    }

    /** The same payloads as stored: after compression where it paid (see {@link StoreOptions#compression}). */
    public long storedPayloadBytes() {
        return storedPayloadBytes;
    }

    public long queues() {
        return queues;
    }

    /** Committed entries over all queues (exact). */
    public long queuedItems() {
        return queuedItems;
    }

    /** Objects stored, as RocksDB estimates them. */
    public long objectsEstimate() {
        return objectsEstimate;
    }

    /** Bytes of all files in the store directory. */
    public long diskBytes() {
        return diskBytes;
    }

    /** Native memory held by memtables. */
    public long memtableBytes() {
        return memtableBytes;
    }

    /** Native memory held by the block cache. */
    public long blockCacheBytes() {
        return blockCacheBytes;
    }

    /** Native memory held by table readers outside the block cache. */
    public long tableReaderBytes() {
        return tableReaderBytes;
    }

    /** Memtables + block cache + table readers. */
    public long nativeMemoryBytes() {
        return memtableBytes + blockCacheBytes + tableReaderBytes;
    }

    @Override
    public String toString() {
        return "StoreStats[queues=" + queues + ", queuedItems=" + queuedItems + ", objects~" + objectsEstimate + ", diskBytes="
                + diskBytes + ", nativeMemoryBytes=" + nativeMemoryBytes() + ", payloadBytes=" + payloadBytes + ", storedPayloadBytes="
                + storedPayloadBytes + ", maps=" + maps + ", mapEntries~" + mapEntriesEstimate + "]";
    }
}
