package org.rockcask;

import static org.junit.Assert.assertArrayEquals;
import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertNull;
import static org.junit.Assert.assertSame;
import static org.junit.Assert.assertThrows;
import static org.junit.Assert.assertTrue;

import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.Test;

/** {@link Store#inTransaction}: retried on conflict within its bounds, and on nothing else. */
public class RetryTest extends WithOpenStore {
    private static final RetryPolicy FAST = RetryPolicy.defaults().baseBackoff(Duration.ofNanos(10_000)).maxBackoff(Duration.ofMillis(1));

    private static byte[] longBytes(long v) {
        return ByteBuffer.allocate(8).putLong(v).array();
    }

    private static long longOf(byte[] b) {
        return b == null ? 0 : ByteBuffer.wrap(b).getLong();
    }

    /** A read-modify-write of "m"/"k" (+1) that, while {@code interfere} says so, lets another commit write the key between its read and its write. */
    private long increment(Transaction tx, boolean interfere) {
        long v = longOf(tx.map("m").get("k"));
        if (interfere) {
            try (Transaction other = store.begin()) {
                other.map("m").put("k", longBytes(1000));
                other.commit();
            }
        }
        tx.map("m").put("k", longBytes(v + 1));
        return v + 1;
    }

    private long committedValue() {
        return longOf(store.mapGet("m", b("k")));
    }

    @Test
    public void aConflictedAttemptIsRunAgainAndTheLastResultIsReturnedAfterItsCommit() {
        AtomicInteger attempts = new AtomicInteger();
        long result = store.inTransaction(FAST, tx -> increment(tx, attempts.incrementAndGet() <= 3));
        assertEquals("three conflicts, then a commit", 4, attempts.get());
        assertEquals("the successful attempt read the interfering write", 1001, result);
        assertEquals(1001, committedValue());
    }

    @Test
    public void readModifyWritesFromEightThreadsOnOneKeyLoseNoIncrement() throws Exception {
        int threads = 8;
        int perThread = 50;
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        AtomicInteger attempts = new AtomicInteger();
        try {
            List<Future<?>> runs = new ArrayList<>();
            for (int t = 0; t < threads; t++) {
                runs.add(pool.submit(() -> {
                    for (int i = 0; i < perThread; i++) {
                        store.inTransaction(tx -> {
                            attempts.incrementAndGet();
                            return increment(tx, false);
                        });
                    }
                }));
            }
            for (Future<?> f : runs) {
                f.get(120, TimeUnit.SECONDS);
            }
        } finally {
            pool.shutdownNow();
        }
        assertEquals(threads * perThread, committedValue());
        assertTrue("at least one attempt per increment: " + attempts.get(), attempts.get() >= threads * perThread);
    }

    @Test
    public void afterMaxAttemptsTheLastConflictIsThrownCountingTheAttempts() {
        AtomicInteger attempts = new AtomicInteger();
        RockCaskException e = assertThrows(RockCaskException.class, () -> store.inTransaction(FAST.maxAttempts(5), tx -> {
            attempts.incrementAndGet();
            return increment(tx, true);
        }));
        assertEquals(5, attempts.get());
        assertEquals(RockCaskException.Status.Conflict, e.status());
        assertTrue(e.getMessage(), e.getMessage().startsWith("Conflict: gave up after 5 attempts in "));
        assertTrue(e.getMessage(), e.getMessage().contains("map 'm' key 'k'"));
        assertEquals(RockCaskException.Status.Conflict, ((RockCaskException) e.getCause()).status());
        assertEquals("only the interfering writes committed", 1000, committedValue());

        attempts.set(0);
        assertThrows(RockCaskException.class, () -> store.inTransaction(FAST.maxAttempts(1), tx -> {
            attempts.incrementAndGet();
            return increment(tx, true);
        }));
        assertEquals("maxAttempts(1): no retry", 1, attempts.get());
    }

    @Test
    public void noAttemptStartsAfterMaxTime() {
        AtomicInteger attempts = new AtomicInteger();
        RetryPolicy policy = RetryPolicy.defaults().maxAttempts(Integer.MAX_VALUE).maxTime(Duration.ofMillis(300))
                .baseBackoff(Duration.ofMillis(1)).maxBackoff(Duration.ofMillis(20));
        long t0 = System.nanoTime();
        RockCaskException e = assertThrows(RockCaskException.class, () -> store.inTransaction(policy, tx -> {
            attempts.incrementAndGet();
            return increment(tx, true);
        }));
        double seconds = (System.nanoTime() - t0) / 1e9;
        assertEquals(RockCaskException.Status.Conflict, e.status());
        assertTrue("retried within the time: " + attempts.get(), attempts.get() > 1);
        assertTrue(e.getMessage(), e.getMessage().startsWith("Conflict: gave up after " + attempts.get() + " attempts in "));
        assertTrue("300 ms, then the attempt under way: " + seconds + " s", seconds >= 0.3 && seconds < 5);

        attempts.set(0);
        assertThrows(RockCaskException.class, () -> store.inTransaction(FAST.maxTime(Duration.ZERO), tx -> {
            attempts.incrementAndGet();
            return increment(tx, true);
        }));
        assertEquals("maxTime zero: no retry", 1, attempts.get());
    }

    @Test
    public void otherFailuresRollBackAndPropagateAtOnce() {
        try (Transaction tx = store.begin()) {
            tx.enqueue("in", b("item"));
            tx.commit();
        }
        AtomicInteger attempts = new AtomicInteger();
        IllegalStateException thrown = new IllegalStateException("bad input");
        IllegalStateException e = assertThrows(IllegalStateException.class, () -> store.inTransaction(tx -> {
            attempts.incrementAndGet();
            tx.poll("in");
            tx.map("m").put("k", longBytes(7));
            throw thrown;
        }));
        assertSame(thrown, e);
        assertEquals(1, attempts.get());
        assertNull("rolled back: nothing written", store.mapGet("m", b("k")));
        assertEquals("rolled back: the polled item is back", 1, store.queueSize("in"));

        // A RockCask failure of another status is not retried either.
        attempts.set(0);
        RockCaskException noObject = assertThrows(RockCaskException.class, () -> store.inTransaction(tx -> {
            attempts.incrementAndGet();
            tx.enqueue("in", new java.util.UUID(1, 2));
            return null;
        }));
        assertEquals(RockCaskException.Status.NoSuchObject, noObject.status());
        assertEquals(1, attempts.get());
        assertEquals(1, store.queueSize("in"));
    }

    @Test
    public void aFunctionThatCommitsItselfIsNotCommittedAgain() {
        String result = store.inTransaction(tx -> {
            tx.map("m").put("own", b("v"));
            tx.commit();
            return "done";
        });
        assertEquals("done", result);
        assertArrayEquals(b("v"), store.mapGet("m", b("own")));
        assertEquals("a function that rolls back writes nothing", "no", store.inTransaction(tx -> {
            tx.map("m").put("gone", b("v"));
            tx.rollback();
            return "no";
        }));
        assertNull(store.mapGet("m", b("gone")));
    }

    @Test
    public void anInterruptedThreadStopsRetryingAndKeepsItsInterruptFlag() throws Exception {
        AtomicInteger attempts = new AtomicInteger();
        try {
            RockCaskException e = assertThrows(RockCaskException.class, () -> store.inTransaction(FAST, tx -> {
                attempts.incrementAndGet();
                Thread.currentThread().interrupt();
                return increment(tx, true);
            }));
            assertEquals(RockCaskException.Status.Conflict, e.status());
            assertTrue(e.getMessage(), e.getMessage().contains("1 attempt in ") && e.getMessage().contains("interrupted"));
            assertEquals(1, attempts.get());
            assertTrue("the flag stays set", Thread.currentThread().isInterrupted());
        } finally {
            Thread.interrupted();
        }

        // Interrupted while it sleeps between attempts (a backoff of up to an hour).
        RetryPolicy slow = RetryPolicy.defaults().baseBackoff(Duration.ofHours(1)).maxBackoff(Duration.ofHours(1)).maxTime(Duration.ofHours(2));
        AtomicInteger sleeperAttempts = new AtomicInteger();
        AtomicReference<Throwable> thrown = new AtomicReference<>();
        AtomicReference<Boolean> flagAfter = new AtomicReference<>();
        Thread sleeper = new Thread(() -> {
            try {
                store.inTransaction(slow, tx -> {
                    sleeperAttempts.incrementAndGet();
                    return increment(tx, true);
                });
            } catch (Throwable t) {
                thrown.set(t);
            }
            flagAfter.set(Thread.currentThread().isInterrupted());
        });
        sleeper.start();
        while (sleeperAttempts.get() == 0) {
            Thread.sleep(5);
        }
        Thread.sleep(200);
        sleeper.interrupt();
        sleeper.join(10_000);
        assertFalse("stopped when interrupted", sleeper.isAlive());
        assertTrue(String.valueOf(thrown.get()), thrown.get() instanceof RockCaskException);
        assertEquals(RockCaskException.Status.Conflict, ((RockCaskException) thrown.get()).status());
        assertTrue(thrown.get().getMessage(), thrown.get().getMessage().contains("interrupted while backing off"));
        assertEquals(1, sleeperAttempts.get());
        assertTrue("the flag stays set", flagAfter.get());
    }

    @Test
    public void policiesAreCheckedAndBackOffExponentiallyUpToTheirBound() {
        assertThrows(IllegalArgumentException.class, () -> RetryPolicy.defaults().maxAttempts(0));
        assertThrows(IllegalArgumentException.class, () -> RetryPolicy.defaults().maxTime(Duration.ofMillis(-1)));
        assertThrows(IllegalArgumentException.class, () -> RetryPolicy.defaults().baseBackoff(Duration.ofMillis(-1)));
        assertThrows(NullPointerException.class, () -> RetryPolicy.defaults().maxBackoff(null));
        assertThrows(NullPointerException.class, () -> store.inTransaction(null, tx -> null));
        assertThrows(NullPointerException.class, () -> store.inTransaction(null));
        RetryPolicy p = RetryPolicy.defaults().baseBackoff(Duration.ofMillis(1)).maxBackoff(Duration.ofMillis(10));
        assertEquals(1_000_000, p.backoffBoundNanos(1));
        assertEquals(2_000_000, p.backoffBoundNanos(2));
        assertEquals(8_000_000, p.backoffBoundNanos(4));
        assertEquals("capped", 10_000_000, p.backoffBoundNanos(5));
        assertEquals("no overflow", 10_000_000, p.backoffBoundNanos(Integer.MAX_VALUE));
        assertEquals(Duration.ofMillis(100), RetryPolicy.defaults().maxBackoff());
        assertEquals(100, RetryPolicy.defaults().maxAttempts());
    }
}
