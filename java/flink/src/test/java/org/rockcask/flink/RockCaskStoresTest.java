package org.rockcask.flink;

import static org.junit.Assert.assertArrayEquals;
import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertNull;
import static org.junit.Assert.assertNotSame;
import static org.junit.Assert.assertSame;
import static org.junit.Assert.assertTrue;
import static org.junit.Assert.fail;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.Rule;
import org.junit.Test;
import org.junit.rules.TemporaryFolder;
import org.rockcask.Store;
import org.rockcask.StoreOptions;
import org.rockcask.Transaction;

public class RockCaskStoresTest {
    @Rule
    public TemporaryFolder tmp = new TemporaryFolder();

    @Test
    public void aSymlinkAndADotDotSpellingShareTheStoreOfOneDirectory() throws Exception {
        Path dir = tmp.getRoot().toPath().resolve("cask");
        Path link = Files.createSymbolicLink(tmp.getRoot().toPath().resolve("link"), Files.createDirectories(dir));
        try (RockCaskStores.Lease plain = RockCaskStores.acquire(RockCaskStoreSpec.at(dir.toString()));
                RockCaskStores.Lease viaLink = RockCaskStores.acquire(RockCaskStoreSpec.at(link.toString()));
                RockCaskStores.Lease viaDotDot = RockCaskStores.acquire(RockCaskStoreSpec.at(dir.resolve("../cask").toString()))) {
            assertSame(plain.store(), viaLink.store());
            assertSame(plain.store(), viaDotDot.store());
        }
    }

    @Test
    public void aMissingDirectoryIsCreated() {
        Path dir = tmp.getRoot().toPath().resolve("a/b/cask");
        try (RockCaskStores.Lease lease = RockCaskStores.acquire(RockCaskStoreSpec.at(dir.toString()))) {
            assertTrue(Files.isDirectory(dir));
            assertEquals(0, lease.store().queueSize("q"));
        }
    }

    @Test
    public void theStoreClosesWhenTheLastLeaseClosesAndNotBefore() throws Exception {
        RockCaskStoreSpec spec = RockCaskStoreSpec.at(tmp.newFolder("cask").toString());
        RockCaskStores.Lease first = RockCaskStores.acquire(spec);
        RockCaskStores.Lease second = RockCaskStores.acquire(spec);
        Store store = first.store();
        first.close();
        enqueueOne(second.store(), "still-open");
        second.close();
        try {
            store.begin();
            fail("the store is still open after its last lease closed");
        } catch (IllegalStateException expected) {
            // closed
        }
        // The directory's lock is free again: a plain open succeeds and sees what was committed.
        try (Store reopened = Store.open(Path.of(spec.path()), StoreOptions.defaults())) {
            assertEquals(1, reopened.queueSize("still-open"));
        }
    }

    @Test
    public void closingALeaseTwiceReleasesItOnce() throws Exception {
        RockCaskStoreSpec spec = RockCaskStoreSpec.at(tmp.newFolder("cask").toString());
        try (RockCaskStores.Lease keeper = RockCaskStores.acquire(spec)) {
            RockCaskStores.Lease twice = RockCaskStores.acquire(spec);
            twice.close();
            twice.close();
            enqueueOne(keeper.store(), "q");
            assertEquals(1, keeper.store().queueSize("q"));
        }
    }

    @Test
    public void aClosedLeaseNoLongerHandsOutTheStore() throws Exception {
        RockCaskStores.Lease lease = RockCaskStores.acquire(RockCaskStoreSpec.at(tmp.newFolder("cask").toString()));
        lease.close();
        try {
            lease.store();
            fail("a closed lease handed out its store");
        } catch (IllegalStateException expected) {
            assertTrue(expected.getMessage(), expected.getMessage().contains("closed"));
        }
    }

    @Test
    public void aSecondAcquireWithOtherOptionsFailsNamingBoth() throws Exception {
        RockCaskStoreSpec spec = RockCaskStoreSpec.at(tmp.newFolder("cask").toString());
        RockCaskStoreSpec unsynced = spec.withSyncOnCommit(false);
        try (RockCaskStores.Lease lease = RockCaskStores.acquire(spec)) {
            assertEquals(true, lease.store().options().syncOnCommit());
            RockCaskStores.acquire(unsynced).close();
            fail("a store open with sync on commit was shared with a spec without it");
        } catch (IllegalStateException expected) {
            assertTrue(expected.getMessage(), expected.getMessage().contains(spec.toString()));
            assertTrue(expected.getMessage(), expected.getMessage().contains(unsynced.toString()));
        }
        // The failed acquire took no lease: the store closed with the only one.
        try (Store reopened = Store.open(Path.of(spec.path()), StoreOptions.defaults())) {
            assertEquals(0, reopened.queueSize("q"));
        }
    }

    @Test
    public void specOptionsOutOfBoundsAreRejectedWhenSet() {
        try {
            RockCaskStoreSpec.at("/x").withWriteBufferBytes(1);
            fail("a write buffer of one byte was accepted");
        } catch (IllegalArgumentException expected) {
            assertTrue(expected.getMessage(), expected.getMessage().contains("writeBufferBytes"));
        }
    }

    @Test
    public void inlinePayloadsOfASpecReachTheStoreAndOutOfBoundsOnesAreRejectedWhenSet() throws Exception {
        for (int bad : new int[] {-1, Integer.MIN_VALUE, 64 * 1024 + 1, Integer.MAX_VALUE}) {
            try {
                RockCaskStoreSpec.at("/x").withInlinePayloadBytes(bad);
                fail("inline payloads of " + bad + " bytes were accepted");
            } catch (IllegalArgumentException expected) {
                assertTrue(expected.getMessage(), expected.getMessage().contains("inlinePayloadBytes"));
            }
        }
        RockCaskStoreSpec spec = RockCaskStoreSpec.at(tmp.newFolder("inline").toString()).withInlinePayloadBytes(1024);
        assertEquals(1024, spec.withPath("/elsewhere").inlinePayloadBytes());
        assertTrue(!spec.equals(spec.withInlinePayloadBytes(0)));
        try (RockCaskStores.Lease lease = RockCaskStores.acquire(spec)) {
            assertEquals(1024, lease.store().options().inlinePayloadBytes());
            UUID id;
            try (Transaction tx = lease.store().begin()) {
                id = tx.enqueue("q", new byte[] {1, 2, 3});
                tx.commit();
            }
            try (Transaction tx = lease.store().begin()) {
                assertNull("kept in its entry", tx.get(id));
                assertArrayEquals(new byte[] {1, 2, 3}, tx.poll("q").payload());
                tx.commit();
            }
        }
    }

    @Test
    public void specsAreEqualByPathAndOptions() {
        RockCaskStoreSpec spec = RockCaskStoreSpec.at("/data/cask").withBlockCacheBytes(1 << 20);
        assertEquals(spec, RockCaskStoreSpec.at("/data/cask").withBlockCacheBytes(1 << 20));
        assertEquals(spec.hashCode(), RockCaskStoreSpec.at("/data/cask").withBlockCacheBytes(1 << 20).hashCode());
        assertTrue(!spec.equals(spec.withBlockCacheBytes(2 << 20)));
        assertTrue(!spec.equals(RockCaskStoreSpec.at("/data/other").withBlockCacheBytes(1 << 20)));
    }

    @Test
    public void threadsAcquiringAndReleasingConcurrentlyShareOneStoreAndLoseNoCommit() throws Exception {
        RockCaskStoreSpec spec = RockCaskStoreSpec.at(tmp.newFolder("cask").toString());
        int threads = 4;
        int rounds = 50;
        CyclicBarrier start = new CyclicBarrier(threads);
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        try {
            List<Future<?>> done = new ArrayList<>();
            for (int t = 0; t < threads; t++) {
                done.add(pool.submit(() -> {
                    start.await();
                    for (int i = 0; i < rounds; i++) {
                        // Leases come and go so that the store is closed and reopened under the
                        // threads' feet; each round's commit must land in the same directory.
                        try (RockCaskStores.Lease lease = RockCaskStores.acquire(spec)) {
                            enqueueOne(lease.store(), "q");
                        }
                    }
                    return null;
                }));
            }
            for (Future<?> f : done) {
                f.get(2, TimeUnit.MINUTES);
            }
        } finally {
            pool.shutdownNow();
        }
        try (Store reopened = Store.open(Path.of(spec.path()), StoreOptions.defaults())) {
            assertEquals(threads * rounds, reopened.queueSize("q"));
        }
    }

    @Test
    public void aStoreReopenedAfterTheLastReleaseIsANewOne() throws Exception {
        RockCaskStoreSpec spec = RockCaskStoreSpec.at(tmp.newFolder("cask").toString());
        Store first;
        try (RockCaskStores.Lease lease = RockCaskStores.acquire(spec)) {
            first = lease.store();
        }
        try (RockCaskStores.Lease lease = RockCaskStores.acquire(spec.withSyncOnCommit(false))) {
            assertNotSame(first, lease.store());
            assertEquals(false, lease.store().options().syncOnCommit());
        }
    }

    private static void enqueueOne(Store store, String queue) {
        try (Transaction tx = store.begin()) {
            tx.enqueue(queue, "x".getBytes(StandardCharsets.UTF_8));
            tx.commit();
        }
    }
}
