package org.rockcask;

import java.nio.ByteBuffer;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * Reads one map's committed values outside any transaction ({@link Store#mapReader(String)}),
 * as {@link Store#mapGet} does: for readers that write nothing. Values come from the store's
 * map cache when it holds them ({@link StoreOptions#mapCacheBytes}), else from disk.
 *
 * <p>Each {@link #get} reads the latest committed value. Each scan, and each cursor from its
 * first page to its last, reads one consistent snapshot: a read-only transaction of its own,
 * which costs no write and never conflicts. To read several keys from one snapshot, use
 * {@link #getAll}.
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

    /** The values of {@code keys}, in order ({@code null} where none), read from one snapshot ({@link TxMap#getAll}). */
    public List<byte[]> getAll(List<byte[]> keys) {
        try (Transaction tx = store.begin()) {
            return tx.map(mapName).getAll(keys);
        }
    }

    /**
     * Up to {@code limit} pairs with keys in {@code [from, to)} ({@code null}: unbounded), in key
     * order or reversed, from one snapshot; fewer when they exceed {@link Store#MAX_RESULT_BYTES},
     * as {@link TxMap#scan} says.
     */
    public List<Map.Entry<byte[], byte[]>> scan(byte[] from, byte[] to, boolean reverse, int limit) {
        try (Transaction tx = store.begin()) {
            return tx.map(mapName).scan(from, to, reverse, limit);
        }
    }

    /** Up to {@code limit} pairs whose keys start with {@code prefix}, in key order, from one snapshot ({@link #scan}). */
    public List<Map.Entry<byte[], byte[]>> scanPrefix(byte[] prefix, int limit) {
        try (Transaction tx = store.begin()) {
            return tx.map(mapName).scanPrefix(prefix, limit);
        }
    }

    /**
     * Every pair with a key in {@code [from, to)} ({@code null}: unbounded), in key order or
     * reversed, a page at a time ({@link TxMap#cursor(byte[], byte[], boolean)}), every page
     * from the snapshot taken at the first. The cursor holds that snapshot in a read-only
     * transaction of its own until it is read to the end or closed: close one left early.
     */
    public MapCursor cursor(byte[] from, byte[] to, boolean reverse) {
        return cursor(from, to, reverse, MapCursor.DEFAULT_PAGE);
    }

    /** {@link #cursor(byte[], byte[], boolean)} reading up to {@code pageSize} pairs per native call (1 to {@link Store#MAX_BATCH_ITEMS}). */
    public MapCursor cursor(byte[] from, byte[] to, boolean reverse, int pageSize) {
        Transaction tx = store.begin();
        try {
            TxMap map = tx.map(mapName);
            MapCursor cursor = map.cursor(from, to, reverse, pageSize);
            // The snapshot is taken here, not at the first page: what the cursor reads is the
            // store as it was when it was made.
            map.scanPacked(from, to, reverse, 0);
            return cursor.owning(tx);
        } catch (RuntimeException | Error e) {
            tx.close();
            throw e;
        }
    }

    /** Every pair whose key starts with {@code prefix}, in key order ({@link #cursor(byte[], byte[], boolean)}). */
    public MapCursor cursorPrefix(byte[] prefix) {
        Objects.requireNonNull(prefix, "prefix");
        return cursor(prefix, TxMap.prefixEnd(prefix), false);
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
