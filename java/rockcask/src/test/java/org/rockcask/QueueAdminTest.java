package org.rockcask;

import static org.junit.Assert.assertArrayEquals;
import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertNull;
import static org.junit.Assert.assertThrows;
import static org.junit.Assert.assertTrue;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.UUID;
import org.junit.Test;

/** Entry positions ({@link Message#sequence()}) and whole-queue operations: list by prefix, drop, move. */
public class QueueAdminTest extends WithOpenStore {
    private static List<String> texts(List<Message> ms) {
        List<String> out = new ArrayList<>();
        for (Message m : ms) {
            out.add(new String(m.payload(), StandardCharsets.UTF_8));
        }
        return out;
    }

    private static List<Long> sequences(List<Message> ms) {
        List<Long> out = new ArrayList<>();
        for (Message m : ms) {
            out.add(m.sequence());
        }
        return out;
    }

    private List<UUID> fill(String queue, String... items) {
        List<UUID> ids = new ArrayList<>();
        try (Transaction tx = store.begin()) {
            for (String item : items) {
                ids.add(tx.enqueue(queue, b(item)));
            }
            tx.commit();
        }
        return ids;
    }

    private List<Message> peekAll(String queue) {
        try (Transaction tx = store.begin()) {
            return tx.peek(queue, 1 << 20);
        }
    }

    @Test
    public void sequencesArePositionsThatAPollAfterARollbackOrAReopenSeesAgain() {
        fill("q", "a", "b", "c");
        try (Transaction tx = store.begin()) {
            assertEquals(Arrays.asList(0L, 1L), sequences(tx.poll("q", 2)));
            tx.rollback();
        }
        try (Transaction tx = store.begin()) {
            tx.poll("q", 1);
            tx.commit();
        }
        store.close();
        store = Store.open(dir, StoreOptions.defaults().syncOnCommit(false));
        try (Transaction tx = store.begin()) {
            tx.enqueue("q", b("own"));
            List<Message> polled = tx.poll("q", 10);
            assertEquals(Arrays.asList("b", "c", "own"), texts(polled));
            assertEquals(Arrays.asList(1L, 2L, Message.NO_SEQUENCE), sequences(polled));
        }
    }

    @Test
    public void queuesWithAPrefixAreListedSortedAndBadPrefixesAreRefused() {
        for (String q : new String[] {"job.staging/b", "job.staging/a", "job", "other"}) {
            fill(q, "x");
        }
        assertEquals(Arrays.asList("job.staging/a", "job.staging/b"), store.queues("job.staging/"));
        assertEquals(store.queues(), store.queues(""));
        assertEquals(Collections.emptyList(), store.queues("none"));
        assertThrows(NullPointerException.class, () -> store.queues(null));
        char[] longName = new char[Wire.MAX_QUEUE_NAME_BYTES + 1];
        Arrays.fill(longName, 'x');
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> store.queues(new String(longName)));
        assertTrue(e.getMessage(), e.getMessage().contains("prefix"));
    }

    @Test
    public void aDroppedQueueLosesItsEntriesItsObjectsAndItsNameAndStartsAgainFromZero() {
        List<UUID> owned = fill("q", "a", "b", "c");
        fill("other", "kept");
        try (Transaction tx = store.begin()) {
            tx.enqueue("q", b("own"));
            assertEquals(4, tx.dropQueue("q"));
            tx.commit();
        }
        assertEquals(Collections.singletonList("other"), store.queues());
        assertEquals(0, store.queueSize("q"));
        try (Transaction tx = store.begin()) {
            for (UUID id : owned) {
                assertNull("queue-owned objects go with their entries", tx.get(id));
            }
        }
        store.close();
        store = Store.open(dir, StoreOptions.defaults().syncOnCommit(false));
        assertEquals(Collections.singletonList("other"), store.queues());
        fill("q", "again");
        assertEquals(Collections.singletonList(0L), sequences(peekAll("q")));
    }

    @Test
    public void aRolledBackDropLeavesTheQueueAndEntriesHeldElsewhereSurviveADrop() {
        fill("q", "a", "b", "c", "d");
        try (Transaction tx = store.begin()) {
            tx.dropQueue("q");
            tx.rollback();
        }
        assertEquals(Arrays.asList("a", "b", "c", "d"), texts(peekAll("q")));
        try (Transaction holder = store.begin()) {
            assertEquals(Arrays.asList("a"), texts(holder.poll("q", 1)));
            try (Transaction tx = store.begin()) {
                assertEquals(3, tx.dropQueue("q"));
                tx.commit();
            }
            assertEquals(Collections.singletonList("q"), store.queues());
            holder.rollback();
        }
        assertEquals(Arrays.asList("a"), texts(peekAll("q")));
    }

    /** Three entries in {@code queue}, the first polled and rolled back with a delay. */
    private void threeWithTheFirstDelayed(String queue, Duration delay) {
        fill(queue, "a", "b", "c");
        try (Transaction tx = store.begin()) {
            assertEquals("a", texts(tx.poll(queue, 1)).get(0));
            tx.rollback("later", delay);
        }
        assertEquals(Arrays.asList("b", "c"), texts(peekAll(queue)));
    }

    @Test
    public void aDropTakesAnEntryRolledBackWithADelayAndNothingIsDeliveredAfterIt() {
        threeWithTheFirstDelayed("q", Duration.ofMillis(500));
        try (Transaction tx = store.begin()) {
            assertEquals(3, tx.dropQueue("q"));
            tx.commit();
        }
        assertEquals(0, store.queueSize("q"));
        assertEquals(Collections.emptyList(), store.queues());
        try (Transaction tx = store.begin()) {
            assertNull("nothing once the delay has passed", tx.take("q", Duration.ofMillis(900)));
        }
        assertEquals(Collections.emptyList(), store.queues());
    }

    @Test
    public void aMoveTakesAnEntryRolledBackWithADelayAndItIsDueAtOnceInTheTarget() {
        threeWithTheFirstDelayed("s", Duration.ofHours(1));
        try (Transaction tx = store.begin()) {
            assertEquals(3, tx.moveQueue("s", "t"));
            tx.commit();
        }
        assertEquals(0, store.queueSize("s"));
        assertEquals(Collections.singletonList("t"), store.queues());
        try (Transaction tx = store.begin()) {
            List<Message> moved = tx.poll("t", 10);
            assertEquals(Arrays.asList("a", "b", "c"), texts(moved));
            assertEquals(1, moved.get(0).deliveries());
            tx.commit();
        }
    }

    @Test
    public void movingAQueueAppendsTheSameObjectsInOrderAndForgetsTheSource() {
        fill("target", "t1");
        List<UUID> staged = fill("staging", "s1", "s2");
        try (Transaction tx = store.begin()) {
            tx.enqueue("staging", b("s3"));
            assertEquals(3, tx.moveQueue("staging", "target"));
            tx.commit();
        }
        assertEquals(Collections.singletonList("target"), store.queues());
        List<Message> moved = peekAll("target");
        assertEquals(Arrays.asList("t1", "s1", "s2", "s3"), texts(moved));
        assertEquals(staged, Arrays.asList(moved.get(1).id(), moved.get(2).id()));
        assertEquals(Arrays.asList(0L, 1L, 2L, 3L), sequences(moved));
        try (Transaction tx = store.begin()) {
            assertArrayEquals(b("s1"), tx.get(staged.get(0)));
        }
    }

    @Test
    public void dropAndMoveRefuseBadNamesAFinishedTransactionAndAReadOnlyStore() {
        fill("s", "x");
        try (Transaction tx = store.begin()) {
            IllegalArgumentException self = assertThrows(IllegalArgumentException.class, () -> tx.moveQueue("s", "s"));
            assertTrue(self.getMessage(), self.getMessage().contains("into itself"));
            assertThrows(NullPointerException.class, () -> tx.dropQueue(null));
            assertThrows(NullPointerException.class, () -> tx.moveQueue("s", null));
            assertThrows(IllegalArgumentException.class, () -> tx.moveQueue("", "t"));
            assertEquals(0, tx.dropQueue("never-used"));
            tx.commit();
            assertThrows(IllegalStateException.class, () -> tx.dropQueue("s"));
            assertThrows(IllegalStateException.class, () -> tx.moveQueue("s", "t"));
        }
        store.close();
        store = Store.open(dir, StoreOptions.defaults().readOnly(true));
        try (Transaction tx = store.begin()) {
            RockCaskException e = assertThrows(RockCaskException.class, () -> tx.dropQueue("s"));
            assertEquals(RockCaskException.Status.ReadOnly, e.status());
        }
        assertEquals(Collections.singletonList("x"), texts(peekAll("s")));
    }
}
