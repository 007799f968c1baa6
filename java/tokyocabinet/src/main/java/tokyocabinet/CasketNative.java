package tokyocabinet;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import org.rockcask.internal.NativeLibrary;
import tokyocabinet.internal.CasketComparator;
import tokyocabinet.internal.PackedPutdups;

/**
 * The native side of the drop-in (declared in {@code rust/jni/src/casket.rs}, registered when
 * this class initializes, which also checks the constants below and the drop-in's public ones
 * it depends on). Every call checks its handle; every failure of the database is thrown as
 * {@link CasketException} (caught by the public classes). Lists come back packed in one byte[]
 * (see {@link #unpack}). Paths and names cross as UTF-8 bytes, made as RockCask makes every
 * name's ({@code org.rockcask.internal.Utf8}).
 *
 * <p>Package-private, beside its only callers: a handle is trusted to come from {@link Database}.
 */
final class CasketNative {
    static {
        NativeLibrary.register(CasketNative.class);
    }

    private CasketNative() {}

    // The slots of the long[] record open takes (CasketSlot in rust/jni/src/contract/casket.rs).
    /** The open mode: {@code BDB.O*} bits. */
    static final int OPEN_OMODE = 0;
    /** 1 for a hash database, 0 for a B+ tree. */
    static final int OPEN_HASH = 1;
    /** The built-in order ({@code BDB.CMP*}) when there is no comparator. */
    static final int OPEN_CMPFUNC = 2;
    static final int OPEN_CACHE_BYTES = 3;
    static final int OPEN_WRITE_BUFFER_BYTES = 4;
    /** One of the {@code COMPRESSION_} codes. */
    static final int OPEN_COMPRESSION = 5;
    static final int OPEN_SLOTS = 6;

    // Put modes.
    /** Replace the first value. */
    static final int PUT_OVER = 0;
    /** Fail with EKEEP if the key exists. */
    static final int PUT_KEEP = 1;
    /** Append to the first value. */
    static final int PUT_CAT = 2;
    /** Add a value after the key's existing ones. */
    static final int PUT_DUP = 3;

    // Compression of a database's files.
    static final int COMPRESSION_NONE = 0;
    static final int COMPRESSION_LZ4 = 1;
    static final int COMPRESSION_ZSTD = 2;

    /**
     * {@code options}: the {@code OPEN_} slots; {@code comparator}: null for a built-in order;
     * {@code path} and {@code comparatorName}: UTF-8, as {@code Utf8.name} makes them.
     */
    static native long open(byte[] path, long[] options, CasketComparator comparator, byte[] comparatorName);

    static native void close(long db);

    static native void free(long db);

    /** mode: a {@code PUT_} code. */
    static native void put(long db, byte[] key, byte[] value, int mode);

    /** {@code putdup} of each pair {@link PackedPutdups} packed, in order; stops at the first failure. */
    static native void putdups(long db, byte[] packed);

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

    static native void copy(long db, byte[] path);

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

    /** mode: {@code BDBCUR.CP*}. Returns the new position. */
    static native byte[] curPut(long db, byte[] pos, byte[] value, int mode);

    /** Packed [next position or absent]. */
    static native byte[] curOut(long db, byte[] pos);

    /** Packed [key, next position or absent]. */
    static native byte[] curKeyNext(long db, byte[] pos);

    /**
     * A packed list, in the list layout {@code pack_list} in {@code rust/jni/src/wire/mod.rs}
     * defines: i32 count, then per item i32 length (-1: absent) and the bytes, big-endian
     * (checked against tests/golden/packed-layouts.tsv by {@code PackedListGoldenTest}).
     */
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
