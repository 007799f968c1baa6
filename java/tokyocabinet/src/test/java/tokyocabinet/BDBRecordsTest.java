package tokyocabinet;

import static org.junit.Assert.assertArrayEquals;
import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertNull;
import static org.junit.Assert.assertThrows;
import static org.junit.Assert.assertTrue;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.junit.Test;

/** Records of a BDB: put family, duplicates, counts, numbers, range, fwmkeys, the iterator. */
@SuppressWarnings({"rawtypes", "unchecked"})
public class BDBRecordsTest extends CasketTestBase {
    private BDB db() {
        return writer(path("records.tcb"));
    }

    // ---- put family ----

    @Test
    public void putStoresAndOverwritesAValue() {
        BDB db = db();
        assertTrue(db.put(b("k"), b("one")));
        assertEquals("one", s(db.get(b("k"))));
        assertTrue(db.put(b("k"), b("two")));
        assertEquals("two", s(db.get(b("k"))));
        assertEquals(1, db.rnum());
    }

    @Test
    public void emptyKeysAndValuesAndBinaryBytesAreStoredExactly() {
        BDB db = db();
        byte[] binary = new byte[256];
        for (int i = 0; i < binary.length; i++) {
            binary[i] = (byte) i;
        }
        assertTrue(db.put(new byte[0], new byte[0]));
        assertTrue(db.put(binary, binary));
        assertTrue(db.put(new byte[] {0}, new byte[] {0, 0}));
        assertArrayEquals(new byte[0], db.get(new byte[0]));
        assertArrayEquals(binary, db.get(binary));
        assertArrayEquals(new byte[] {0, 0}, db.get(new byte[] {0}));
        assertEquals(0, db.vsiz(new byte[0]));
        assertEquals(3, db.rnum());
    }

    @Test
    public void putkeepAddsOnlyAbsentKeys() {
        BDB db = db();
        assertTrue(db.putkeep(b("k"), b("first")));
        assertFalse(db.putkeep(b("k"), b("second")));
        assertEquals(BDB.EKEEP, db.ecode());
        assertEquals("first", db.get("k"));
        assertTrue(db.putkeep("other", "x"));
        assertEquals(2, db.rnum());
    }

    @Test
    public void putcatAppendsToTheValueOrCreatesTheRecord() {
        BDB db = db();
        assertTrue(db.putcat(b("k"), b("ab")));
        assertEquals("ab", db.get("k"));
        assertTrue(db.putcat(b("k"), b("cd")));
        assertTrue(db.putcat("k", "ef"));
        assertEquals("abcdef", db.get("k"));
        assertEquals(1, db.rnum());
    }

    @Test
    public void putcatAppendsToTheFirstValueOnlyOfADuplicatedKey() {
        BDB db = db();
        assertTrue(db.putdup("k", "a"));
        assertTrue(db.putdup("k", "b"));
        assertTrue(db.putcat("k", "+"));
        assertEquals(list("a+", "b"), db.getlist("k"));
        assertEquals(2, db.rnum());
    }

    // ---- duplicates ----

    @Test
    public void putdupKeepsValuesInInsertionOrder() {
        BDB db = db();
        for (String v : new String[] {"3", "1", "2", "1"}) {
            assertTrue(db.putdup("k", v));
        }
        assertEquals(list("3", "1", "2", "1"), strings(db.getlist(b("k"))));
        assertEquals(list("3", "1", "2", "1"), db.getlist("k"));
        assertEquals(4, db.rnum());
        assertEquals(4, db.vnum("k"));
        assertEquals(4, db.vnum(b("k")));
    }

    @Test
    public void getlistReturnsAnArrayListOfByteArrays() {
        BDB db = db();
        assertTrue(db.put("k", "v"));
        List list = db.getlist(b("k"));
        assertEquals(ArrayList.class, list.getClass());
        assertEquals(1, list.size());
        assertArrayEquals(b("v"), (byte[]) list.get(0));
    }

    @Test
    public void putdupAfterPutAddsAfterTheExistingValue() {
        BDB db = db();
        assertTrue(db.put("k", "first"));
        assertTrue(db.putdup("k", "second"));
        assertEquals(list("first", "second"), db.getlist("k"));
    }

    @Test
    public void getVsizAndOutActOnTheFirstValue() {
        BDB db = db();
        assertTrue(db.putdup("k", "a"));
        assertTrue(db.putdup("k", "bb"));
        assertTrue(db.putdup("k", "ccc"));
        assertEquals("a", db.get("k"));
        assertEquals(1, db.vsiz("k"));
        assertTrue(db.out("k"));
        assertEquals("bb", db.get("k"));
        assertEquals(2, db.vsiz(b("k")));
        assertEquals(list("bb", "ccc"), db.getlist("k"));
        assertEquals(2, db.rnum());
        assertTrue(db.out(b("k")));
        assertTrue(db.out("k"));
        assertNull(db.get("k"));
        assertFalse(db.out("k"));
        assertEquals(BDB.ENOREC, db.ecode());
        assertEquals(0, db.rnum());
    }

    @Test
    public void putReplacesOnlyTheFirstValueAndKeepsTheOtherDuplicates() {
        BDB db = db();
        assertTrue(db.putdup("k", "a"));
        assertTrue(db.putdup("k", "b"));
        assertTrue(db.putdup("k", "c"));
        assertTrue(db.put("k", "A"));
        assertEquals(list("A", "b", "c"), db.getlist("k"));
        assertEquals(3, db.rnum());
    }

    @Test
    public void theQueuePatternIsFifoPerKey() {
        BDB db = db();
        for (int i = 0; i < 50; i++) {
            assertTrue(db.putdup("q" + (i % 2), "item" + i));
        }
        for (int i = 0; i < 50; i += 2) {
            assertEquals("item" + i, db.get("q0"));
            assertTrue(db.out("q0"));
            assertEquals("item" + (i + 1), db.get("q1"));
            assertTrue(db.out("q1"));
        }
        assertEquals(0, db.rnum());
    }

    @Test
    public void outlistRemovesEveryValueOfTheKeyOnly() {
        BDB db = db();
        assertTrue(db.putdup("a", "1"));
        assertTrue(db.putdup("k", "1"));
        assertTrue(db.putdup("k", "2"));
        assertTrue(db.putdup("k", "3"));
        assertTrue(db.putdup("z", "1"));
        assertTrue(db.outlist(b("k")));
        assertNull(db.getlist("k"));
        assertEquals(0, db.vnum("k"));
        assertEquals(2, db.rnum());
        assertEquals(list("a=1", "z=1"), records(db));
        assertFalse(db.outlist("k"));
        assertEquals(BDB.ENOREC, db.ecode());
        assertTrue(db.outlist("a"));
        assertEquals(1, db.rnum());
    }

    @Test
    public void putlistAddsEachByteArrayAfterTheExistingValuesAndSkipsOtherElements() {
        BDB db = db();
        assertTrue(db.put("k", "first"));
        List values = new ArrayList();
        values.add(b("1"));
        values.add("not bytes");
        values.add(42);
        values.add(b("2"));
        values.add(null);
        values.add(b("3"));
        assertTrue(db.putlist(b("k"), values));
        assertEquals(list("first", "1", "2", "3"), db.getlist("k"));
        assertEquals(4, db.rnum());
        assertEquals(4, db.vnum("k"));
    }

    @Test
    public void putlistOfStringsAddsEveryStringAndRejectsOtherElements() {
        BDB db = db();
        assertTrue(db.putlist("k", new ArrayList<>(Arrays.asList("x", "y"))));
        assertEquals(list("x", "y"), db.getlist("k"));
        List mixed = new ArrayList();
        mixed.add("z");
        mixed.add(b("bytes"));
        assertThrows(ClassCastException.class, () -> db.putlist("k", mixed));
    }

    @Test
    public void putlistWithAnEmptyListSucceedsAndAddsNothing() {
        BDB db = db();
        assertTrue(db.putlist(b("k"), new ArrayList()));
        assertEquals(0, db.rnum());
        assertNull(db.getlist("k"));
    }

    @Test
    public void vnumReturnsTheRealNumberOfValues() {
        BDB db = db();
        assertEquals(0, db.vnum("k"));
        assertTrue(db.put("k", "1"));
        assertEquals(1, db.vnum("k"));
        for (int i = 2; i <= 7; i++) {
            assertTrue(db.putdup("k", Integer.toString(i)));
        }
        assertEquals(7, db.vnum("k"));
        assertEquals(7, db.vnum(b("k")));
    }

    @Test
    public void rnumCountsEveryValueNotEveryKey() {
        BDB db = db();
        assertEquals(0, db.rnum());
        assertTrue(db.putdup("a", "1"));
        assertTrue(db.putdup("a", "2"));
        assertTrue(db.put("b", "1"));
        assertTrue(db.put("b", "2"));
        assertTrue(db.putcat("b", "3"));
        assertTrue(db.putlist("c", new ArrayList<>(Arrays.asList("1", "2", "3"))));
        assertEquals(6, db.rnum());
        assertTrue(db.out("c"));
        assertEquals(5, db.rnum());
    }

    @Test
    public void rnumSurvivesCloseAndReopen() {
        String path = path("count.tcb");
        BDB db = writer(path);
        for (int i = 0; i < 30; i++) {
            assertTrue(db.putdup("k" + (i % 3), "v" + i));
        }
        assertTrue(db.close());
        BDB again = openBdb(path, BDB.OREADER);
        assertEquals(30, again.rnum());
        assertEquals(10, again.vnum("k1"));
    }

    // ---- addint / adddouble ----

    @Test
    public void addintStoresANativeOrderIntAndAddsToIt() {
        BDB db = db();
        assertEquals(5, db.addint(b("n"), 5));
        assertArrayEquals(nativeInt(5), db.get(b("n")));
        assertEquals(2, db.addint("n", -3));
        assertArrayEquals(nativeInt(2), db.get(b("n")));
        assertTrue(db.put(b("m"), ByteBuffer.allocate(4).order(ByteOrder.nativeOrder()).putInt(1000).array()));
        assertEquals(1001, db.addint("m", 1));
    }

    @Test
    public void addintOverflowWrapsAroundLikeIntArithmetic() {
        BDB db = db();
        assertEquals(Integer.MAX_VALUE, db.addint("n", Integer.MAX_VALUE));
        assertEquals(Integer.MIN_VALUE + 1, db.addint("n", 2));
        assertArrayEquals(nativeInt(Integer.MIN_VALUE + 1), db.get(b("n")));
    }

    @Test
    public void addintOfZeroReturnsTheCurrentValue() {
        BDB db = db();
        assertTrue(db.put(b("n"), nativeInt(41)));
        assertEquals(41, db.addint("n", 0));
        assertArrayEquals(nativeInt(41), db.get(b("n")));
        assertEquals(1, db.rnum());
    }

    @Test
    public void adddoubleStoresANativeOrderDoubleAndAddsToIt() {
        BDB db = db();
        assertEquals(1.5, db.adddouble(b("d"), 1.5), 0.0);
        assertArrayEquals(nativeDouble(1.5), db.get(b("d")));
        assertEquals(-0.75, db.adddouble("d", -2.25), 0.0);
        assertArrayEquals(nativeDouble(-0.75), db.get(b("d")));
        assertEquals(-0.75, db.adddouble("d", 0.0), 0.0);
        assertTrue(db.put(b("e"), nativeDouble(10.0)));
        assertEquals(10.25, db.adddouble("e", 0.25), 0.0);
    }

    @Test
    public void addintActsOnTheFirstValueOfADuplicatedKey() {
        BDB db = db();
        assertTrue(db.putdup(b("n"), nativeInt(1)));
        assertTrue(db.putdup(b("n"), nativeInt(100)));
        assertEquals(11, db.addint("n", 10));
        List values = db.getlist(b("n"));
        assertArrayEquals(nativeInt(11), (byte[]) values.get(0));
        assertArrayEquals(nativeInt(100), (byte[]) values.get(1));
    }

    // ---- range ----

    private BDB rangeDb() {
        BDB db = db();
        for (String k : new String[] {"d", "a", "c", "b", "e"}) {
            assertTrue(db.putdup(k, "1"));
        }
        assertTrue(db.putdup("b", "2"));
        assertTrue(db.putdup("b", "3"));
        return db;
    }

    @Test
    public void rangeReturnsDistinctKeysInOrderBetweenInclusiveBounds() {
        BDB db = rangeDb();
        assertEquals(list("b", "c", "d"), strings(db.range(b("b"), true, b("d"), true, -1)));
    }

    @Test
    public void rangeHonoursExclusiveBounds() {
        BDB db = rangeDb();
        assertEquals(list("c", "d"), strings(db.range(b("b"), false, b("d"), true, -1)));
        assertEquals(list("b", "c"), strings(db.range(b("b"), true, b("d"), false, -1)));
        assertEquals(list("c"), strings(db.range(b("b"), false, b("d"), false, -1)));
    }

    @Test
    public void rangeBoundsNeedNotBeKeys() {
        BDB db = rangeDb();
        assertEquals(list("b", "c"), strings(db.range(b("aa"), false, b("cc"), false, -1)));
        assertEquals(list("b", "c"), strings(db.range(b("aa"), true, b("cc"), true, -1)));
    }

    @Test
    public void rangeWithNullBoundsStartsAtTheFirstAndEndsAtTheLastRecord() {
        BDB db = rangeDb();
        assertEquals(list("a", "b", "c", "d", "e"), strings(db.range((byte[]) null, true, null, true, -1)));
        assertEquals(list("a", "b"), strings(db.range((byte[]) null, false, b("b"), true, -1)));
        assertEquals(list("d", "e"), strings(db.range(b("c"), false, null, false, -1)));
    }

    @Test
    public void rangeStopsAtMax() {
        BDB db = rangeDb();
        assertEquals(list("a", "b"), strings(db.range((byte[]) null, true, null, true, 2)));
        assertEquals(list("c"), strings(db.range(b("b"), false, null, true, 1)));
        assertEquals(list(), strings(db.range((byte[]) null, true, null, true, 0)));
    }

    @Test
    public void rangeWithNothingInsideReturnsAnEmptyListWithoutFailing() {
        BDB db = rangeDb();
        List none = db.range(b("x"), true, b("z"), true, -1);
        assertEquals(new ArrayList<>(), none);
        assertEquals(new ArrayList<>(), db.range(b("d"), true, b("b"), true, -1));
        assertEquals(new ArrayList<>(), db.range(b("c"), false, b("c"), false, -1));
        assertEquals("a range never fails", BDB.ESUCCESS, db.ecode());
        assertEquals(list("c"), strings(db.range(b("c"), true, b("c"), true, -1)));
    }

    @Test
    public void rangeOfStringsDecodesKeysAndThrowsNullPointerExceptionForANullBound() {
        BDB db = rangeDb();
        assertEquals(list("b", "c"), db.range("b", true, "c", true, -1));
        assertThrows(NullPointerException.class, () -> db.range((String) null, true, "c", true, -1));
        assertThrows(NullPointerException.class, () -> db.range("a", true, (String) null, true, -1));
    }

    // ---- fwmkeys ----

    @Test
    public void fwmkeysReturnsDistinctKeysWithThePrefixInOrder() {
        BDB db = db();
        for (String k : new String[] {"abd", "b", "ab", "abc", "a", "ab"}) {
            assertTrue(db.putdup(k, "v"));
        }
        assertEquals(list("ab", "abc", "abd"), strings(db.fwmkeys(b("ab"), -1)));
        assertEquals(list("ab", "abc", "abd"), db.fwmkeys("ab", -1));
        assertEquals(list("ab", "abc"), strings(db.fwmkeys(b("ab"), 2)));
        assertEquals(list("a", "ab", "abc", "abd", "b"), strings(db.fwmkeys(b(""), -1)));
        assertEquals(list(), strings(db.fwmkeys(b("ab"), 0)));
    }

    @Test
    public void fwmkeysWithNoMatchReturnsAnEmptyListWithoutFailing() {
        BDB db = db();
        assertTrue(db.put("abc", "v"));
        assertEquals(new ArrayList<>(), db.fwmkeys(b("x"), -1));
        assertEquals(new ArrayList<>(), db.fwmkeys("abcd", -1));
        assertEquals(BDB.ESUCCESS, db.ecode());
    }

    // ---- iterator ----

    @Test
    public void iternextVisitsEveryValueSoDuplicatedKeysRepeat() {
        BDB db = db();
        assertTrue(db.putdup("b", "1"));
        assertTrue(db.putdup("a", "1"));
        assertTrue(db.putdup("b", "2"));
        assertTrue(db.putdup("c", "1"));
        assertTrue(db.putdup("b", "3"));
        assertEquals(list("a", "b", "b", "b", "c"), iterated(db));
    }

    @Test
    public void iternextReturnsNullWithEnorecAtTheEnd() {
        BDB db = db();
        assertTrue(db.put("k", "v"));
        assertTrue(db.iterinit());
        assertEquals("k", s(db.iternext()));
        assertNull(db.iternext());
        assertEquals(BDB.ENOREC, db.ecode());
        assertNull(db.iternext());
    }

    @Test
    public void iterinitRestartsTheIteration() {
        BDB db = db();
        assertTrue(db.put("a", "1"));
        assertTrue(db.put("b", "1"));
        assertTrue(db.iterinit());
        assertEquals("a", db.iternext2());
        assertTrue(db.iterinit());
        assertEquals("a", db.iternext2());
        assertEquals("b", db.iternext2());
        assertNull(db.iternext2());
    }

    @Test
    public void iternextWithoutIterinitReturnsNull() {
        BDB db = db();
        assertTrue(db.put("a", "1"));
        assertNull(db.iternext());
        assertEquals(BDB.ENOREC, db.ecode());
    }

    @Test
    public void removingTheRecordJustReturnedDoesNotStopTheIteration() {
        BDB db = db();
        for (int i = 0; i < 20; i++) {
            assertTrue(db.putdup("k" + (i % 4), "v" + i));
        }
        assertTrue(db.iterinit());
        int visited = 0;
        for (byte[] k = db.iternext(); k != null; k = db.iternext()) {
            assertTrue(db.out(k));
            visited++;
        }
        assertEquals(20, visited);
        assertEquals(0, db.rnum());
    }

    // ---- String overloads ----

    @Test
    public void stringReturnsAreDecodedAsUtf8() {
        BDB db = db();
        String key = "key-ключ-キー";
        String value = "значение-値-é";
        assertTrue(db.put(b(key), b(value)));
        assertTrue(db.putdup(b(key), b("δεύτερο")));
        assertTrue(db.put(b("ascii"), b(value)));
        assertEquals(value, db.get("ascii"));
        assertEquals(list(value), db.getlist("ascii"));
        assertTrue(db.iterinit());
        assertEquals("ascii", db.iternext2());
        assertEquals(key, db.iternext2());
        assertEquals(key, db.iternext2());
        assertEquals(list(key), db.range("key", true, "kez", true, -1));
        assertEquals(list(key), db.fwmkeys("key-", -1));
        BDBCUR cur = new BDBCUR(db);
        assertTrue(cur.jump(b(key)));
        assertEquals(key, cur.key2());
        assertEquals(value, cur.val2());
        assertTrue(cur.next());
        assertEquals("δεύτερο", cur.val2());
    }

    @Test
    public void stringArgumentsAreEncodedWithThePlatformCharset() {
        BDB db = db();
        String key = "k-é";
        String value = "v-ü";
        assertTrue(db.put(key, value));
        assertArrayEquals(value.getBytes(), db.get(key.getBytes()));
        assertTrue(db.putdup(key, "2"));
        assertEquals(2, db.vnum(key));
        assertEquals(value.getBytes().length, db.vsiz(key));
        assertTrue(db.putkeep("x", "y"));
        assertEquals(5, db.addint("i", 5));
        assertEquals(2.5, db.adddouble("f", 2.5), 0.0);
        assertTrue(db.outlist(key));
        assertTrue(db.out("x"));
        assertEquals(2, db.rnum());
    }
}
