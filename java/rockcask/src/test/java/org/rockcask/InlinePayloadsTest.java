package org.rockcask;

import static org.junit.Assert.assertArrayEquals;
import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertNull;
import static org.junit.Assert.assertThrows;

import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import org.junit.Before;
import org.junit.Test;

/** Payloads kept in their queue entries ({@link StoreOptions#inlinePayloadBytes}). */
public class InlinePayloadsTest extends WithOpenStore {
    private static final int LIMIT = 64;

    @Before
    public void reopenWithInlinePayloads() {
        store.close();
        store = Store.open(dir, StoreOptions.defaults().syncOnCommit(false).inlinePayloadBytes(LIMIT));
    }

    private static byte[] payload(int i, int length) {
        byte[] p = new byte[length];
        for (int j = 0; j < length; j++) {
            p[j] = (byte) (i + j);
        }
        return p;
    }

    @Test
    public void inlineAndObjectPayloadsComeBackInOrderAfterAReopenWithoutTheOption() {
        List<byte[]> sent = new ArrayList<>();
        try (Transaction tx = store.begin()) {
            // Through the buffered path, one native call for many, at and around the limit.
            for (int i = 0; i < 1000; i++) {
                byte[] p = payload(i, i % (2 * LIMIT + 2));
                tx.enqueue("q", p);
                sent.add(p);
            }
            tx.commit();
        }
        store.close();
        store = Store.open(dir, StoreOptions.defaults().syncOnCommit(false));
        List<byte[]> received = new ArrayList<>();
        try (Transaction tx = store.begin()) {
            for (Message m : tx.poll("q", 2000)) {
                received.add(m.payload());
            }
            tx.commit();
        }
        assertEquals(sent.size(), received.size());
        for (int i = 0; i < sent.size(); i++) {
            assertArrayEquals("item " + i, sent.get(i), received.get(i));
        }
        assertEquals(0, store.queueSize("q"));
    }

    @Test
    public void anInlinePayloadHasNoObjectButALargerOneHas() {
        UUID inline;
        UUID object;
        try (Transaction tx = store.begin()) {
            inline = tx.enqueue("q", payload(1, LIMIT));
            object = tx.enqueue("q", payload(2, LIMIT + 1));
            tx.commit();
        }
        try (Transaction tx = store.begin()) {
            assertNull(tx.get(inline));
            assertArrayEquals(payload(2, LIMIT + 1), tx.get(object));
            RockCaskException e = assertThrows(RockCaskException.class, () -> {
                tx.enqueue("other", inline);
                tx.commit();
            });
            assertEquals(RockCaskException.Status.NoSuchObject, e.status());
        }
        try (Transaction tx = store.begin()) {
            List<Message> polled = tx.poll("q", 5);
            assertEquals(inline, polled.get(0).id());
            assertArrayEquals(payload(1, LIMIT), polled.get(0).payload());
            assertArrayEquals(payload(2, LIMIT + 1), polled.get(1).payload());
            tx.commit();
        }
        try (Transaction tx = store.begin()) {
            assertNull("consumed with its entry", tx.get(object));
        }
    }
}
