package org.rockcask;

import static org.junit.Assert.assertArrayEquals;
import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertNull;
import static org.junit.Assert.assertTrue;
import static org.junit.Assert.fail;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.Test;

/**
 * A transaction that ends hands its native transaction, started again, to the next
 * {@link Store#begin()} on its thread: the next one must find it new, and the one that ended must
 * never reach it again.
 */
public class TransactionReuseTest extends WithOpenStore {

    private static long handleOf(Transaction tx) {
        long[] h = new long[1];
        tx.withHandle(x -> h[0] = x);
        return h[0];
    }

    @Test
    public void theNextTransactionOnAThreadReusesTheNativeOneAfterCommitAndAfterClose() {
        Transaction first = store.begin();
        long h = handleOf(first);
        first.commit();
        first.close();
        try (Transaction second = store.begin()) {
            assertEquals(h, handleOf(second));
        }
        try (Transaction third = store.begin()) {
            assertEquals("closed without commit, it is restarted and reused too", h, handleOf(third));
        }
    }

    @Test
    public void aClosedTransactionIsRefusedWhileItsNativeObjectServesTheNextOne() {
        Transaction first = store.begin();
        first.commit();
        first.close();
        try (Transaction second = store.begin()) {
            second.map("m").put(b("k"), b("v"));
            for (Runnable call : new Runnable[] {
                () -> first.map("m").get(b("k")),
                () -> first.enqueue("q", b("x")),
                first::rollback,
                first::commit,
            }) {
                try {
                    call.run();
                    fail("a closed transaction made a call");
                } catch (IllegalStateException expected) {
                    assertEquals("Transaction is closed", expected.getMessage());
                }
            }
            first.close(); // idempotent, and leaves the second alone
            second.commit();
        }
        assertArrayEquals(b("v"), store.mapReader("m").get(b("k")));
    }

    @Test
    public void rollbackAfterCommitDoesNotEndTheNextTransaction() {
        try (Transaction tx = store.begin()) {
            tx.commit();
            tx.rollback();
            tx.rollback("again", Duration.ofSeconds(1));
        }
        try (Transaction tx = store.begin()) {
            tx.enqueue("q", b("x"));
            tx.commit();
        }
        try (Transaction tx = store.begin()) {
            assertArrayEquals(b("x"), tx.poll("q").payload());
            tx.commit();
        }
    }

    @Test
    public void theNextTransactionSeesANewSnapshotAndNoneOfTheOldOnesWork() {
        try (Transaction tx = store.begin()) {
            tx.enqueue("q", b("a"));
            tx.enqueue("q", b("b"));
            tx.commit();
        }
        long h;
        try (Transaction reader = store.begin()) {
            h = handleOf(reader);
            assertNull(reader.map("m").get(b("k"))); // takes the snapshot
            assertEquals(2, reader.poll("q", 2).size());
            reader.enqueue("q", b("never"));
            // closed without commit
        }
        try (Transaction writer = store.begin()) {
            writer.map("m").put(b("k"), b("v"));
            writer.commit();
        }
        try (Transaction next = store.begin()) {
            assertEquals(h, handleOf(next));
            assertArrayEquals(b("v"), next.map("m").get(b("k")));
            List<Message> all = next.poll("q", 10);
            assertEquals("the claims came back, the enqueue did not", 2, all.size());
            assertArrayEquals(b("a"), all.get(0).payload());
            next.commit();
        }
    }

    @Test
    public void aFailedCommitsNativeTransactionIsRestartedBeforeReuse() {
        try (Transaction holder = store.begin()) {
            holder.map("m").put(b("k"), b("0"));
            holder.commit();
        }
        // All on this thread, so that the loser's native transaction is the one pooled: the
        // winner closes after it, finds the slot full and frees its own.
        Transaction winner = store.begin();
        Transaction loser = store.begin();
        long h = handleOf(loser);
        loser.map("m").get(b("k"));
        loser.map("m").put(b("k"), b("loser"));
        winner.map("m").put(b("k"), b("winner"));
        winner.commit();
        try {
            loser.commit();
            fail("a read key written since committed");
        } catch (RockCaskException e) {
            assertEquals(RockCaskException.Status.Conflict, e.status());
        }
        loser.close();
        winner.close();
        try (Transaction next = store.begin()) {
            assertEquals(h, handleOf(next));
            next.map("m").put(b("k"), b("next"));
            next.commit();
        }
        assertArrayEquals(b("next"), store.mapReader("m").get(b("k")));
    }

    @Test
    public void closingTheStoreFreesIdleNativeTransactionsAndRefusesBegins() throws Exception {
        List<Thread> threads = new ArrayList<>();
        for (int t = 0; t < 8; t++) {
            threads.add(new Thread(() -> {
                try (Transaction tx = store.begin()) {
                    tx.commit();
                }
            }));
        }
        threads.forEach(Thread::start);
        for (Thread t : threads) {
            join(t);
        }
        Transaction open = store.begin();
        store.close();
        try {
            store.begin();
            fail("a closed store began a transaction");
        } catch (IllegalStateException expected) {
            assertEquals("Store is closed", expected.getMessage());
        }
        try {
            open.commit();
            fail("a transaction of a closed store committed");
        } catch (IllegalStateException expected) {
            assertTrue(expected.getMessage(), expected.getMessage().contains("closed"));
        }
        open.close();
        store = null;
    }

    @Test
    public void transactionsOnManyThreadsWhileTheStoreClosesEndCleanly() throws Exception {
        try (Transaction tx = store.begin()) {
            tx.map("m").put(b("k"), b("v"));
            tx.commit();
        }
        AtomicLong done = new AtomicLong();
        AtomicReference<Throwable> unexpected = new AtomicReference<>();
        CountDownLatch started = new CountDownLatch(8);
        List<Thread> threads = new ArrayList<>();
        for (int t = 0; t < 8; t++) {
            int n = t;
            threads.add(new Thread(() -> {
                started.countDown();
                try {
                    for (long i = 0;; i++) {
                        try (Transaction tx = store.begin()) {
                            assertArrayEquals(b("v"), tx.map("m").get(b("k")));
                            if (n % 2 == 0) {
                                tx.map("m").put(b("t" + n), b(Long.toString(i)));
                            }
                            tx.commit();
                        }
                        done.incrementAndGet();
                    }
                } catch (IllegalStateException closed) {
                    if (!closed.getMessage().contains("closed")) {
                        unexpected.compareAndSet(null, closed);
                    }
                } catch (Throwable e) {
                    unexpected.compareAndSet(null, e);
                }
            }));
        }
        threads.forEach(Thread::start);
        started.await();
        Thread.sleep(300);
        store.close();
        for (Thread t : threads) {
            join(t);
        }
        if (unexpected.get() != null) {
            throw new AssertionError("a transaction failed otherwise than by the store's close", unexpected.get());
        }
        assertTrue("transactions ran before the close: " + done.get(), done.get() > 100);
        store = null;
    }

    private static void join(Thread t) {
        try {
            t.join(30_000);
        } catch (InterruptedException e) {
            throw new AssertionError(e);
        }
        assertTrue("thread did not finish", !t.isAlive());
    }
}
