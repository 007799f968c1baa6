package org.rockcask;

import static org.junit.Assert.assertArrayEquals;
import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertNull;
import static org.junit.Assert.assertThrows;
import static org.junit.Assert.assertTrue;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.Test;

/** {@link TxMap#getForUpdate}: hot keys taken in turn, none starving, no increment lost, deadlocks refused. */
public class HotKeysTest extends WithOpenStore {
    private static byte[] longBytes(long v) {
        return ByteBuffer.allocate(8).order(ByteOrder.LITTLE_ENDIAN).putLong(v).array();
    }

    private static long asLong(byte[] v) {
        return v == null ? 0 : ByteBuffer.wrap(v).order(ByteOrder.LITTLE_ENDIAN).getLong();
    }

    /** What one incrementing thread saw: its commits and the longest time it went without one. */
    private static final class Progress {
        long commits;
        long longestGapNanos;
    }

    /**
     * 8 threads increment one key by read-modify-write ({@code getForUpdate}, then {@code put},
     * through {@link Store#inTransaction}) for 10 s ({@code -Drockcask.test.hotKeySeconds}):
     * every thread commits at least once in every second, and no increment is lost.
     */
    @Test
    public void eightThreadsIncrementingOneKeyForUpdateEachCommitEverySecondAndNoneIsLost() throws Exception {
        long seconds = Long.getLong("rockcask.test.hotKeySeconds", 10);
        int threads = 8;
        CyclicBarrier start = new CyclicBarrier(threads);
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        List<Future<Progress>> results = new ArrayList<>();
        for (int t = 0; t < threads; t++) {
            results.add(pool.submit(() -> {
                start.await();
                Progress p = new Progress();
                long began = System.nanoTime();
                long last = began;
                while (System.nanoTime() - began < TimeUnit.SECONDS.toNanos(seconds)) {
                    store.inTransaction(tx -> {
                        TxMap counters = tx.map("counters");
                        counters.put("hot", longBytes(asLong(counters.getForUpdate("hot")) + 1));
                        return null;
                    });
                    p.commits++;
                    long now = System.nanoTime();
                    p.longestGapNanos = Math.max(p.longestGapNanos, now - last);
                    last = now;
                }
                p.longestGapNanos = Math.max(p.longestGapNanos, System.nanoTime() - last);
                return p;
            }));
        }
        pool.shutdown();
        long total = 0;
        StringBuilder seen = new StringBuilder();
        List<Progress> progress = new ArrayList<>();
        for (Future<Progress> f : results) {
            Progress p = f.get(seconds + 60, TimeUnit.SECONDS);
            progress.add(p);
            total += p.commits;
            seen.append(String.format(" %d commits (longest gap %.0f ms);", p.commits, p.longestGapNanos / 1e6));
        }
        for (Progress p : progress) {
            assertTrue("a thread went a second without committing:" + seen, p.longestGapNanos < TimeUnit.SECONDS.toNanos(1));
        }
        try (Transaction tx = store.begin()) {
            assertEquals("every increment is there:" + seen, total, asLong(tx.map("counters").get("hot")));
        }
    }

    @Test
    public void theSecondHolderWaitsAndReadsTheFirstHoldersCommit() throws Exception {
        store.inTransaction(tx -> {
            tx.map("m").put("k", longBytes(1));
            return null;
        });
        Transaction first = store.begin();
        assertEquals(1, asLong(first.map("m").getForUpdate("k")));
        CountDownLatch asking = new CountDownLatch(1);
        ExecutorService other = Executors.newSingleThreadExecutor();
        Future<Long> second = other.submit(() -> {
            try (Transaction tx = store.begin()) {
                asking.countDown();
                long v = asLong(tx.map("m").getForUpdate("k"));
                tx.commit();
                return v;
            }
        });
        asking.await();
        Thread.sleep(200);
        assertFalse("waits while the key is held", second.isDone());
        first.map("m").put("k", longBytes(2));
        first.commit();
        assertEquals("reads the first holder's commit", 2L, (long) second.get(10, TimeUnit.SECONDS));
        other.shutdown();
    }

    /**
     * Two transactions each holding a key the other asks for: the one that closes the cycle is
     * refused at once with {@code Conflict} and ends; {@link Store#inTransaction} runs it again
     * and both increments land.
     */
    @Test
    public void aDeadlockEndsOneTransactionWithConflictAndInTransactionRunsItAgain() throws Exception {
        CountDownLatch bHoldsY = new CountDownLatch(1);
        CountDownLatch aHoldsX = new CountDownLatch(1);
        ExecutorService other = Executors.newSingleThreadExecutor();
        Transaction a = store.begin();
        a.map("m").getForUpdate("x");
        Future<?> b = other.submit(() -> {
            try (Transaction tx = store.begin()) {
                tx.map("m").getForUpdate("y");
                bHoldsY.countDown();
                aHoldsX.await();
                tx.map("m").getForUpdate("x");
                tx.map("m").put("x", b("b"));
                tx.commit();
            }
            return null;
        });
        bHoldsY.await();
        aHoldsX.countDown();
        Thread.sleep(200);
        long started = System.nanoTime();
        RockCaskException e = assertThrows(RockCaskException.class, () -> a.map("m").getForUpdate("y"));
        assertTrue("refused at once", System.nanoTime() - started < TimeUnit.SECONDS.toNanos(2));
        assertEquals(RockCaskException.Status.Conflict, e.status());
        assertTrue(e.getMessage(), e.getMessage().contains("deadlock") && e.getMessage().contains("'m'"));
        assertTrue("the transaction ended", a.isFinished());
        assertThrows(IllegalStateException.class, () -> a.map("m").get("x"));
        a.close();
        b.get(10, TimeUnit.SECONDS);
        other.shutdown();
        try (Transaction tx = store.begin()) {
            assertArrayEquals(b("b"), tx.map("m").get("x"));
        }
    }

    @Test
    public void aKeyHeldForUpdateIsReleasedByRollbackAndByClose() {
        try (Transaction tx = store.begin()) {
            tx.map("m").getForUpdate("k");
            tx.rollback();
        }
        try (Transaction tx = store.begin()) {
            tx.map("m").getForUpdate("k");
        }
        try (Transaction tx = store.begin()) {
            long started = System.nanoTime();
            assertNull(tx.map("m").getForUpdate("k"));
            assertTrue("free at once", System.nanoTime() - started < TimeUnit.SECONDS.toNanos(1));
            tx.commit();
        }
    }

    @Test
    public void getForUpdateIsRefusedOnAReadOnlyStoreAndForBadKeys() {
        try (Transaction tx = store.begin()) {
            tx.map("m").put("k", b("v"));
            tx.commit();
        }
        store.close();
        store = Store.open(dir, StoreOptions.defaults().readOnly(true));
        try (Transaction tx = store.begin()) {
            RockCaskException e = assertThrows(RockCaskException.class, () -> tx.map("m").getForUpdate("k"));
            assertEquals(RockCaskException.Status.ReadOnly, e.status());
            assertThrows(IllegalArgumentException.class, () -> tx.map("m").getForUpdate(new byte[0]));
            assertThrows(IllegalArgumentException.class, () -> tx.map("m").getForUpdate(new byte[TxMap.MAX_KEY_BYTES + 1]));
            assertThrows(NullPointerException.class, () -> tx.map("m").getForUpdate((byte[]) null));
            assertThrows(IllegalArgumentException.class, () -> tx.map("m").getForUpdate("\uD800"));
        }
    }

    @Test
    public void theLimitsCallersNeedArePublic() {
        assertEquals(1 << 20, Store.MAX_BATCH_ITEMS);
        assertEquals(1 << 30, Store.MAX_PAYLOAD_BYTES);
        assertEquals(1 << 30, TxMap.MAX_VALUE_BYTES);
        assertEquals(64 << 10, TxMap.MAX_KEY_BYTES);
        assertEquals(10_000, TxMap.KEY_HOLD_WAIT_MILLIS);
        try (Transaction tx = store.begin()) {
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                    () -> tx.map("m").scan(null, null, false, Store.MAX_BATCH_ITEMS + 1));
            assertTrue(e.getMessage(), e.getMessage().contains(String.valueOf(Store.MAX_BATCH_ITEMS)));
            assertEquals(0, tx.map("m").scan(null, null, false, Store.MAX_BATCH_ITEMS).size());
        }
    }
}
