package tokyocabinet;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import org.rockcask.internal.NativeLibrary;

/**
 * The native side of the drop-in. Every call checks its handle; every failure of the database
 * is thrown as {@link CasketException} (caught by the public classes). Lists come back packed
 * in one byte[]: i32 count, then per item i32 length (-1: absent) and the bytes.
 */
final class CasketNative {
    static {
        NativeLibrary.load();
    }

    private CasketNative() {}

    /** {@code comparator}: null for a built-in order ({@code cmpfunc}). */
    static native long open(String path, int omode, boolean hash, int cmpfunc, Database.Comparison comparator, String comparatorName,
            long cacheBytes, long writeBufferBytes, int compression);

    /** The most bytes a value may hold ({@link Database#MAX_VALUE_SIZE} must be the same). */
    static native int maxValueSize();

    static native void close(long db);

    static native void free(long db);

    /** mode: 0 replace first value, 1 keep, 2 concatenate, 3 add a duplicate. */
    static native void put(long db, byte[] key, byte[] value, int mode);

    static native void out(long db, byte[] key, boolean all);

    static native byte[] get(long db, byte[] key);

    static native byte[] getlist(long db, byte[] key);

    static native int vnum(long db, byte[] key);

    static native int vsiz(long db, byte[] key);

    static native byte[] range(long db, byte[] bkey, boolean binc, byte[] ekey, boolean einc, int max);

    static native byte[] fwmkeys(long db, byte[] prefix, int max);

    static native int addint(long db, byte[] key, int num);

    static native double adddouble(long db, byte[] key, double num);

    static native void sync(long db);

    static native void optimize(long db);

    static native void vanish(long db);

    static native void copy(long db, String path);

    static native void tranbegin(long db);

    static native void trancommit(long db);

    static native void tranabort(long db);

    static native long rnum(long db);

    static native long fsiz(long db);

    // Cursors are positions (opaque byte[]) kept by the caller.

    static native byte[] curFirst(long db);

    static native byte[] curLast(long db);

    static native byte[] curJump(long db, byte[] key);

    static native byte[] curNext(long db, byte[] pos);

    static native byte[] curPrev(long db, byte[] pos);

    static native byte[] curKey(long db, byte[] pos);

    static native byte[] curVal(long db, byte[] pos);

    /** mode: 0 current, 1 before, 2 after. Returns the new position. */
    static native byte[] curPut(long db, byte[] pos, byte[] value, int mode);

    /** Packed [next position or absent]. */
    static native byte[] curOut(long db, byte[] pos);

    /** Packed [key, next position or absent]. */
    static native byte[] curKeyNext(long db, byte[] pos);

    static List<byte[]> unpack(byte[] packed) {
        ByteBuffer b = ByteBuffer.wrap(packed);
        int n = b.getInt();
        List<byte[]> out = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            int len = b.getInt();
            if (len < 0) {
                out.add(null);
            } else {
                byte[] item = new byte[len];
                b.get(item);
                out.add(item);
            }
        }
        return out;
    }
}
