package org.rockcask;

import static org.junit.Assert.assertArrayEquals;
import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertNull;
import static org.junit.Assert.assertThrows;
import static org.junit.Assert.assertTrue;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import org.junit.After;
import org.junit.Before;
import org.junit.Rule;
import org.junit.Test;
import org.junit.rules.TemporaryFolder;

/** Enqueues and puts are buffered in Java and applied in chunks; none of it may show. */
public class BufferedOperationsTest {
    @Rule
    public TemporaryFolder tmp = new TemporaryFolder();

    private Store store;

    @Before
    public void open() throws IOException {
        store = Store.open(tmp.newFolder().toPath().resolve("s"), StoreOptions.defaults().syncOnCommit(false));
    }

    @After
    public void close() {
        store.close();
    }

    private static byte[] item(int i, int size) {
        return ByteBuffer.allocate(size).putInt(i).array();
    }

    @Test
    public void enqueuesSpanningManyBufferFlushesKeepFifoOrder() {
        int n = 20_000; // 100-byte payloads: about 8 chunks of the 256 KiB buffer
        try (Transaction tx = store.begin()) {
            for (int i = 0; i < n; i++) {
                tx.enqueue(i % 2 == 0 ? "even" : "odd", item(i, 100));
            }
            tx.commit();
        }
        try (Transaction tx = store.begin()) {
            List<Message> even = tx.poll("even", n);
            List<Message> odd = tx.poll("odd", n);
            assertEquals(n / 2, even.size());
            assertEquals(n / 2, odd.size());
            for (int i = 0; i < n / 2; i++) {
                assertEquals(2 * i, ByteBuffer.wrap(even.get(i).payload()).getInt());
                assertEquals(2 * i + 1, ByteBuffer.wrap(odd.get(i).payload()).getInt());
            }
        }
    }

    @Test
    public void putThenEnqueueByIdIsBufferedAndKeepsTheObjectUntilDeleted() {
        List<UUID> ids = new ArrayList<>();
        try (Transaction tx = store.begin()) {
            for (int i = 0; i < 5_000; i++) {
                UUID id = UUID.randomUUID();
                tx.put(id, item(i, 40));
                tx.enqueue("q", id);
                ids.add(id);
            }
            tx.commit();
        }
        try (Transaction tx = store.begin()) {
            List<Message> got = tx.poll("q", 10_000);
            assertEquals(ids.size(), got.size());
            for (int i = 0; i < ids.size(); i++) {
                assertEquals(ids.get(i), got.get(i).id());
                assertEquals(i, ByteBuffer.wrap(got.get(i).payload()).getInt());
            }
            tx.commit();
        }
        try (Transaction tx = store.begin()) {
            assertEquals("put objects outlive their entries", 0, ByteBuffer.wrap(tx.get(ids.get(7))).getInt() - 7);
        }
    }

    @Test
    public void largePayloadsTakeTheDirectPathInOrderWithBufferedOnes() {
        byte[] big = new byte[PendingOps.DIRECT_PAYLOAD_BYTES + 1];
        big[0] = 42;
        UUID bigPut = UUID.randomUUID();
        try (Transaction tx = store.begin()) {
            tx.enqueue("q", item(1, 10));
            tx.enqueue("q", big);
            tx.enqueue("q", item(3, 10));
            tx.put(bigPut, big);
            tx.commit();
        }
        try (Transaction tx = store.begin()) {
            List<Message> got = tx.poll("q", 10);
            assertEquals(3, got.size());
            assertEquals(1, got.get(0).payload()[3]);
            assertArrayEquals(big, got.get(1).payload());
            assertEquals(3, got.get(2).payload()[3]);
            assertArrayEquals(big, tx.get(bigPut));
        }
    }

    @Test
    public void aChunkThatFailsToApplyRollsTheWholeTransactionBack() {
        try (Transaction tx = store.begin()) {
            tx.enqueue("q", item(1, 4));
            tx.commit();
        }
        try (Transaction tx = store.begin()) {
            assertEquals(1, tx.poll("q", 5).size()); // claimed by this transaction
            ByteBuffer bad = ByteBuffer.allocateDirect(1).put((byte) 9);
            tx.withHandle(h -> {
                IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> TransactionNative.apply(h, bad, 1));
                assertTrue(e.getMessage(), e.getMessage().contains("transaction rolled back") && e.getMessage().contains("unknown pending operation 9"));
                assertThrows(IllegalArgumentException.class, () -> TransactionNative.apply(h, bad, 2)); // beyond the buffer's capacity
            });
        }
        assertEquals("the claimed item went back", 1, store.queueSize("q"));
        try (Transaction tx = store.begin()) {
            assertEquals(1, ByteBuffer.wrap(tx.poll("q").payload()).getInt());
        }
    }

    @Test
    public void itemsEnqueuedOverManyChunksAreAllPolledInOrderByTheSameTransaction() {
        int n = 30_000; // 36-byte payloads: about 7 chunks of the 256 KiB buffer
        try (Transaction tx = store.begin()) {
            for (int i = 0; i < n; i++) {
                tx.enqueue("q", item(i, 36));
            }
            List<Message> own = tx.poll("q", n);
            assertEquals(n, own.size());
            for (int i = 0; i < n; i++) {
                assertEquals(i, ByteBuffer.wrap(own.get(i).payload()).getInt());
            }
            tx.commit();
        }
        assertEquals("polled by the transaction that enqueued them", 0, store.queueSize("q"));
    }

    @Test
    public void closingTheStoreUnderATransactionOfManyChunksCommitsNothingAndLeavesItUsable() throws IOException {
        Path dir = tmp.newFolder().toPath().resolve("closed-under");
        Store s = Store.open(dir, StoreOptions.defaults());
        Transaction tx = s.begin();
        for (int i = 0; i < 100_000; i++) {
            tx.enqueue("q", item(i, 36));
        }
        s.close();
        assertThrows(IllegalStateException.class, tx::commit);
        tx.close();
        try (Store again = Store.open(dir, StoreOptions.defaults())) {
            assertEquals(0, again.queueSize("q"));
            try (Transaction t = again.begin()) {
                t.enqueue("q", item(7, 4));
                t.commit();
            }
            assertEquals(1, again.queueSize("q"));
        }
    }

    @Test
    public void bufferedWorkIsDiscardedByRollbackAndClose() {
        try (Transaction tx = store.begin()) {
            tx.enqueue("q", item(1, 4));
            tx.rollback();
        }
        try (Transaction tx = store.begin()) {
            tx.enqueue("q", item(2, 4));
        }
        assertEquals(0, store.queueSize("q"));
        try (Transaction tx = store.begin()) {
            assertNull(tx.poll("q"));
        }
    }

    @Test
    public void bufferedCallsStillFailAtOnceWhenTheyCannotSucceed() throws IOException {
        Transaction tx = store.begin();
        tx.commit();
        assertThrows(IllegalStateException.class, () -> tx.enqueue("q", new byte[1]));
        assertThrows(IllegalStateException.class, () -> tx.put(UUID.randomUUID(), new byte[1]));
        tx.close();
        Transaction open = store.begin();
        store.close();
        IllegalStateException e = assertThrows(IllegalStateException.class, () -> open.enqueue("q", new byte[1]));
        assertTrue(e.getMessage(), e.getMessage().contains("store is closed"));
        open.close();
        store = Store.open(tmp.newFolder().toPath().resolve("s2"), StoreOptions.defaults());
    }

    @Test
    public void generatedIdsAreVersion7AndStrictlyIncreasing() {
        UUID prev = Ids.next();
        for (int i = 0; i < 100_000; i++) {
            UUID id = Ids.next();
            assertEquals(7, id.version());
            assertEquals(2, id.variant());
            assertTrue(prev + " then " + id, Long.compareUnsigned(prev.getMostSignificantBits(), id.getMostSignificantBits()) < 0);
            prev = id;
        }
        long ms = prev.getMostSignificantBits() >>> 16;
        assertTrue("timestamp is close to now", Math.abs(ms - System.currentTimeMillis()) < 60_000);
    }
}
