package org.rockcask;

import java.nio.ByteBuffer;
import java.util.Objects;

/**
 * Reads one map's committed values outside any transaction ({@link Store#mapReader(String)}),
 * as {@link Store#mapGet} does: for readers that write nothing. Values come from the store's
 * map cache when it holds them ({@link StoreOptions#mapCacheBytes}), else from disk.
 */
public final class MapReader {
    private final Store store;
    private final String mapName;
    private final byte[] name;

    MapReader(Store store, String mapName, byte[] name) {
        this.store = store;
        this.mapName = mapName;
        this.name = name;
    }

    public String name() {
        return mapName;
    }

    /** The value under {@code key}, or {@code null} when it is not there. */
    public byte[] get(byte[] key) {
        TxMap.checkKey(key);
        return store.mapGet(name, key);
    }

    public boolean contains(byte[] key) {
        return get(key) != null;
    }

    /**
     * Copies the value under {@code key} into the direct buffer {@code into} at its position,
     * if it fits in the buffer's remaining bytes, and returns its length ({@code -1} when the key
     * is not there). When it fits, the buffer's limit is set to its position plus the length
     * (its position stays), so {@link ByteBuffer#clear()} it before reusing it for the next
     * read; when it does not, the buffer is left as it was and the length tells how much room
     * to make before asking again. No other thread may use the buffer during the call (native
     * code writes into it).
     *
     * @throws IllegalArgumentException if {@code into} is not direct or is read-only
     */
    public int get(byte[] key, ByteBuffer into) {
        TxMap.checkKey(key);
        Objects.requireNonNull(into, "into");
        if (!into.isDirect() || into.isReadOnly()) {
            throw new IllegalArgumentException("into must be a direct, writable ByteBuffer");
        }
        int position = into.position();
        int room = into.remaining();
        int length = store.mapGetInto(name, key, into, position, room);
        if (length >= 0 && length <= room) {
            into.limit(position + length);
        }
        return length;
    }

    @Override
    public String toString() {
        return "MapReader[" + mapName + "]";
    }
}
