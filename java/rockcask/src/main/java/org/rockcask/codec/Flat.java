package org.rockcask.codec;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * A message's content in the flat form that crosses JNI in one call: one direct buffer,
 * numbers in native byte order (bulk-copied with {@code IntBuffer.put/get} and the like),
 * sections padded to {@link #ALIGN} bytes. The layout is defined in
 * {@code rust/codec/src/flat.rs}; the library checks the numbers below as it registers
 * {@link CodecNative}.
 */
final class Flat {
    /** Every section starts at a multiple of this many bytes. */
    static final int ALIGN = 8;
    /** Bytes of each header: two ints (count and data bytes, count and 0, kind and count, data bytes and 0). */
    static final int HEADER_BYTES = 8;
    static final int KIND_INT32 = 0;
    static final int KIND_INT64 = 1;
    static final int KIND_FLOAT = 2;
    static final int KIND_DOUBLE = 3;
    static final int KIND_BLOBS = 4;

    /** Element kinds of a column, as numbered in the flat form. */
    enum Kind {
        INT32(KIND_INT32), INT64(KIND_INT64), FLOAT(KIND_FLOAT), DOUBLE(KIND_DOUBLE), BLOBS(KIND_BLOBS);

        final int code;

        Kind(int code) {
            this.code = code;
        }
    }

    /** Buffers above this size are not kept for the next call on the thread. */
    private static final int KEEP_LIMIT = 8 << 20;
    private static final ThreadLocal<ByteBuffer> CACHE = new ThreadLocal<>();

    private Flat() {}

    private static ByteBuffer buffer(long capacity) {
        if (capacity > Integer.MAX_VALUE - 8) {
            throw new IllegalArgumentException("message content of " + capacity + " bytes is too large");
        }
        ByteBuffer b = CACHE.get();
        if (b == null || b.capacity() < capacity) {
            // Grown to the next power of two: messages that grow a little at a time must not
            // each allocate a direct buffer (an allocation can even trigger a full GC).
            long size = Math.max(Long.highestOneBit(Math.max(capacity, 64 << 10) - 1) << 1, 64 << 10);
            b = ByteBuffer.allocateDirect((int) Math.min(size, Integer.MAX_VALUE - 8)).order(ByteOrder.nativeOrder());
            if (b.capacity() <= KEEP_LIMIT) {
                CACHE.set(b);
            }
        }
        b.clear();
        return b;
    }

    private static long padded(long n) {
        return (n + ALIGN - 1) / ALIGN * ALIGN;
    }

    private static void pad(ByteBuffer b) {
        while (b.position() % ALIGN != 0) {
            b.put((byte) 0);
        }
    }

    /** Strings as UTF-8, the way Java encodes them (an unpaired surrogate becomes '?'). */
    static byte[][] utf8(List<String> strings) {
        byte[][] out = new byte[strings.size()][];
        for (int i = 0; i < out.length; i++) {
            String s = strings.get(i);
            if (s == null) {
                throw new NullPointerException("string " + i + " is null");
            }
            out[i] = s.getBytes(StandardCharsets.UTF_8);
        }
        return out;
    }

    private static long blobsSize(byte[][] blobs) {
        long n = 4L * blobs.length;
        for (byte[] b : blobs) {
            if (b == null) {
                throw new NullPointerException("an element is null");
            }
            n += b.length;
        }
        return padded(n);
    }

    private static long columnSize(Kind kind, Object column) {
        switch (kind) {
            case INT32: return padded(4L * ((int[]) column).length);
            case INT64: return 8L * ((long[]) column).length;
            case FLOAT: return padded(4L * ((float[]) column).length);
            case DOUBLE: return 8L * ((double[]) column).length;
            default: return HEADER_BYTES + blobsSize((byte[][]) column);
        }
    }

    private static int count(Kind kind, Object column) {
        switch (kind) {
            case INT32: return ((int[]) column).length;
            case INT64: return ((long[]) column).length;
            case FLOAT: return ((float[]) column).length;
            case DOUBLE: return ((double[]) column).length;
            default: return ((byte[][]) column).length;
        }
    }

    private static void putBlobs(ByteBuffer b, byte[][] blobs) {
        int end = 0;
        for (byte[] x : blobs) {
            end += x.length;
            b.putInt(end);
        }
        for (byte[] x : blobs) {
            b.put(x);
        }
        pad(b);
    }

    private static int dataSize(byte[][] blobs) {
        long n = 0;
        for (byte[] x : blobs) {
            n += x.length;
        }
        if (n > Integer.MAX_VALUE) {
            throw new IllegalArgumentException("more than 2 GiB of string or byte data");
        }
        return (int) n;
    }

    /**
     * Encodes a message: {@code names} (UTF-8) are a map's keys or a frame's column names;
     * {@code columns} are {@code int[]}, {@code long[]}, {@code float[]}, {@code double[]} or
     * {@code byte[][]} (strings as UTF-8) by {@code kinds}.
     */
    static byte[] encode(int type, byte[][] names, List<Object> columns, List<Kind> kinds) {
        long size = HEADER_BYTES + blobsSize(names) + HEADER_BYTES;
        for (int i = 0; i < columns.size(); i++) {
            Object c = columns.get(i);
            if (c == null) {
                throw new NullPointerException("column " + i + " is null");
            }
            size += HEADER_BYTES + columnSize(kinds.get(i), c);
        }
        ByteBuffer b = buffer(size);
        b.putInt(names.length).putInt(dataSize(names));
        putBlobs(b, names);
        b.putInt(columns.size()).putInt(0);
        for (int i = 0; i < columns.size(); i++) {
            Kind kind = kinds.get(i);
            Object c = columns.get(i);
            b.putInt(kind.code).putInt(count(kind, c));
            switch (kind) {
                case INT32:
                    b.asIntBuffer().put((int[]) c);
                    b.position(b.position() + 4 * ((int[]) c).length);
                    break;
                case INT64:
                    b.asLongBuffer().put((long[]) c);
                    b.position(b.position() + 8 * ((long[]) c).length);
                    break;
                case FLOAT:
                    b.asFloatBuffer().put((float[]) c);
                    b.position(b.position() + 4 * ((float[]) c).length);
                    break;
                case DOUBLE:
                    b.asDoubleBuffer().put((double[]) c);
                    b.position(b.position() + 8 * ((double[]) c).length);
                    break;
                default:
                    byte[][] blobs = (byte[][]) c;
                    b.putInt(dataSize(blobs)).putInt(0);
                    putBlobs(b, blobs);
                    continue;
            }
            pad(b);
        }
        return CodecNative.encode(type, b, b.position());
    }

    /** Strings or byte strings as decoded: all bytes in one array, element i ending at ends[i]. */
    static final class Blobs {
        final byte[] data;
        final int[] ends;

        Blobs(byte[] data, int[] ends) {
            this.data = data;
            this.ends = ends;
        }

        String[] strings() {
            String[] out = new String[ends.length];
            int start = 0;
            for (int i = 0; i < out.length; i++) {
                out[i] = new String(data, start, ends[i] - start, StandardCharsets.UTF_8);
                start = ends[i];
            }
            return out;
        }

        byte[][] bytes() {
            byte[][] out = new byte[ends.length][];
            int start = 0;
            for (int i = 0; i < out.length; i++) {
                out[i] = Arrays.copyOfRange(data, start, ends[i]);
                start = ends[i];
            }
            return out;
        }
    }

    /** A decoded message: names and columns ({@link Blobs} for strings and bytes). */
    static final class Message {
        final Blobs names;
        final List<Object> columns;

        Message(Blobs names, List<Object> columns) {
            this.names = names;
            this.columns = columns;
        }
    }

    private static Blobs getBlobs(ByteBuffer b, int count, int dataLen) {
        int[] ends = new int[count];
        b.asIntBuffer().get(ends);
        b.position(b.position() + 4 * count);
        byte[] data = new byte[dataLen];
        b.get(data);
        pad(b);
        return new Blobs(data, ends);
    }

    static Message decode(int type, byte[] message) {
        if (message == null) {
            throw new NullPointerException("message must not be null");
        }
        // The thread's buffer as it is; the native side says how much it needs if that is too
        // little (nothing is decoded twice unless the buffer grows).
        ByteBuffer b = buffer(Math.min(4L * message.length + 64, 64 << 10));
        int n = CodecNative.decode(type, message, b);
        if (n < 0) {
            b = buffer(-(long) n);
            n = CodecNative.decode(type, message, b);
        }
        b.limit(n);
        int nameCount = b.getInt();
        int nameBytes = b.getInt();
        Blobs names = getBlobs(b, nameCount, nameBytes);
        int columnCount = b.getInt();
        b.getInt();
        List<Object> columns = new ArrayList<>(columnCount);
        for (int i = 0; i < columnCount; i++) {
            int kind = b.getInt();
            int count = b.getInt();
            switch (kind) {
                case KIND_INT32: {
                    int[] v = new int[count];
                    b.asIntBuffer().get(v);
                    b.position(b.position() + 4 * count);
                    columns.add(v);
                    break;
                }
                case KIND_INT64: {
                    long[] v = new long[count];
                    b.asLongBuffer().get(v);
                    b.position(b.position() + 8 * count);
                    columns.add(v);
                    break;
                }
                case KIND_FLOAT: {
                    float[] v = new float[count];
                    b.asFloatBuffer().get(v);
                    b.position(b.position() + 4 * count);
                    columns.add(v);
                    break;
                }
                case KIND_DOUBLE: {
                    double[] v = new double[count];
                    b.asDoubleBuffer().get(v);
                    b.position(b.position() + 8 * count);
                    columns.add(v);
                    break;
                }
                case KIND_BLOBS: {
                    int dataLen = b.getInt();
                    b.getInt();
                    columns.add(getBlobs(b, count, dataLen));
                    continue;
                }
                default:
                    throw new IllegalStateException("the native codec wrote an unknown column kind " + kind);
            }
            pad(b);
        }
        return new Message(names, columns);
    }
}
