package org.rockcask;

import java.nio.ByteBuffer;
import org.rockcask.internal.NativeLibrary;

/**
 * The native calls on named maps (declared in {@code rust/jni/src/maps.rs}, registered when this
 * class initializes, after the library has checked the limits {@link TxMap} and {@link Wire}
 * repeat). Map names are {@link Wire#checkedMapName}'s bytes; lists are in the list layout
 * ({@link Wire#list}, {@link Wire#optionalByteArrays}, {@link Wire#pairs}). The transaction's
 * caller serializes them with its other calls. Package-private, as every native class: a handle
 * is trusted to come from {@link Transaction} or {@link Store}.
 */
final class MapNative {
    static {
        NativeLibrary.register(MapNative.class);
    }

    private MapNative() {}

    static native void put(long tx, byte[] map, byte[] key, byte[] value);

    /** The value, or null when the key is not there. */
    static native byte[] get(long tx, byte[] map, byte[] key);

    /** {@link #get} after taking the key for update until the transaction ends ({@link TxMap#getForUpdate}). */
    static native byte[] getForUpdate(long tx, byte[] map, byte[] key);

    /** {@code keys} packed by {@link Wire#list}; the values packed, one (or none) per key. */
    static native byte[] getAll(long tx, byte[] map, byte[] keys);

    static native boolean delete(long tx, byte[] map, byte[] key);

    static native void add(long tx, byte[] map, byte[] key, long delta);

    /** Up to {@code limit} pairs in {@code [from, to)} (null: unbounded), packed as {@link Wire#pairs} reads them. */
    static native byte[] scan(long tx, byte[] map, byte[] from, byte[] to, boolean reverse, int limit);

    /** The committed value under {@code key} in {@code map}, read outside any transaction; null when none. */
    static native byte[] storeGet(long store, byte[] map, byte[] key);

    /**
     * The committed value's length under {@code key} (-1: none), copied into the direct buffer
     * {@code into} at {@code position} when it fits in {@code room} bytes (else nothing is copied).
     */
    static native int storeGetInto(long store, byte[] map, byte[] key, ByteBuffer into, int position, int room);

    /** The maps' names, packed as {@link Wire#strings} reads them. */
    static native byte[] names(long store);
}
