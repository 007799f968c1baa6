package org.rockcask.codec;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Protobuf encoding and decoding, in native code, of the SEASR/Meandre BasicDataTypes messages
 * and the seed benchmark's {@code TargetObjectProto} ({@code rust/proto}), byte-identical to
 * protobuf-java for the same message, so any language can read what a flow stored.
 *
 * <p>Each message crosses JNI in one call: numbers as bulk copies, strings as one UTF-8
 * buffer. Strings are encoded as Java encodes them to UTF-8 ({@code String.getBytes(UTF_8)}:
 * NUL and supplementary characters as they are, an unpaired surrogate as {@code '?'}), and
 * decoded as protobuf-java decodes them (malformed UTF-8 replaced by U+FFFD).
 *
 * <p>Decoding accepts whatever a conforming encoder may produce for the message: packed or
 * unpacked numbers, fields in any order, unknown fields (skipped). Input that is not a valid
 * message throws {@link CodecException} naming the message type and the byte offset; a message
 * whose decoded form would exceed 2 GiB (or content that would encode to more) throws
 * {@link IllegalArgumentException}. Encoding and decoding use a direct buffer per thread (kept
 * up to 8 MiB, grown as needed).
 *
 * <p>Maps keep their protobuf form's order ({@link LinkedHashMap}); a key that repeats in the
 * message keeps its first position and its last value. Frames keep repeated names.
 */
public final class Codec {
    private Codec() {}

    // Message type codes: a shape's first code plus a kind's offset (MessageType::code in
    // rust/codec/src/message.rs defines them; the library checks these values as it registers
    // CodecNative).
    private static final int LIST = 0;
    private static final int MAP = 6;
    private static final int ARRAY = 12;
    private static final int FRAME = 18;
    private static final int BYTES = 0;
    private static final int INTEGERS = 1;
    private static final int LONGS = 2;
    private static final int FLOATS = 3;
    private static final int DOUBLES = 4;
    private static final int STRINGS = 5;
    private static final int TARGET_OBJECT = 24;
    private static final byte[][] NO_NAMES = new byte[0][];

    // ---- the generic paths -------------------------------------------------------------

    /** A column as the flat form carries it (strings as UTF-8). */
    private static Object flat(Object column) {
        if (column instanceof String[]) {
            return Flat.utf8(Arrays.asList((String[]) column));
        }
        return column;
    }

    /** A decoded column in the caller's type: String[] or byte[][] for blobs. */
    private static Object typed(Object column, boolean strings) {
        if (column instanceof Flat.Blobs) {
            Flat.Blobs b = (Flat.Blobs) column;
            return strings ? b.strings() : b.bytes();
        }
        return column;
    }

    private static byte[] encode(int type, Flat.Kind kind, byte[][] names, List<?> columns) {
        List<Object> flat = new ArrayList<>(columns.size());
        for (Object c : columns) {
            if (c == null) {
                throw new NullPointerException("a list is null");
            }
            flat.add(flat(c));
        }
        return Flat.encode(type, names, flat, Collections.nCopies(flat.size(), kind));
    }

    private static byte[] encodeMap(int type, Flat.Kind kind, Map<String, ?> map) {
        if (map == null) {
            throw new NullPointerException("map must not be null");
        }
        // One pass over the entries: keys and values stay paired even if the map changes.
        List<String> keys = new ArrayList<>();
        List<Object> values = new ArrayList<>();
        for (Map.Entry<String, ?> e : map.entrySet()) {
            keys.add(e.getKey());
            values.add(e.getValue());
        }
        return encode(type, Flat.utf8(keys), kind, values);
    }

    private static byte[] encodeFrame(int type, Flat.Kind kind, DataFrame<?> frame) {
        if (frame == null) {
            throw new NullPointerException("frame must not be null");
        }
        return encode(type, Flat.utf8(frame.names()), kind, frame.columns());
    }

    private static byte[] encode(int type, byte[][] names, Flat.Kind kind, List<?> columns) {
        return encode(type, kind, names, columns);
    }

    private static Object decodeList(int type, byte[] message, boolean strings) {
        return typed(Flat.decode(type, message).columns.get(0), strings);
    }

    @SuppressWarnings("unchecked")
    private static <T> Map<String, T> decodeMap(int type, byte[] message, boolean strings) {
        Flat.Message m = Flat.decode(type, message);
        Map<String, T> out = new LinkedHashMap<>();
        String[] keys = m.names.strings();
        // Parallel lists: a key without a value (or a value without a key) is dropped.
        for (int i = 0; i < Math.min(keys.length, m.columns.size()); i++) {
            out.put(keys[i], (T) typed(m.columns.get(i), strings));
        }
        return out;
    }

    private static List<Object> decodeArray(int type, byte[] message, boolean strings) {
        List<Object> out = new ArrayList<>();
        for (Object c : Flat.decode(type, message).columns) {
            out.add(typed(c, strings));
        }
        return out;
    }

    @SuppressWarnings("unchecked")
    private static <T> DataFrame<T> decodeFrame(int type, byte[] message, boolean strings) {
        Flat.Message m = Flat.decode(type, message);
        DataFrame<T> frame = new DataFrame<>();
        String[] names = m.names.strings();
        for (int i = 0; i < names.length; i++) {
            frame.add(names[i], (T) typed(m.columns.get(i), strings));
        }
        return frame;
    }

    // ---- Bytes ----

    /** Encodes a {@code Bytes} message. */
    public static byte[] encodeBytes(byte[][] values) {
        if (values == null) {
            throw new NullPointerException("values must not be null");
        }
        return encode(LIST + BYTES, Flat.Kind.BLOBS, NO_NAMES, Collections.singletonList(values));
    }

    /** Decodes a {@code Bytes} message. */
    public static byte[][] decodeBytes(byte[] message) {
        return (byte[][]) decodeList(LIST + BYTES, message, false);
    }

    /** Encodes a {@code BytesMap} message (keys and values in the map's iteration order). */
    public static byte[] encodeBytesMap(Map<String, byte[][]> map) {
        return encodeMap(MAP + BYTES, Flat.Kind.BLOBS, map);
    }

    /** Decodes a {@code BytesMap} message. */
    public static Map<String, byte[][]> decodeBytesMap(byte[] message) {
        return decodeMap(MAP + BYTES, message, false);
    }

    /** Encodes a {@code BytesArray} message. */
    public static byte[] encodeBytesArray(byte[][][] values) {
        if (values == null) {
            throw new NullPointerException("values must not be null");
        }
        return encode(ARRAY + BYTES, Flat.Kind.BLOBS, NO_NAMES, Arrays.asList(values));
    }

    /** Decodes a {@code BytesArray} message. */
    public static byte[][][] decodeBytesArray(byte[] message) {
        return decodeArray(ARRAY + BYTES, message, false).toArray(new byte[0][][]);
    }

    /** Encodes a {@code DenseByteDataFrame} message (each column's name and data always written). */
    public static byte[] encodeBytesFrame(DataFrame<byte[][]> frame) {
        return encodeFrame(FRAME + BYTES, Flat.Kind.BLOBS, frame);
    }

    /** Decodes a {@code DenseByteDataFrame} message. */
    public static DataFrame<byte[][]> decodeBytesFrame(byte[] message) {
        return decodeFrame(FRAME + BYTES, message, false);
    }

    // ---- Integers ----

    /** Encodes a {@code Integers} message. */
    public static byte[] encodeIntegers(int[] values) {
        if (values == null) {
            throw new NullPointerException("values must not be null");
        }
        return encode(LIST + INTEGERS, Flat.Kind.INT32, NO_NAMES, Collections.singletonList(values));
    }

    /** Decodes a {@code Integers} message. */
    public static int[] decodeIntegers(byte[] message) {
        return (int[]) decodeList(LIST + INTEGERS, message, false);
    }

    /** Encodes a {@code IntegersMap} message (keys and values in the map's iteration order). */
    public static byte[] encodeIntegersMap(Map<String, int[]> map) {
        return encodeMap(MAP + INTEGERS, Flat.Kind.INT32, map);
    }

    /** Decodes a {@code IntegersMap} message. */
    public static Map<String, int[]> decodeIntegersMap(byte[] message) {
        return decodeMap(MAP + INTEGERS, message, false);
    }

    /** Encodes a {@code IntegersArray} message. */
    public static byte[] encodeIntegersArray(int[][] values) {
        if (values == null) {
            throw new NullPointerException("values must not be null");
        }
        return encode(ARRAY + INTEGERS, Flat.Kind.INT32, NO_NAMES, Arrays.asList(values));
    }

    /** Decodes a {@code IntegersArray} message. */
    public static int[][] decodeIntegersArray(byte[] message) {
        return decodeArray(ARRAY + INTEGERS, message, false).toArray(new int[0][]);
    }

    /** Encodes a {@code DenseIntegerDataFrame} message (each column's name and data always written). */
    public static byte[] encodeIntegersFrame(DataFrame<int[]> frame) {
        return encodeFrame(FRAME + INTEGERS, Flat.Kind.INT32, frame);
    }

    /** Decodes a {@code DenseIntegerDataFrame} message. */
    public static DataFrame<int[]> decodeIntegersFrame(byte[] message) {
        return decodeFrame(FRAME + INTEGERS, message, false);
    }

    // ---- Longs ----

    /** Encodes a {@code Longs} message. */
    public static byte[] encodeLongs(long[] values) {
        if (values == null) {
            throw new NullPointerException("values must not be null");
        }
        return encode(LIST + LONGS, Flat.Kind.INT64, NO_NAMES, Collections.singletonList(values));
    }

    /** Decodes a {@code Longs} message. */
    public static long[] decodeLongs(byte[] message) {
        return (long[]) decodeList(LIST + LONGS, message, false);
    }

    /** Encodes a {@code LongsMap} message (keys and values in the map's iteration order). */
    public static byte[] encodeLongsMap(Map<String, long[]> map) {
        return encodeMap(MAP + LONGS, Flat.Kind.INT64, map);
    }

    /** Decodes a {@code LongsMap} message. */
    public static Map<String, long[]> decodeLongsMap(byte[] message) {
        return decodeMap(MAP + LONGS, message, false);
    }

    /** Encodes a {@code LongsArray} message. */
    public static byte[] encodeLongsArray(long[][] values) {
        if (values == null) {
            throw new NullPointerException("values must not be null");
        }
        return encode(ARRAY + LONGS, Flat.Kind.INT64, NO_NAMES, Arrays.asList(values));
    }

    /** Decodes a {@code LongsArray} message. */
    public static long[][] decodeLongsArray(byte[] message) {
        return decodeArray(ARRAY + LONGS, message, false).toArray(new long[0][]);
    }

    /** Encodes a {@code DenseLongDataFrame} message (each column's name and data always written). */
    public static byte[] encodeLongsFrame(DataFrame<long[]> frame) {
        return encodeFrame(FRAME + LONGS, Flat.Kind.INT64, frame);
    }

    /** Decodes a {@code DenseLongDataFrame} message. */
    public static DataFrame<long[]> decodeLongsFrame(byte[] message) {
        return decodeFrame(FRAME + LONGS, message, false);
    }

    // ---- Floats ----

    /** Encodes a {@code Floats} message. */
    public static byte[] encodeFloats(float[] values) {
        if (values == null) {
            throw new NullPointerException("values must not be null");
        }
        return encode(LIST + FLOATS, Flat.Kind.FLOAT, NO_NAMES, Collections.singletonList(values));
    }

    /** Decodes a {@code Floats} message. */
    public static float[] decodeFloats(byte[] message) {
        return (float[]) decodeList(LIST + FLOATS, message, false);
    }

    /** Encodes a {@code FloatsMap} message (keys and values in the map's iteration order). */
    public static byte[] encodeFloatsMap(Map<String, float[]> map) {
        return encodeMap(MAP + FLOATS, Flat.Kind.FLOAT, map);
    }

    /** Decodes a {@code FloatsMap} message. */
    public static Map<String, float[]> decodeFloatsMap(byte[] message) {
        return decodeMap(MAP + FLOATS, message, false);
    }

    /** Encodes a {@code FloatsArray} message. */
    public static byte[] encodeFloatsArray(float[][] values) {
        if (values == null) {
            throw new NullPointerException("values must not be null");
        }
        return encode(ARRAY + FLOATS, Flat.Kind.FLOAT, NO_NAMES, Arrays.asList(values));
    }

    /** Decodes a {@code FloatsArray} message. */
    public static float[][] decodeFloatsArray(byte[] message) {
        return decodeArray(ARRAY + FLOATS, message, false).toArray(new float[0][]);
    }

    /** Encodes a {@code DenseFloatDataFrame} message (each column's name and data always written). */
    public static byte[] encodeFloatsFrame(DataFrame<float[]> frame) {
        return encodeFrame(FRAME + FLOATS, Flat.Kind.FLOAT, frame);
    }

    /** Decodes a {@code DenseFloatDataFrame} message. */
    public static DataFrame<float[]> decodeFloatsFrame(byte[] message) {
        return decodeFrame(FRAME + FLOATS, message, false);
    }

    // ---- Doubles ----

    /** Encodes a {@code Doubles} message. */
    public static byte[] encodeDoubles(double[] values) {
        if (values == null) {
            throw new NullPointerException("values must not be null");
        }
        return encode(LIST + DOUBLES, Flat.Kind.DOUBLE, NO_NAMES, Collections.singletonList(values));
    }

    /** Decodes a {@code Doubles} message. */
    public static double[] decodeDoubles(byte[] message) {
        return (double[]) decodeList(LIST + DOUBLES, message, false);
    }

    /** Encodes a {@code DoublesMap} message (keys and values in the map's iteration order). */
    public static byte[] encodeDoublesMap(Map<String, double[]> map) {
        return encodeMap(MAP + DOUBLES, Flat.Kind.DOUBLE, map);
    }

    /** Decodes a {@code DoublesMap} message. */
    public static Map<String, double[]> decodeDoublesMap(byte[] message) {
        return decodeMap(MAP + DOUBLES, message, false);
    }

    /** Encodes a {@code DoublesArray} message. */
    public static byte[] encodeDoublesArray(double[][] values) {
        if (values == null) {
            throw new NullPointerException("values must not be null");
        }
        return encode(ARRAY + DOUBLES, Flat.Kind.DOUBLE, NO_NAMES, Arrays.asList(values));
    }

    /** Decodes a {@code DoublesArray} message. */
    public static double[][] decodeDoublesArray(byte[] message) {
        return decodeArray(ARRAY + DOUBLES, message, false).toArray(new double[0][]);
    }

    /** Encodes a {@code DenseDoublesDataFrame} message (each column's name and data always written). */
    public static byte[] encodeDoublesFrame(DataFrame<double[]> frame) {
        return encodeFrame(FRAME + DOUBLES, Flat.Kind.DOUBLE, frame);
    }

    /** Decodes a {@code DenseDoublesDataFrame} message. */
    public static DataFrame<double[]> decodeDoublesFrame(byte[] message) {
        return decodeFrame(FRAME + DOUBLES, message, false);
    }

    // ---- Strings ----

    /** Encodes a {@code Strings} message. */
    public static byte[] encodeStrings(String[] values) {
        if (values == null) {
            throw new NullPointerException("values must not be null");
        }
        return encode(LIST + STRINGS, Flat.Kind.BLOBS, NO_NAMES, Collections.singletonList(values));
    }

    /** Decodes a {@code Strings} message. */
    public static String[] decodeStrings(byte[] message) {
        return (String[]) decodeList(LIST + STRINGS, message, true);
    }

    /** Encodes a {@code StringsMap} message (keys and values in the map's iteration order). */
    public static byte[] encodeStringsMap(Map<String, String[]> map) {
        return encodeMap(MAP + STRINGS, Flat.Kind.BLOBS, map);
    }

    /** Decodes a {@code StringsMap} message. */
    public static Map<String, String[]> decodeStringsMap(byte[] message) {
        return decodeMap(MAP + STRINGS, message, true);
    }

    /** Encodes a {@code StringsArray} message. */
    public static byte[] encodeStringsArray(String[][] values) {
        if (values == null) {
            throw new NullPointerException("values must not be null");
        }
        return encode(ARRAY + STRINGS, Flat.Kind.BLOBS, NO_NAMES, Arrays.asList(values));
    }

    /** Decodes a {@code StringsArray} message. */
    public static String[][] decodeStringsArray(byte[] message) {
        return decodeArray(ARRAY + STRINGS, message, true).toArray(new String[0][]);
    }

    /** Encodes a {@code DenseStringsDataFrame} message (each column's name and data always written). */
    public static byte[] encodeStringsFrame(DataFrame<String[]> frame) {
        return encodeFrame(FRAME + STRINGS, Flat.Kind.BLOBS, frame);
    }

    /** Decodes a {@code DenseStringsDataFrame} message. */
    public static DataFrame<String[]> decodeStringsFrame(byte[] message) {
        return decodeFrame(FRAME + STRINGS, message, true);
    }

    // ---- compression ----

    /**
     * {@code payload} compressed with {@code codec}: a codec byte, then the body (the payload
     * itself if compressing does not make it smaller), the way the store compresses payloads.
     * Read back with {@link #decompress(byte[])}; payloads decompress to at most 1 GiB.
     */
    public static byte[] compress(byte[] payload, org.rockcask.Compression codec) {
        if (payload == null || codec == null) {
            throw new NullPointerException("payload and codec must not be null");
        }
        return CodecNative.compress(codec.code(), payload);
    }

    /** The payload of a form made by {@link #compress}; IllegalArgumentException if it is damaged. */
    public static byte[] decompress(byte[] stored) {
        if (stored == null) {
            throw new NullPointerException("stored must not be null");
        }
        return CodecNative.decompress(stored);
    }

    // ---- TargetObjectProto ----

    /** Encodes a {@code TargetObjectProto} message. */
    public static byte[] encodeTargetObject(TargetObject t) {
        if (t == null) {
            throw new NullPointerException("target object must not be null");
        }
        return Flat.encode(TARGET_OBJECT, NO_NAMES, Arrays.asList(t.ia(), flat(t.sa())), Arrays.asList(Flat.Kind.INT32, Flat.Kind.BLOBS));
    }

    /** Decodes a {@code TargetObjectProto} message. */
    public static TargetObject decodeTargetObject(byte[] message) {
        Flat.Message m = Flat.decode(TARGET_OBJECT, message);
        return new TargetObject((int[]) m.columns.get(0), ((Flat.Blobs) m.columns.get(1)).strings());
    }
}
