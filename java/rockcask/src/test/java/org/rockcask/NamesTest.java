package org.rockcask;

import static org.junit.Assert.assertArrayEquals;
import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertThrows;
import static org.junit.Assert.assertTrue;

import java.time.Duration;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.function.Consumer;
import org.junit.Test;

/**
 * Every name is converted one way ({@code org.rockcask.internal.Utf8}): a string that is not
 * valid UTF-16 (an unpaired surrogate, which Java's UTF-8 encoder would write as {@code '?'})
 * is refused with IllegalArgumentException naming the argument and the surrogate's index,
 * whichever kind of name it is, so that two strings never name one queue; characters above
 * U+FFFF work as names. A rollback's reason is text: an unpaired surrogate becomes {@code '?'}.
 */
public class NamesTest extends WithOpenStore {
    /** Strings that are not valid UTF-16, and the index of their unpaired surrogate. */
    private static final String[] INVALID = {"\uD800", "\uDC00", "a\uD800b", "\uDC00\uD800", "\uD83D\uDE00\uD800"};
    private static final int[] AT = {0, 0, 1, 0, 2};
    /** Valid names with surrogate pairs (U+1F600, U+1D11E). */
    private static final String[] EMOJI = {"\uD83D\uDE00", "q-\uD83D\uDE00-\uD834\uDD1E"};

    /** Each invalid string, given to {@code call}, is refused naming {@code what} and the index. */
    private static void refusedEverywhere(String what, Consumer<String> call) {
        for (int i = 0; i < INVALID.length; i++) {
            String s = INVALID[i];
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> call.accept(s));
            assertTrue(e.getMessage(), e.getMessage().startsWith(what + " \""));
            assertTrue(e.getMessage(), e.getMessage().contains("at index " + AT[i] + " of its " + s.length() + " chars"));
            assertTrue(e.getMessage(), e.getMessage().contains(String.format("(\\u%04X)", (int) s.charAt(AT[i]))));
        }
    }

    private void inTx(Consumer<Transaction> work) {
        try (Transaction tx = store.begin()) {
            work.accept(tx);
        }
    }

    @Test
    public void queueNamesThatAreNotValidUtf16AreRefusedByEveryCall() {
        refusedEverywhere("queue name", q -> inTx(tx -> tx.enqueue(q, b("x"))));
        refusedEverywhere("queue name", q -> inTx(tx -> tx.enqueue(q, java.util.UUID.randomUUID())));
        refusedEverywhere("queue name", q -> inTx(tx -> tx.poll(q, 1)));
        refusedEverywhere("queue name", q -> inTx(tx -> tx.peek(q, 1)));
        refusedEverywhere("queue name", q -> inTx(tx -> tx.take(q, Duration.ZERO)));
        refusedEverywhere("queue name", q -> inTx(tx -> tx.dropQueue(q)));
        refusedEverywhere("queue name", q -> inTx(tx -> tx.moveQueue(q, "ok")));
        refusedEverywhere("queue name", q -> inTx(tx -> tx.moveQueue("ok", q)));
        refusedEverywhere("queue name", q -> inTx(tx -> tx.requeueAllDeadLetters(q)));
        refusedEverywhere("queue name", q -> inTx(tx -> tx.dropDeadLetters(q, 1)));
        refusedEverywhere("queue name", q -> store.queueSize(q));
        refusedEverywhere("queue name", q -> store.queueOptions(q));
        refusedEverywhere("queue name", q -> store.deadLetters(q, 1));
        refusedEverywhere("queue name", q -> store.configureQueue(q, QueueOptions.defaults()));
        refusedEverywhere("queue name", q -> StoreOptions.defaults().queueCompression(q, Compression.LZ4));
        // Nothing was created by any of them (before, each of them named the queue "?").
        assertEquals(Collections.emptyList(), store.queues());
        assertEquals(0, store.queueSize("?"));
    }

    @Test
    public void twoLoneSurrogatesNoLongerNameOneQueue() {
        // Java's encoder writes both as '?': they were one queue, and a move between them a move
        // into itself.
        assertThrows(IllegalArgumentException.class, () -> inTx(tx -> tx.moveQueue("\uD800", "\uDC00")));
        inTx(tx -> {
            tx.enqueue("?", b("question mark"));
            tx.commit();
        });
        assertThrows(IllegalArgumentException.class, () -> inTx(tx -> tx.poll("\uD800", 1)));
        assertEquals(1, store.queueSize("?"));
    }

    @Test
    public void aDeadLetterQueueNamedByAnInvalidStringIsRefusedAndTheQueueNamingItselfToo() {
        // The case as found: queue "\uD800" with dead-letter queue "\uDC00" was accepted (both
        // '?' on one side, three U+FFFD on the other), and dead letters went where
        // poll("\uDC00") did not look.
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> store.configureQueue("\uD800", QueueOptions.defaults().deadLetterQueue("\uDC00")));
        assertTrue(e.getMessage(), e.getMessage().startsWith("queue name \"\\uDC00\""));
        refusedEverywhere("queue name", q -> QueueOptions.defaults().deadLetterQueue(q));
        refusedEverywhere("queue name", q -> store.configureQueue(q, QueueOptions.defaults().deadLetterQueue("dead")));
        assertEquals(QueueOptions.defaults(), store.queueOptions("?"));
        assertEquals(Collections.emptyList(), store.queues());
    }

    @Test
    public void mapNamesAndStringKeysThatAreNotValidUtf16AreRefused() {
        refusedEverywhere("map name", m -> inTx(tx -> tx.map(m)));
        refusedEverywhere("map name", m -> store.mapGet(m, b("k")));
        refusedEverywhere("map name", m -> store.mapReader(m));
        refusedEverywhere("map key", k -> inTx(tx -> tx.map("m").put(k, b("v"))));
        refusedEverywhere("map key", k -> inTx(tx -> tx.map("m").get(k)));
        refusedEverywhere("map key", k -> inTx(tx -> tx.map("m").add(k, 1)));
        assertEquals(Collections.emptyList(), store.maps());
    }

    @Test
    public void prefixesThatAreNotValidUtf16AreRefused() {
        refusedEverywhere("queue name prefix", p -> store.queues(p));
    }

    @Test
    public void namesWithCharactersAboveTheBasicPlaneWork() {
        for (String name : EMOJI) {
            store.configureQueue(name, QueueOptions.defaults().maxDeliveries(1).deadLetterQueue(name + ".dlq"));
            inTx(tx -> {
                tx.enqueue(name, b("one"));
                tx.enqueue(name, b("two"));
                tx.map(name).put(name, b("v"));
                tx.commit();
            });
            try (Transaction tx = store.begin()) {
                assertEquals(1, tx.poll(name, 1).size());
                tx.rollback("gave up on " + name);
            }
            assertEquals(name + ".dlq", store.queueOptions(name).deadLetterQueue());
            List<DeadLetter> dead = store.deadLetters(name, 10);
            assertEquals(1, dead.size());
            assertEquals(name, dead.get(0).originQueue());
            assertEquals("gave up on " + name, dead.get(0).reason());
            inTx(tx -> {
                assertEquals(1, tx.poll(name + ".dlq", 10).size());
                assertArrayEquals(b("v"), tx.map(name).get(name));
                assertEquals(1, tx.moveQueue(name, name + ".moved"));
                tx.commit();
            });
            assertEquals(Collections.singletonList(name + ".moved"), store.queues(name + ".m"));
            assertArrayEquals(b("v"), store.mapGet(name, b(name)));
        }
        assertTrue(store.maps().containsAll(Arrays.asList(EMOJI)));
    }

    @Test
    public void aReasonIsTextAndItsUnpairedSurrogatesBecomeQuestionMarks() {
        store.configureQueue("q", QueueOptions.defaults().maxDeliveries(1));
        String[] reasons = {"\uD800", "a\uD800b", "\uDC00\uD83D\uDE00", "\uD83D\uDE00 fine"};
        String[] recorded = {"?", "a?b", "?\uD83D\uDE00", "\uD83D\uDE00 fine"};
        for (int i = 0; i < reasons.length; i++) {
            inTx(tx -> {
                tx.enqueue("q", b("x"));
                tx.commit();
            });
            String reason = reasons[i];
            try (Transaction tx = store.begin()) {
                assertEquals(1, tx.poll("q", 1).size());
                tx.rollback(reason);
            }
            List<DeadLetter> dead = store.deadLetters("q", 10);
            assertEquals(recorded[i], dead.get(dead.size() - 1).reason());
        }
        assertThrows(NullPointerException.class, () -> inTx(tx -> tx.rollback(null)));
    }
}
