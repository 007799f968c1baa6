package tokyocabinet.internal;

import java.util.Arrays;

/**
 * {@code putdup}s gathered during a transaction, packed for one {@link CasketNative#putdups}
 * call: keys and values alternating, in the list layout {@code pack_list} defines in
 * {@code rust/jni/src/casket.rs} (an i32 count, then per item an i32 length and the bytes,
 * big-endian). Not thread-safe: the database that gathers them guards it.
 */
public final class PackedPutdups {
    /** Gathered bytes from which the pairs are to be written. */
    public static final int FLUSH_BYTES = 1 << 20;
    /** Larger pairs are not gathered (they are written at once, after what is gathered). */
    public static final int MAX_PAIR_BYTES = 64 << 10;

    private byte[] buf = new byte[4096];
    private int length = 4;
    private int pairs;

    public boolean isEmpty() {
        return pairs == 0;
    }

    /** Whether a pair of these sizes is gathered rather than written at once. */
    public static boolean gathers(byte[] key, byte[] value) {
        return key.length + value.length <= MAX_PAIR_BYTES;
    }

    /** Adds one pair (one that {@link #gathers}); returns whether it is time to write them. */
    public boolean add(byte[] key, byte[] value) {
        int needed = 8 + key.length + value.length;
        if (length + needed > buf.length) {
            buf = Arrays.copyOf(buf, Math.max(buf.length * 2, length + needed));
        }
        put(key);
        put(value);
        pairs++;
        return length >= FLUSH_BYTES;
    }

    private void put(byte[] item) {
        writeInt(length, item.length);
        System.arraycopy(item, 0, buf, length + 4, item.length);
        length += 4 + item.length;
    }

    private void writeInt(int at, int v) {
        buf[at] = (byte) (v >>> 24);
        buf[at + 1] = (byte) (v >>> 16);
        buf[at + 2] = (byte) (v >>> 8);
        buf[at + 3] = (byte) v;
    }

    /** The packed pairs, for one native call; the gathering starts over. */
    public byte[] take() {
        writeInt(0, pairs * 2);
        byte[] packed = Arrays.copyOf(buf, length);
        clear();
        return packed;
    }

    /** Drops what is gathered (an aborted or closed transaction). */
    public void clear() {
        length = 4;
        pairs = 0;
        if (buf.length > FLUSH_BYTES * 2) {
            buf = new byte[4096];
        }
    }
}
