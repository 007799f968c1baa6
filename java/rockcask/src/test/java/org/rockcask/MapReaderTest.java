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
}
