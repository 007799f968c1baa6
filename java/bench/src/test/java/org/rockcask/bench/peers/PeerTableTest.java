package org.rockcask.bench.peers;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertNull;
import static org.junit.Assert.assertTrue;

import java.util.Arrays;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import org.junit.Test;

public class PeerTableTest {
    private static PeerResult rate(double r) {
        return PeerResult.of(Collections.singletonMap("N = 100", r));
    }

    @Test
    public void theBaselineIsRockCaskOrElseTheFirstRockCaskVariantThatRan() {
        assertEquals("RockCask", PeerTable.baseline(Arrays.asList("LMDB", "RockCask inline", "RockCask")));
        assertEquals("RockCask inline", PeerTable.baseline(Arrays.asList("LMDB", "RockCask inline", "RockCask put+id")));
        assertNull(PeerTable.baseline(Arrays.asList("LMDB", "RocksJava")));
    }

    @Test
    public void cellsGiveTheirRatioToTheBaselineWhenOnlyAVariantOfRockCaskRan() {
        Map<String, PeerResult> results = new LinkedHashMap<>();
        results.put("RockCask inline", rate(200));
        results.put("LMDB", rate(100));
        String table = PeerTable.format(PeerWorkload.SEED1, results);
        assertTrue(table, table.contains(" 200 | "));
        assertTrue(table, table.contains("100 (0.50x)"));
    }

    @Test
    public void withoutRockCaskTheCellsHoldRatesAlone() {
        Map<String, PeerResult> results = new LinkedHashMap<>();
        results.put("LMDB", rate(100));
        results.put("RocksJava", rate(50));
        String table = PeerTable.format(PeerWorkload.SEED1, results);
        assertTrue(table, table.contains(" 100 | ") && table.endsWith(" 50\n") && !table.contains("x)"));
    }
}
