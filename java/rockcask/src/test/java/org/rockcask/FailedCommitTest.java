package org.rockcask;

import static org.junit.Assert.assertArrayEquals;
import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertNotNull;
import static org.junit.Assert.assertThrows;
import static org.junit.Assert.assertTrue;

import java.io.File;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.Random;
import java.util.UUID;
import org.junit.Rule;
import org.junit.Test;
import org.junit.rules.TemporaryFolder;

/** What a failed commit leaves behind: the store as before, polled items back at the head. */
public class FailedCommitTest {
    @Rule
    public TemporaryFolder tmp = new TemporaryFolder();

    @Rule
    public SmallFileSystem smallFs = new SmallFileSystem();

    @Test
    public void enqueueByIdOfAnObjectAnotherCommitDeletedFirstFailsWithNoSuchObjectAndHandsBackPolls() throws IOException {
        try (Store store = Store.open(tmp.newFolder().toPath().resolve("s"), StoreOptions.defaults().syncOnCommit(false))) {
            UUID id = UUID.randomUUID();
            try (Transaction tx = store.begin()) {
                for (int i = 0; i < 5; i++) {
                    tx.enqueue("in", item(i));
                }
                tx.put(id, item(99));
                tx.commit();
            }
            try (Transaction tx1 = store.begin()) {
                assertEquals(2, tx1.poll("in", 2).size());
                tx1.enqueue("refs", id); // the object exists now
                tx1.enqueue("out", item(7));
                try (Transaction tx2 = store.begin()) {
                    assertTrue(tx2.delete(id));
                    tx2.commit();
                }
                RockCaskException e = assertThrows(RockCaskException.class, tx1::commit);
                assertEquals(e.getMessage(), RockCaskException.Status.NoSuchObject, e.status());
                assertTrue(e.getMessage(), e.getMessage().contains(id.toString()));
                assertThrows(IllegalStateException.class, () -> tx1.poll("in", 1));
            }
            assertEquals(0, store.queueSize("refs"));
            assertEquals(0, store.queueSize("out"));
            try (Transaction tx = store.begin()) {
                List<Message> head = tx.peek("in", 10);
                assertEquals(5, head.size());
                for (int i = 0; i < 5; i++) {
                    assertArrayEquals("item " + i, item(i), head.get(i).payload());
                }
            }
        }
    }

    /**
     * Fills a small file system until a commit fails: that commit's polls come back, later writes
     * are refused with the cause, and freeing space and reopening recovers every commit that
     * returned. Needs a tmpfs (root): skipped where it cannot be mounted.
     */
    @Test
    public void aCommitFailingOnAFullDiskHandsBackItsPollsAndTheStoreRecoversAfterSpaceIsFreedAndItIsReopened() throws Exception {
        File fs = smallFs.mount();
        Path filler = fs.toPath().resolve("filler");
        // Freed once the disk is full, as a user would: more than the reopen needs to flush what
        // it recovers (at most the 1 MiB of memtables) and to write its options file.
        Files.write(filler, new byte[3 << 20]);
        Path dir = fs.toPath().resolve("s");
        StoreOptions options = StoreOptions.defaults().writeBufferBytes(1 << 20).blockCacheBytes(1 << 20);
        Deque<byte[]> committed = new ArrayDeque<>();
        List<byte[]> polledByTheFailure = new ArrayList<>();
        Random random = new Random(42);
        int next = 0;
        RockCaskException failure = null;
        Store store = Store.open(dir, options);
        try {
            for (int round = 0; round < 10_000 && failure == null; round++) {
                List<byte[]> added = new ArrayList<>();
                try (Transaction tx = store.begin()) {
                    List<Message> polled = tx.poll("q", 3);
                    for (int i = 0; i < 16; i++) {
                        byte[] payload = new byte[4096];
                        random.nextBytes(payload); // incompressible
                        ByteBuffer.wrap(payload).putInt(next++);
                        tx.enqueue("q", payload);
                        added.add(payload);
                    }
                    try {
                        tx.commit();
                    } catch (RockCaskException e) {
                        failure = e;
                        for (Message m : polled) {
                            polledByTheFailure.add(m.payload());
                        }
                        break;
                    }
                    for (Message m : polled) {
                        assertArrayEquals(committed.removeFirst(), m.payload());
                    }
                    committed.addAll(added);
                }
            }
            assertNotNull("a commit fails on a full disk", failure);
            assertEquals(failure.getMessage(), RockCaskException.Status.IOError, failure.status());
            assertTrue(failure.getMessage(), failure.getMessage().contains("No space left on device"));
            assertEquals(3, polledByTheFailure.size());

            // In the live store: every polled item back at the head, in order.
            assertQueueIs(store, committed);
            for (int i = 0; i < 3; i++) {
                assertArrayEquals(committed.toArray(new byte[0][])[i], polledByTheFailure.get(i));
            }
            // The next write is refused with the cause's status, said once.
            try (Transaction tx = store.begin()) {
                tx.enqueue("q", item(1)); // buffered: handed over at commit
                RockCaskException refused = assertThrows(RockCaskException.class, tx::commit);
                String m = refused.getMessage();
                assertEquals(m, RockCaskException.Status.IOError, refused.status());
                assertEquals(m, 1, occurrences(m, "transaction rolled back"));
                assertEquals(m, 1, occurrences(m, "applying buffered operations failed"));
                assertEquals(m, 1, occurrences(m, "IOError"));
                assertTrue(m, m.contains("No space left on device") && m.contains("reopen"));
            }

            try {
                store.close();
            } catch (RockCaskException e) {
                // Syncing the log (or flushing) at close may report the earlier failure again;
                // the store is closed.
                assertEquals(e.getMessage(), RockCaskException.Status.IOError, e.status());
            }
            // Freed once the store is closed: freed before, the space could go to what the close
            // and background jobs flushed, and the reopen found none left for its options file.
            Files.delete(filler);
        } finally {
            try {
                store.close(); // idempotent; here so that a failed assertion leaves the tmpfs unused
            } catch (RuntimeException secondary) {
                // the failure that got here is the one to report
            }
        }
        try (Store reopened = Store.open(dir, options)) {
            assertQueueIs(reopened, committed);
            try (Transaction tx = reopened.begin()) {
                tx.enqueue("q", item(1));
                tx.commit();
            }
            assertEquals(committed.size() + 1, reopened.queueSize("q"));
        }
    }

    private static void assertQueueIs(Store store, Deque<byte[]> expected) {
        try (Transaction tx = store.begin()) {
            List<Message> all = tx.peek("q", expected.size() + 100);
            assertEquals(expected.size(), all.size());
            int i = 0;
            for (byte[] e : expected) {
                assertArrayEquals("item " + i, e, all.get(i++).payload());
            }
        }
        assertEquals(expected.size(), store.queueSize("q"));
    }

    private static int occurrences(String s, String part) {
        int n = 0;
        for (int at = s.indexOf(part); at >= 0; at = s.indexOf(part, at + part.length())) {
            n++;
        }
        return n;
    }

    private static byte[] item(int i) {
        return ByteBuffer.allocate(4).putInt(i).array();
    }
}
