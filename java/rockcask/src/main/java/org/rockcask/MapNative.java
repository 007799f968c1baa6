package org.rockcask.internal;

/**
 * The native calls on named maps (declared in {@code rust/jni/src/maps.rs}, registered when this
 * class initializes; packed layouts described there). The transaction's caller serializes them
 * with its other calls.
 */
public final class MapNative {
    static {
        NativeLibrary.register(MapNative.class);
    }

    private MapNative() {}

    public static native void put(long tx, byte[] map, byte[] key, byte[] value);

    /** The value, or null when the key is not there. */
    public static native byte[] get(long tx, byte[] map, byte[] key);

    /** {@code keys} packed; the values packed, one (or none) per key. */
    public static native byte[] getAll(long tx, byte[] map, byte[] keys);

    public static native boolean delete(long tx, byte[] map, byte[] key);

    public static native void add(long tx, byte[] map, byte[] key, long delta);

    /** Up to {@code limit} pairs in {@code [from, to)} (null: unbounded), packed. */
    public static native byte[] scan(long tx, byte[] map, byte[] from, byte[] to, boolean reverse, int limit);

    /** The committed value under {@code key} in {@code map}, read outside any transaction; null when none. */
    public static native byte[] storeGet(long store, byte[] map, byte[] key);

    /**
     * The committed value's length under {@code key} (-1: none), copied into the direct buffer
     * {@code into} at {@code position} when it fits in {@code room} bytes (else nothing is copied).
     */
    public static native int storeGetInto(long store, byte[] map, byte[] key, java.nio.ByteBuffer into, int position, int room);

    /** The maps' names, packed as {@code Wire.strings} reads them. */
    public static native byte[] names(long store);
}
