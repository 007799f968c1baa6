package org.rockcask;

import java.nio.ByteBuffer;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import org.rockcask.internal.Utf8;

/**
 * A named map as one transaction sees it ({@link Transaction#map(String)}): keys and values are
 * bytes (with {@code String}-key conveniences: the key's UTF-8 bytes; a key string that is not
 * valid UTF-16, an unpaired surrogate, is refused with {@link IllegalArgumentException}, as map
 * and queue names are), keys ordered by unsigned bytes. Every call
 * takes part in the transaction: its writes are committed atomically with its queue and object
 * work, or not at all, and its reads see its own writes.
 *
 * <p>Isolation: reads, {@code getAll}, scans and cursors see one snapshot, taken at the
 * transaction's first map read, plus its own writes. A commit fails with status
 * {@code Conflict} (and writes nothing) when a key this transaction read with {@link #get},
 * {@link #contains} or {@code getAll} was written by a commit not in that snapshot: first
 * committer wins, so a read-modify-write loses no update; run the transaction again.
 * {@link #add} to a counter is applied at commit to the value then and never conflicts. Scans
 * are not checked (a key appearing in a scanned range is not a conflict). A transaction that
 * wrote nothing commits at once and never conflicts (docs/MAPS.md, "Isolation"). For a hot
 * key, {@link #getForUpdate} takes the key so that other read-modify-writes of it wait their
 * turn instead of conflicting.
 *
 * <p>Limits: keys 1 to {@link #MAX_KEY_BYTES} (65,536) bytes, values up to
 * {@link #MAX_VALUE_BYTES} (1 GiB), map names 1 to 1,024 bytes of UTF-8 (as queue names), at
 * most {@link Store#MAX_BATCH_ITEMS} keys per {@code getAll} and pairs per scan or cursor page.
 */
public final class TxMap {
    /** Longest key accepted, in bytes (rust/core/src/maps.rs; checked by the library as it registers MapNative). */
    public static final int MAX_KEY_BYTES = 64 << 10;

    /** Largest value accepted, in bytes: 1 GiB, a payload's limit (checked as {@link #MAX_KEY_BYTES} is). */
    public static final int MAX_VALUE_BYTES = 1 << 30;

    /**
     * How long {@link #getForUpdate} waits for a key another transaction holds before it gives
     * up with {@code Conflict}: 10 s (checked as {@link #MAX_KEY_BYTES} is).
     */
    public static final long KEY_HOLD_WAIT_MILLIS = 10_000;

    private final Transaction tx;
    private final byte[] name;
    private final String mapName;

    TxMap(Transaction tx, String mapName) {
        this.tx = tx;
        this.mapName = mapName;
        this.name = Wire.checkedMapName(mapName);
    }

    public String name() {
        return mapName;
    }

    public void put(byte[] key, byte[] value) {
        checkKey(key);
        Objects.requireNonNull(value, "value");
        if (value.length > MAX_VALUE_BYTES) {
            throw new IllegalArgumentException("map value of " + value.length + " bytes exceeds the limit of " + MAX_VALUE_BYTES + " bytes");
        }
        tx.onMaps(h -> {
            MapNative.put(h, name, key, value);
            return null;
        }, true);
    }

    public void put(String key, byte[] value) {
        put(utf8(key), value);
    }

    /** The value, or {@code null} when the key is not there. */
    public byte[] get(byte[] key) {
        checkKey(key);
        return tx.onMaps(h -> MapNative.get(h, name, key), false);
    }

    public byte[] get(String key) {
        return get(utf8(key));
    }

    /**
     * {@link #get} that first takes {@code key} for update: this transaction holds it until it
     * ends (commit, rollback or close), and another transaction calling {@code getForUpdate} on
     * the same key waits until then, first come first served. So a read-modify-write of a hot
     * key makes progress in bounded time, where {@link #get}'s optimistic check can fail again
     * and again under contention (docs/MAPS.md, "Hot keys").
     *
     * <p>The value is the latest committed one, with every commit of an earlier holder in it,
     * whatever this transaction's snapshot (later reads of other keys still see the snapshot).
     * A commit that writes the key without asking for it (a plain {@link #put}) is not held back;
     * if one writes it after this read, this transaction's commit fails with {@code Conflict},
     * as after {@link #get}.
     *
     * @throws RockCaskException with status {@code Conflict} when the key is held by a
     *     transaction that waits, directly or through others, for a key this one holds (a
     *     deadlock, refused at once), or is not released within {@link #KEY_HOLD_WAIT_MILLIS}:
     *     the transaction has then ended as a rollback does, releasing its keys; run it again
     *     ({@link Store#inTransaction} does)
     * @throws RockCaskException with status {@code ReadOnly} on a store open read-only
     */
    public byte[] getForUpdate(byte[] key) {
        checkKey(key);
        return tx.onMapsHoldingKeys(h -> MapNative.getForUpdate(h, name, key));
    }

    public byte[] getForUpdate(String key) {
        return getForUpdate(utf8(key));
    }

    public boolean contains(byte[] key) {
        return get(key) != null;
    }

    public boolean contains(String key) {
        return contains(utf8(key));
    }

    /** Deletes the key; whether it was there, as this transaction sees it. */
    public boolean delete(byte[] key) {
        checkKey(key);
        return tx.onMaps(h -> MapNative.delete(h, name, key), true);
    }

    public boolean delete(String key) {
        return delete(utf8(key));
    }

    /**
     * Adds {@code delta} to the counter under {@code key} (an 8-byte little-endian long; absent
     * counts as 0) at commit, to its value then; overflow wraps. The commit fails with
     * {@link IllegalArgumentException} if the value there is not a counter.
     */
    public void add(byte[] key, long delta) {
        checkKey(key);
        tx.onMaps(h -> {
            MapNative.add(h, name, key, delta);
            return null;
        }, true);
    }

    public void add(String key, long delta) {
        add(utf8(key), delta);
    }

    /** The counter under {@code key} (0 when absent), as this transaction sees it. */
    public long counter(byte[] key) {
        byte[] v = get(key);
        if (v == null) {
            return 0;
        }
        if (v.length != 8) {
            throw new IllegalArgumentException("map '" + mapName + "': a value of " + v.length + " bytes is not a counter (8 bytes)");
        }
        return ByteBuffer.wrap(v).order(java.nio.ByteOrder.LITTLE_ENDIAN).getLong();
    }

    public long counter(String key) {
        return counter(utf8(key));
    }

    /**
     * {@link #get} of each key, in order ({@code null} where none), in one call.
     *
     * @throws IllegalArgumentException when the values found total more than
     *     {@link Store#MAX_RESULT_BYTES} (one call's result crosses as one Java array, and every
     *     key must have its answer): the message names the total; nothing is read then (the
     *     keys are not noted for the commit's check), and the transaction stays open. Ask for
     *     fewer keys at a time.
     */
    public List<byte[]> getAll(List<byte[]> keys) {
        Objects.requireNonNull(keys, "keys");
        if (keys.size() > Wire.MAX_BATCH_ITEMS) {
            throw new IllegalArgumentException("getAll reads at most " + Wire.MAX_BATCH_ITEMS + " keys per call, got " + keys.size());
        }
        int i = 0;
        for (byte[] key : keys) {
            if (key == null) {
                throw new NullPointerException("keys[" + i + "]");
            }
            checkKey(key);
            i++;
        }
        byte[] packed = Wire.list(keys);
        return tx.onMaps(h -> Wire.optionalByteArrays(MapNative.getAll(h, name, packed)), false);
    }

    /**
     * Up to {@code limit} pairs with keys in {@code [from, to)} ({@code null}: unbounded), in key
     * order or reversed, as this transaction sees them (its own writes merged in).
     *
     * <p>May return fewer than {@code limit} though the range holds more: one call returns at
     * most {@link Store#MAX_RESULT_BYTES} of keys and values (always at least one pair, whatever
     * its size). So a short answer does not mean the range is exhausted: continue after its last
     * key, or walk the range with {@link #cursor}, which does.
     */
    public List<Map.Entry<byte[], byte[]>> scan(byte[] from, byte[] to, boolean reverse, int limit) {
        return Wire.pairs(scanPacked(from, to, reverse, limit));
    }

    /** {@link #scan}'s answer as it crosses ({@link Wire#pairs}, {@link Wire#cut}). */
    byte[] scanPacked(byte[] from, byte[] to, boolean reverse, int limit) {
        if (limit < 0 || limit > Wire.MAX_BATCH_ITEMS) {
            throw new IllegalArgumentException("limit must be 0 to " + Wire.MAX_BATCH_ITEMS + ": " + limit);
        }
        return tx.onMaps(h -> MapNative.scan(h, name, from, to, reverse, limit), false);
    }

    /**
     * Every pair with a key in {@code [from, to)} ({@code null}: unbounded), in key order or
     * reversed, read {@value MapCursor#DEFAULT_PAGE} at a time, and at most
     * {@link Store#MAX_RESULT_BYTES} of keys and values at a time ({@link MapCursor}).
     */
    public MapCursor cursor(byte[] from, byte[] to, boolean reverse) {
        return cursor(from, to, reverse, MapCursor.DEFAULT_PAGE);
    }

    /**
     * {@link #cursor(byte[], byte[], boolean)} reading up to {@code pageSize} pairs per native
     * call (1 to 1,048,576; fewer when they exceed {@link Store#MAX_RESULT_BYTES}).
     */
    public MapCursor cursor(byte[] from, byte[] to, boolean reverse, int pageSize) {
        if (pageSize < 1 || pageSize > Wire.MAX_BATCH_ITEMS) {
            throw new IllegalArgumentException("pageSize must be 1 to " + Wire.MAX_BATCH_ITEMS + ": " + pageSize);
        }
        tx.ensureOpen();
        return new MapCursor(this, from, to, reverse, pageSize);
    }

    /** Every pair whose key starts with {@code prefix}, in key order ({@link #cursor}). */
    public MapCursor cursorPrefix(byte[] prefix) {
        Objects.requireNonNull(prefix, "prefix");
        return cursor(prefix, prefixEnd(prefix), false);
    }

    Transaction transaction() {
        return tx;
    }

    /**
     * Up to {@code limit} pairs whose keys start with {@code prefix}, in key order; fewer when
     * they exceed {@link Store#MAX_RESULT_BYTES}, as {@link #scan} says.
     */
    public List<Map.Entry<byte[], byte[]>> scanPrefix(byte[] prefix, int limit) {
        Objects.requireNonNull(prefix, "prefix");
        return scan(prefix, prefixEnd(prefix), false, limit);
    }

    /** The first key after every key starting with {@code prefix}; null when there is none. */
    static byte[] prefixEnd(byte[] prefix) {
        for (int i = prefix.length - 1; i >= 0; i--) {
            if (prefix[i] != (byte) 0xFF) {
                byte[] end = java.util.Arrays.copyOf(prefix, i + 1);
                end[i]++;
                return end;
            }
        }
        return null;
    }

    /** Refuses a key no map holds, before any native call. */
    static void checkKey(byte[] key) {
        Objects.requireNonNull(key, "key");
        if (key.length == 0 || key.length > MAX_KEY_BYTES) {
            throw new IllegalArgumentException("map key of " + key.length + " bytes is outside 1.." + MAX_KEY_BYTES);
        }
    }

    /** A key given as a string names its value, so it is converted as every name is ({@link Utf8#name}). */
    private static byte[] utf8(String key) {
        return Utf8.name(key, "map key");
    }
}
