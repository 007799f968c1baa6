package org.rockcask;

import static org.junit.Assert.assertArrayEquals;
import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertNull;
import static org.junit.Assert.assertThrows;
import static org.junit.Assert.assertTrue;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.Test;

/** Named maps through the Java API: every operation, isolation, counters, scans, limits. */
public class MapsTest extends WithOpenStore {
    private static List<String> keys(List<Map.Entry<byte[], byte[]>> pairs) {
        List<String> out = new ArrayList<>();
        for (Map.Entry<byte[], byte[]> e : pairs) {
            out.add(new String(e.getKey(), StandardCharsets.UTF_8));
        }
        return out;
    }

    @Test
    public void mapWritesCommitWithTheQueueWorkAndAreSeenByTheirOwnTransaction() {
        try (Transaction tx = store.begin()) {
            TxMap users = tx.map("users");
            users.put("ann", b("1"));
            tx.enqueue("events", b("ann joined"));
            assertArrayEquals(b("1"), users.get("ann"));
            try (Transaction other = store.begin()) {
                assertNull("not before commit", other.map("users").get("ann"));
            }
            tx.commit();
        }
        assertEquals(Arrays.asList("users"), store.maps());
        assertEquals(1, store.stats().maps());
        assertArrayEquals(b("1"), store.mapGet("users", b("ann")));
        assertNull(store.mapGet("users", b("nobody")));
        assertNull(store.mapGet("no map", b("ann")));
        try (Transaction tx = store.begin()) {
            TxMap users = tx.map("users");
            assertTrue(users.contains("ann"));
            assertTrue(users.delete("ann"));
            assertFalse(users.delete("ann"));
            tx.poll("events");
            tx.rollback();
        }
        try (Transaction tx = store.begin()) {
            assertTrue("the rollback undid the delete", tx.map("users").contains("ann"));
            assertEquals(1, store.queueSize("events"));
        }
    }

    @Test
    public void countersFromEightThreadsLoseNothingAndStaleReadsConflict() throws Exception {
        ExecutorService pool = Executors.newFixedThreadPool(8);
        try {
            List<Future<?>> runs = new ArrayList<>();
            for (int t = 0; t < 8; t++) {
                runs.add(pool.submit(() -> {
                    for (int i = 0; i < 100; i++) {
                        try (Transaction tx = store.begin()) {
                            tx.map("counts").add("hits", 1);
                            tx.commit();
                        }
                    }
                }));
            }
            for (Future<?> f : runs) {
                f.get(60, TimeUnit.SECONDS);
            }
        } finally {
            pool.shutdownNow();
        }
        try (Transaction tx = store.begin()) {
            assertEquals(800, tx.map("counts").counter("hits"));
            assertEquals(0, tx.map("counts").counter("none"));
        }
        Transaction a = store.begin();
        Transaction b = store.begin();
        a.map("m").get("k");
        b.map("m").get("k");
        a.map("m").put("k", b("a"));
        b.map("m").put("k", b("b"));
        a.commit();
        RockCaskException conflict = assertThrows(RockCaskException.class, b::commit);
        assertEquals(RockCaskException.Status.Conflict, conflict.status());
        assertTrue(conflict.getMessage(), conflict.getMessage().contains("map 'm' key 'k'"));
        a.close();
        b.close();
    }

    @Test
    public void scansAndBatchedGetsSeeOwnWritesAndRespectBoundsAndLimits() {
        try (Transaction tx = store.begin()) {
            for (String k : new String[] {"a", "b", "c", "d"}) {
                tx.map("m").put(k, b(k));
            }
            tx.commit();
        }
        try (Transaction tx = store.begin()) {
            TxMap m = tx.map("m");
            m.delete("b");
            m.put("bb", b("new"));
            assertEquals(Arrays.asList("a", "bb", "c", "d"), keys(m.scan(null, null, false, 10)));
            assertEquals(Arrays.asList("d", "c"), keys(m.scan(null, null, true, 2)));
            assertEquals(Arrays.asList("bb", "c"), keys(m.scan(b("b"), b("d"), false, 10)));
            assertEquals(Arrays.asList("bb"), keys(m.scanPrefix(b("b"), 10)));
            List<byte[]> got = m.getAll(Arrays.asList(b("a"), b("b"), b("bb")));
            assertArrayEquals(b("a"), got.get(0));
            assertNull(got.get(1));
            assertArrayEquals(b("new"), got.get(2));
            assertThrows(IllegalArgumentException.class, () -> m.get(new byte[0]));
            assertThrows(IllegalArgumentException.class, () -> m.put(new byte[TxMap.MAX_KEY_BYTES + 1], b("v")));
            assertThrows(IllegalArgumentException.class, () -> m.scan(null, null, false, -1));
            assertThrows(IllegalArgumentException.class, () -> m.scan(null, null, false, Integer.MAX_VALUE));
            assertThrows(NullPointerException.class, () -> m.getAll(Arrays.asList(b("a"), null)));
            assertThrows(IllegalArgumentException.class, () -> tx.map(""));
        }
        assertArrayEquals(new byte[] {2}, TxMap.prefixEnd(new byte[] {1, (byte) 0xFF}));
        assertNull(TxMap.prefixEnd(new byte[] {(byte) 0xFF}));
    }
}
