package org.rockcask.bench.graph;

import static org.junit.Assert.assertArrayEquals;
import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertTrue;
import static org.junit.Assert.fail;

import java.nio.ByteBuffer;
import org.junit.Test;

public class EdgeListLayoutTest {
    private static void assertRoundTrips(Variant variant, KeyOrder order) {
        RoadGraph graph = RoadGraphGenerator.generate(2_500, 11);
        GraphSource source = new GraphSource(graph, variant, order);
        EdgeListReader reader = new EdgeListReader(order);
        for (int v = 0; v < graph.vertexCount(); v++) {
            byte[] value = source.value(v);
            // Read from a direct buffer at an offset, as from a store's memory map.
            ByteBuffer direct = ByteBuffer.allocateDirect(value.length + 3);
            direct.position(3);
            direct.put(value).flip().position(3);
            reader.reset(direct);
            for (int e = 0; e < source.degree(v); e++) {
                assertTrue(reader.next());
                assertEquals(source.distance(v, e), reader.distance());
                assertEquals(source.destinationId(v, e), reader.destinationId());
                assertArrayEquals(source.destinationKey(v, e), reader.destinationKey());
                assertEquals(source.payload(v, e).length, reader.payloadLength());
            }
            assertFalse(reader.next());
            assertEquals("the reader ends where the value does", direct.limit(), reader.position());
            assertEquals("the reader leaves the buffer's position alone", 3, direct.position());
        }
    }

    @Test
    public void smallEdgeListsRoundTripInBothKeyOrders() {
        assertRoundTrips(Variant.SMALL, KeyOrder.LABEL);
        assertRoundTrips(Variant.SMALL, KeyOrder.MORTON);
    }

    @Test
    public void paddedEdgeListsRoundTripInBothKeyOrders() {
        assertRoundTrips(Variant.PADDED, KeyOrder.LABEL);
        assertRoundTrips(Variant.PADDED, KeyOrder.MORTON);
    }

    @Test
    public void everyPaddedEdgeTakesTwoHundredFiftySixBytes() {
        RoadGraph graph = RoadGraphGenerator.generate(2_500, 11);
        for (KeyOrder order : KeyOrder.values()) {
            GraphSource source = new GraphSource(graph, Variant.PADDED, order);
            for (int v = 0; v < graph.vertexCount(); v++) {
                int header = 1 + EdgeListLayout.varintBytes(source.degree(v));
                assertEquals(header + Variant.PADDED_EDGE_BYTES * source.degree(v), source.value(v).length);
            }
        }
    }

    @Test
    public void theLayoutIsTheDocumentedBytes() {
        byte[] value = EdgeListLayout.encode(new int[] {300}, new byte[][] {{'V', '7'}}, new byte[][] {new byte[130]});
        byte[] expected = new byte[1 + 1 + 4 + 1 + 2 + 2 + 130];
        ByteBuffer.wrap(expected).put((byte) 1).put((byte) 1).putInt(300).put((byte) 2).put((byte) 'V').put((byte) '7')
                .put((byte) (0x80 | (130 & 0x7F))).put((byte) 1);
        assertArrayEquals(expected, value);
    }

    @Test
    public void aValueOfAnotherLayoutVersionIsRefused() {
        byte[] value = EdgeListLayout.encode(new int[] {1}, new byte[][] {{'V', '1'}}, new byte[][] {{}});
        value[0] = 2;
        try {
            new EdgeListReader(KeyOrder.LABEL).reset(ByteBuffer.wrap(value));
            fail("a version 2 value was read");
        } catch (IllegalStateException expected) {
            assertTrue(expected.getMessage(), expected.getMessage().contains("version 2"));
        }
    }
}
