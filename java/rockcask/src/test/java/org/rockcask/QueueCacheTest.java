package org.rockcask;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertTrue;

import java.lang.management.ManagementFactory;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import javax.management.ObjectName;
import org.junit.Test;

/** The queue entry cache ({@link StoreOptions#queueCacheBytes}): committed entries polled from memory. */
public class QueueCacheTest extends WithOpenStore {
    private void reopen(StoreOptions options) {
        store.close();
        store = Store.open(dir, options.syncOnCommit(false).inlinePayloadBytes(64));
    }

    private void enqueue(String queue, int from, int n) {
        try (Transaction tx = store.begin()) {
            for (int i = from; i < from + n; i++) {
                tx.enqueue(queue, b("item " + i));
            }
            tx.commit();
        }
    }

    private static List<String> payloads(List<Message> ms) {
        List<String> out = new ArrayList<>();
        for (Message m : ms) {
            out.add(new String(m.payload(), java.nio.charset.StandardCharsets.UTF_8));
        }
        return out;
    }

    private static List<String> items(int from, int n) {
        List<String> out = new ArrayList<>();
        for (int i = from; i < from + n; i++) {
            out.add("item " + i);
        }
        return out;
    }

    @Test
    public void committedEntriesAreChargedUntilPolledAndCountInNativeMemoryAndJmx() throws Exception {
        reopen(StoreOptions.defaults());
        enqueue("q", 0, 10);
        StoreMetrics kept = store.metrics();
        assertTrue(kept.queueCacheBytes() > 10 * "item 0".length());
        assertTrue(kept.nativeMemoryBytes() >= kept.queueCacheBytes());
        ObjectName bean = new ObjectName("org.rockcask:type=Store,name=" + ObjectName.quote(store.path().toString()));
        assertEquals(kept.queueCacheBytes(), ManagementFactory.getPlatformMBeanServer().getAttribute(bean, "QueueCacheBytes"));
        try (Transaction tx = store.begin()) {
            assertEquals(items(0, 10), payloads(tx.poll("q", 100)));
            tx.commit();
        }
        assertEquals(0, store.metrics().queueCacheBytes());
    }

    @Test
    public void aRolledBackPollIsDeliveredAgainTheSameFromDiskAndNoCacheKeepsNothing() {
        for (long bytes : new long[] {0, 1, 16L << 20}) {
            reopen(StoreOptions.defaults().queueCacheBytes(bytes));
            enqueue("q" + bytes, 0, 5);
            assertEquals("cache of " + bytes, bytes > 1, store.metrics().queueCacheBytes() > 0);
            try (Transaction tx = store.begin()) {
                assertEquals(items(0, 3), payloads(tx.poll("q" + bytes, 3)));
                tx.rollback("test");
            }
            try (Transaction tx = store.begin()) {
                List<Message> again = tx.poll("q" + bytes, 10);
                assertEquals(items(0, 5), payloads(again));
                assertEquals(2, again.get(0).deliveries());
                assertEquals(1, again.get(4).deliveries());
                tx.commit();
            }
            assertEquals(0, store.metrics().queueCacheBytes());
        }
    }

    @Test
    public void aBacklogBeyondTheCacheIsDeliveredWholeInOrderWithTheCacheFull() {
        // Room for a few dozen entries: most of the backlog is read from RocksDB.
        reopen(StoreOptions.defaults().queueCacheBytes(4 << 10));
        for (int round = 0; round < 20; round++) {
            enqueue("q", round * 100, 100);
            assertTrue(store.metrics().queueCacheBytes() <= 4 << 10);
        }
        for (int round = 0; round < 20; round++) {
            try (Transaction tx = store.begin()) {
                assertEquals(items(round * 100, 100), payloads(tx.poll("q", 100)));
                tx.commit();
            }
        }
        assertEquals(0, store.metrics().queueCacheBytes());
    }

    @Test
    public void aProducerAndAConsumerOnTwoThreadsMoveEveryItemOnceInOrder() throws Exception {
        reopen(StoreOptions.defaults());
        int total = 20_000;
        ExecutorService pool = Executors.newFixedThreadPool(2);
        try {
            Future<?> producer = pool.submit(() -> {
                for (int i = 0; i < total; i += 50) {
                    enqueue("q", i, 50);
                }
            });
            Future<List<String>> consumer = pool.submit(() -> {
                List<String> got = new ArrayList<>();
                while (got.size() < total) {
                    try (Transaction tx = store.begin()) {
                        List<Message> ms = tx.poll("q", 70);
                        // Every third poll rolls back: those items come again, first.
                        if (!ms.isEmpty() && got.size() % 3 == 0 && ms.get(0).deliveries() == 1) {
                            tx.rollback("test");
                            continue;
                        }
                        got.addAll(payloads(ms));
                        tx.commit();
                    }
                }
                return got;
            });
            producer.get(60, TimeUnit.SECONDS);
            assertEquals(items(0, total), consumer.get(60, TimeUnit.SECONDS));
        } finally {
            pool.shutdownNow();
        }
        assertEquals(0, store.metrics().queueCacheBytes());
        assertEquals(0, store.queueSize("q"));
    }
}
