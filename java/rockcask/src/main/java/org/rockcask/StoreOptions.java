package org.rockcask;

import java.util.Collections;
import java.util.Map;
import java.util.TreeMap;

/**
 * How a store is opened. Immutable; each {@code with}-style method returns a changed copy:
 * {@code StoreOptions.defaults().syncOnCommit(false)}.
 */
public final class StoreOptions {
    private boolean syncOnCommit = true;
    private long blockCacheBytes = 64L << 20;
    private long writeBufferBytes = 128L << 20;
    private boolean createIfMissing = true;
    private boolean readOnly;
    private Compression compression = Compression.NONE;
    private int compressionThreshold = 256;
    private Map<String, Compression> queueCompression = Collections.emptyMap();
    private int maxDeliveries;
    private boolean metrics = true;
    private long mapCacheBytes = 32L << 20;
    private long objectCacheBytes;
    private long queueCacheBytes = 16L << 20;
    private int inlinePayloadBytes;

    private StoreOptions() {}

    private StoreOptions copy() {
        StoreOptions o = new StoreOptions();
        o.syncOnCommit = syncOnCommit;
        o.blockCacheBytes = blockCacheBytes;
        o.writeBufferBytes = writeBufferBytes;
        o.createIfMissing = createIfMissing;
        o.readOnly = readOnly;
        o.compression = compression;
        o.compressionThreshold = compressionThreshold;
        o.queueCompression = queueCompression;
        o.maxDeliveries = maxDeliveries;
        o.mapCacheBytes = mapCacheBytes;
        o.objectCacheBytes = objectCacheBytes;
        o.queueCacheBytes = queueCacheBytes;
        o.inlinePayloadBytes = inlinePayloadBytes;
        o.metrics = metrics;
        return o;
    }

    /** Sync on commit, 64 MiB block cache, 32 MiB map cache, 16 MiB queue entry cache, 128 MiB write buffers, create if missing, no compression. */
    public static StoreOptions defaults() {
        return new StoreOptions();
    }

    /**
     * On (default): a commit that returned survives power loss. Off: it survives a crash of the
     * process, but the last commits may be lost if the machine goes down.
     */
    public boolean syncOnCommit() {
        return syncOnCommit;
    }

    public StoreOptions syncOnCommit(boolean v) {
        StoreOptions o = copy();
        o.syncOnCommit = v;
        return o;
    }

    /**
     * Bytes of the block cache: 0 for none (indexes and filters are then held by the table
     * readers, outside any cache), at most 1 TiB.
     */
    public long blockCacheBytes() {
        return blockCacheBytes;
    }

    public StoreOptions blockCacheBytes(long v) {
        StoreOptions o = copy();
        o.blockCacheBytes = cacheBytes("blockCacheBytes", "block cache", v, Wire.MAX_BLOCK_CACHE_BYTES);
        return o;
    }

    /**
     * Bytes of the map cache: committed map values kept in native memory for point reads
     * ({@link TxMap#get}, {@link MapReader}), beside the block cache; at most 1 TiB, and below
     * 64 KiB (0 included) none. 32 MiB by default. A read it answers skips RocksDB's read path
     * and costs a quarter to a third of it. Each value is charged its key (plus 4 bytes of map
     * id), its value and 96 bytes; until the cache has had to evict a value is kept the first
     * time it is missed, from then on at its second miss. Size it to the maps' hot values. docs/MAPS.md says
     * how it is kept from ever being stale.
     */
    public long mapCacheBytes() {
        return mapCacheBytes;
    }

    public StoreOptions mapCacheBytes(long v) {
        StoreOptions o = copy();
        o.mapCacheBytes = cacheBytes("mapCacheBytes", "map cache", v, Wire.MAX_MAP_CACHE_BYTES);
        return o;
    }

    /**
     * Bytes of the object cache: committed objects created by {@code put} kept in native memory
     * for {@link Transaction#get} and {@link Transaction#getAll}, beside the block cache; at
     * most 1 TiB, and below 64 KiB (0 included) none. Off (0) by default. Queue-owned objects
     * ({@code enqueue(queue, bytes)}) are not kept: a queue reads each once, and commits that
     * consume them mark nothing in the cache. A read it answers
     * skips RocksDB's read path. Each object is charged its 16-byte id, its payload as stored
     * (plus a flag byte) and 96 bytes, and one charged more than 1/512 of the cache is never
     * kept. Until the cache has had to evict, an object is kept the first time it is missed;
     * from then on at its second miss. Size it to the objects read again and again. It is
     * never stale: docs/INTERNALS.md says how.
     */
    public long objectCacheBytes() {
        return objectCacheBytes;
    }

    public StoreOptions objectCacheBytes(long v) {
        StoreOptions o = copy();
        o.objectCacheBytes = cacheBytes("objectCacheBytes", "object cache", v, Wire.MAX_OBJECT_CACHE_BYTES);
        return o;
    }

    /**
     * Bytes of the queue entry cache: entries committed and not yet polled, kept in native
     * memory from their commit on, so that a consumer keeping up with its producers polls them
     * without reading them back from RocksDB (with inline payloads, {@link #inlinePayloadBytes},
     * that is most of a poll's cost). 16 MiB by default, for the whole store; 0 keeps none; at
     * most 1 TiB. Each entry is charged its inline payload plus about 80 bytes. When it is
     * full, the queue holding the most gives way (its newest entries are dropped, to be read
     * from RocksDB when polled) if it holds more than the queue committing, so a queue nobody
     * polls cannot keep the others out. It never changes what a poll returns: docs/INTERNALS.md
     * says why.
     */
    public long queueCacheBytes() {
        return queueCacheBytes;
    }

    public StoreOptions queueCacheBytes(long v) {
        StoreOptions o = copy();
        o.queueCacheBytes = cacheBytes("queueCacheBytes", "queue entry cache", v, Wire.MAX_QUEUE_CACHE_BYTES);
        return o;
    }

    /**
     * Payloads of {@link Transaction#enqueue(String, byte[])} up to this many bytes are kept in
     * their queue entry: one record per item instead of an entry and an object, so enqueues,
     * polls and commits write and read about half as much. 0 (the default): none; at most
     * 65,536. Such a payload has no object of its own: {@link Transaction#get}, {@code put},
     * {@code delete} and {@link Transaction#enqueue(String, java.util.UUID)} of its id (its
     * {@link Message#id()}) see no object, so a flow forwards it by enqueueing its bytes. Applies
     * to enqueues from now on; every store reads both kinds of entry, whatever it is opened with.
     */
    public int inlinePayloadBytes() {
        return inlinePayloadBytes;
    }

    public StoreOptions inlinePayloadBytes(int v) {
        if (v < 0 || v > Wire.MAX_INLINE_PAYLOAD_BYTES) {
            throw new IllegalArgumentException("inlinePayloadBytes must be 0 (none) to " + Wire.MAX_INLINE_PAYLOAD_BYTES + ": " + v);
        }
        StoreOptions o = copy();
        o.inlinePayloadBytes = v;
        return o;
    }

    /** A cache's size checked: 0 (none) to {@code max}. */
    private static long cacheBytes(String option, String cache, long v, long max) {
        if (v < 0 || v > max) {
            throw new IllegalArgumentException(option + " must be 0 (no " + cache + ") to " + max + ": " + v);
        }
        return v;
    }

    /** Bytes all memtables together may use before they are flushed to disk: 1 MiB to 64 GiB. */
    public long writeBufferBytes() {
        return writeBufferBytes;
    }

    public StoreOptions writeBufferBytes(long v) {
        if (v < Wire.MIN_WRITE_BUFFER_BYTES || v > Wire.MAX_WRITE_BUFFER_BYTES) {
            throw new IllegalArgumentException(
                    "writeBufferBytes must be " + Wire.MIN_WRITE_BUFFER_BYTES + " to " + Wire.MAX_WRITE_BUFFER_BYTES + ": " + v);
        }
        StoreOptions o = copy();
        o.writeBufferBytes = v;
        return o;
    }

    /** Create the store when the directory is missing or empty (default on). */
    public boolean createIfMissing() {
        return createIfMissing;
    }

    public StoreOptions createIfMissing(boolean v) {
        StoreOptions o = copy();
        o.createIfMissing = v;
        return o;
    }

    /**
     * Open for reading only: every write throws {@link RockCaskException} (ReadOnly). A read-only
     * open takes no lock: it may open beside the store's writer (seeing what was committed when
     * it opened) and beside other read-only opens.
     */
    public boolean readOnly() {
        return readOnly;
    }

    public StoreOptions readOnly(boolean v) {
        StoreOptions o = copy();
        o.readOnly = v;
        return o;
    }

    public Compression compression() {
        return compression;
    }

    /**
     * Compresses payloads written from now on with {@code codec} (default {@link Compression#NONE}).
     * A payload below {@link #compressionThreshold()} bytes, or one that does not get smaller,
     * is stored raw.
     */
    public StoreOptions compression(Compression codec) {
        if (codec == null) {
            throw new NullPointerException("codec must not be null");
        }
        StoreOptions o = copy();
        o.compression = codec;
        return o;
    }

    public int compressionThreshold() {
        return compressionThreshold;
    }

    /** Payloads shorter than this are stored raw (default 256 bytes). */
    public StoreOptions compressionThreshold(int bytes) {
        if (bytes < 0) {
            throw new IllegalArgumentException("compressionThreshold must not be negative: " + bytes);
        }
        StoreOptions o = copy();
        o.compressionThreshold = bytes;
        return o;
    }

    /**
     * Per-queue codecs overriding {@link #compression()} for {@code enqueue(queue, bytes)}. Names
     * are matched exactly as given (a name no queue has simply never applies).
     */
    public Map<String, Compression> queueCompression() {
        return queueCompression;
    }

    /**
     * Compresses payloads enqueued as new objects on {@code queue} with {@code codec}.
     *
     * @throws IllegalArgumentException when {@code queue} is not valid UTF-16 (see
     *     {@link Transaction})
     */
    public StoreOptions queueCompression(String queue, Compression codec) {
        if (queue == null || codec == null) {
            throw new NullPointerException("queue and codec must not be null");
        }
        Wire.queueName(queue);
        StoreOptions o = copy();
        Map<String, Compression> m = new TreeMap<>(queueCompression);
        m.put(queue, codec);
        o.queueCompression = Collections.unmodifiableMap(m);
        return o;
    }

    /**
     * The delivery limit of every queue whose {@link QueueOptions} give none: an entry delivered
     * this many times without being consumed goes to its queue's dead-letter queue. 0 (the
     * default): no limit.
     */
    public int maxDeliveries() {
        return maxDeliveries;
    }

    public StoreOptions maxDeliveries(int n) {
        if (n < 0) {
            throw new IllegalArgumentException("maxDeliveries must be 0 (no limit) or positive: " + n);
        }
        StoreOptions o = copy();
        o.maxDeliveries = n;
        return o;
    }

    /**
     * On (default): the store counts commits, their latency and per-queue figures for
     * {@link Store#metrics()}, and shows them as JMX MXBeans (domain {@code org.rockcask}; see
     * {@link org.rockcask.management.StoreMXBean}). Off: nothing is counted and no bean is
     * registered; {@link Store#metrics()} then reports depths, memory and disk only.
     */
    public boolean metrics() {
        return metrics;
    }

    public StoreOptions metrics(boolean v) {
        StoreOptions o = copy();
        o.metrics = v;
        return o;
    }

    /**
     * These options as the native side reads them: the {@code STORE_} slots of {@link Wire} (the
     * per-queue codecs cross apart, as {@link Wire#queueCodecs} packs them).
     */
    long[] record() {
        long[] slots = new long[Wire.STORE_SLOTS];
        slots[Wire.STORE_SYNC_ON_COMMIT] = syncOnCommit ? 1 : 0;
        slots[Wire.STORE_BLOCK_CACHE_BYTES] = blockCacheBytes;
        slots[Wire.STORE_WRITE_BUFFER_BYTES] = writeBufferBytes;
        slots[Wire.STORE_CREATE_IF_MISSING] = createIfMissing ? 1 : 0;
        slots[Wire.STORE_READ_ONLY] = readOnly ? 1 : 0;
        slots[Wire.STORE_COMPRESSION] = compression.code;
        slots[Wire.STORE_COMPRESSION_THRESHOLD] = compressionThreshold;
        slots[Wire.STORE_MAX_DELIVERIES] = maxDeliveries;
        slots[Wire.STORE_METRICS] = metrics ? 1 : 0;
        slots[Wire.STORE_MAP_CACHE_BYTES] = mapCacheBytes;
        slots[Wire.STORE_OBJECT_CACHE_BYTES] = objectCacheBytes;
        slots[Wire.STORE_INLINE_PAYLOAD_BYTES] = inlinePayloadBytes;
        slots[Wire.STORE_QUEUE_CACHE_BYTES] = queueCacheBytes;
        return slots;
    }

    @Override
    public String toString() {
        return "StoreOptions[syncOnCommit=" + syncOnCommit + ", blockCacheBytes=" + blockCacheBytes + ", writeBufferBytes="
                + writeBufferBytes + ", createIfMissing=" + createIfMissing + ", readOnly=" + readOnly + ", compression=" + compression
                + ", compressionThreshold=" + compressionThreshold + ", queueCompression=" + queueCompression + ", maxDeliveries=" + maxDeliveries + ", metrics=" + metrics + ", mapCacheBytes=" + mapCacheBytes + ", objectCacheBytes=" + objectCacheBytes + ", queueCacheBytes=" + queueCacheBytes + ", inlinePayloadBytes=" + inlinePayloadBytes + "]";
    }
}
