package org.rockcask;

import static org.junit.Assert.assertArrayEquals;
import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertNull;
import static org.junit.Assert.assertThrows;
import static org.junit.Assert.assertTrue;

import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.Test;

/** {@link MapReader}: reads of committed map values into arrays and direct buffers, through the map cache. */
public class MapReaderTest extends WithOpenStore {
    private static byte[] longBytes(long v) {
        return ByteBuffer.allocate(8).putLong(v).array();
    }

    private void put(String map, String key, byte[] value) {
        try (Transaction tx = store.begin()) {
            tx.map(map).put(key, value);
            tx.commit();
        }
    }

    @Test
    public void readsIntoADirectBufferSetItsLimitAndLeaveItWhenTheValueDoesNotFit() {
        put("m", "k", b("hello"));
        MapReader reader = store.mapReader("m");
        ByteBuffer into = ByteBuffer.allocateDirect(16);
        into.position(3);
        assertEquals(5, reader.get(b("k"), into));
        assertEquals(3, into.position());
        assertEquals(8, into.limit());
        byte[] got = new byte[5];
        into.get(got);
        assertArrayEquals(b("hello"), got);

        ByteBuffer small = ByteBuffer.allocateDirect(4);
        assertEquals("the length, to make room", 5, reader.get(b("k"), small));
        assertEquals(0, small.position());
        assertEquals(4, small.limit());
        assertEquals(0, small.get(0));

        assertEquals(-1, reader.get(b("nobody"), into));
        assertEquals(-1, store.mapReader("no such map").get(b("k"), into));
        assertNull(reader.get(b("nobody")));
        assertArrayEquals(b("hello"), reader.get(b("k")));
        assertTrue(reader.contains(b("k")));
        assertFalse(reader.contains(b("nobody")));
        ByteBuffer empty = ByteBuffer.allocateDirect(0);
        assertEquals(5, reader.get(b("k"), empty));
    }

    @Test
    public void aReaderSeesEachCommitOnceItReturnsThoughItsValueWasCached() {
        MapReader reader = store.mapReader("m");
        assertNull(reader.get(b("k")));
        for (int i = 0; i < 50; i++) {
            put("m", "k", b("v" + i));
            assertArrayEquals(b("v" + i), reader.get(b("k")));
            assertArrayEquals("read again, from the cache", b("v" + i), reader.get(b("k")));
        }
        try (Transaction tx = store.begin()) {
            tx.map("m").delete("k");
            tx.commit();
        }
        assertNull(reader.get(b("k")));
        StoreMetrics m = store.metrics();
        // The key is kept at its first miss (the cache has room), so the second read of each round hits.
        assertTrue("hits " + m.mapCacheHits(), m.mapCacheHits() >= 49);
        assertTrue("misses " + m.mapCacheMisses(), m.mapCacheMisses() >= 50);
        assertTrue(m.mapCacheBytes() >= 0 && m.nativeMemoryBytes() >= m.mapCacheBytes());
    }

    @Test
    public void badBuffersKeysAndNamesAreRefusedBeforeAnyNativeCall() {
        MapReader reader = store.mapReader("m");
        assertThrows(IllegalArgumentException.class, () -> reader.get(b("k"), ByteBuffer.allocate(8)));
        assertThrows(IllegalArgumentException.class, () -> reader.get(b("k"), ByteBuffer.allocateDirect(8).asReadOnlyBuffer()));
        assertThrows(NullPointerException.class, () -> reader.get(b("k"), null));
        assertThrows(NullPointerException.class, () -> reader.get(null));
        assertThrows(IllegalArgumentException.class, () -> reader.get(new byte[0]));
        assertThrows(IllegalArgumentException.class, () -> reader.get(new byte[TxMap.MAX_KEY_BYTES + 1], ByteBuffer.allocateDirect(8)));
        assertThrows(IllegalArgumentException.class, () -> store.mapReader(""));
        assertThrows(NullPointerException.class, () -> store.mapReader(null));
    }

    @Test
    public void aReaderOfAClosedStoreThrowsIllegalState() {
        put("m", "k", b("v"));
        MapReader reader = store.mapReader("m");
        store.close();
        IllegalStateException e = assertThrows(IllegalStateException.class, () -> reader.get(b("k"), ByteBuffer.allocateDirect(8)));
        assertTrue(e.getMessage(), e.getMessage().contains("closed"));
        assertThrows(IllegalStateException.class, () -> reader.get(b("k")));
        store = null;
    }

    @Test
    public void readersOnOtherThreadsNeverSeeAValueOlderThanAReturnedCommit() throws Exception {
        put("m", "k", longBytes(0));
        AtomicLong returned = new AtomicLong();
        java.util.concurrent.CountDownLatch started = new java.util.concurrent.CountDownLatch(2);
        ExecutorService pool = Executors.newFixedThreadPool(2);
        try {
            List<Future<Long>> readers = new ArrayList<>();
            for (int r = 0; r < 2; r++) {
                readers.add(pool.submit(() -> {
                    started.countDown();
                    MapReader reader = store.mapReader("m");
                    ByteBuffer into = ByteBuffer.allocateDirect(8);
                    long last = 0;
                    long reads = 0;
                    do {
                        long floor = returned.get();
                        into.clear();
                        assertEquals(8, reader.get(b("k"), into));
                        long v = into.getLong(0);
                        assertTrue("read " + v + " after commit " + floor + " returned", v >= floor);
                        assertTrue("read " + v + " after " + last, v >= last);
                        last = v;
                        reads++;
                    } while (returned.get() < 500);
                    return reads;
                }));
            }
            assertTrue(started.await(60, TimeUnit.SECONDS));
            for (long i = 1; i <= 500; i++) {
                put("m", "k", longBytes(i));
                returned.set(i);
            }
            for (Future<Long> f : readers) {
                assertTrue(f.get(60, TimeUnit.SECONDS) > 0);
            }
        } finally {
            pool.shutdownNow();
        }
    }

    @Test
    public void withoutAMapCacheReadsAnswerTheSame() throws Exception {
        Path other = tmp.newFolder().toPath().resolve("uncached");
        try (Store uncached = Store.open(other, StoreOptions.defaults().syncOnCommit(false).mapCacheBytes(0))) {
            try (Transaction tx = uncached.begin()) {
                tx.map("m").put("k", b("v"));
                tx.commit();
            }
            MapReader reader = uncached.mapReader("m");
            ByteBuffer into = ByteBuffer.allocateDirect(8);
            assertEquals(1, reader.get(b("k"), into));
            assertEquals('v', into.get(0));
            assertArrayEquals(b("v"), reader.get(b("k")));
            assertEquals(0, uncached.metrics().mapCacheHits());
            assertEquals(0, uncached.metrics().mapCacheBytes());
        }
    }

    private static String text(byte[] v) {
        return new String(v, java.nio.charset.StandardCharsets.UTF_8);
    }

    private static List<String> keysOf(List<java.util.Map.Entry<byte[], byte[]>> pairs) {
        List<String> keys = new ArrayList<>();
        for (java.util.Map.Entry<byte[], byte[]> p : pairs) {
            keys.add(text(p.getKey()));
        }
        return keys;
    }

    @Test
    public void scansAndScansByPrefixReadCommittedPairsInOrder() {
        for (String k : new String[] {"a1", "a2", "b1", "b2", "c1"}) {
            put("m", k, b("v" + k));
        }
        MapReader reader = store.mapReader("m");
        assertEquals(java.util.Arrays.asList("a1", "a2", "b1", "b2", "c1"), keysOf(reader.scan(null, null, false, 10)));
        assertEquals(java.util.Arrays.asList("b2", "b1"), keysOf(reader.scan(b("b"), b("c"), true, 10)));
        assertEquals(java.util.Arrays.asList("a1"), keysOf(reader.scan(null, null, false, 1)));
        List<java.util.Map.Entry<byte[], byte[]>> bs = reader.scanPrefix(b("b"), 10);
        assertEquals(java.util.Arrays.asList("b1", "b2"), keysOf(bs));
        assertArrayEquals(b("vb1"), bs.get(0).getValue());
        assertEquals(0, store.mapReader("absent").scan(null, null, false, 10).size());
        List<byte[]> values = reader.getAll(java.util.Arrays.asList(b("a1"), b("zz"), b("c1")));
        assertArrayEquals(b("va1"), values.get(0));
        assertNull(values.get(1));
        assertArrayEquals(b("vc1"), values.get(2));
        assertThrows(IllegalArgumentException.class, () -> reader.scan(null, null, false, -1));
        assertThrows(IllegalArgumentException.class, () -> reader.scan(null, null, false, Store.MAX_BATCH_ITEMS + 1));
        assertThrows(IllegalArgumentException.class, () -> reader.cursor(null, null, false, 0));
        assertThrows(NullPointerException.class, () -> reader.scanPrefix(null, 1));
    }

    /** A cursor reads the store as it was when it was made, page after page, whatever commits come meanwhile. */
    @Test
    public void aCursorReadsEveryPageFromTheSnapshotTakenWhenItWasMade() {
        for (int i = 0; i < 10; i++) {
            put("m", "k" + i, b("old"));
        }
        List<String> seen = new ArrayList<>();
        try (MapCursor cursor = store.mapReader("m").cursor(null, null, false, 3)) {
            put("m", "k0", b("new"));
            for (int i = 0; cursor.hasNext(); i++) {
                java.util.Map.Entry<byte[], byte[]> pair = cursor.next();
                seen.add(text(pair.getKey()) + "=" + text(pair.getValue()));
                if (i == 4) {
                    try (Transaction tx = store.begin()) {
                        tx.map("m").delete("k9");
                        tx.map("m").put("k5", b("new"));
                        tx.map("m").put("k55", b("new"));
                        tx.commit();
                    }
                }
            }
        }
        List<String> expected = new ArrayList<>();
        for (int i = 0; i < 10; i++) {
            expected.add("k" + i + "=old");
        }
        assertEquals(expected, seen);
        assertEquals(java.util.Arrays.asList("k0", "k1", "k2", "k3", "k4", "k5", "k55", "k6", "k7", "k8"),
                keysOf(store.mapReader("m").scan(null, null, false, 100)));
    }

    /** A cursor's own transaction ends when it is read to the end or closed: it then only serves what it read. */
    @Test
    public void aCursorLeftEarlyIsClosedAndAFinishedOneStillAnswersHasNext() {
        put("m", "a", b("1"));
        put("m", "b", b("2"));
        MapCursor early = store.mapReader("m").cursorPrefix(b("a"));
        early.close();
        assertThrows(IllegalStateException.class, early::hasNext);
        MapCursor all = store.mapReader("m").cursor(null, null, false, 1);
        int n = 0;
        while (all.hasNext()) {
            all.next();
            n++;
        }
        assertEquals(2, n);
        assertFalse(all.hasNext());
        assertThrows(java.util.NoSuchElementException.class, all::next);
        all.close();
    }
}
