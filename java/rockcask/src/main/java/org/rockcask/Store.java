package org.rockcask;

import java.nio.file.Path;
import java.time.Instant;
import java.util.List;
import java.util.Objects;
import org.rockcask.internal.NativeResource;

/**
 * A RockCask store: named durable queues and objects by UUID in one directory.
 *
 * <p>Thread-safe. A directory is open at most once: a second open fails with
 * {@link RockCaskException.Status#Locked}, naming the holder, whatever path spells the directory
 * (a symlink, {@code ..}) and whichever class loader or process asks. Read-only opens write
 * nothing and may open beside a writer and each other. Work happens in {@link Transaction}s from
 * {@link #begin()}. {@link #close()} releases everything; later calls on this store and on its
 * transactions throw {@link IllegalStateException}. A store that is never closed is released
 * when it becomes unreachable, but close it: until then it holds the directory's lock.
 */
public final class Store implements AutoCloseable {
    /** The longest queue name (and name prefix) a store accepts, in UTF-8 bytes. */
    public static final int MAX_QUEUE_NAME_BYTES = Wire.MAX_QUEUE_NAME_BYTES;

    /**
     * The most items one call takes or returns: ids or keys per {@code getAll}, entries per
     * poll or peek, pairs per map scan or cursor page, dead letters per listing (1,048,576).
     */
    public static final int MAX_BATCH_ITEMS = Wire.MAX_BATCH_ITEMS;

    /** The largest payload of one object or entry, in bytes (1 GiB); map values have the same limit ({@link TxMap#MAX_VALUE_BYTES}). */
    public static final int MAX_PAYLOAD_BYTES = Wire.MAX_PAYLOAD_BYTES;

    /**
     * The most bytes one read of many items returns: payloads ({@link Transaction#poll(String, int)},
     * {@link Transaction#peek}), keys and values ({@link TxMap#scan}, a {@link MapCursor}'s page,
     * {@link TxMap#getAll}), payloads, origin queue names and reasons ({@link #deadLetters}).
     * 1.5 GiB: the result crosses from the native store as one Java array, which holds less than
     * 2 GiB. Reads that can return fewer do (always at least one item, whatever its size: no
     * single item is larger than this); {@link TxMap#getAll}, which must answer every key, throws
     * {@link IllegalArgumentException} instead.
     */
    public static final int MAX_RESULT_BYTES = Wire.MAX_RESULT_BYTES;

    private final NativeResource handle;
    private final TransactionPool transactions = new TransactionPool();
    private final Path path;
    private final StoreOptions options;
    /** The store's JMX beans; {@code null} when it does not count ({@link StoreOptions#metrics()}). */
    private MetricsBeans beans;

    private Store(long handle, Path path, StoreOptions options) {
        this.handle = new NativeResource("Store", handle, StoreNative::free) {
            @Override
            protected void beforeFree(long h) {
                // Wakes transactions blocked in take() so close does not wait for their timeouts.
                try {
                    StoreNative.close(h);
                } finally {
                    // Also when closing failed (a failed sync): idle ones hold the native store.
                    transactions.drain();
                }
            }
        };
        this.path = path;
        this.options = options;
    }

    /**
     * Opens (or, with {@link StoreOptions#createIfMissing()}, creates) the store in {@code dir}.
     *
     * @throws RockCaskException with status {@code NotAStore} when {@code dir} is a file, a
     *     non-empty directory without a store, or missing while creation is off; {@code Locked}
     *     when the store is open elsewhere (in this process too); {@code Corruption} when the
     *     store's own files are damaged (do not delete it: restore it from a snapshot or a
     *     checkpoint); a RocksDB status for other failures
     * @throws IllegalArgumentException for options no store can be opened with
     */
    public static Store open(Path dir, StoreOptions options) {
        Objects.requireNonNull(dir, "dir");
        Objects.requireNonNull(options, "options");
        Path abs = dir.toAbsolutePath();
        long handle = StoreNative.open(Wire.path(abs), options.record(), Wire.queueCodecs(options.queueCompression()));
        Store store = new Store(handle, abs, options);
        if (options.metrics()) {
            try {
                store.beans = MetricsBeans.register(new StoreMetricsSource(store));
            } catch (RuntimeException e) {
                store.close();
                throw e;
            }
        }
        return store;
    }

    /** Starts a transaction. Close it (try-with-resources); an uncommitted one rolls back. */
    public Transaction begin() {
        NativeResource tx = transactions.take();
        if (tx == null) {
            tx = handle.call(h -> new NativeResource("Transaction", StoreNative.begin(h), TransactionNative::free));
        } else if (isClosed()) {
            // Taken before the close drained the pool: refused as a closed store refuses a begin.
            tx.close();
            throw new IllegalStateException("Store is closed");
        }
        return new Transaction(tx, this);
    }

    /**
     * Takes back the native transaction of a {@link Transaction} that ended, started again as a
     * new transaction of this store ({@link TransactionNative#restart}), for a later begin.
     */
    void recycle(NativeResource tx) {
        transactions.give(tx, this);
    }

    /**
     * Runs {@code fn} in a new transaction and commits it, again in a new transaction each time
     * the attempt fails with status {@code Conflict}, as {@link RetryPolicy#defaults()} says: the
     * way to write a read-modify-write. Returns {@code fn}'s result once its commit succeeded.
     * See {@link #inTransaction(RetryPolicy, TransactionFunction)}.
     */
    public <T> T inTransaction(TransactionFunction<T> fn) {
        return Retries.run(this, RetryPolicy.defaults(), fn);
    }

    /**
     * {@link #inTransaction(TransactionFunction)} with {@code policy}'s bounds and backoff.
     * <ul>
     *   <li>A {@code Conflict} (from the commit, or from anywhere in the attempt) ends that
     *       attempt's transaction as a rollback does; after a random backoff {@code fn} runs again
     *       in a new one.</li>
     *   <li>When the policy allows no further attempt, the last {@code Conflict} is thrown again
     *       as a {@link RockCaskException} of that status (the last one its cause) whose message
     *       gives the attempts made and their time.</li>
     *   <li>Any other exception, from {@code fn} or the commit, rolls the transaction back and
     *       propagates at once, never retried.</li>
     *   <li>A thread interrupted while it waits to retry stops: the last {@code Conflict} is
     *       thrown (its message says so) and the thread's interrupt flag stays set.</li>
     * </ul>
     */
    public <T> T inTransaction(RetryPolicy policy, TransactionFunction<T> fn) {
        return Retries.run(this, policy, fn);
    }

    /**
     * Names of every queue committed to and not dropped since, sorted. Names take at most
     * {@value #MAX_QUEUE_NAME_BYTES} bytes each; should they total more than one Java array holds
     * (two million queues with the longest names), this throws {@link IllegalArgumentException}
     * naming the size: list them by prefix ({@link #queues(String)}).
     */
    public List<String> queues() {
        return queues("");
    }

    /**
     * {@link #queues()} whose names start with {@code prefix} (at most a queue name long; empty
     * for all), sorted. Throws {@link IllegalArgumentException} as {@link #queues()} does when
     * the names do not fit one Java array.
     */
    public List<String> queues(String prefix) {
        byte[] utf8 = Wire.checkedPrefix(prefix);
        return handle.call(h -> Wire.strings(StoreNative.queueNames(h, utf8)));
    }

    /** Committed entries in {@code queue} (0 for a queue never used), in O(1). */
    public long queueSize(String queue) {
        byte[] name = Wire.queueName(queue);
        return handle.call(h -> StoreNative.queueSize(h, name));
    }

    public StoreStats stats() {
        long[] v = handle.call(StoreNative::stats);
        return new StoreStats(v[Wire.STATS_QUEUES], v[Wire.STATS_QUEUED_ITEMS], v[Wire.STATS_OBJECTS_ESTIMATE], v[Wire.STATS_DISK_BYTES],
                v[Wire.STATS_MEMTABLE_BYTES], v[Wire.STATS_BLOCK_CACHE_BYTES], v[Wire.STATS_TABLE_READER_BYTES], v[Wire.STATS_PAYLOAD_BYTES],
                v[Wire.STATS_STORED_PAYLOAD_BYTES], v[Wire.STATS_MAPS], v[Wire.STATS_MAP_ENTRIES_ESTIMATE]);
    }

    /**
     * Gives {@code queue} these settings, kept in the store (written durably at once, and in
     * force for every transaction from now on). {@link QueueOptions#defaults()} forgets its
     * settings. A lower delivery limit applies to entries already over it at their next failed
     * delivery, or at the next open; a lower capacity to the next commits (entries already there
     * stay).
     */
    public void configureQueue(String queue, QueueOptions options) {
        byte[] name = Wire.checkedQueueName(queue);
        Objects.requireNonNull(options, "options");
        String dead = options.deadLetterQueue();
        byte[] deadName = dead == null ? null : Wire.checkedQueueName(dead);
        handle.run(h -> StoreNative.configureQueue(h, name, options.maxDeliveries(), deadName, options.capacity(), options.capacityBytes()));
    }

    /**
     * The value under {@code key} in map {@code map} as committed now, read outside any
     * transaction: for a reader that writes nothing (a transaction's {@link TxMap#get} also
     * notes the read, for its commit to check). {@code null} when the key or the map is not there.
     */
    public byte[] mapGet(String map, byte[] key) {
        byte[] name = Wire.checkedMapName(map);
        TxMap.checkKey(key);
        return mapGet(name, key);
    }

    /**
     * A reader of map {@code map}'s committed values outside any transaction ({@link #mapGet}),
     * with a read into a direct {@link java.nio.ByteBuffer} that makes no garbage: for readers
     * that look up many keys. The map need not exist yet; the reader is valid while the store
     * is open and may be used from any thread.
     */
    public MapReader mapReader(String map) {
        return new MapReader(this, map, Wire.checkedMapName(map));
    }

    byte[] mapGet(byte[] name, byte[] key) {
        return handle.call(h -> MapNative.storeGet(h, name, key));
    }

    int mapGetInto(byte[] name, byte[] key, java.nio.ByteBuffer into, int position, int room) {
        return handle.call(h -> MapNative.storeGetInto(h, name, key, into, position, room));
    }

    /**
     * The names of the maps ({@link Transaction#map(String)}), sorted. Throws
     * {@link IllegalArgumentException} naming the size should the names not fit one Java array
     * (about two million maps with the longest names).
     */
    public List<String> maps() {
        return handle.call(h -> Wire.strings(MapNative.names(h)));
    }

    /** The settings of {@code queue} ({@link QueueOptions#defaults()} when it has none). */
    public QueueOptions queueOptions(String queue) {
        byte[] name = Wire.checkedQueueName(queue);
        return handle.call(h -> Wire.queueOptions(StoreNative.queueOptions(h, name)));
    }

    /**
     * The first {@code max} dead letters of {@code queue} (the entries its dead-letter queue
     * holds that were dead-lettered, from this queue or another sharing that dead-letter queue),
     * lowest position first, each with its payload and why it died. Requeue or drop them with
     * {@link Transaction#requeueDeadLetters(String, long...)} and
     * {@link Transaction#dropDeadLetters(String, long...)}; a consumer may also poll the
     * dead-letter queue ({@code <queue>.dead} unless {@link QueueOptions#deadLetterQueue()} names
     * another) like any queue.
     *
     * <p>May return fewer than {@code max} though more are there: one call returns at most
     * {@link #MAX_RESULT_BYTES} of payloads, origin queue names and reasons (always at least
     * one dead letter, whatever its size). To see the ones after, requeue or drop those
     * returned, or poll the dead-letter queue.
     */
    public List<DeadLetter> deadLetters(String queue, int max) {
        byte[] name = Wire.checkedQueueName(queue);
        if (max < 0 || max > Wire.MAX_BATCH_ITEMS) {
            throw new IllegalArgumentException("max must be 0 to " + Wire.MAX_BATCH_ITEMS + ": " + max);
        }
        return handle.call(h -> Wire.deadLetters(StoreNative.deadLetters(h, name, max)));
    }

    /**
     * The store's figures and each queue's, at this moment (one native call): commits and their
     * latency, group writes, memory, disk, write stalls, queue depths and counts. With
     * {@link StoreOptions#metrics()} off, counts and latencies are 0 and ages unknown.
     */
    public StoreMetrics metrics() {
        return StoreMetrics.unpack(handle.call(MetricsNative::snapshot));
    }

    /** Flushes and compacts now, reclaiming the space of consumed entries at once. */
    public void compact() {
        handle.run(StoreNative::compact);
    }

    /**
     * Writes a consistent point-in-time copy of the store (every queue with its entries in order,
     * every object) to {@code file}, while other threads keep committing: the copy holds each
     * transaction entirely or not at all. The file appears complete or not at all. Memory does
     * not grow with the store. Format: docs/SNAPSHOT_FORMAT.md.
     *
     * @throws RockCaskException {@code TargetExists} when {@code file} exists and overwriting was
     *     not asked for; {@code IOError} when the file cannot be written (nothing is left behind)
     */
    public SnapshotInfo exportTo(Path file, ExportOptions options) {
        Objects.requireNonNull(file, "file");
        Objects.requireNonNull(options, "options");
        long[] record = options.record();
        return snapshot(file, (target, info) -> handle.call(h -> {
            Store outer = EXPORTING.get();
            EXPORTING.set(this);
            try {
                return SnapshotNative.exportStore(h, target, record, SnapshotProgress.Relay.of(options.progress()), info);
            } finally {
                EXPORTING.set(outer);
            }
        }));
    }

    /**
     * Creates a store in {@code newStoreDir} (which must not exist, or be empty) from a snapshot.
     * Streams the file, checking each frame's checksum as it goes and the trailer's counts and
     * whole-file checksum at the end. The store is built beside {@code newStoreDir} and moved
     * there only once all of it checked out: on any error, or a crash, nothing appears there.
     * Open the result with {@link #open}.
     *
     * @throws SnapshotException when the file is damaged, truncated, of a newer format or not a
     *     snapshot (naming the byte offset and frame)
     * @throws RockCaskException {@code TargetExists} when {@code newStoreDir} is not empty
     */
    public static SnapshotInfo importFrom(Path file, Path newStoreDir, ImportOptions options) {
        Objects.requireNonNull(file, "file");
        Objects.requireNonNull(newStoreDir, "newStoreDir");
        Objects.requireNonNull(options, "options");
        byte[] dir = Wire.path(newStoreDir.toAbsolutePath());
        StoreOptions store = options.store();
        return snapshot(file, (source, info) -> SnapshotNative.importStore(source, dir, options.workers(), store.record(),
                Wire.queueCodecs(store.queueCompression()), SnapshotProgress.Relay.of(options.progress()), info));
    }

    /**
     * Reads a snapshot through, checking everything an import checks, and writes nothing.
     *
     * @throws SnapshotException when it would not import
     */
    public static SnapshotInfo verifySnapshot(Path file, ProgressListener progress) {
        Objects.requireNonNull(file, "file");
        int workers = Math.min(8, Runtime.getRuntime().availableProcessors());
        return snapshot(file, (source, info) -> SnapshotNative.verify(source, workers, SnapshotProgress.Relay.of(progress), info));
    }

    /**
     * Creates in {@code dir} (which must not exist, or be empty) a RocksDB checkpoint of the
     * store: a consistent copy whose files are hard links where the file system allows (so it
     * is quick and small), copies otherwise. It opens as a store.
     *
     * @throws RockCaskException {@code TargetExists} when {@code dir} is not empty
     */
    public void checkpoint(Path dir) {
        Objects.requireNonNull(dir, "dir");
        byte[] target = Wire.path(dir.toAbsolutePath());
        handle.run(h -> SnapshotNative.checkpoint(h, target));
    }

    /** The store this thread is exporting, if any (its progress listener runs on this thread). */
    private static final ThreadLocal<Store> EXPORTING = new ThreadLocal<>();

    /**
     * Closes the store: waits for calls in flight on other threads, then releases everything.
     *
     * @throws IllegalStateException when called from this store's own export progress listener
     *     (the export is a call in flight on this very thread: closing would wait for ever)
     */
    @Override
    public void close() {
        if (EXPORTING.get() == this) {
            throw new IllegalStateException("a store cannot be closed from its own export's progress listener; throw from the listener to stop the export");
        }
        try {
            if (beans != null) {
                beans.close();
            }
        } finally {
            handle.close();
        }
    }

    /** A native snapshot call on a file: its path as UTF-8 and the array to fill; returns the summary's packed strings. */
    interface SnapshotCall {
        byte[] run(byte[] file, long[] info);
    }

    /** Runs {@code call} on {@code file} and returns the summary it fills in. */
    static SnapshotInfo snapshot(Path file, SnapshotCall call) {
        Path abs = file.toAbsolutePath();
        long[] info = new long[Wire.INFO_SLOTS];
        byte[] strings = call.run(Wire.path(abs), info);
        return snapshotInfo(abs, strings, info);
    }

    private static SnapshotInfo snapshotInfo(Path file, byte[] packedStrings, long[] v) {
        List<String> s = Wire.strings(packedStrings);
        return new SnapshotInfo(file, (int) v[Wire.INFO_FORMAT_VERSION], SnapshotInfo.Content.valueOf(s.get(0)),
                Compression.ofCode(v[Wire.INFO_COMPRESSION]), s.get(1), Instant.ofEpochMilli(v[Wire.INFO_CREATED_AT_MILLIS]), s.get(2), v);
    }

    public Path path() {
        return path;
    }

    public StoreOptions options() {
        return options;
    }

    NativeResource handle() {
        return handle;
    }

    boolean isClosed() {
        return handle.isClosed();
    }

    @Override
    public String toString() {
        return "Store[" + path + (isClosed() ? ", closed]" : "]");
    }
}
