package org.rockcask.bench.kv;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertTrue;

import org.junit.Test;

public class ScrambledZipfianTest {
    @Test
    public void drawsStayInRangeAndFavourAFewKeysSpreadOverTheSpace() {
        int items = 1_000;
        int draws = 200_000;
        int[] counts = new int[items];
        ScrambledZipfian z = new ScrambledZipfian(items);
        for (int i = 0; i < draws; i++) {
            long k = z.next();
            assertTrue("in range: " + k, k >= 0 && k < items);
            counts[(int) k]++;
        }
        int top = 0;
        int topKey = -1;
        for (int k = 0; k < items; k++) {
            if (counts[k] > top) {
                top = counts[k];
                topKey = k;
            }
        }
        // Rank 0 has 1/zeta(10^10, 0.99) = 3.8% of the draws; a uniform choice would give 0.1%.
        assertTrue("the hottest key has " + top + " of " + draws, top > draws / 50);
        assertEquals("the hottest key is rank 0's hash, not key 0", ScrambledZipfian.fnv64(0) % items, topKey);
    }
}
