package org.rockcask.bench.graph;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertNotEquals;
import static org.junit.Assert.assertTrue;

import java.security.MessageDigest;
import java.util.Arrays;
import org.junit.Test;

public class RoadGraphGeneratorTest {
    private static final int VERTICES = 10_000;

    /** SHA-256 of every (key, value) in key order: the bytes a store is loaded with. */
    static String storedBytesHash(RoadGraph graph, Variant variant, KeyOrder order) throws Exception {
        GraphSource source = new GraphSource(graph, variant, order);
        MessageDigest sha = MessageDigest.getInstance("SHA-256");
        for (int v : source.verticesInKeyOrder()) {
            sha.update(source.key(v));
            sha.update(source.value(v));
        }
        StringBuilder hex = new StringBuilder();
        for (byte b : sha.digest()) {
            hex.append(String.format("%02x", b & 0xFF));
        }
        return hex.toString();
    }

    @Test
    public void theExperimentsSeedGivesTheRecordedBytesInBothOrdersAndVariants() throws Exception {
        RoadGraph graph = RoadGraphGenerator.generate(VERTICES, GraphExperiment.SEED);
        assertEquals("34be03819295d61a211b24f1c0453f9202dc0f65e695c33fcab29a22d83dc66c", storedBytesHash(graph, Variant.SMALL, KeyOrder.LABEL));
        assertEquals("c4be8cff8ea51c4f4c1e2b5b4534d307d8fd78407d265d0e23cebbaac26dc95a", storedBytesHash(graph, Variant.PADDED, KeyOrder.MORTON));
    }

    @Test
    public void theSameSeedGivesTheSameGraphAndAnotherSeedAnother() throws Exception {
        String first = storedBytesHash(RoadGraphGenerator.generate(VERTICES, 7), Variant.SMALL, KeyOrder.MORTON);
        assertEquals(first, storedBytesHash(RoadGraphGenerator.generate(VERTICES, 7), Variant.SMALL, KeyOrder.MORTON));
        assertNotEquals(first, storedBytesHash(RoadGraphGenerator.generate(VERTICES, 8), Variant.SMALL, KeyOrder.MORTON));
    }

    @Test
    public void gridRoadsNumberTwoToFourPerVertexAndOneVertexInAHundredGetsALongRoad() {
        RoadGraph g = RoadGraphGenerator.generate(VERTICES, GraphExperiment.SEED);
        int longEdges = 0;
        int gridEdges = 0;
        for (int v = 0; v < g.vertexCount(); v++) {
            int grid = 0;
            for (int i = g.edgeStart[v]; i < g.edgeStart[v + 1]; i++) {
                if (g.longEdge[i]) {
                    longEdges++;
                } else {
                    grid++;
                }
            }
            assertTrue("vertex " + v + " has " + grid + " grid roads", grid >= 2 && grid <= 4);
            gridEdges += grid;
        }
        assertEquals("both directions of n/100 long roads", 2 * (VERTICES / RoadGraphGenerator.LONG_EDGE_EVERY), longEdges);
        double meanGridDegree = (double) gridEdges / VERTICES;
        assertTrue("a thinned grid, not a full one nor a tree: mean grid degree " + meanGridDegree, meanGridDegree > 2.5 && meanGridDegree < 3.5);
    }

    @Test
    public void everyRoadGoesBothWaysAtTheSameDistanceAndLongRoadsAreLongerThanAGridStep() {
        RoadGraph g = RoadGraphGenerator.generate(VERTICES, GraphExperiment.SEED);
        for (int v = 0; v < g.vertexCount(); v++) {
            for (int i = g.edgeStart[v]; i < g.edgeStart[v + 1]; i++) {
                int t = g.edgeTarget[i];
                boolean back = false;
                for (int j = g.edgeStart[t]; j < g.edgeStart[t + 1]; j++) {
                    back |= g.edgeTarget[j] == v && g.edgeDistance[j] == g.edgeDistance[i] && g.longEdge[j] == g.longEdge[i];
                }
                assertTrue("road " + v + " -> " + t + " has no way back", back);
                if (g.longEdge[i]) {
                    assertTrue("long road " + v + " -> " + t + " of " + g.edgeDistance[i] + " m", g.edgeDistance[i] > RoadGraphGenerator.SPACING);
                }
            }
        }
    }

    @Test
    public void labelsNumberTheVerticesInAnOrderUnrelatedToTheGrid() {
        RoadGraph g = RoadGraphGenerator.generate(VERTICES, GraphExperiment.SEED);
        int[] sorted = g.labelId.clone();
        Arrays.sort(sorted);
        for (int i = 0; i < sorted.length; i++) {
            assertEquals(i, sorted[i]);
        }
        int inPlace = 0;
        for (int v = 0; v < g.vertexCount(); v++) {
            inPlace += g.labelId[v] == v ? 1 : 0;
        }
        assertTrue(inPlace + " labels equal their grid position", inPlace < 10);
    }

    @Test
    public void everyVertexIsReachedFromTheStart() throws Exception {
        assertEquals(VERTICES, GraphExperiment.reference(VERTICES, GraphExperiment.SEED).reached);
    }

    @Test
    public void aSizeThatWouldLeaveALoneVertexInTheLastRowStillGivesEveryVertexTwoRoads() {
        // 10 001 = 101 * 99 + 2... but 100 columns would leave one vertex alone in row 101.
        RoadGraph g = RoadGraphGenerator.generate(10_001, 3);
        for (int v = 0; v < g.vertexCount(); v++) {
            assertFalse("vertex " + v + " has " + g.degree(v) + " roads", g.degree(v) < 2);
        }
    }
}
