package org.rockcask;

import static org.junit.Assert.assertArrayEquals;
import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertThrows;
import static org.junit.Assert.assertTrue;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.NoSuchElementException;
import org.junit.Test;

/** {@link MapCursor}: ranges of any size read page by page, with the transaction's own writes, closed with the transaction. */
public class MapCursorTest extends WithOpenStore {
    private static String key(int i) {
        return String.format("k%05d", i);
    }

    private void fill(int n) {
        try (Transaction tx = store.begin()) {
            for (int i = 0; i < n; i++) {
                tx.map("m").put(key(i), b("v" + i));
            }
            tx.commit();
        }
    }

    private static List<String> keys(MapCursor c) {
        List<String> out = new ArrayList<>();
        while (c.hasNext()) {
            out.add(new String(c.next().getKey(), StandardCharsets.UTF_8));
        }
        return out;
    }

    private static List<String> range(int from, int to) {
        List<String> out = new ArrayList<>();
        for (int i = from; i < to; i++) {
            out.add(key(i));
        }
        return out;
    }

    @Test
    public void aRangeLargerThanAPageComesWholeInOrderAndReversedWithinItsBounds() {
        fill(2_500);
        try (Transaction tx = store.begin()) {
            TxMap m = tx.map("m");
            assertEquals(range(0, 2_500), keys(m.cursor(null, null, false)));
            List<String> reversed = range(0, 2_500);
            Collections.reverse(reversed);
            assertEquals(reversed, keys(m.cursor(null, null, true, 7)));
            assertEquals(range(10, 1_010), keys(m.cursor(b(key(10)), b(key(1_010)), false, 1_000)));
            List<String> some = range(10, 1_011);
            Collections.reverse(some);
            assertEquals(some, keys(m.cursor(b(key(10)), b(key(1_011)), true, 1_000)));
            assertEquals(range(1_000, 1_100), keys(m.cursorPrefix(b("k010"))));
            assertEquals(Collections.emptyList(), keys(m.cursor(b("z"), null, false)));
            assertEquals(Collections.emptyList(), keys(tx.map("no such map").cursor(null, null, false)));
            MapCursor c = m.cursor(b(key(5)), b(key(6)), false);
            Map.Entry<byte[], byte[]> only = c.next();
            assertArrayEquals(b("v5"), only.getValue());
            assertFalse(c.hasNext());
            assertThrows(NoSuchElementException.class, c::next);
        }
    }

    @Test
    public void ownWritesAreSeenInPagesNotYetReadAndOnlyThere() {
        fill(30);
        try (Transaction tx = store.begin()) {
            TxMap m = tx.map("m");
            m.put(key(100), b("mine"));
            m.delete(key(3));
            MapCursor c = m.cursor(null, null, false, 10);
            List<String> seen = new ArrayList<>();
            for (int i = 0; i < 10; i++) {
                seen.add(new String(c.next().getKey(), StandardCharsets.UTF_8));
            }
            // The first page (keys 0..10, without 3) is read; 20 goes, 101 comes, before the rest is read.
            m.delete(key(20));
            m.put(key(101), b("mine too"));
            seen.addAll(keys(c));
            List<String> expected = range(0, 30);
            expected.remove(key(3));
            expected.remove(key(20));
            expected.add(key(100));
            expected.add(key(101));
            assertEquals(expected, seen);
        }
    }

    @Test
    public void aCursorClosesWithItsTransactionAndOnItsOwn() {
        fill(50);
        MapCursor c;
        try (Transaction tx = store.begin()) {
            c = tx.map("m").cursor(null, null, false, 10);
            assertTrue(c.hasNext());
            c.next();
        }
        IllegalStateException e = assertThrows(IllegalStateException.class, c::hasNext);
        assertTrue(e.getMessage(), e.getMessage().toLowerCase(java.util.Locale.ROOT).contains("transaction"));
        assertThrows(IllegalStateException.class, c::next);

        try (Transaction tx = store.begin()) {
            MapCursor mine = tx.map("m").cursor(null, null, false);
            mine.close();
            IllegalStateException closed = assertThrows(IllegalStateException.class, mine::hasNext);
            assertTrue(closed.getMessage(), closed.getMessage().contains("closed"));
            tx.commit();
            assertThrows(IllegalStateException.class, () -> tx.map("m").cursor(null, null, false));
        }
    }

    @Test
    public void pageSizesOutsideTheirRangeAreRefused() {
        try (Transaction tx = store.begin()) {
            TxMap m = tx.map("m");
            for (int bad : new int[] {0, -1, Wire.MAX_BATCH_ITEMS + 1, Integer.MAX_VALUE, Integer.MIN_VALUE}) {
                IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> m.cursor(null, null, false, bad));
                assertTrue(e.getMessage(), e.getMessage().contains("pageSize"));
            }
            assertFalse(m.cursor(null, null, false, Wire.MAX_BATCH_ITEMS).hasNext());
            assertFalse(m.cursor(null, null, false, 1).hasNext());
            assertThrows(NullPointerException.class, () -> m.cursorPrefix(null));
        }
    }

    @Test
    public void keysOfTheLongestLengthArePagedPast() {
        byte[] a = new byte[TxMap.MAX_KEY_BYTES];
        byte[] b = a.clone();
        b[b.length - 1] = 1;
        try (Transaction tx = store.begin()) {
            tx.map("long").put(a, b("a"));
            tx.map("long").put(b, b("b"));
            tx.commit();
        }
        try (Transaction tx = store.begin()) {
            MapCursor c = tx.map("long").cursor(null, null, false, 1);
            assertArrayEquals(a, c.next().getKey());
            assertArrayEquals(b, c.next().getKey());
            assertFalse(c.hasNext());
        }
    }
}
