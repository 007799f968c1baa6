package org.rockcask;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertNull;
import static org.junit.Assert.assertThrows;
import static org.junit.Assert.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.UUID;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.junit.Rule;
import org.junit.Test;
import org.junit.rules.TemporaryFolder;

/** Every misuse ends in a Java exception, never in a JVM crash (all of this runs under -Xcheck:jni). */
public class ErrorHandlingTest {
    @Rule
    public TemporaryFolder tmp = new TemporaryFolder();

    private Store open() throws IOException {
        return Store.open(tmp.newFolder().toPath().resolve("s"), StoreOptions.defaults().syncOnCommit(false));
    }

    @Test
    public void nullArgumentsThrowNullPointerException() throws IOException {
        assertThrows(NullPointerException.class, () -> Store.open(null, StoreOptions.defaults()));
        assertThrows(NullPointerException.class, () -> Store.open(tmp.getRoot().toPath(), null));
        try (Store store = open(); Transaction tx = store.begin()) {
            assertThrows(NullPointerException.class, () -> tx.enqueue(null, new byte[1]));
            assertThrows(NullPointerException.class, () -> tx.enqueue("q", (byte[]) null));
            assertThrows(NullPointerException.class, () -> tx.enqueue("q", (UUID) null));
            assertThrows(NullPointerException.class, () -> tx.poll(null));
            assertThrows(NullPointerException.class, () -> tx.peek(null, 1));
            assertThrows(NullPointerException.class, () -> tx.take("q", null));
            assertThrows(NullPointerException.class, () -> tx.put(null, new byte[1]));
            assertThrows(NullPointerException.class, () -> tx.put(UUID.randomUUID(), null));
            assertThrows(NullPointerException.class, () -> tx.get(null));
            assertThrows(NullPointerException.class, () -> tx.delete(null));
            assertThrows(NullPointerException.class, () -> store.queueSize(null));
        }
    }

    @Test
    public void outOfRangeArgumentsThrowIllegalArgumentException() throws IOException {
        try (Store store = open(); Transaction tx = store.begin()) {
            assertThrows(IllegalArgumentException.class, () -> tx.enqueue("", new byte[1]));
            assertThrows(IllegalArgumentException.class, () -> tx.enqueue(new String(new char[5000]).replace('\0', 'q'), new byte[1]));
            assertThrows(IllegalArgumentException.class, () -> tx.poll("q", 0));
            assertThrows(IllegalArgumentException.class, () -> tx.poll("q", -5));
            assertThrows(IllegalArgumentException.class, () -> tx.poll("q", Integer.MAX_VALUE));
            assertThrows(IllegalArgumentException.class, () -> tx.peek("q", 0));
            assertThrows(IllegalArgumentException.class, () -> tx.take("q", Duration.ofMillis(-1)));
            assertThrows(IllegalArgumentException.class, () -> store.queueSize(""));
        }
    }

    @Test
    public void useAfterCloseThrowsIllegalStateExceptionAndCloseIsIdempotent() throws IOException {
        Store store = open();
        Transaction tx = store.begin();
        Transaction other = store.begin();
        tx.close();
        tx.close();
        assertThrows(IllegalStateException.class, () -> tx.enqueue("q", new byte[1]));
        assertThrows(IllegalStateException.class, tx::commit);
        store.close();
        store.close();
        assertThrows(IllegalStateException.class, store::begin);
        assertThrows(IllegalStateException.class, store::queues);
        assertThrows(IllegalStateException.class, () -> store.queueSize("q"));
        assertThrows(IllegalStateException.class, store::stats);
        // A transaction that outlives its store fails cleanly too.
        IllegalStateException e = assertThrows(IllegalStateException.class, () -> other.enqueue("q", new byte[1]));
        assertTrue(e.getMessage(), e.getMessage().contains("store is closed"));
        other.close();
    }

    @Test
    public void usingAFinishedTransactionThrowsIllegalStateException() throws IOException {
        try (Store store = open(); Transaction tx = store.begin()) {
            tx.commit();
            IllegalStateException e = assertThrows(IllegalStateException.class, () -> tx.poll("q"));
            assertTrue(e.getMessage(), e.getMessage().contains("committed"));
        }
    }

    @Test
    public void closingTheStoreWakesABlockedTakeWithIllegalStateException() throws Exception {
        Store store = open();
        ExecutorService pool = Executors.newSingleThreadExecutor();
        CountDownLatch started = new CountDownLatch(1);
        Future<Message> taken = pool.submit(() -> {
            try (Transaction tx = store.begin()) {
                started.countDown();
                return tx.take("q", Duration.ofMinutes(5));
            }
        });
        started.await();
        Thread.sleep(100);
        long t0 = System.nanoTime();
        store.close();
        ExecutionException e = assertThrows(ExecutionException.class, () -> taken.get(30, TimeUnit.SECONDS));
        assertTrue(String.valueOf(e.getCause()), e.getCause() instanceof IllegalStateException);
        assertTrue("close returned promptly", System.nanoTime() - t0 < TimeUnit.SECONDS.toNanos(20));
        pool.shutdown();
    }

    @Test
    public void closeWhileOtherThreadsAreInsideCallsNeverCrashes() throws Exception {
        for (int round = 0; round < 5; round++) {
            Store store = open();
            ExecutorService pool = Executors.newFixedThreadPool(3);
            CountDownLatch go = new CountDownLatch(1);
            Future<?>[] workers = new Future<?>[3];
            for (int w = 0; w < workers.length; w++) {
                workers[w] = pool.submit(() -> {
                    go.await();
                    for (;;) {
                        try (Transaction tx = store.begin()) {
                            tx.enqueue("q", new byte[64]);
                            tx.poll("q", 4);
                            store.queueSize("q");
                            tx.commit();
                        } catch (IllegalStateException closed) {
                            return null; // the store was closed under us: the expected outcome
                        }
                    }
                });
            }
            go.countDown();
            Thread.sleep(50);
            store.close();
            for (Future<?> f : workers) {
                f.get(30, TimeUnit.SECONDS);
            }
            pool.shutdown();
        }
    }

    @Test
    public void aPathThatIsNotAStoreIsRefusedByName() throws IOException {
        Path file = tmp.newFile("not-a-store").toPath();
        RockCaskException e = assertThrows(RockCaskException.class, () -> Store.open(file, StoreOptions.defaults()));
        assertEquals(RockCaskException.Status.NotAStore, e.status());
        assertTrue(e.getMessage(), e.getMessage().contains("not-a-store"));

        Path junk = tmp.newFolder("junk").toPath();
        Files.write(junk.resolve("notes.txt"), new byte[] {1});
        e = assertThrows(RockCaskException.class, () -> Store.open(junk, StoreOptions.defaults()));
        assertEquals(RockCaskException.Status.NotAStore, e.status());
        assertTrue("directory left as it was", Files.exists(junk.resolve("notes.txt")) && !Files.exists(junk.resolve("CURRENT")));

        Path missing = tmp.getRoot().toPath().resolve("missing");
        e = assertThrows(RockCaskException.class, () -> Store.open(missing, StoreOptions.defaults().createIfMissing(false)));
        assertEquals(RockCaskException.Status.NotAStore, e.status());
        assertTrue(!Files.exists(missing));
    }

    @Test
    public void aSecondOpenOfTheSameStoreFailsWithLockedNamingTheLock() throws IOException {
        Path dir = tmp.newFolder().toPath().resolve("s");
        try (Store first = Store.open(dir, StoreOptions.defaults())) {
            assertEquals(dir.toAbsolutePath(), first.path());
            RockCaskException e = assertThrows(RockCaskException.class, () -> Store.open(dir, StoreOptions.defaults()));
            assertEquals(RockCaskException.Status.Locked, e.status());
            assertTrue(e.getMessage(), e.getMessage().contains("rockcask.lock"));
        }
        Store.open(dir, StoreOptions.defaults()).close();
    }

    @Test
    public void writesToAReadOnlyStoreFailWithReadOnly() throws IOException {
        Path dir = tmp.newFolder().toPath().resolve("s");
        try (Store s = Store.open(dir, StoreOptions.defaults()); Transaction tx = s.begin()) {
            tx.enqueue("q", new byte[] {1});
            tx.commit();
        }
        try (Store ro = Store.open(dir, StoreOptions.defaults().readOnly(true)); Transaction tx = ro.begin()) {
            assertEquals(1, ro.queueSize("q"));
            assertEquals(1, tx.peek("q", 5).size());
            for (Runnable write : new Runnable[] {
                () -> tx.enqueue("q", new byte[1]), () -> tx.poll("q"), () -> tx.put(UUID.randomUUID(), new byte[1]),
                () -> tx.delete(UUID.randomUUID()), tx::commit, ro::compact}) {
                RockCaskException e = assertThrows(RockCaskException.class, write::run);
                assertEquals(RockCaskException.Status.ReadOnly, e.status());
                // Refused by Java (before a native call) or by the store, it says the same.
                assertTrue(e.getMessage(), e.getMessage().startsWith("ReadOnly: store at ") && e.getMessage().endsWith(" is open read-only"));
            }
        }
    }

    @Test
    public void aForgottenStoreIsReleasedByTheCleaner() throws Exception {
        Path dir = tmp.newFolder().toPath().resolve("s");
        openAndForget(dir);
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        for (;;) {
            System.gc();
            try {
                Store.open(dir, StoreOptions.defaults()).close();
                return;
            } catch (RockCaskException locked) {
                assertEquals(RockCaskException.Status.Locked, locked.status());
                if (System.nanoTime() > deadline) {
                    throw new AssertionError("forgotten store still holds its lock after 30 s of GC", locked);
                }
                Thread.sleep(50);
            }
        }
    }

    @Test
    public void aForgottenTransactionIsRolledBackByTheCleanerAndItsItemsReturn() throws Exception {
        try (Store store = open()) {
            try (Transaction tx = store.begin()) {
                tx.enqueue("q", new byte[] {7});
                tx.commit();
            }
            pollAndForget(store);
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
            for (;;) {
                System.gc();
                try (Transaction tx = store.begin()) {
                    Message m = tx.poll("q");
                    if (m != null) {
                        assertEquals(7, m.payload()[0]);
                        return;
                    }
                }
                if (System.nanoTime() > deadline) {
                    throw new AssertionError("item claimed by a forgotten transaction never came back");
                }
                Thread.sleep(50);
            }
        }
    }

    private static void pollAndForget(Store store) {
        Transaction tx = store.begin();
        assertEquals(7, tx.poll("q").payload()[0]);
        // neither committed nor closed
    }

    private static void openAndForget(Path dir) {
        Store s = Store.open(dir, StoreOptions.defaults());
        Transaction tx = s.begin();
        tx.enqueue("q", new byte[] {1});
        // neither committed nor closed
    }

    @Test
    public void aTransactionSharedBetweenThreadsIsSerializedNotRaced() throws Exception {
        try (Store store = open(); Transaction tx = store.begin()) {
            ExecutorService pool = Executors.newFixedThreadPool(4);
            Future<?>[] fs = new Future<?>[4];
            for (int t = 0; t < 4; t++) {
                fs[t] = pool.submit(() -> {
                    for (int i = 0; i < 500; i++) {
                        tx.enqueue("q", new byte[] {(byte) i});
                    }
                });
            }
            for (Future<?> f : fs) {
                f.get();
            }
            pool.shutdown();
            tx.commit();
            assertEquals(2000, store.queueSize("q"));
        }
    }

    /** A status is a field, given by whoever builds the exception, and never parsed back from a message. */
    @Test
    public void exceptionStatusIsAFieldAndTheMessageStartsWithIt() {
        RockCaskException e = new RockCaskException(RockCaskException.Status.IOError, "disk full");
        assertEquals(RockCaskException.Status.IOError, e.status());
        assertEquals("IOError: disk full", e.getMessage());
        RockCaskException unknown = new RockCaskException(RockCaskException.Status.Unknown, "Locked: a detail that looks like a status");
        assertEquals(RockCaskException.Status.Unknown, unknown.status());
    }

    @Test
    public void takeReturnsNullAfterTheTimeout() throws IOException {
        try (Store store = open(); Transaction tx = store.begin()) {
            long t0 = System.nanoTime();
            assertNull(tx.take("q", Duration.ofMillis(100)));
            assertTrue(System.nanoTime() - t0 >= TimeUnit.MILLISECONDS.toNanos(90));
        }
    }

    @Test
    public void takeReturnsAnItemCommittedByAnotherThread() throws Exception {
        try (Store store = open(); Transaction tx = store.begin()) {
            Thread producer = new Thread(() -> {
                try {
                    Thread.sleep(100);
                } catch (InterruptedException e) {
                    return;
                }
                try (Transaction p = store.begin()) {
                    p.enqueue("q", new byte[] {42});
                    p.commit();
                }
            });
            producer.start();
            Message m = tx.take("q", Duration.ofSeconds(30));
            producer.join();
            assertEquals(42, m.payload()[0]);
        }
    }
}
