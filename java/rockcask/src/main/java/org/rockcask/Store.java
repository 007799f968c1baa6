package org.rockcask;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.Objects;

/**
 * A RockCask store: named durable queues and objects by UUID in one directory.
 *
 * <p>Thread-safe. Open one per directory (a second open, from this or another process, fails
 * with {@link RockCaskException.Status#Locked}). Work happens in {@link Transaction}s from
 * {@link #begin()}. {@link #close()} releases everything; later calls on this store and on its
 * transactions throw {@link IllegalStateException}. A store that is never closed is released
 * when it becomes unreachable, but close it: until then it holds the directory's lock.
 */
public final class Store extends NativeResource {
    private final Path path;
    private final StoreOptions options;

    private Store(long handle, Path path, StoreOptions options) {
        super("Store", handle, Native::storeFree);
        this.path = path;
        this.options = options;
    }

    /**
     * Opens (or, with {@link StoreOptions#createIfMissing()}, creates) the store in {@code dir}.
     *
     * @throws RockCaskException with status {@code NotAStore} when {@code dir} is a file, a
     *     non-empty directory without a store, or missing while creation is off; {@code Locked}
     *     when the store is open elsewhere; a RocksDB status for other failures
     */
    public static Store open(Path dir, StoreOptions options) {
        Objects.requireNonNull(dir, "dir");
        Objects.requireNonNull(options, "options");
        Native.ensureLoaded();
        Path abs = dir.toAbsolutePath();
        long handle = Native.storeOpen(abs.toString().getBytes(StandardCharsets.UTF_8), options.syncOnCommit(),
                options.blockCacheBytes(), options.writeBufferBytes(), options.createIfMissing(), options.readOnly(),
                options.compression().code, options.compressionThreshold(), options.packedQueueCompression());
        return new Store(handle, abs, options);
    }

    /** Starts a transaction. Close it (try-with-resources); an uncommitted one rolls back. */
    public Transaction begin() {
        long h = acquire();
        try {
            return new Transaction(Native.storeBegin(h), this);
        } finally {
            release();
        }
    }

    /** Names of every queue that was ever committed to, sorted. */
    public List<String> queues() {
        long h = acquire();
        try {
            return Wire.strings(Native.storeQueueNames(h));
        } finally {
            release();
        }
    }

    /** Committed entries in {@code queue} (0 for a queue never used), in O(1). */
    public long queueSize(String queue) {
        byte[] name = Wire.queueName(queue);
        long h = acquire();
        try {
            return Native.storeQueueSize(h, name);
        } finally {
            release();
        }
    }

    public StoreStats stats() {
        long[] v = new long[9];
        long h = acquire();
        try {
            Native.storeStats(h, v);
        } finally {
            release();
        }
        return new StoreStats(v[0], v[1], v[2], v[3], v[4], v[5], v[6], v[7], v[8]);
    }

    /** Flushes and compacts now, reclaiming the space of consumed entries at once. */
    public void compact() {
        long h = acquire();
        try {
            Native.storeCompact(h);
        } finally {
            release();
        }
    }

    public Path path() {
        return path;
    }

    public StoreOptions options() {
        return options;
    }

    @Override
    protected void beforeFree(long handle) {
        // Wakes transactions blocked in take() so close does not wait for their timeouts.
        Native.storeClose(handle);
    }

    @Override
    public String toString() {
        return "Store[" + path + (isClosed() ? ", closed]" : "]");
    }
}
