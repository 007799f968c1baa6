package org.rockcask;

/**
 * How a store is opened. Immutable; each {@code with}-style method returns a changed copy:
 * {@code StoreOptions.defaults().syncOnCommit(false)}.
 */
public final class StoreOptions {
    private final boolean syncOnCommit;
    private final long blockCacheBytes;
    private final long writeBufferBytes;
    private final boolean createIfMissing;
    private final boolean readOnly;

    private StoreOptions(boolean syncOnCommit, long blockCacheBytes, long writeBufferBytes, boolean createIfMissing, boolean readOnly) {
        if (blockCacheBytes < 0) {
            throw new IllegalArgumentException("blockCacheBytes must not be negative: " + blockCacheBytes);
        }
        if (writeBufferBytes < 0) {
            throw new IllegalArgumentException("writeBufferBytes must not be negative: " + writeBufferBytes);
        }
        this.syncOnCommit = syncOnCommit;
        this.blockCacheBytes = blockCacheBytes;
        this.writeBufferBytes = writeBufferBytes;
        this.createIfMissing = createIfMissing;
        this.readOnly = readOnly;
    }

    /** Sync on commit, 64 MiB block cache, 128 MiB of write buffers, create if missing, read-write. */
    public static StoreOptions defaults() {
        return new StoreOptions(true, 64L << 20, 128L << 20, true, false);
    }

    /**
     * On (default): a commit that returned survives power loss. Off: it survives a crash of the
     * process, but the last commits may be lost if the machine goes down.
     */
    public boolean syncOnCommit() {
        return syncOnCommit;
    }

    public StoreOptions syncOnCommit(boolean v) {
        return new StoreOptions(v, blockCacheBytes, writeBufferBytes, createIfMissing, readOnly);
    }

    /** Bytes of the block cache (0 disables it). */
    public long blockCacheBytes() {
        return blockCacheBytes;
    }

    public StoreOptions blockCacheBytes(long v) {
        return new StoreOptions(syncOnCommit, v, writeBufferBytes, createIfMissing, readOnly);
    }

    /** Bytes all memtables together may use before they are flushed to disk. */
    public long writeBufferBytes() {
        return writeBufferBytes;
    }

    public StoreOptions writeBufferBytes(long v) {
        return new StoreOptions(syncOnCommit, blockCacheBytes, v, createIfMissing, readOnly);
    }

    /** Create the store when the directory is missing or empty (default on). */
    public boolean createIfMissing() {
        return createIfMissing;
    }

    public StoreOptions createIfMissing(boolean v) {
        return new StoreOptions(syncOnCommit, blockCacheBytes, writeBufferBytes, v, readOnly);
    }

    /** Open without the write lock; every write throws {@link RockCaskException} (ReadOnly). */
    public boolean readOnly() {
        return readOnly;
    }

    public StoreOptions readOnly(boolean v) {
        return new StoreOptions(syncOnCommit, blockCacheBytes, writeBufferBytes, createIfMissing, v);
    }

    @Override
    public String toString() {
        return "StoreOptions[syncOnCommit=" + syncOnCommit + ", blockCacheBytes=" + blockCacheBytes + ", writeBufferBytes="
                + writeBufferBytes + ", createIfMissing=" + createIfMissing + ", readOnly=" + readOnly + "]";
    }
}
