package org.rockcask.bench.graph;

import static org.junit.Assert.assertEquals;

import java.util.Arrays;
import org.junit.Test;

public class ShortestPathTreeTest {
    @Test
    public void dijkstrasTreeEqualsDistancesRelaxedToAFixedPoint() throws Exception {
        int n = 900;
        RoadGraph g = RoadGraphGenerator.generate(n, 21);
        // Bellman-Ford: relax every edge until nothing changes; indexed by grid position.
        long[] d = new long[n];
        Arrays.fill(d, Long.MAX_VALUE);
        d[g.startVertex()] = 0;
        for (boolean changed = true; changed;) {
            changed = false;
            for (int v = 0; v < n; v++) {
                for (int i = g.edgeStart[v]; d[v] != Long.MAX_VALUE && i < g.edgeStart[v + 1]; i++) {
                    if (d[v] + g.edgeDistance[i] < d[g.edgeTarget[i]]) {
                        d[g.edgeTarget[i]] = d[v] + g.edgeDistance[i];
                        changed = true;
                    }
                }
            }
        }
        long reached = 0;
        long sum = 0;
        long hash = 0;
        for (int v = 0; v < n; v++) {
            if (d[v] != Long.MAX_VALUE) {
                reached++;
                sum += d[v];
                hash += TreeChecksum.pairHash(g.labelId[v], d[v]);
            }
        }
        assertEquals(new TreeChecksum(reached, sum, hash), GraphExperiment.reference(n, 21));
    }
}
