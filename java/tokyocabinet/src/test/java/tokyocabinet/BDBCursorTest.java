package tokyocabinet;

import static org.junit.Assert.assertArrayEquals;
import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertNull;
import static org.junit.Assert.assertTrue;

import java.util.ArrayList;
import java.util.List;
import org.junit.Test;

/** BDBCUR: moving over every value, writing at the cursor, and cursors whose record is gone. */
public class BDBCursorTest extends CasketTestBase {
    /** a=[a1, a2], b=[b1], c=[c1, c2, c3] */
    private BDB sample() {
        BDB db = writer(path("cursor.tcb"));
        for (String kv : new String[] {"c=c1", "a=a1", "b=b1", "c=c2", "a=a2", "c=c3"}) {
            String[] p = kv.split("=");
            assertTrue(db.putdup(p[0], p[1]));
        }
        return db;
    }

    private static String at(BDBCUR cur) {
        return cur.key2() + "=" + cur.val2();
    }

    @Test
    public void firstAndNextVisitEveryValueInKeyThenInsertionOrder() {
        BDB db = sample();
        BDBCUR cur = new BDBCUR(db);
        List<String> seen = new ArrayList<>();
        assertTrue(cur.first());
        do {
            seen.add(at(cur));
        } while (cur.next());
        assertEquals(list("a=a1", "a=a2", "b=b1", "c=c1", "c=c2", "c=c3"), seen);
        assertEquals(BDB.ENOREC, db.ecode());
    }

    @Test
    public void lastAndPrevVisitEveryValueBackwards() {
        BDB db = sample();
        BDBCUR cur = new BDBCUR(db);
        List<String> seen = new ArrayList<>();
        assertTrue(cur.last());
        do {
            seen.add(at(cur));
        } while (cur.prev());
        assertEquals(list("c=c3", "c=c2", "c=c1", "b=b1", "a=a2", "a=a1"), seen);
        assertEquals(BDB.ENOREC, db.ecode());
    }

    @Test
    public void nextAndPrevCanAlternate() {
        BDB db = sample();
        BDBCUR cur = new BDBCUR(db);
        assertTrue(cur.jump("b"));
        assertTrue(cur.next());
        assertEquals("c=c1", at(cur));
        assertTrue(cur.prev());
        assertEquals("b=b1", at(cur));
        assertTrue(cur.prev());
        assertEquals("a=a2", at(cur));
        assertTrue(cur.next());
        assertEquals("b=b1", at(cur));
    }

    @Test
    public void jumpGoesToTheFirstValueOfTheKeyOrTheNextKey() {
        BDB db = sample();
        BDBCUR cur = new BDBCUR(db);
        assertTrue(cur.jump(b("c")));
        assertEquals("c=c1", at(cur));
        assertTrue(cur.jump("bb"));
        assertEquals("c=c1", at(cur));
        assertTrue(cur.jump(""));
        assertEquals("a=a1", at(cur));
        assertTrue(cur.jump("a\0"));
        assertEquals("b=b1", at(cur));
        assertFalse(cur.jump("d"));
        assertEquals(BDB.ENOREC, db.ecode());
        assertNull(cur.key());
    }

    @Test
    public void aCursorBeforePositioningHasNoRecord() {
        BDB db = sample();
        BDBCUR cur = new BDBCUR(db);
        assertNull(cur.key());
        assertEquals(BDB.ENOREC, db.ecode());
        assertNull(cur.val());
        assertFalse(cur.next());
        assertFalse(cur.prev());
        assertFalse(cur.out());
        assertFalse(cur.put("x", BDBCUR.CPCURRENT));
        assertEquals(BDB.ENOREC, db.ecode());
        assertEquals(6, db.rnum());
    }

    @Test
    public void aCursorThatRanOffTheEndHasNoRecord() {
        BDB db = sample();
        BDBCUR cur = new BDBCUR(db);
        assertTrue(cur.last());
        assertFalse(cur.next());
        assertNull(cur.key());
        assertNull(cur.val2());
        assertEquals(BDB.ENOREC, db.ecode());
        assertTrue(cur.first());
        assertEquals("a=a1", at(cur));
    }

    @Test
    public void keyAndValReturnBytesAndKey2AndVal2DecodeUtf8() {
        BDB db = writer(path("utf8.tcb"));
        assertTrue(db.put(b("ключ"), b("値")));
        BDBCUR cur = new BDBCUR(db);
        assertTrue(cur.first());
        assertArrayEquals(b("ключ"), cur.key());
        assertArrayEquals(b("値"), cur.val());
        assertEquals("ключ", cur.key2());
        assertEquals("値", cur.val2());
    }

    // ---- put ----

    @Test
    public void putCurrentReplacesTheValueAtTheCursorAndStays() {
        BDB db = sample();
        BDBCUR cur = new BDBCUR(db);
        assertTrue(cur.jump("c"));
        assertTrue(cur.next());
        assertTrue(cur.put("C2", BDBCUR.CPCURRENT));
        assertEquals("c=C2", at(cur));
        assertEquals(list("c1", "C2", "c3"), db.getlist("c"));
        assertEquals(6, db.rnum());
        assertTrue(cur.next());
        assertEquals("c=c3", at(cur));
    }

    @Test
    public void putBeforeInsertsADuplicateBeforeTheCursorAndMovesOntoIt() {
        BDB db = sample();
        BDBCUR cur = new BDBCUR(db);
        assertTrue(cur.jump("c"));
        assertTrue(cur.next()); // c2
        assertTrue(cur.put(b("x"), BDBCUR.CPBEFORE));
        assertEquals("c=x", at(cur));
        assertEquals(list("c1", "x", "c2", "c3"), db.getlist("c"));
        assertTrue(cur.prev());
        assertEquals("c=c1", at(cur));
        assertEquals(7, db.rnum());
        assertEquals(list("a", "b", "c"), db.fwmkeys("", -1));
    }

    @Test
    public void putBeforeTheFirstValueMakesTheNewValueTheFirst() {
        BDB db = sample();
        BDBCUR cur = new BDBCUR(db);
        assertTrue(cur.jump("b"));
        assertTrue(cur.put("b0", BDBCUR.CPBEFORE));
        assertEquals("b0", db.get("b"));
        assertEquals(list("b0", "b1"), db.getlist("b"));
        assertTrue(cur.prev());
        assertEquals("a=a2", at(cur));
    }

    @Test
    public void putAfterInsertsADuplicateAfterTheCursorAndMovesOntoIt() {
        BDB db = sample();
        BDBCUR cur = new BDBCUR(db);
        assertTrue(cur.first()); // a1
        assertTrue(cur.put("y", BDBCUR.CPAFTER));
        assertEquals("a=y", at(cur));
        assertEquals(list("a1", "y", "a2"), db.getlist("a"));
        assertTrue(cur.next());
        assertEquals("a=a2", at(cur));
        assertTrue(cur.next());
        assertEquals("b=b1", at(cur));
    }

    @Test
    public void putAfterTheLastValueOfAKeyStaysWithinThatKey() {
        BDB db = sample();
        BDBCUR cur = new BDBCUR(db);
        assertTrue(cur.jump("b"));
        assertTrue(cur.put("b2", BDBCUR.CPAFTER));
        assertEquals("b=b2", at(cur));
        assertEquals(list("b1", "b2"), db.getlist("b"));
        assertEquals(list("c1", "c2", "c3"), db.getlist("c"));
        assertTrue(cur.next());
        assertEquals("c=c1", at(cur));
        assertTrue(cur.last());
        assertTrue(cur.put("c4", BDBCUR.CPAFTER));
        assertEquals(list("c1", "c2", "c3", "c4"), db.getlist("c"));
        assertFalse(cur.next());
        assertEquals(list("a", "b", "c"), strings(db.range((byte[]) null, true, null, true, -1)));
        assertEquals(8, db.rnum());
    }

    @Test
    public void manyInsertsAtOneSpotKeepTheirOrder() {
        BDB db = writer(path("inserts.tcb"));
        assertTrue(db.putdup("k", "first"));
        assertTrue(db.putdup("k", "last"));
        BDBCUR cur = new BDBCUR(db);
        assertTrue(cur.jump("k"));
        List<String> expected = new ArrayList<>();
        expected.add("first");
        for (int i = 0; i < 60; i++) {
            // Each value goes right after "first", before the previous one.
            assertTrue(cur.jump("k"));
            assertTrue(cur.put("after" + i, BDBCUR.CPAFTER));
            expected.add(1, "after" + i);
        }
        for (int i = 0; i < 60; i++) {
            // Each value goes right before "last".
            assertTrue(cur.last());
            assertTrue(cur.put("before" + i, BDBCUR.CPBEFORE));
            expected.add(expected.size(), "before" + i);
        }
        // CPBEFORE on "last" inserts between the previous insert and "last".
        expected.add("last");
        assertEquals(expected, db.getlist("k"));
        assertEquals(122, db.rnum());
    }

    // ---- out ----

    @Test
    public void outRemovesTheValueAtTheCursorAndMovesToTheNext() {
        BDB db = sample();
        BDBCUR cur = new BDBCUR(db);
        assertTrue(cur.first());
        assertTrue(cur.out());
        assertEquals("a=a2", at(cur));
        assertTrue(cur.out());
        assertEquals("b=b1", at(cur));
        assertNull(db.get("a"));
        assertEquals(4, db.rnum());
        assertTrue(cur.last());
        assertTrue(cur.out());
        assertNull("the cursor was on the last record", cur.key());
        assertEquals(BDB.ENOREC, db.ecode());
        assertEquals(list("c1", "c2"), db.getlist("c"));
    }

    @Test
    public void outOfEveryRecordThroughTheCursorEmptiesTheDatabase() {
        BDB db = sample();
        BDBCUR cur = new BDBCUR(db);
        assertTrue(cur.first());
        int removed = 0;
        while (cur.out()) {
            removed++;
        }
        assertEquals(6, removed);
        assertEquals(0, db.rnum());
        assertFalse(cur.first());
    }

    // ---- records removed under the cursor ----

    @Test
    public void aCursorWhoseRecordWasRemovedFailsWithEnorecAndMovesOnFromThere() {
        BDB db = sample();
        BDBCUR cur = new BDBCUR(db);
        assertTrue(cur.jump("b"));
        assertTrue(db.out("b"));
        assertNull(cur.key());
        assertEquals(BDB.ENOREC, db.ecode());
        assertNull(cur.val());
        assertNull(cur.key2());
        assertFalse(cur.put("x", BDBCUR.CPCURRENT));
        assertFalse(cur.put("x", BDBCUR.CPBEFORE));
        assertFalse(cur.put("x", BDBCUR.CPAFTER));
        assertFalse(cur.out());
        assertEquals(BDB.ENOREC, db.ecode());
        assertEquals("nothing was written through the stale cursor", 5, db.rnum());
        assertNull(db.get("b"));
        assertTrue(cur.next());
        assertEquals("c=c1", at(cur));
        assertTrue(cur.jump("b"));
        assertEquals("c=c1", at(cur));
    }

    @Test
    public void aCursorWhoseRecordWasRemovedMovesBackToThePreviousRecord() {
        BDB db = sample();
        BDBCUR cur = new BDBCUR(db);
        assertTrue(cur.jump("b"));
        assertTrue(db.outlist("b"));
        assertTrue(cur.prev());
        assertEquals("a=a2", at(cur));
    }

    @Test
    public void aCursorSurvivesTheWholeDatabaseBeingEmptiedAndRefilled() {
        BDB db = sample();
        BDBCUR cur = new BDBCUR(db);
        assertTrue(cur.jump("c"));
        assertTrue(db.vanish());
        assertNull(cur.val());
        assertFalse(cur.next());
        assertFalse(cur.prev());
        assertTrue(db.put("c", "new"));
        assertTrue(cur.jump("c"));
        assertEquals("c=new", at(cur));
    }

    @Test
    public void aCursorOnAnotherThreadsRemovedRecordNeverCrashes() throws Exception {
        BDB db = writer(path("race.tcb"));
        for (int i = 0; i < 500; i++) {
            assertTrue(db.putdup("k" + (i % 50), "v" + i));
        }
        Thread remover = new Thread(() -> {
            for (int i = 0; i < 500; i++) {
                db.out("k" + (i % 50));
            }
        });
        remover.start();
        BDBCUR cur = new BDBCUR(db);
        int steps = 0;
        while (remover.isAlive() || steps == 0) {
            if (!cur.first()) {
                break;
            }
            while (cur.next()) {
                cur.key();
                cur.val();
                steps++;
            }
        }
        remover.join(30_000);
        assertEquals(0, db.rnum());
        assertFalse(cur.first());
    }

    @Test
    public void aCursorOnAClosedDatabaseFailsWithEinvalid() {
        BDB db = sample();
        BDBCUR cur = new BDBCUR(db);
        assertTrue(cur.first());
        assertTrue(db.close());
        for (String op : new String[] {"key", "val", "next", "prev", "first", "last", "jump", "put", "out"}) {
            Outcome o = onNewThread(db::ecode, () -> {
                switch (op) {
                    case "key": return cur.key();
                    case "val": return cur.val();
                    case "next": return cur.next();
                    case "prev": return cur.prev();
                    case "first": return cur.first();
                    case "last": return cur.last();
                    case "jump": return cur.jump("a");
                    case "put": return cur.put("x", BDBCUR.CPCURRENT);
                    default: return cur.out();
                }
            });
            assertEquals(op, op.equals("key") || op.equals("val") ? null : (Object) false, o.value);
            assertEquals(op, BDB.EINVALID, o.ecode);
        }
    }
}
