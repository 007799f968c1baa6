package org.rockcask.codec;

import static org.junit.Assert.assertArrayEquals;
import static org.junit.Assert.assertEquals;

import com.google.protobuf.ByteString;
import com.google.protobuf.Message;
import java.lang.reflect.Array;
import java.lang.reflect.Method;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.function.Function;
import org.junit.Test;
import org.rockcask.codec.proto.TargetObjectProtos.TargetObjectProto;
import org.seasr.datatypes.BasicDataTypes;

/**
 * Golden vectors: for every message type, the bytes protobuf-java writes (classes generated at
 * test time from rust/proto) equal the bytes the codec writes, and each decodes the other's,
 * over random content with edge values.
 */
public class CodecGoldenTest {
    private static final Random RANDOM = new Random(20261130);
    private static final String[] PIECES = {"", "a", "Dummy text", "\0", "é", "\uD83D\uDE00", "漢字", "\uFFFD"};

    /** One element kind: random values, conversion to the protobuf-java list message, the codec. */
    private static final class Kind<A> {
        final String name;
        final Class<?> javaType;
        final java.util.function.Supplier<A> random;
        final Function<A, List<?>> protoValues;
        final Function<List<?>, A> fromProto;

        Kind(String name, Class<?> javaType, java.util.function.Supplier<A> random, Function<A, List<?>> protoValues, Function<List<?>, A> fromProto) {
            this.name = name;
            this.javaType = javaType;
            this.random = random;
            this.protoValues = protoValues;
            this.fromProto = fromProto;
        }
    }

    private static int size() {
        int pick = RANDOM.nextInt(4);
        return pick == 0 ? 0 : pick == 1 ? 1 : RANDOM.nextInt(40);
    }

    private static String randomString() {
        StringBuilder b = new StringBuilder();
        for (int i = RANDOM.nextInt(4); i > 0; i--) {
            b.append(PIECES[RANDOM.nextInt(PIECES.length)]);
        }
        return b.toString();
    }

    private static final Kind<int[]> INTEGERS = new Kind<>("Integers", int[].class, () -> {
        int[] v = new int[size()];
        for (int i = 0; i < v.length; i++) {
            v[i] = new int[] {0, -1, Integer.MIN_VALUE, Integer.MAX_VALUE, RANDOM.nextInt()}[RANDOM.nextInt(5)];
        }
        return v;
    }, a -> Arrays.stream(a).boxed().collect(java.util.stream.Collectors.toList()), l -> l.stream().mapToInt(x -> (Integer) x).toArray());

    private static final Kind<long[]> LONGS = new Kind<>("Longs", long[].class, () -> {
        long[] v = new long[size()];
        for (int i = 0; i < v.length; i++) {
            v[i] = new long[] {0, -1, Long.MIN_VALUE, Long.MAX_VALUE, RANDOM.nextLong()}[RANDOM.nextInt(5)];
        }
        return v;
    }, a -> Arrays.stream(a).boxed().collect(java.util.stream.Collectors.toList()), l -> l.stream().mapToLong(x -> (Long) x).toArray());

    private static final Kind<float[]> FLOATS = new Kind<>("Floats", float[].class, () -> {
        float[] v = new float[size()];
        for (int i = 0; i < v.length; i++) {
            v[i] = new float[] {0f, -0f, Float.NaN, Float.NEGATIVE_INFINITY, Float.MIN_VALUE, RANDOM.nextFloat()}[RANDOM.nextInt(6)];
        }
        return v;
    }, a -> {
        List<Float> l = new ArrayList<>();
        for (float f : a) {
            l.add(f);
        }
        return l;
    }, l -> {
        float[] v = new float[l.size()];
        for (int i = 0; i < v.length; i++) {
            v[i] = (Float) l.get(i);
        }
        return v;
    });

    private static final Kind<double[]> DOUBLES = new Kind<>("Doubles", double[].class, () -> {
        double[] v = new double[size()];
        for (int i = 0; i < v.length; i++) {
            v[i] = new double[] {0d, -0d, Double.NaN, Double.MAX_VALUE, RANDOM.nextGaussian()}[RANDOM.nextInt(5)];
        }
        return v;
    }, a -> Arrays.stream(a).boxed().collect(java.util.stream.Collectors.toList()), l -> l.stream().mapToDouble(x -> (Double) x).toArray());

    private static final Kind<String[]> STRINGS = new Kind<>("Strings", String[].class, () -> {
        String[] v = new String[size()];
        for (int i = 0; i < v.length; i++) {
            v[i] = randomString();
        }
        return v;
    }, Arrays::asList, l -> l.toArray(new String[0]));

    private static final Kind<byte[][]> BYTES = new Kind<>("Bytes", byte[][].class, () -> {
        byte[][] v = new byte[size()][];
        for (int i = 0; i < v.length; i++) {
            v[i] = new byte[RANDOM.nextInt(6)];
            RANDOM.nextBytes(v[i]);
        }
        return v;
    }, a -> {
        List<ByteString> l = new ArrayList<>();
        for (byte[] b : a) {
            l.add(ByteString.copyFrom(b));
        }
        return l;
    }, l -> {
        byte[][] v = new byte[l.size()][];
        for (int i = 0; i < v.length; i++) {
            v[i] = ((ByteString) l.get(i)).toByteArray();
        }
        return v;
    });

    // ---- protobuf-java through reflection (one code path for the 24 BasicDataTypes) ----

    private static Class<?> proto(String simpleName) throws ClassNotFoundException {
        return Class.forName("org.seasr.datatypes.BasicDataTypes$" + simpleName);
    }

    private static Object builder(Class<?> message) throws Exception {
        return message.getMethod("newBuilder").invoke(null);
    }

    private static Message build(Object builder) throws Exception {
        return (Message) builder.getClass().getMethod("build").invoke(builder);
    }

    private static Message parse(Class<?> message, byte[] bytes) throws Exception {
        return (Message) message.getMethod("parseFrom", byte[].class).invoke(null, (Object) bytes);
    }

    private static <A> Message listProto(Kind<A> k, A values) throws Exception {
        Object b = builder(proto(k.name));
        b.getClass().getMethod("addAllValue", Iterable.class).invoke(b, k.protoValues.apply(values));
        return build(b);
    }

    private static <A> A fromListProto(Kind<A> k, Object message) throws Exception {
        return k.fromProto.apply((List<?>) message.getClass().getMethod("getValueList").invoke(message));
    }

    private static Method codec(String name, Class<?>... params) throws NoSuchMethodException {
        return Codec.class.getMethod(name, params);
    }

    private static boolean same(Object a, Object b) {
        if (a instanceof float[]) {
            float[] x = (float[]) a;
            float[] y = (float[]) b;
            if (x.length != y.length) {
                return false;
            }
            for (int i = 0; i < x.length; i++) {
                if (Float.floatToRawIntBits(x[i]) != Float.floatToRawIntBits(y[i])) {
                    return false;
                }
            }
            return true;
        }
        if (a instanceof double[]) {
            double[] x = (double[]) a;
            double[] y = (double[]) b;
            if (x.length != y.length) {
                return false;
            }
            for (int i = 0; i < x.length; i++) {
                if (Double.doubleToRawLongBits(x[i]) != Double.doubleToRawLongBits(y[i])) {
                    return false;
                }
            }
            return true;
        }
        return Arrays.deepEquals(new Object[] {a}, new Object[] {b});
    }

    private static final Kind<?>[] KINDS = {BYTES, INTEGERS, LONGS, FLOATS, DOUBLES, STRINGS};

    @Test
    public void listsEncodeToProtobufJavaBytesAndDecodeEachOther() throws Exception {
        for (Kind<?> k : KINDS) {
            checkList(k);
        }
    }

    private static <A> void checkList(Kind<A> k) throws Exception {
        for (int n = 0; n < 100; n++) {
            A values = k.random.get();
            byte[] theirs = listProto(k, values).toByteArray();
            byte[] ours = (byte[]) codec("encode" + k.name, k.javaType).invoke(null, values);
            assertArrayEquals(k.name, theirs, ours);
            Object back = codec("decode" + k.name, byte[].class).invoke(null, (Object) theirs);
            assertEquals(k.name, true, same(values, back));
            assertEquals(k.name, true, same(values, fromListProto(k, parse(proto(k.name), ours))));
        }
    }

    @Test
    public void mapsEncodeToProtobufJavaBytesAndDecodeEachOther() throws Exception {
        for (Kind<?> k : KINDS) {
            checkMap(k);
        }
    }

    private static <A> void checkMap(Kind<A> k) throws Exception {
        for (int n = 0; n < 50; n++) {
            Map<String, A> map = new LinkedHashMap<>();
            for (int i = RANDOM.nextInt(5); i > 0; i--) {
                map.put(randomString() + i, k.random.get());
            }
            Object b = builder(proto(k.name + "Map"));
            b.getClass().getMethod("addAllKey", Iterable.class).invoke(b, new ArrayList<>(map.keySet()));
            List<Message> values = new ArrayList<>();
            for (A v : map.values()) {
                values.add(listProto(k, v));
            }
            b.getClass().getMethod("addAllValue", Iterable.class).invoke(b, values);
            byte[] theirs = build(b).toByteArray();
            byte[] ours = (byte[]) codec("encode" + k.name + "Map", Map.class).invoke(null, map);
            assertArrayEquals(k.name + "Map", theirs, ours);
            @SuppressWarnings("unchecked")
            Map<String, A> back = (Map<String, A>) codec("decode" + k.name + "Map", byte[].class).invoke(null, (Object) theirs);
            assertEquals(new ArrayList<>(map.keySet()), new ArrayList<>(back.keySet()));
            for (String key : map.keySet()) {
                assertEquals(k.name + "Map", true, same(map.get(key), back.get(key)));
            }
        }
    }

    @Test
    public void arraysEncodeToProtobufJavaBytesAndDecodeEachOther() throws Exception {
        for (Kind<?> k : KINDS) {
            checkArray(k);
        }
    }

    private static <A> void checkArray(Kind<A> k) throws Exception {
        for (int n = 0; n < 50; n++) {
            int count = RANDOM.nextInt(5);
            Object array = Array.newInstance(k.javaType, count);
            List<Message> values = new ArrayList<>();
            for (int i = 0; i < count; i++) {
                A v = k.random.get();
                Array.set(array, i, v);
                values.add(listProto(k, v));
            }
            Object b = builder(proto(k.name + "Array"));
            b.getClass().getMethod("addAllValue", Iterable.class).invoke(b, values);
            byte[] theirs = build(b).toByteArray();
            byte[] ours = (byte[]) codec("encode" + k.name + "Array", array.getClass()).invoke(null, array);
            assertArrayEquals(k.name + "Array", theirs, ours);
            Object back = codec("decode" + k.name + "Array", byte[].class).invoke(null, (Object) theirs);
            assertEquals(k.name + "Array", count, Array.getLength(back));
            for (int i = 0; i < count; i++) {
                assertEquals(k.name + "Array", true, same(Array.get(array, i), Array.get(back, i)));
            }
        }
    }

    private static final String[][] FRAMES = {
        {"DenseByteDataFrame", "LabeledBytes"}, {"DenseIntegerDataFrame", "LabeledInteger"}, {"DenseLongDataFrame", "LabeledLongs"},
        {"DenseFloatDataFrame", "LabeledFloats"}, {"DenseDoublesDataFrame", "LabeledDoubles"}, {"DenseStringsDataFrame", "LabeledStrings"},
    };

    @Test
    public void framesEncodeToProtobufJavaBytesAndDecodeEachOther() throws Exception {
        for (int i = 0; i < KINDS.length; i++) {
            checkFrame(KINDS[i], FRAMES[i][0], FRAMES[i][1]);
        }
    }

    private static <A> void checkFrame(Kind<A> k, String frameName, String labeledName) throws Exception {
        for (int n = 0; n < 50; n++) {
            DataFrame<A> frame = new DataFrame<>();
            Object b = builder(proto(frameName));
            for (int i = RANDOM.nextInt(5); i > 0; i--) {
                String name = randomString();
                A column = k.random.get();
                frame.add(name, column);
                Object lb = builder(proto(frameName + "$" + labeledName));
                lb.getClass().getMethod("setName", String.class).invoke(lb, name);
                lb.getClass().getMethod("setData", proto(k.name)).invoke(lb, listProto(k, column));
                b.getClass().getMethod("addColumn", proto(frameName + "$" + labeledName)).invoke(b, build(lb));
            }
            byte[] theirs = build(b).toByteArray();
            String method = k.name + "Frame";
            byte[] ours = (byte[]) codec("encode" + method, DataFrame.class).invoke(null, frame);
            assertArrayEquals(frameName, theirs, ours);
            @SuppressWarnings("unchecked")
            DataFrame<A> back = (DataFrame<A>) codec("decode" + method, byte[].class).invoke(null, (Object) theirs);
            assertEquals(frame.names(), back.names());
            for (int i = 0; i < frame.size(); i++) {
                assertEquals(frameName, true, same(frame.columns().get(i), back.columns().get(i)));
            }
        }
    }

    @Test
    public void targetObjectsEncodeToProtobufJavaBytesAndDecodeEachOther() throws Exception {
        for (int n = 0; n < 100; n++) {
            TargetObject t = new TargetObject(INTEGERS.random.get(), STRINGS.random.get());
            TargetObjectProto proto = TargetObjectProto.newBuilder()
                    .addAllIa(Arrays.stream(t.ia()).boxed().collect(java.util.stream.Collectors.toList()))
                    .addAllSa(Arrays.asList(t.sa()))
                    .build();
            assertArrayEquals(proto.toByteArray(), Codec.encodeTargetObject(t));
            assertEquals(t, Codec.decodeTargetObject(proto.toByteArray()));
            TargetObjectProto parsed = TargetObjectProto.parseFrom(Codec.encodeTargetObject(t));
            assertEquals(Arrays.asList(t.sa()), parsed.getSaList());
        }
    }

    @Test
    public void stringsEncodeAsJavaEncodesThemToUtf8EvenWithUnpairedSurrogates() throws Exception {
        String[] odd = {"a\0b", "\uD83D\uDE00", "\uD800", "x\uDC00y", ""};
        byte[] ours = Codec.encodeStrings(odd);
        byte[] theirs = BasicDataTypes.Strings.newBuilder().addAllValue(Arrays.asList(odd)).build().toByteArray();
        assertArrayEquals(theirs, ours);
        String[] back = Codec.decodeStrings(ours);
        for (int i = 0; i < odd.length; i++) {
            assertEquals(new String(odd[i].getBytes(StandardCharsets.UTF_8), StandardCharsets.UTF_8), back[i]);
        }
        assertEquals("a\0b", back[0]);
        assertEquals("\uD83D\uDE00", back[1]);
    }

    /**
     * protobuf-java reads a length prefix as the low 32 bits of its varint (as a signed int), so
     * a DenseLongDataFrame whose column data's prefix became the 10-byte varint of 2^63 is a
     * frame with one empty column there; the codec decodes exactly what protobuf-java decodes,
     * and refuses what it refuses. One documented exception: a varint whose tenth byte is above
     * 1 (longer than 64 bits), which protobuf-java truncates and the codec refuses.
     */
    @Test
    public void lengthPrefixesAreReadAsProtobufJavaReadsThem() throws Exception {
        int[][] prefixes = {
            {0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x01}, // 2^63: 0
            {0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x01}, // 2^56: 0
            {0x82, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x01}, // 2^63 + 2: 2
            {0x82, 0x80, 0x80, 0x80, 0x10}, // 2^32 + 2: 2
            {0x82, 0x80, 0x80, 0x80, 0x80, 0x20}, // 2^40 + 2: 2
            {0x83, 0x80, 0x80, 0x80, 0x10}, // 2^32 + 3: more than is left
            {0x80, 0x80, 0x80, 0x80, 0x08}, // 2^31: negative as an int
            {0xff, 0xff, 0xff, 0xff, 0x0f}, // 2^32 - 1: negative as an int
            {0x80, 0x80, 0x80, 0x80, 0x88, 0x80, 0x80, 0x80, 0x80, 0x01}, // 2^63 + 2^31: negative
            {0x02}, // 2: the ordinary case
        };
        for (int[] prefix : prefixes) {
            for (byte[] rest : new byte[][] {{}, {0x08, 0x05}}) {
                byte[] message = frameWithDataPrefix(prefix, rest);
                Message theirs;
                try {
                    theirs = BasicDataTypes.DenseLongDataFrame.parseFrom(message);
                } catch (com.google.protobuf.InvalidProtocolBufferException e) {
                    theirs = null;
                }
                DataFrame<long[]> ours;
                try {
                    ours = Codec.decodeLongsFrame(message);
                } catch (CodecException e) {
                    ours = null;
                }
                String what = Arrays.toString(message);
                assertEquals(what + ": both accept or both refuse", theirs != null, ours != null);
                if (ours != null) {
                    BasicDataTypes.DenseLongDataFrame frame = (BasicDataTypes.DenseLongDataFrame) theirs;
                    assertEquals(what, frame.getColumnCount(), ours.size());
                    assertEquals(what, frame.getColumn(0).getName(), ours.names().get(0));
                    assertArrayEquals(what, frame.getColumn(0).getData().getValueList().stream().mapToLong(x -> x).toArray(), ours.columns().get(0));
                }
            }
        }
        // The case found: accepted by both, one column named "" with no values.
        DataFrame<long[]> found = Codec.decodeLongsFrame(frameWithDataPrefix(prefixes[0], new byte[0]));
        assertEquals(1, found.size());
        assertArrayEquals(new long[0], found.columns().get(0));
        // The documented exception: protobuf-java drops the bits beyond 64, the codec refuses.
        byte[] tooLong = frameWithDataPrefix(new int[] {0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x02}, new byte[0]);
        assertEquals(1, BasicDataTypes.DenseLongDataFrame.parseFrom(tooLong).getColumnCount());
        try {
            Codec.decodeLongsFrame(tooLong);
            throw new AssertionError("a varint longer than 64 bits was accepted");
        } catch (CodecException e) {
            assertEquals(e.getMessage(), true, e.getMessage().contains("longer than 64 bits"));
        }
    }

    /** DenseLongDataFrame { column { name: "", data: (this length prefix) rest } }. */
    private static byte[] frameWithDataPrefix(int[] prefix, byte[] rest) {
        java.io.ByteArrayOutputStream labeled = new java.io.ByteArrayOutputStream();
        labeled.write(0x0a);
        labeled.write(0x00);
        labeled.write(0x12);
        for (int b : prefix) {
            labeled.write(b);
        }
        labeled.write(rest, 0, rest.length);
        java.io.ByteArrayOutputStream message = new java.io.ByteArrayOutputStream();
        message.write(0x0a);
        message.write(labeled.size());
        message.write(labeled.toByteArray(), 0, labeled.size());
        return message.toByteArray();
    }
}
