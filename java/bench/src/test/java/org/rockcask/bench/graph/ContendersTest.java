package org.rockcask.bench.graph;

import static org.junit.Assert.assertEquals;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.junit.Test;
import org.rockcask.bench.Dirs;

public class ContendersTest {
    private static final int VERTICES = 10_000;

    @SuppressWarnings("try") // GraphStore.close() may throw any exception
    private static TreeChecksum walkAfterLoadAndReopen(GraphStore.Factory factory, Variant variant, KeyOrder order, Path dir) throws Exception {
        GraphSource source = new GraphSource(RoadGraphGenerator.generate(VERTICES, GraphExperiment.SEED), variant, order);
        try (GraphStore store = factory.open(dir)) {
            store.load(source);
            store.reopen();
            try (VertexReader reader = store.openReader()) {
                return ShortestPathTree.walk(reader, order, source.startKey(), VERTICES);
            }
        }
    }

    @Test
    public void everyContenderWalksTheReferenceTreeInBothKeyOrdersAndVariants() throws Exception {
        TreeChecksum reference = GraphExperiment.reference(VERTICES, GraphExperiment.SEED);
        for (Map.Entry<String, GraphStore.Factory> c : GraphStores.all().entrySet()) {
            for (Variant variant : Variant.values()) {
                for (KeyOrder order : KeyOrder.values()) {
                    Path dir = Files.createTempDirectory(Dirs.benchRoot(), "graph-contender");
                    try {
                        assertEquals(c.getKey() + ", " + variant + ", " + order, reference, walkAfterLoadAndReopen(c.getValue(), variant, order, dir));
                    } finally {
                        Dirs.delete(dir);
                    }
                }
            }
        }
    }
}
