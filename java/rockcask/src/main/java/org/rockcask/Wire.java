package org.rockcask;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.AbstractMap;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.rockcask.internal.Utf8;

/**
 * The Java side of the packed layouts native calls take and return (defined in
 * rust/jni/src/wire/; each one's reader or writer here is checked against the golden vectors of
 * tests/golden/packed-layouts.tsv by {@code PackedLayoutsGoldenTest}), how names, paths and
 * reasons cross (through {@link Utf8}, as every string does), and the numbers defined on the native side that Java repeats (limits, compression
 * codes, record slots; each group says where it is defined and when the library checks it).
 */
final class Wire {
    private Wire() {}

    /**
     * Limits the native store enforces too (rust/core: keys.rs, options.rs; checked by the
     * library as it registers StoreNative and MapNative).
     */
    static final int MAX_QUEUE_NAME_BYTES = 1024;
    /** A map name's limit, a queue name's (the store checks both alike). */
    static final int MAX_MAP_NAME_BYTES = 1024;
    static final int MAX_PAYLOAD_BYTES = 1 << 30;
    static final int MAX_WORKERS = 64;
    static final int MAX_BATCH_ITEMS = 1 << 20;
    static final int MAX_RESULT_BYTES = 3 << 29;
    static final long MIN_WRITE_BUFFER_BYTES = 1L << 20;
    static final long MAX_WRITE_BUFFER_BYTES = 64L << 30;
    static final long MAX_BLOCK_CACHE_BYTES = 1L << 40;
    static final long MAX_MAP_CACHE_BYTES = 1L << 40;
    static final long MAX_OBJECT_CACHE_BYTES = 1L << 40;
    static final long MAX_QUEUE_CACHE_BYTES = 1L << 40;
    static final int MAX_INLINE_PAYLOAD_BYTES = 64 << 10;
    /** The longest delay {@code Transaction.rollback(reason, retryAfter)} takes: 365 days. */
    static final long MAX_RETRY_DELAY_MILLIS = 31536000000L;

    /**
     * The code of each {@link Compression} (rust/codec/src/compress.rs {@code Compression::code}
     * defines them; checked by the library as it registers StoreNative, SnapshotNative and
     * CodecNative).
     */
    static final int COMPRESSION_NONE = 0;
    static final int COMPRESSION_LZ4 = 1;
    static final int COMPRESSION_ZSTD = 2;
    static final int COMPRESSION_SNAPPY = 3;

    // Slots of the records crossing JNI (rust/jni/src/contract/rockcask.rs defines them; the library
    // checks these values when the native classes register).

    /** {@link StoreOptions#record()} (its per-queue codecs cross apart: {@link #queueCodecs}). */
    static final int STORE_SYNC_ON_COMMIT = 0;
    static final int STORE_BLOCK_CACHE_BYTES = 1;
    static final int STORE_WRITE_BUFFER_BYTES = 2;
    static final int STORE_CREATE_IF_MISSING = 3;
    static final int STORE_READ_ONLY = 4;
    static final int STORE_COMPRESSION = 5;
    static final int STORE_COMPRESSION_THRESHOLD = 6;
    static final int STORE_MAX_DELIVERIES = 7;
    static final int STORE_METRICS = 8;
    static final int STORE_MAP_CACHE_BYTES = 9;
    static final int STORE_OBJECT_CACHE_BYTES = 10;
    static final int STORE_INLINE_PAYLOAD_BYTES = 11;
    static final int STORE_QUEUE_CACHE_BYTES = 12;
    static final int STORE_SLOTS = 13;

    /** {@link Store#stats()}. */
    static final int STATS_QUEUES = 0;
    static final int STATS_QUEUED_ITEMS = 1;
    static final int STATS_OBJECTS_ESTIMATE = 2;
    static final int STATS_DISK_BYTES = 3;
    static final int STATS_MEMTABLE_BYTES = 4;
    static final int STATS_BLOCK_CACHE_BYTES = 5;
    static final int STATS_TABLE_READER_BYTES = 6;
    static final int STATS_PAYLOAD_BYTES = 7;
    static final int STATS_STORED_PAYLOAD_BYTES = 8;
    static final int STATS_MAPS = 9;
    static final int STATS_MAP_ENTRIES_ESTIMATE = 10;
    static final int STATS_SLOTS = 11;

    /**
     * {@link Store#metrics()}: the store's figures (rates as {@link Double#doubleToRawLongBits}),
     * then one {@code SUMMARY_} block per {@code SUMMARY_OF_} index (rust/jni/src/contract/metrics.rs).
     */
    static final int METRICS_COUNTING = 0;
    static final int METRICS_UPTIME_MILLIS = 1;
    static final int METRICS_COMMITS = 2;
    static final int METRICS_COMMITS_PER_SECOND = 3;
    static final int METRICS_QUEUES = 4;
    static final int METRICS_QUEUED_ITEMS = 5;
    static final int METRICS_OBJECTS_ESTIMATE = 6;
    static final int METRICS_DISK_BYTES = 7;
    static final int METRICS_LIVE_SST_BYTES = 8;
    static final int METRICS_WAL_BYTES = 9;
    static final int METRICS_MEMTABLE_BYTES = 10;
    static final int METRICS_BLOCK_CACHE_BYTES = 11;
    static final int METRICS_TABLE_READER_BYTES = 12;
    static final int METRICS_PAYLOAD_BYTES = 13;
    static final int METRICS_STORED_PAYLOAD_BYTES = 14;
    static final int METRICS_DELAYED_WRITE_RATE = 15;
    static final int METRICS_WRITE_STOPPED = 16;
    static final int METRICS_WRITE_STALL_DELAYS = 17;
    static final int METRICS_WRITE_STALL_STOPS = 18;
    static final int METRICS_MAP_CACHE_BYTES = 19;
    static final int METRICS_MAP_CACHE_HITS = 20;
    static final int METRICS_MAP_CACHE_MISSES = 21;
    static final int METRICS_OBJECT_CACHE_BYTES = 22;
    static final int METRICS_OBJECT_CACHE_HITS = 23;
    static final int METRICS_OBJECT_CACHE_MISSES = 24;
    static final int METRICS_QUEUE_CACHE_BYTES = 25;
    static final int METRICS_SLOTS = 26;

    static final int SUMMARY_OF_COMMIT_LATENCY = 0;
    static final int SUMMARY_OF_SYNCED_WRITE = 1;
    static final int SUMMARY_OF_GROUP_COMMIT_SIZE = 2;
    static final int SUMMARY_OF_SLOTS = 3;

    /** {@link Distribution}. */
    static final int SUMMARY_COUNT = 0;
    static final int SUMMARY_SUM = 1;
    static final int SUMMARY_P50 = 2;
    static final int SUMMARY_P90 = 3;
    static final int SUMMARY_P99 = 4;
    static final int SUMMARY_P999 = 5;
    static final int SUMMARY_MAX = 6;
    static final int SUMMARY_SLOTS = 7;

    /** {@link QueueMetrics} (the oldest entry's age is -1 for an empty queue). */
    static final int QUEUE_DEPTH = 0;
    static final int QUEUE_AVAILABLE = 1;
    static final int QUEUE_CLAIMED = 2;
    static final int QUEUE_ENQUEUED = 3;
    static final int QUEUE_ENQUEUED_PER_SECOND = 4;
    static final int QUEUE_POLLED = 5;
    static final int QUEUE_POLLED_PER_SECOND = 6;
    static final int QUEUE_CONSUMED = 7;
    static final int QUEUE_CONSUMED_PER_SECOND = 8;
    static final int QUEUE_RETURNED = 9;
    static final int QUEUE_DEAD_LETTERED = 10;
    static final int QUEUE_OLDEST_ENTRY_AGE_MILLIS = 11;
    static final int QUEUE_OLDEST_AGE_IS_LOWER_BOUND = 12;
    static final int QUEUE_SLOTS = 13;

    /** {@link ExportOptions#record()}. */
    static final int EXPORT_WORKERS = 0;
    static final int EXPORT_COMPRESSION = 1;
    static final int EXPORT_FRAME_BYTES = 2;
    static final int EXPORT_FIXED_TIME = 3;
    static final int EXPORT_CREATED_AT_MILLIS = 4;
    static final int EXPORT_OVERWRITE = 5;
    static final int EXPORT_SLOTS = 6;

    /** The numbers of a {@link SnapshotInfo}. */
    static final int INFO_FILE_BYTES = 0;
    static final int INFO_FRAMES = 1;
    static final int INFO_RECORDS = 2;
    static final int INFO_QUEUES = 3;
    static final int INFO_ENTRIES = 4;
    static final int INFO_OBJECTS = 5;
    static final int INFO_KEYS = 6;
    static final int INFO_VALUES = 7;
    static final int INFO_PAYLOAD_BYTES = 8;
    static final int INFO_FORMAT_VERSION = 9;
    static final int INFO_COMPRESSION = 10;
    static final int INFO_CREATED_AT_MILLIS = 11;
    static final int INFO_MAPS = 12;
    static final int INFO_MAP_ENTRIES = 13;
    static final int INFO_SLOTS = 14;

    static int checkWorkers(int workers) {
        if (workers < 1 || workers > MAX_WORKERS) {
            throw new IllegalArgumentException("workers must be 1 to " + MAX_WORKERS + ": " + workers);
        }
        return workers;
    }

    static void checkQueueName(byte[] utf8) {
        checkName(utf8, "queue name", MAX_QUEUE_NAME_BYTES);
    }

    private static void checkName(byte[] utf8, String what, int max) {
        if (utf8.length == 0) {
            throw new IllegalArgumentException(what + " is empty");
        }
        if (utf8.length > max) {
            throw new IllegalArgumentException(what + " is " + utf8.length + " bytes long; at most " + max + " are allowed");
        }
    }

    /**
     * A queue name as it crosses: its UTF-8 bytes ({@link Utf8#name}: a string that is not valid
     * UTF-16 is refused, as every name is).
     */
    static byte[] queueName(String queue) {
        return Utf8.name(queue, "queue name");
    }

    /** {@link #queueName}, checked with {@link #checkQueueName}. */
    static byte[] checkedQueueName(String queue) {
        byte[] utf8 = queueName(queue);
        checkQueueName(utf8);
        return utf8;
    }

    /** A map name as it crosses, its UTF-8 bytes, checked: 1 to {@link #MAX_MAP_NAME_BYTES}. */
    static byte[] checkedMapName(String map) {
        byte[] utf8 = Utf8.name(map, "map name");
        checkName(utf8, "map name", MAX_MAP_NAME_BYTES);
        return utf8;
    }

    /**
     * A path as it crosses: the UTF-8 bytes of its string, which are what the file system gets.
     * A string without a UTF-8 form (an unpaired surrogate) is refused ({@link Utf8#name}), as
     * its bytes would name another file.
     *
     * @throws IllegalArgumentException for such a path
     */
    static byte[] path(Path path) {
        return Utf8.name(path.toString(), "path");
    }

    /** A name prefix as it crosses ({@link Utf8#name}), checked: at most a queue name long. */
    static byte[] checkedPrefix(String prefix) {
        byte[] utf8 = Utf8.name(prefix, "queue name prefix");
        if (utf8.length > MAX_QUEUE_NAME_BYTES) {
            throw new IllegalArgumentException("queue name prefix is " + utf8.length + " bytes long; at most " + MAX_QUEUE_NAME_BYTES + " are allowed");
        }
        return utf8;
    }

    /** A rollback's reason as it crosses: text ({@link Utf8#text}: an unpaired surrogate becomes '?'). */
    static byte[] reason(String reason) {
        return Utf8.text(reason, "reason");
    }

    /** The per-queue codecs: i32 count, then per queue i32 length, UTF-8 name, i32 code. */
    static byte[] queueCodecs(Map<String, Compression> codecs) {
        List<byte[]> names = new ArrayList<>(codecs.size());
        int size = 4;
        for (String queue : codecs.keySet()) {
            byte[] name = queueName(queue);
            names.add(name);
            size += 8 + name.length;
        }
        ByteBuffer b = ByteBuffer.allocate(size).putInt(codecs.size());
        int i = 0;
        for (Compression codec : codecs.values()) {
            byte[] name = names.get(i++);
            b.putInt(name.length).put(name).putInt(codec.code);
        }
        return b.array();
    }

    /**
     * {@code items} in the list layout: i32 count, then per item i32 length (-1 for null) and
     * the bytes (the keys of {@link TxMap#getAll}).
     */
    static byte[] list(List<byte[]> items) {
        long size = 4;
        for (byte[] item : items) {
            size += 4 + (item == null ? 0 : item.length);
        }
        if (size > Integer.MAX_VALUE - 8) {
            throw new OutOfMemoryError("a packed list of " + size + " bytes does not fit one Java array");
        }
        ByteBuffer b = ByteBuffer.allocate((int) size).putInt(items.size());
        for (byte[] item : items) {
            if (item == null) {
                b.putInt(-1);
            } else {
                b.putInt(item.length).put(item);
            }
        }
        return b.array();
    }

    static List<Message> messages(byte[] packed) {
        ByteBuffer b = ByteBuffer.wrap(packed);
        int n = b.getInt();
        if (n == 0) {
            return Collections.emptyList();
        }
        List<Message> out = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            UUID id = new UUID(b.getLong(), b.getLong());
            long sequence = b.getLong();
            int deliveries = b.getInt();
            out.add(new Message(id, optionalBytes(b), sequence, deliveries));
        }
        return Collections.unmodifiableList(out);
    }

    /** i32 length (-1 for none), then the bytes. */
    private static byte[] optionalBytes(ByteBuffer b) {
        int len = b.getInt();
        if (len < 0) {
            return null;
        }
        byte[] bytes = new byte[len];
        b.get(bytes);
        return bytes;
    }

    private static String optionalString(ByteBuffer b) {
        byte[] bytes = optionalBytes(b);
        return bytes == null ? null : new String(bytes, StandardCharsets.UTF_8);
    }

    /** A list in the list layout (i32 count, then per item i32 length, -1 for none, and the bytes). */
    static List<byte[]> optionalByteArrays(byte[] packed) {
        ByteBuffer b = ByteBuffer.wrap(packed);
        int n = b.getInt();
        List<byte[]> out = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            out.add(optionalBytes(b));
        }
        return Collections.unmodifiableList(out);
    }

    static QueueOptions queueOptions(byte[] packed) {
        ByteBuffer b = ByteBuffer.wrap(packed);
        long maxDeliveries = b.getLong();
        long capacity = b.getLong();
        long capacityBytes = b.getLong();
        return new QueueOptions((int) maxDeliveries, optionalString(b), capacity, capacityBytes);
    }

    static List<DeadLetter> deadLetters(byte[] packed) {
        ByteBuffer b = ByteBuffer.wrap(packed);
        int n = b.getInt();
        List<DeadLetter> out = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            UUID id = new UUID(b.getLong(), b.getLong());
            long sequence = b.getLong();
            long originSequence = b.getLong();
            int deliveries = b.getInt();
            java.time.Instant deadAt = java.time.Instant.ofEpochMilli(b.getLong());
            String origin = optionalString(b);
            String reason = optionalString(b);
            out.add(new DeadLetter(sequence, id, optionalBytes(b), origin, originSequence, deliveries, reason, deadAt));
        }
        return Collections.unmodifiableList(out);
    }

    /**
     * Pairs in the list layout, key and value alternating (a map scan's answer); a final absent
     * item, which a scan cut at its byte bound adds ({@link #cut}), is not a pair.
     */
    static List<Map.Entry<byte[], byte[]>> pairs(byte[] packed) {
        ByteBuffer b = ByteBuffer.wrap(packed);
        int n = b.getInt() / 2;
        List<Map.Entry<byte[], byte[]>> out = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            byte[] key = optionalBytes(b);
            out.add(new AbstractMap.SimpleImmutableEntry<>(key, optionalBytes(b)));
        }
        return Collections.unmodifiableList(out);
    }

    /**
     * Whether a map scan's answer ({@link #pairs}) stopped at its byte bound before a pair of
     * its range: it then ends with one absent item, so its count is odd.
     */
    static boolean cut(byte[] packed) {
        return (ByteBuffer.wrap(packed).getInt() & 1) == 1;
    }

    /** Strings in the list layout, none absent, each as its UTF-8 bytes. */
    static List<String> strings(byte[] packed) {
        ByteBuffer b = ByteBuffer.wrap(packed);
        int n = b.getInt();
        List<String> out = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            int len = b.getInt();
            out.add(new String(packed, b.position(), len, StandardCharsets.UTF_8));
            b.position(b.position() + len);
        }
        return Collections.unmodifiableList(out);
    }
}
