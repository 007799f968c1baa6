package org.rockcask.codec;

import static org.junit.Assert.assertArrayEquals;
import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertTrue;
import static org.junit.Assert.fail;

import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Random;
import org.junit.Test;

public class CodecTest {
    @Test
    public void largeAndEmptyListsRoundTrip() {
        int[] ints = new Random(1).ints(1_000_000).toArray();
        assertArrayEquals(ints, Codec.decodeIntegers(Codec.encodeIntegers(ints)));
        assertEquals(0, Codec.decodeIntegers(Codec.encodeIntegers(new int[0])).length);
        assertEquals(0, Codec.encodeIntegers(new int[0]).length);
        String[] strings = new String[100_000];
        Arrays.fill(strings, "Dummy text");
        assertArrayEquals(strings, Codec.decodeStrings(Codec.encodeStrings(strings)));
        long[] longs = {Long.MIN_VALUE, -1, 0, Long.MAX_VALUE};
        assertArrayEquals(longs, Codec.decodeLongs(Codec.encodeLongs(longs)));
    }

    @Test
    public void packedNumbersFromAnotherEncoderAreAccepted() {
        // Integers {1, 300} packed: field 1, length 3, varints 01 ac 02.
        assertArrayEquals(new int[] {1, 300}, Codec.decodeIntegers(new byte[] {0x0a, 0x03, 0x01, (byte) 0xac, 0x02}));
        // Doubles {1.0} packed.
        byte[] packed = {0x0a, 0x08, 0, 0, 0, 0, 0, 0, (byte) 0xf0, 0x3f};
        assertArrayEquals(new double[] {1.0}, Codec.decodeDoubles(packed), 0.0);
    }

    @Test
    public void malformedInputThrowsCodecExceptionWithTypeAndOffset() {
        // A key, then a value whose length prefix claims 2^31 bytes.
        byte[] absurd = {0x0a, 0x02, 'a', 'b', 0x12, (byte) 0x80, (byte) 0x80, (byte) 0x80, (byte) 0x80, 0x08};
        try {
            Codec.decodeStringsMap(absurd);
            fail("accepted an absurd length prefix");
        } catch (CodecException e) {
            assertEquals("StringsMap", e.messageType());
            assertEquals(5, e.offset());
            assertTrue(e.getMessage(), e.getMessage().contains("StringsMap") && e.getMessage().contains("byte 5"));
        }
        byte[] good = Codec.encodeTargetObject(new TargetObject(new int[] {1, -1, 7}, new String[] {"x", "yz"}));
        int refused = 0;
        for (int cut = 1; cut < good.length; cut++) {
            try {
                Codec.decodeTargetObject(Arrays.copyOf(good, cut));
            } catch (CodecException e) {
                assertEquals("TargetObjectProto", e.messageType());
                assertTrue(e.offset() >= 0 && e.offset() <= cut);
                refused++;
            }
        }
        assertTrue("most truncations cut a field in half", refused > good.length / 2);
    }

    @Test
    public void bytesOfAnotherMessageTypeNeverCrashTheDecoder() {
        byte[] strings = Codec.encodeStrings(new String[] {"hello", "world", ""});
        Random r = new Random(7);
        for (int i = 0; i < 2_000; i++) {
            byte[] input = i % 2 == 0 ? strings.clone() : new byte[r.nextInt(40)];
            if (i % 2 == 1) {
                r.nextBytes(input);
            } else {
                input[r.nextInt(input.length)] ^= (byte) (1 << r.nextInt(8));
            }
            try {
                Codec.decodeIntegersArray(input);
                Codec.decodeDoublesMap(input);
                Codec.decodeLongsFrame(input);
            } catch (CodecException expected) {
                assertTrue(expected.offset() >= 0);
            }
        }
    }

    @Test
    public void nullArgumentsThrowNullPointerException() {
        try {
            Codec.encodeIntegers(null);
            fail();
        } catch (NullPointerException expected) {
        }
        try {
            Codec.encodeStrings(new String[] {"a", null});
            fail();
        } catch (NullPointerException expected) {
        }
        try {
            Codec.decodeLongs(null);
            fail();
        } catch (NullPointerException expected) {
        }
        Map<String, int[]> withNull = new LinkedHashMap<>();
        withNull.put("k", null);
        try {
            Codec.encodeIntegersMap(withNull);
            fail();
        } catch (NullPointerException expected) {
        }
    }

    @Test
    public void framesKeepRepeatedNamesAndMapsKeepOrder() {
        DataFrame<String[]> f = new DataFrame<String[]>().add("a", new String[] {"1"}).add("a", new String[] {"2", "3"});
        DataFrame<String[]> back = Codec.decodeStringsFrame(Codec.encodeStringsFrame(f));
        assertEquals(Arrays.asList("a", "a"), back.names());
        assertArrayEquals(new String[] {"2", "3"}, back.columns().get(1));
        Map<String, double[]> m = new LinkedHashMap<>();
        m.put("z", new double[] {1});
        m.put("a", new double[] {});
        assertEquals(Arrays.asList("z", "a"), Arrays.asList(Codec.decodeDoublesMap(Codec.encodeDoublesMap(m)).keySet().toArray()));
    }
}
