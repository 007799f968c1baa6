package org.rockcask.bench.peers;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertNull;
import static org.junit.Assert.assertTrue;

import java.util.Arrays;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import org.junit.Test;

public class PeerResultTest {
    private static PeerResult rows(double small, double large) {
        Map<String, Double> rows = new LinkedHashMap<>();
        rows.put("N = 100", small);
        rows.put("N = 100,000", large);
        return PeerResult.of(rows);
    }

    @Test
    public void roundsCombineIntoEachRowsMedianInRowOrder() {
        PeerResult m = PeerResult.median(Arrays.asList(rows(3, 10), rows(1, 30), rows(2, 20)));
        assertNull(m.error);
        assertEquals(Arrays.asList("N = 100", "N = 100,000"), Arrays.asList(m.rows.keySet().toArray()));
        assertEquals(2, m.rows.get("N = 100"), 0);
        assertEquals(20, m.rows.get("N = 100,000"), 0);
        // An even count: the mean of the middle two.
        assertEquals(15, PeerResult.median(Arrays.asList(rows(1, 10), rows(1, 20))).rows.get("N = 100,000"), 0);
    }

    @Test
    public void aPeerThatFailsInAnyRoundIsReportedAsFailed() {
        PeerResult m = PeerResult.median(Arrays.asList(rows(1, 10), PeerResult.failed("disk full"), rows(2, 20)));
        assertTrue(m.error, m.error.contains("disk full") && m.error.contains("3 rounds"));
        assertTrue(m.rows.isEmpty());
    }

    @Test
    public void oneRoundIsReportedAsItWas() {
        assertEquals("disk full", PeerResult.median(Collections.singletonList(PeerResult.failed("disk full"))).error);
        assertEquals(rows(1, 10).line(), PeerResult.median(Collections.singletonList(rows(1, 10))).line());
    }

    @Test
    public void aResultLineReadsBackAsTheSameResult() {
        PeerResult r = rows(123.5, 4.25e6);
        assertEquals(r.line(), PeerResult.parse(r.line()).line());
        assertNull(PeerResult.parse("other output of the child"));
    }
}
