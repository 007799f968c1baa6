package org.rockcask;

import static org.junit.Assert.assertArrayEquals;
import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertNull;
import static org.junit.Assert.assertTrue;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.Test;

/** The object cache ({@link StoreOptions#objectCacheBytes}): {@code get} and {@code getAll} of objects created by {@code put}. */
public class ObjectCacheTest extends WithOpenStore {
    /** The store reopened with an object cache (off by default). */
    @org.junit.Before
    public void reopenWithAnObjectCache() {
        store.close();
        store = Store.open(dir, StoreOptions.defaults().syncOnCommit(false).objectCacheBytes(1 << 20));
    }

    private static byte[] longBytes(long v) {
        return ByteBuffer.allocate(8).putLong(v).array();
    }

    private void put(UUID id, byte[] payload) {
        try (Transaction tx = store.begin()) {
            tx.put(id, payload);
            tx.commit();
        }
    }

    private byte[] get(UUID id) {
        try (Transaction tx = store.begin()) {
            return tx.get(id);
        }
    }

    @Test
    public void aPutObjectReadTwiceIsAnsweredByTheCacheAndAReplacedOrDeletedOneIsNeverServedOld() {
        UUID id = UUID.randomUUID();
        put(id, b("first"));
        StoreMetrics before = store.metrics();
        assertArrayEquals(b("first"), get(id));
        assertArrayEquals(b("first"), get(id));
        StoreMetrics after = store.metrics();
        assertEquals(1, after.objectCacheHits() - before.objectCacheHits());
        assertTrue(after.objectCacheBytes() > 0 && after.nativeMemoryBytes() >= after.objectCacheBytes());
        put(id, b("second"));
        assertArrayEquals(b("second"), get(id));
        try (Transaction tx = store.begin()) {
            assertArrayEquals(b("second"), tx.getAll(Arrays.asList(id)).get(0));
            tx.delete(id);
            tx.commit();
        }
        assertNull(get(id));
    }

    @Test
    public void queueOwnedObjectsAreNotKept() {
        UUID id;
        try (Transaction tx = store.begin()) {
            id = tx.enqueue("q", b("owned"));
            tx.commit();
        }
        StoreMetrics before = store.metrics();
        for (int i = 0; i < 3; i++) {
            assertArrayEquals(b("owned"), get(id));
        }
        StoreMetrics after = store.metrics();
        assertEquals(0, after.objectCacheHits() - before.objectCacheHits());
        assertEquals(3, after.objectCacheMisses() - before.objectCacheMisses());
        assertEquals(0, after.objectCacheBytes());
    }

    /** Two threads read while a third replaces the object: no read is older than a commit that had returned. */
    @Test
    public void readersBesideAWriterNeverSeeAPayloadOlderThanAReturnedCommit() throws Exception {
        UUID id = UUID.randomUUID();
        put(id, longBytes(0));
        AtomicLong returned = new AtomicLong();
        AtomicBoolean done = new AtomicBoolean();
        ExecutorService pool = Executors.newFixedThreadPool(2);
        try {
            List<Future<Long>> readers = new ArrayList<>();
            for (int r = 0; r < 2; r++) {
                boolean batched = r == 1;
                readers.add(pool.submit(() -> {
                    long last = 0;
                    long reads = 0;
                    while (!done.get()) {
                        long floor = returned.get();
                        byte[] payload;
                        try (Transaction tx = store.begin()) {
                            payload = batched ? tx.getAll(Arrays.asList(id, UUID.randomUUID())).get(0) : tx.get(id);
                        }
                        long v = ByteBuffer.wrap(payload).getLong();
                        assertTrue("read " + v + " after commit " + floor + " had returned", v >= floor);
                        assertTrue("read " + v + " after " + last, v >= last);
                        last = v;
                        reads++;
                    }
                    return reads;
                }));
            }
            for (long i = 1; i <= 5_000; i++) {
                put(id, longBytes(i));
                returned.set(i);
            }
            done.set(true);
            for (Future<Long> r : readers) {
                assertTrue(r.get(30, TimeUnit.SECONDS) > 10);
            }
        } finally {
            done.set(true);
            pool.shutdownNow();
        }
        long hits = store.metrics().objectCacheHits();
        for (int i = 0; i < 2; i++) {
            assertEquals(5_000, ByteBuffer.wrap(get(id)).getLong());
        }
        assertTrue(store.metrics().objectCacheHits() > hits);
    }

    @Test
    public void byDefaultThereIsNoObjectCacheAndReadsCountNothing() throws Exception {
        store.close();
        store = Store.open(dir, StoreOptions.defaults().syncOnCommit(false));
        assertEquals(0, StoreOptions.defaults().objectCacheBytes());
        UUID id = UUID.randomUUID();
        put(id, b("v"));
        assertArrayEquals(b("v"), get(id));
        assertArrayEquals(b("v"), get(id));
        StoreMetrics m = store.metrics();
        assertEquals(0, m.objectCacheHits());
        assertEquals(0, m.objectCacheMisses());
        assertEquals(0, m.objectCacheBytes());
    }
}
