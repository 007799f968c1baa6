package org.rockcask;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertThrows;
import static org.junit.Assert.assertTrue;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.Test;

/** Bounded queues through the Java API: QueueFull, waiting commits, concurrent producers. */
public class CapacityTest extends WithOpenStore {
    @Test
    public void queueFullLeavesTheTransactionOpenWithEverythingItDid() {
        store.configureQueue("q", QueueOptions.defaults().capacity(2));
        try (Transaction tx = store.begin()) {
            tx.enqueue("q", b("1"));
            tx.enqueue("q", b("2"));
            tx.enqueue("q", b("3"));
            RockCaskException full = assertThrows(RockCaskException.class, tx::commit);
            assertEquals(RockCaskException.Status.QueueFull, full.status());
            assertTrue(full.getMessage(), full.getMessage().contains("queue 'q' is full: it holds 0 of its 2 entries and this commit adds 3"));
            assertEquals("still open, its own enqueues there", 3, tx.peek("q", 10).size());
            tx.poll("q");
            tx.commit();
        }
        assertEquals(2, store.queueSize("q"));
    }

    @Test
    public void aByteCapacityBoundsThePayloadBytesAndIsKeptWithTheOtherSettings() {
        QueueOptions bytes = QueueOptions.defaults().capacityBytes(10);
        store.configureQueue("q", bytes);
        assertEquals(bytes, store.queueOptions("q"));
        assertThrows(IllegalArgumentException.class, () -> QueueOptions.defaults().capacityBytes(-1));
        try (Transaction tx = store.begin()) {
            tx.enqueue("q", new byte[6]);
            tx.enqueue("q", new byte[5]);
            RockCaskException full = assertThrows(RockCaskException.class, tx::commit);
            assertEquals(RockCaskException.Status.QueueFull, full.status());
            assertTrue(full.getMessage(), full.getMessage().contains("holds 0 of its 10 payload bytes and this commit adds 11"));
            tx.poll("q");
            tx.commit();
        }
        assertEquals(1, store.queueSize("q"));
    }

    @Test
    public void aBlockedProducerResumesWhenAConsumerCommits() throws Exception {
        store.configureQueue("q", QueueOptions.defaults().capacity(1));
        try (Transaction tx = store.begin()) {
            tx.enqueue("q", b("first"));
            tx.commit();
        }
        try (Transaction tx = store.begin()) {
            tx.enqueue("q", b("too many"));
            assertThrows(RockCaskException.class, () -> tx.commit(Duration.ofMillis(20)));
            tx.rollback();
        }
        ExecutorService pool = Executors.newSingleThreadExecutor();
        try {
            CountDownLatch started = new CountDownLatch(1);
            Future<?> producer = pool.submit(() -> {
                try (Transaction tx = store.begin()) {
                    tx.enqueue("q", b("second"));
                    started.countDown();
                    tx.commit(Duration.ofSeconds(60));
                }
            });
            started.await();
            Thread.sleep(100);
            assertFalse("waits while the queue is full", producer.isDone());
            try (Transaction tx = store.begin()) {
                assertEquals("first", new String(tx.poll("q").payload(), StandardCharsets.UTF_8));
                tx.commit();
            }
            producer.get(30, TimeUnit.SECONDS);
        } finally {
            pool.shutdownNow();
        }
        assertEquals(1, store.queueSize("q"));
    }

    @Test
    public void concurrentProducersNeverPushAQueuePastItsCapacity() throws Exception {
        int capacity = 20;
        int producers = 4;
        int commits = 50;
        int perCommit = 3;
        store.configureQueue("q", QueueOptions.defaults().capacity(capacity));
        ExecutorService pool = Executors.newFixedThreadPool(producers);
        try {
            List<Future<?>> running = new ArrayList<>();
            for (int p = 0; p < producers; p++) {
                running.add(pool.submit(() -> {
                    for (int i = 0; i < commits; i++) {
                        try (Transaction tx = store.begin()) {
                            for (int j = 0; j < perCommit; j++) {
                                tx.enqueue("q", b("x"));
                            }
                            tx.commit(Duration.ofSeconds(60));
                        }
                    }
                }));
            }
            long most = 0;
            int consumed = 0;
            while (consumed < producers * commits * perCommit) {
                most = Math.max(most, store.queueSize("q"));
                try (Transaction tx = store.begin()) {
                    consumed += tx.poll("q", 7).size();
                    tx.commit();
                }
            }
            for (Future<?> f : running) {
                f.get(60, TimeUnit.SECONDS);
            }
            assertTrue("held " + most + " entries, capacity " + capacity, most <= capacity);
        } finally {
            pool.shutdownNow();
        }
    }
}
