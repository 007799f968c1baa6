package org.rockcask.bench.graph;

import static org.junit.Assert.assertArrayEquals;
import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertTrue;

import java.nio.ByteBuffer;
import java.util.Arrays;
import org.junit.Test;

public class KeyOrderTest {
    @Test
    public void mortonCodesFollowTheZCurveXBitFirst() {
        // The 4 x 4 square in Z order: (0,0) (1,0) (0,1) (1,1) (2,0) (3,0) (2,1) (3,1) (0,2) ...
        int[][] zOrder = {{0, 0}, {1, 0}, {0, 1}, {1, 1}, {2, 0}, {3, 0}, {2, 1}, {3, 1}, {0, 2}, {1, 2}, {0, 3}, {1, 3}, {2, 2}, {3, 2}, {2, 3}, {3, 3}};
        for (int i = 0; i < zOrder.length; i++) {
            assertEquals(i, Morton.code(zOrder[i][0], zOrder[i][1]));
        }
        assertEquals(1L << 60, Morton.code(1 << 30, 0));
        assertEquals(1L << 61, Morton.code(0, 1 << 30));
        assertEquals(0x3FFFFFFFFFFFFFFFL, Morton.code(Integer.MAX_VALUE, Integer.MAX_VALUE));
    }

    @Test
    public void mortonKeysSortAsUnsignedCodesThenLabels() {
        RoadGraph g = RoadGraphGenerator.generate(2_500, 5);
        GraphSource source = new GraphSource(g, Variant.SMALL, KeyOrder.MORTON);
        int[] sorted = source.verticesInKeyOrder();
        for (int i = 1; i < sorted.length; i++) {
            long a = Morton.code(g.x[sorted[i - 1]], g.y[sorted[i - 1]]);
            long b = Morton.code(g.x[sorted[i]], g.y[sorted[i]]);
            assertTrue("codes out of order at " + i, Long.compareUnsigned(a, b) <= 0);
        }
        byte[] key = source.key(sorted[0]);
        assertEquals(Morton.code(g.x[sorted[0]], g.y[sorted[0]]), ByteBuffer.wrap(key).getLong());
        assertArrayEquals(KeyOrder.label(g.labelId[sorted[0]]), Arrays.copyOfRange(key, Long.BYTES, key.length));
    }

    @Test(expected = IllegalArgumentException.class)
    public void aNegativeCoordinateIsRefused() {
        Morton.code(-1, 0);
    }

    @Test
    public void labelKeysAreTheLabelsTextAndGiveBackTheVertexNumber() {
        RoadGraph g = RoadGraphGenerator.generate(2_500, 5);
        for (int v = 0; v < g.vertexCount(); v++) {
            assertArrayEquals(("V" + g.labelId[v]).getBytes(java.nio.charset.StandardCharsets.UTF_8), KeyOrder.LABEL.key(g, v));
            assertEquals(g.labelId[v], KeyOrder.LABEL.vertexId(KeyOrder.LABEL.key(g, v)));
            assertEquals(g.labelId[v], KeyOrder.MORTON.vertexId(KeyOrder.MORTON.key(g, v)));
        }
    }

    @Test(expected = IllegalArgumentException.class)
    public void aKeyWithoutALabelIsRefused() {
        KeyOrder.MORTON.vertexId("V12".getBytes(java.nio.charset.StandardCharsets.UTF_8));
    }
}
