package org.rockcask;

import static org.junit.Assert.assertArrayEquals;
import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertNotNull;
import static org.junit.Assert.assertNull;
import static org.junit.Assert.assertThrows;
import static org.junit.Assert.assertTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.UUID;
import java.util.stream.Collectors;
import org.junit.After;
import org.junit.Before;
import org.junit.Rule;
import org.junit.Test;
import org.junit.rules.TemporaryFolder;

public class StoreTest {
    @Rule
    public TemporaryFolder tmp = new TemporaryFolder();

    private Path dir;
    private Store store;

    static byte[] b(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    static String s(byte[] b) {
        return new String(b, StandardCharsets.UTF_8);
    }

    static List<String> texts(List<Message> ms) {
        return ms.stream().map(m -> s(m.payload())).collect(Collectors.toList());
    }

    @Before
    public void openStore() throws IOException {
        dir = tmp.getRoot().toPath().resolve("store");
        store = Store.open(dir, StoreOptions.defaults().syncOnCommit(false));
    }

    @After
    public void closeStore() {
        store.close();
    }

    private void enqueueAll(String queue, String... items) {
        try (Transaction tx = store.begin()) {
            for (String item : items) {
                tx.enqueue(queue, b(item));
            }
            tx.commit();
        }
    }

    @Test
    public void enqueuedItemsArePolledInFifoOrderAfterCommit() {
        enqueueAll("q", "a", "b", "c");
        assertEquals(3, store.queueSize("q"));
        try (Transaction tx = store.begin()) {
            assertEquals("a", s(tx.poll("q").payload()));
            assertEquals(Arrays.asList("b", "c"), texts(tx.poll("q", 10)));
            assertNull(tx.poll("q"));
            tx.commit();
        }
        assertEquals(0, store.queueSize("q"));
    }

    @Test
    public void enqueueReturnsTheIdOfTheNewObject() {
        UUID id;
        try (Transaction tx = store.begin()) {
            id = tx.enqueue("q", b("payload"));
            assertEquals("payload", s(tx.get(id)));
            tx.commit();
        }
        try (Transaction tx = store.begin()) {
            Message m = tx.poll("q");
            assertEquals(id, m.id());
            assertEquals("new ids are time-ordered UUIDv7", 7, id.version());
        }
    }

    @Test
    public void closingWithoutCommitRollsBackAndReturnsItemsInOrder() {
        enqueueAll("q", "1", "2", "3");
        try (Transaction tx = store.begin()) {
            assertEquals(Arrays.asList("1", "2"), texts(tx.poll("q", 2)));
            tx.enqueue("q", b("uncommitted"));
        }
        try (Transaction tx = store.begin()) {
            assertEquals(Arrays.asList("1", "2", "3"), texts(tx.poll("q", 10)));
        }
    }

    @Test
    public void explicitRollbackUndoesEverythingAndIsIdempotent() {
        enqueueAll("q", "x");
        UUID id = UUID.randomUUID();
        try (Transaction tx = store.begin()) {
            tx.poll("q");
            tx.put(id, b("p"));
            tx.rollback();
            tx.rollback();
            assertThrows(IllegalStateException.class, () -> tx.poll("q"));
        }
        try (Transaction tx = store.begin()) {
            assertNull(tx.get(id));
            assertEquals("x", s(tx.poll("q").payload()));
        }
    }

    @Test
    public void peekShowsTheHeadWithoutRemovingIt() {
        enqueueAll("q", "a", "b", "c");
        try (Transaction tx = store.begin()) {
            assertEquals(Arrays.asList("a", "b"), texts(tx.peek("q", 2)));
            assertEquals(Arrays.asList("a", "b", "c"), texts(tx.peek("q", 10)));
            assertTrue(tx.peek("empty", 3).isEmpty());
        }
        assertEquals(3, store.queueSize("q"));
    }

    @Test
    public void enqueueByIdPutsTheSameObjectOnASecondQueueWithoutCopy() {
        try (Transaction tx = store.begin()) {
            UUID id = tx.enqueue("parse.out", b("doc"));
            tx.enqueue("index.in", id);
            tx.commit();
        }
        Message first;
        try (Transaction tx = store.begin()) {
            first = tx.poll("parse.out");
            tx.commit();
        }
        try (Transaction tx = store.begin()) {
            Message second = tx.poll("index.in");
            assertEquals(first.id(), second.id());
            assertEquals("doc", s(second.payload()));
            tx.commit();
            // Last owning entry consumed: the object is gone.
        }
        try (Transaction tx = store.begin()) {
            assertNull(tx.get(first.id()));
        }
    }

    @Test
    public void enqueueOfAnUnknownIdFailsWithNoSuchObject() {
        try (Transaction tx = store.begin()) {
            RockCaskException e = assertThrows(RockCaskException.class, () -> tx.enqueue("q", UUID.randomUUID()));
            assertEquals(RockCaskException.Status.NoSuchObject, e.status());
        }
    }

    @Test
    public void putGetDeleteObjectsByUuid() {
        UUID id = UUID.randomUUID();
        try (Transaction tx = store.begin()) {
            assertFalse(tx.delete(id));
            tx.put(id, b("v1"));
            tx.put(id, b("v2"));
            tx.commit();
        }
        try (Transaction tx = store.begin()) {
            assertEquals("v2", s(tx.get(id)));
            assertTrue(tx.delete(id));
            assertNull(tx.get(id));
            tx.commit();
        }
        try (Transaction tx = store.begin()) {
            assertNull(tx.get(id));
        }
    }

    @Test
    public void consumingTheEntryOfADeletedQueueOwnedObjectKeepsTheObjectPutUnderItsIdSince() {
        UUID id;
        try (Transaction tx = store.begin()) {
            id = tx.enqueue("q", b("owned"));
            tx.commit();
        }
        try (Transaction tx = store.begin()) {
            assertTrue(tx.delete(id));
            tx.commit();
        }
        try (Transaction tx = store.begin()) {
            tx.put(id, b("new"));
            tx.commit();
        }
        try (Transaction tx = store.begin()) {
            assertEquals("new", s(tx.poll("q").payload()));
            tx.commit();
        }
        try (Transaction tx = store.begin()) {
            assertEquals("new", s(tx.get(id)));
        }
    }

    @Test
    public void emptyAndLargePayloadsRoundTrip() {
        byte[] big = new byte[8 << 20];
        new java.util.Random(1).nextBytes(big);
        try (Transaction tx = store.begin()) {
            tx.enqueue("q", new byte[0]);
            tx.enqueue("q", big);
            tx.commit();
        }
        try (Transaction tx = store.begin()) {
            assertArrayEquals(new byte[0], tx.poll("q").payload());
            assertArrayEquals(big, tx.poll("q").payload());
        }
    }

    @Test
    public void queuesAreListedAndSizedAndStatsAddUp() {
        enqueueAll("b", "1");
        enqueueAll("a", "1", "2");
        assertEquals(Arrays.asList("a", "b"), store.queues());
        assertEquals(2, store.queueSize("a"));
        assertEquals(0, store.queueSize("never-used"));
        StoreStats stats = store.stats();
        assertEquals(2, stats.queues());
        assertEquals(3, stats.queuedItems());
        assertTrue(stats.diskBytes() > 0);
        assertTrue(stats.nativeMemoryBytes() > 0);
        assertNotNull(stats.toString());
    }

    @Test
    public void unicodeQueueNamesRoundTrip() {
        String name = "données/\u00e9t\u00e9/\ud83d\ude80";
        enqueueAll(name, "x");
        assertEquals(Arrays.asList(name), store.queues());
        assertEquals(1, store.queueSize(name));
    }

    @Test
    public void dataSurvivesCloseAndReopen() {
        enqueueAll("q", "1", "2", "3");
        try (Transaction tx = store.begin()) {
            tx.poll("q");
            tx.commit();
        }
        store.close();
        store = Store.open(dir, StoreOptions.defaults());
        assertEquals(2, store.queueSize("q"));
        try (Transaction tx = store.begin()) {
            assertEquals(Arrays.asList("2", "3"), texts(tx.poll("q", 5)));
        }
    }

    @Test
    public void compactKeepsTheData() {
        enqueueAll("q", "1", "2");
        store.compact();
        assertEquals(2, store.queueSize("q"));
    }

    @Test
    public void optionsAreImmutableAndValidated() {
        StoreOptions d = StoreOptions.defaults();
        StoreOptions changed = d.syncOnCommit(false).blockCacheBytes(1 << 20).writeBufferBytes(4 << 20).createIfMissing(false).readOnly(true);
        assertTrue(d.syncOnCommit());
        assertFalse(changed.syncOnCommit());
        assertEquals(1 << 20, changed.blockCacheBytes());
        assertEquals(4 << 20, changed.writeBufferBytes());
        assertFalse(changed.createIfMissing());
        assertTrue(changed.readOnly());
        assertThrows(IllegalArgumentException.class, () -> d.blockCacheBytes(-1));
        assertThrows(IllegalArgumentException.class, () -> d.writeBufferBytes(-1));
        assertTrue(changed.toString().contains("readOnly=true"));
    }

    @Test
    public void messagesCompareByIdSequenceAndPayloadButNotByDeliveries() {
        UUID id = UUID.randomUUID();
        Message a = new Message(id, b("x"), 3, 1);
        assertEquals(a, new Message(id, b("x"), 3, 1));
        assertEquals(a, new Message(id, b("x"), 3, 2));
        assertEquals(a.hashCode(), new Message(id, b("x"), 3, 2).hashCode());
        assertFalse(a.equals(new Message(id, b("y"), 3, 1)));
        assertFalse(a.equals(new Message(UUID.randomUUID(), b("x"), 3, 1)));
        assertFalse(a.equals(new Message(id, b("x"), 4, 1)));
        assertTrue(a.toString().contains("1 bytes"));
        assertTrue(a.toString().contains("#3"));
        assertTrue(new Message(id, b("x"), 3, 7).toString().contains("delivery 7"));
        assertTrue(new Message(id, null, Message.NO_SEQUENCE, 1).toString().contains("deleted"));
    }

    @Test
    public void storePathAndOptionsAreReported() {
        assertEquals(dir.toAbsolutePath(), store.path());
        assertFalse(store.options().syncOnCommit());
        assertTrue(store.toString().contains(dir.toString()));
    }
}
