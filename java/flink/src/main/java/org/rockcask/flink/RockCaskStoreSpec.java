package org.rockcask.flink;

import java.io.Serializable;
import java.util.Objects;
import org.apache.flink.annotation.PublicEvolving;
import org.rockcask.StoreOptions;

/**
 * Where a RockCask store lives on each TaskManager's machine and how it is opened: shipped with
 * the job graph, so it holds only plain values. The block cache and write buffers are native
 * memory outside Flink's view: size {@code taskmanager.memory.task.off-heap.size} to hold them.
 *
 * <p>Immutable; each {@code with}-method returns a changed copy:
 * {@code RockCaskStoreSpec.at("/data/cask").withSyncOnCommit(false)}. Values no store accepts
 * are rejected when set, not when the job runs.
 */
@PublicEvolving
public final class RockCaskStoreSpec implements Serializable {
    private static final long serialVersionUID = 1L;

    private final String path;
    private final boolean syncOnCommit;
    private final long blockCacheBytes;
    private final long writeBufferBytes;
    /** 0 in specs serialized before the field existed, which is its default. */
    private final int inlinePayloadBytes;

    private RockCaskStoreSpec(String path, boolean syncOnCommit, long blockCacheBytes, long writeBufferBytes, int inlinePayloadBytes) {
        this.path = path;
        this.syncOnCommit = syncOnCommit;
        this.blockCacheBytes = blockCacheBytes;
        this.writeBufferBytes = writeBufferBytes;
        this.inlinePayloadBytes = inlinePayloadBytes;
        // StoreOptions checks the bounds: an invalid spec fails where it is written.
        toOptions();
    }

    /** The store in directory {@code path} (created when missing), with {@link StoreOptions#defaults()}. */
    public static RockCaskStoreSpec at(String path) {
        Objects.requireNonNull(path, "path");
        if (path.isEmpty()) {
            throw new IllegalArgumentException("store path must not be empty");
        }
        StoreOptions defaults = StoreOptions.defaults();
        return new RockCaskStoreSpec(path, defaults.syncOnCommit(), defaults.blockCacheBytes(), defaults.writeBufferBytes(), defaults.inlinePayloadBytes());
    }

    /** These options for the store in directory {@code path}. */
    public RockCaskStoreSpec withPath(String path) {
        return at(path).withSyncOnCommit(syncOnCommit).withBlockCacheBytes(blockCacheBytes).withWriteBufferBytes(writeBufferBytes)
                .withInlinePayloadBytes(inlinePayloadBytes);
    }

    public RockCaskStoreSpec withSyncOnCommit(boolean sync) {
        return new RockCaskStoreSpec(path, sync, blockCacheBytes, writeBufferBytes, inlinePayloadBytes);
    }

    public RockCaskStoreSpec withBlockCacheBytes(long bytes) {
        return new RockCaskStoreSpec(path, syncOnCommit, bytes, writeBufferBytes, inlinePayloadBytes);
    }

    public RockCaskStoreSpec withWriteBufferBytes(long bytes) {
        return new RockCaskStoreSpec(path, syncOnCommit, blockCacheBytes, bytes, inlinePayloadBytes);
    }

    /**
     * Records of up to this many bytes that the sink writes are kept in their queue entries
     * ({@link StoreOptions#inlinePayloadBytes}: one record per item; 0, the default, for none).
     * The connector reaches items only through their queues, never by id, so this changes
     * nothing it does but its speed.
     */
    public RockCaskStoreSpec withInlinePayloadBytes(int bytes) {
        return new RockCaskStoreSpec(path, syncOnCommit, blockCacheBytes, writeBufferBytes, bytes);
    }

    /** The store's directory as given (not resolved: each machine resolves it for itself). */
    public String path() {
        return path;
    }

    public boolean syncOnCommit() {
        return syncOnCommit;
    }

    public long blockCacheBytes() {
        return blockCacheBytes;
    }

    public long writeBufferBytes() {
        return writeBufferBytes;
    }

    public int inlinePayloadBytes() {
        return inlinePayloadBytes;
    }

    /** The options the store is opened with. */
    public StoreOptions toOptions() {
        return StoreOptions.defaults().syncOnCommit(syncOnCommit).blockCacheBytes(blockCacheBytes).writeBufferBytes(writeBufferBytes)
                .inlinePayloadBytes(inlinePayloadBytes);
    }

    /** Whether {@code other} opens a store the same way, wherever it points. */
    boolean sameOptionsAs(RockCaskStoreSpec other) {
        return syncOnCommit == other.syncOnCommit && blockCacheBytes == other.blockCacheBytes && writeBufferBytes == other.writeBufferBytes
                && inlinePayloadBytes == other.inlinePayloadBytes;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof RockCaskStoreSpec && ((RockCaskStoreSpec) o).path.equals(path) && sameOptionsAs((RockCaskStoreSpec) o);
    }

    @Override
    public int hashCode() {
        return Objects.hash(path, syncOnCommit, blockCacheBytes, writeBufferBytes, inlinePayloadBytes);
    }

    @Override
    public String toString() {
        return "RockCaskStoreSpec[path=" + path + ", syncOnCommit=" + syncOnCommit + ", blockCacheBytes=" + blockCacheBytes
                + ", writeBufferBytes=" + writeBufferBytes + ", inlinePayloadBytes=" + inlinePayloadBytes + "]";
    }
}
