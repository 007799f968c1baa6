package org.rockcask;

import static org.junit.Assert.assertArrayEquals;
import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertNull;
import static org.junit.Assert.assertThrows;
import static org.junit.Assert.assertTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.Test;
import org.rockcask.testsupport.ChildJvm;

/** Delivery counts, the delivery limit and dead letters, delayed retry: through the Java API. */
public class PoisonMessagesTest extends WithOpenStore {
    private static String text(Message m) {
        return new String(m.payload(), StandardCharsets.UTF_8);
    }

    private void fill(Store s, String queue, String... items) {
        try (Transaction tx = s.begin()) {
            for (String item : items) {
                tx.enqueue(queue, b(item));
            }
            tx.commit();
        }
    }

    private List<String> drain(Store s, String queue) {
        List<String> out = new ArrayList<>();
        try (Transaction tx = s.begin()) {
            for (Message m : tx.poll(queue, 1000)) {
                out.add(text(m));
            }
            tx.commit();
        }
        return out;
    }

    @Test
    public void aComponentThrowingOnOneEntryDeadLettersItWithItsReasonWhileTheRestFlows() {
        store.configureQueue("in", QueueOptions.defaults().maxDeliveries(3));
        fill(store, "in", "a", "b", "bad", "c");
        List<Integer> badDeliveries = new ArrayList<>();
        for (;;) {
            try (Transaction tx = store.begin()) {
                Message m = tx.poll("in");
                if (m == null) {
                    break;
                }
                try {
                    if (text(m).equals("bad")) {
                        badDeliveries.add(m.deliveries());
                        throw new IllegalStateException("cannot parse 'bad'");
                    }
                    tx.enqueue("out", m.payload());
                    tx.commit();
                } catch (IllegalStateException e) {
                    tx.rollback(e.getMessage());
                }
            }
        }
        assertEquals(Arrays.asList(1, 2, 3), badDeliveries);
        assertEquals(Arrays.asList("a", "b", "c"), drain(store, "out"));
        List<DeadLetter> dead = store.deadLetters("in", 10);
        assertEquals(1, dead.size());
        DeadLetter d = dead.get(0);
        assertArrayEquals(b("bad"), d.payload());
        assertEquals("in", d.originQueue());
        assertEquals(2, d.originSequence());
        assertEquals(3, d.deliveries());
        assertEquals("cannot parse 'bad'", d.reason());
        assertFalse(d.deadAt().isAfter(Instant.now()));
        assertTrue(d.deadAt().isAfter(Instant.now().minusSeconds(60)));
        assertEquals(1, store.queueSize("in.dead"));
        assertTrue(d.toString().contains("cannot parse"));
    }

    @Test
    public void closingWithoutCommitCountsAsAFailedDeliveryAndPeekShowsTheNextCount() {
        fill(store, "q", "x");
        try (Transaction tx = store.begin()) {
            assertEquals(1, tx.poll("q").deliveries());
        }
        try (Transaction tx = store.begin()) {
            assertEquals(2, tx.peek("q", 1).get(0).deliveries());
            assertEquals(2, tx.poll("q").deliveries());
            tx.rollback();
        }
        store.configureQueue("q", QueueOptions.defaults().maxDeliveries(3));
        try (Transaction tx = store.begin()) {
            tx.poll("q");
        }
        assertEquals(0, store.queueSize("q"));
        assertEquals("transaction closed without commit or rollback", store.deadLetters("q", 1).get(0).reason());
    }

    @Test
    public void deadLettersAreRequeuedOrDroppedInATransaction() {
        store.configureQueue("in", QueueOptions.defaults().maxDeliveries(1).deadLetterQueue("parking"));
        fill(store, "in", "1", "2", "3");
        for (int i = 0; i < 3; i++) {
            try (Transaction tx = store.begin()) {
                tx.poll("in");
                tx.rollback("no");
            }
        }
        assertEquals(3, store.queueSize("parking"));
        List<DeadLetter> dead = store.deadLetters("in", 10);
        assertEquals(2, store.deadLetters("in", 2).size());
        try (Transaction tx = store.begin()) {
            assertEquals(1, tx.requeueDeadLetters("in", dead.get(1).sequence()));
            assertEquals(1, tx.dropDeadLetters("in", dead.get(0).sequence()));
            assertThrows(IllegalArgumentException.class, () -> tx.requeueDeadLetters("in"));
            tx.commit();
        }
        assertEquals(Arrays.asList("2"), drain(store, "in"));
        try (Transaction tx = store.begin()) {
            RuntimeException e = assertThrows(IllegalArgumentException.class, () -> tx.dropDeadLetters("in", 999));
            assertTrue(e.getMessage(), e.getMessage().contains("no such dead letter"));
        }
        try (Transaction tx = store.begin()) {
            assertEquals(1, tx.requeueAllDeadLetters("in"));
            tx.commit();
        }
        assertEquals(Arrays.asList("3"), drain(store, "in"));
        assertTrue(store.deadLetters("in", 10).isEmpty());
        try (Transaction tx = store.begin()) {
            assertEquals(0, tx.dropAllDeadLetters("in"));
        }
    }

    @Test
    public void aDelayedEntryIsNotDeliveredBeforeItsTimeThenIs() throws Exception {
        fill(store, "q", "slow", "next");
        try (Transaction tx = store.begin()) {
            tx.poll("q");
            tx.rollback("busy", Duration.ofMillis(300));
        }
        long rolledBackAt = System.nanoTime();
        try (Transaction tx = store.begin()) {
            assertEquals("next", text(tx.poll("q")));
            assertNull("the delayed entry is skipped", tx.poll("q"));
            Message due = tx.take("q", Duration.ofSeconds(10));
            assertTrue("not before its delay", System.nanoTime() - rolledBackAt >= TimeUnit.MILLISECONDS.toNanos(300));
            assertEquals("slow", text(due));
            assertEquals(2, due.deliveries());
            tx.commit();
        }
        assertEquals(0, store.queueSize("q"));
    }

    @Test
    public void optionsAtTheirExtremesAreKeptOrRefused() {
        assertThrows(IllegalArgumentException.class, () -> QueueOptions.defaults().maxDeliveries(-2));
        assertThrows(IllegalArgumentException.class, () -> QueueOptions.defaults().capacity(-1));
        assertThrows(IllegalArgumentException.class, () -> QueueOptions.defaults().deadLetterQueue(""));
        assertThrows(IllegalArgumentException.class, () -> StoreOptions.defaults().maxDeliveries(-1));
        QueueOptions extreme = QueueOptions.defaults().maxDeliveries(Integer.MAX_VALUE).capacity(Long.MAX_VALUE).capacityBytes(Long.MAX_VALUE).deadLetterQueue("dl");
        store.configureQueue("q", extreme);
        assertEquals(extreme, store.queueOptions("q"));
        assertEquals(QueueOptions.defaults(), store.queueOptions("other"));
        IllegalArgumentException own = assertThrows(IllegalArgumentException.class, () -> store.configureQueue("q", QueueOptions.defaults().deadLetterQueue("q")));
        assertTrue(own.getMessage(), own.getMessage().contains("its own dead-letter queue"));
        store.configureQueue("q", QueueOptions.defaults());
        assertEquals(QueueOptions.defaults(), store.queueOptions("q"));
        assertThrows(IllegalArgumentException.class, () -> store.deadLetters("q", -1));
        assertThrows(IllegalArgumentException.class, () -> store.deadLetters("q", Integer.MAX_VALUE));
        try (Transaction tx = store.begin()) {
            assertThrows(IllegalArgumentException.class, () -> tx.rollback("x", Duration.ofMillis(-1)));
            assertThrows(NullPointerException.class, () -> tx.rollback(null));
            assertTrue("a refused rollback leaves the transaction open", tx.peek("q", 1).isEmpty());
        }
    }

    @Test
    public void aRetryDelayOverTheLimitIsRefusedNamingItAndTheTransactionStaysUsable() {
        fill(store, "q", "first", "second");
        Duration limit = Duration.ofMillis(Wire.MAX_RETRY_DELAY_MILLIS);
        assertEquals(Duration.ofDays(365), limit);
        try (Transaction tx = store.begin()) {
            assertEquals("first", text(tx.poll("q")));
            for (Duration bad : Arrays.asList(limit.plusMillis(1), limit.plusNanos(1), Duration.ofSeconds(Long.MAX_VALUE), Duration.ofMillis(-1), Duration.ofSeconds(Long.MIN_VALUE))) {
                IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> tx.rollback("r", bad));
                assertTrue(e.getMessage(), e.getMessage().contains(bad.toString()));
                if (!bad.isNegative()) {
                    assertTrue(e.getMessage(), e.getMessage().contains(Long.toString(Wire.MAX_RETRY_DELAY_MILLIS)));
                }
            }
            assertEquals("still open and usable", "second", text(tx.poll("q")));
            tx.rollback("r", limit);
        }
        assertEquals(2, store.queueSize("q"));
        try (Transaction tx = store.begin()) {
            assertNull("the limit itself is accepted", tx.poll("q"));
            assertEquals(2, tx.dropQueue("q"));
            tx.commit();
        }
        fill(store, "q", "again");
        try (Transaction tx = store.begin()) {
            tx.poll("q");
            tx.rollback("r", Duration.ZERO);
        }
        try (Transaction tx = store.begin()) {
            assertEquals("zero is no delay", "again", text(tx.poll("q")));
        }
    }

    @Test
    public void aChildJvmHaltingOnOneEntryStopsCrashLoopingAtTheLimitAndEveryOtherEntryIsProcessedOnce() throws Exception {
        store.close();
        Path crashDir = tmp.newFolder().toPath().resolve("crash-loop");
        int limit = 3;
        try (Store s = Store.open(crashDir, StoreOptions.defaults())) {
            fill(s, "in", "1", "2", "poison", "3", "4");
        }
        int halts = 0;
        for (int run = 0; run < limit + 2; run++) {
            Path log = tmp.newFile("child-" + run + ".log").toPath();
            Process child = ChildJvm.builder(new ArrayList<>(), PoisonChild.class, crashDir.toString(), Integer.toString(limit))
                    .redirectErrorStream(true).redirectOutput(log.toFile()).start();
            assertTrue("child finished", child.waitFor(120, TimeUnit.SECONDS));
            String output = new String(Files.readAllBytes(log), StandardCharsets.UTF_8);
            if (child.exitValue() == 0) {
                break;
            }
            assertEquals(output, 3, child.exitValue());
            halts++;
            assertEquals("HALT " + halts, output.trim());
        }
        assertEquals("the entry was delivered exactly " + limit + " times", limit, halts);
        store = Store.open(crashDir, StoreOptions.defaults());
        assertEquals(Arrays.asList("1", "2", "3", "4"), drain(store, "out"));
        assertEquals(0, store.queueSize("in"));
        List<DeadLetter> dead = store.deadLetters("in", 10);
        assertEquals(1, dead.size());
        assertArrayEquals(b("poison"), dead.get(0).payload());
        assertEquals(limit, dead.get(0).deliveries());
        assertEquals("the process ended while the entry was being delivered", dead.get(0).reason());
    }
}
