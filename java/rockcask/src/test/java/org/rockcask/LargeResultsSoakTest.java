package org.rockcask;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertThrows;
import static org.junit.Assert.assertTrue;

import java.util.Arrays;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import org.junit.Test;

/**
 * Reads whose results together are larger than one Java array: three values of 720 MiB (2,160
 * MiB). Each read returns fewer (a cursor goes on to the next page), or, for a batched map get
 * that must answer every key, refuses with an {@link IllegalArgumentException} naming the total.
 * Needs a 6 GiB heap and several GiB of native memory: run by {@code make soak} (Gradle
 * {@code :rockcask:soakTest}), not by {@code make test}.
 */
public class LargeResultsSoakTest extends WithOpenStore {
    private static final int BIG = 720 << 20;

    private void putThreeBigValues() {
        byte[] value = new byte[BIG];
        for (int i = 0; i < 3; i++) {
            Arrays.fill(value, 0, 16, (byte) i);
            try (Transaction tx = store.begin()) {
                tx.map("m").put(new byte[] {(byte) i}, value);
                tx.commit();
            }
        }
    }

    @Test
    public void scansCursorsAndBatchedGetsOfMoreThanOneJavaArrayReturnFewerOrRefuseClearly() {
        putThreeBigValues();
        try (Transaction tx = store.begin()) {
            TxMap m = tx.map("m");
            List<Map.Entry<byte[], byte[]>> two = m.scan(null, null, false, 10);
            assertEquals("1,440 MiB fit the bound, the third pair does not", 2, two.size());
            assertEquals(1, two.get(1).getKey()[0]);
            assertEquals(BIG, two.get(1).getValue().length);
            two = null;
            int seen = 0;
            try (MapCursor c = m.cursor(null, null, false)) {
                for (Iterator<Map.Entry<byte[], byte[]>> it = c; it.hasNext(); seen++) {
                    Map.Entry<byte[], byte[]> e = it.next();
                    assertEquals(seen, e.getKey()[0]);
                    assertEquals(seen, e.getValue()[0]);
                }
            }
            assertEquals("the cursor walks on past a page cut at the byte bound", 3, seen);
            List<byte[]> keys = Arrays.asList(new byte[] {0}, new byte[] {1}, new byte[] {2});
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> m.getAll(keys));
            assertTrue(e.getMessage(), e.getMessage().contains((3L * BIG) + " bytes") && e.getMessage().contains("" + Store.MAX_RESULT_BYTES));
            assertEquals("the transaction stays usable", 2, m.getAll(keys.subList(0, 2)).size());
            tx.commit();
        }
    }

    @Test
    public void deadLettersOfMoreThanOneJavaArrayAreListedAFewAtATime() {
        store.configureQueue("q", QueueOptions.defaults().maxDeliveries(1));
        byte[] payload = new byte[BIG];
        for (int i = 0; i < 3; i++) {
            try (Transaction tx = store.begin()) {
                payload[0] = (byte) i;
                tx.enqueue("q", payload);
                tx.commit();
            }
        }
        payload = null;
        try (Transaction tx = store.begin()) {
            assertEquals("a poll already returns fewer", 2, tx.poll("q", 3).size());
            assertEquals(1, tx.poll("q", 3).size());
            tx.rollback("too big to handle");
        }
        List<DeadLetter> letters = store.deadLetters("q", 10);
        assertEquals(2, letters.size());
        assertEquals(1, letters.get(1).payload()[0]);
    }
}
