package org.rockcask;

import static org.junit.Assert.assertArrayEquals;
import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertNull;
import static org.junit.Assert.assertThrows;
import static org.junit.Assert.assertTrue;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.UUID;
import org.junit.Test;

/** {@link Transaction#getAll}: one call for many ids, each answered as {@code get} would. */
public class BatchedGetTest extends WithOpenStore {
    private List<UUID> stored(int n) {
        List<UUID> ids = new ArrayList<>();
        try (Transaction tx = store.begin()) {
            for (int i = 0; i < n; i++) {
                UUID id = UUID.randomUUID();
                tx.put(id, b("stored " + i));
                ids.add(id);
            }
            tx.commit();
        }
        return ids;
    }

    @Test
    public void eachElementIsWhatGetReturnsIncludingTheTransactionsOwnBufferedWrites() {
        List<UUID> ids = stored(5);
        try (Transaction tx = store.begin()) {
            UUID fresh = UUID.randomUUID();
            UUID absent = UUID.randomUUID();
            tx.put(ids.get(1), b("replaced here")); // still buffered on the Java side
            tx.put(fresh, b("new here"));
            tx.delete(ids.get(2));
            UUID enqueued = tx.enqueue("q", b("queue-owned"));
            List<UUID> wanted = Arrays.asList(ids.get(4), ids.get(1), absent, ids.get(2), fresh, enqueued, ids.get(4));
            List<byte[]> got = tx.getAll(wanted);
            assertEquals(wanted.size(), got.size());
            for (int i = 0; i < wanted.size(); i++) {
                byte[] single = tx.get(wanted.get(i));
                if (single == null) {
                    assertNull("element " + i, got.get(i));
                } else {
                    assertArrayEquals("element " + i, single, got.get(i));
                }
            }
            assertArrayEquals(b("stored 4"), got.get(0));
            assertArrayEquals(b("replaced here"), got.get(1));
            assertNull(got.get(2));
            assertNull(got.get(3));
            assertArrayEquals(b("queue-owned"), got.get(5));
        }
    }

    @Test
    public void moreIdsThanOneNativeChunkComeBackInOrder() {
        List<UUID> ids = stored(5000);
        List<UUID> shuffled = new ArrayList<>(ids);
        Collections.shuffle(shuffled, new java.util.Random(7));
        try (Transaction tx = store.begin()) {
            List<byte[]> got = tx.getAll(shuffled);
            for (int i = 0; i < shuffled.size(); i++) {
                assertArrayEquals(b("stored " + ids.indexOf(shuffled.get(i))), got.get(i));
            }
            assertTrue(tx.getAll(Collections.emptyList()).isEmpty());
        }
    }

    @Test
    public void nullIdsAndTooManyIdsAreRefusedNamingWhat() {
        try (Transaction tx = store.begin()) {
            NullPointerException list = assertThrows(NullPointerException.class, () -> tx.getAll(null));
            assertEquals("ids", list.getMessage());
            NullPointerException element = assertThrows(NullPointerException.class,
                    () -> tx.getAll(Arrays.asList(UUID.randomUUID(), null)));
            assertEquals("ids[1]", element.getMessage());
            List<UUID> tooMany = Collections.nCopies(Wire.MAX_BATCH_ITEMS + 1, UUID.randomUUID());
            IllegalArgumentException refused = assertThrows(IllegalArgumentException.class, () -> tx.getAll(tooMany));
            assertTrue(refused.getMessage(), refused.getMessage().contains("1048576"));
            List<UUID> most = Collections.nCopies(Wire.MAX_BATCH_ITEMS, UUID.randomUUID());
            assertEquals(Wire.MAX_BATCH_ITEMS, tx.getAll(most).size());
        }
    }

    @Test
    public void aFinishedTransactionRefusesGetAll() {
        Transaction tx = store.begin();
        tx.rollback();
        assertThrows(IllegalStateException.class, () -> tx.getAll(Collections.singletonList(UUID.randomUUID())));
        tx.close();
    }
}
