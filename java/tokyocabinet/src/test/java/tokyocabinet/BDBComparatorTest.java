package tokyocabinet;

import static org.junit.Assert.assertArrayEquals;
import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertNull;
import static org.junit.Assert.assertTrue;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.Callable;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.Test;

/** Key orders: the built-in comparison functions and Java comparators, and their persistence. */
public class BDBComparatorTest extends CasketTestBase {
    /** Plain byte order, but a different class than the default: a different comparator. */
    public static final class Bytewise implements BDBCMP {
        @Override
        public int compare(byte[] a, byte[] b) {
            return Arrays.compare(a, b);
        }
    }

    /** Always throws: the binding must treat every pair as equal. */
    public static final class Throwing implements BDBCMP {
        static final AtomicInteger CALLS = new AtomicInteger();

        @Override
        public int compare(byte[] a, byte[] b) {
            CALLS.incrementAndGet();
            throw new IllegalStateException("comparator failure");
        }
    }

    /**
     * Bytewise, and while {@link #callBack} is set it is run inside every comparison (the way a
     * comparator that uses a database calls it); what it returns is kept in {@link #RESULTS}.
     */
    public static final class CallsBack implements BDBCMP {
        static volatile Callable<Object> callBack;
        static final List<Object> RESULTS = Collections.synchronizedList(new ArrayList<>());

        @Override
        public int compare(byte[] a, byte[] b) {
            Callable<Object> c = callBack;
            if (c != null) {
                try {
                    RESULTS.add(c.call());
                } catch (RuntimeException e) {
                    throw e;
                } catch (Exception e) {
                    throw new IllegalStateException(e);
                }
            }
            return Arrays.compare(a, b);
        }
    }

    private BDB withCmpfunc(String path, int cmp) {
        BDB db = bdb();
        assertTrue(db.setcmpfunc(cmp));
        assertOpens(db, path, BDB.OWRITER | BDB.OCREAT);
        return db;
    }

    private BDB withComparator(String path, BDBCMP cmp, int omode) {
        BDB db = bdb();
        assertTrue(db.setcomparator(cmp));
        assertOpens(db, path, omode);
        return db;
    }

    private static List<byte[]> cursorKeys(BDB db) {
        List<byte[]> keys = new ArrayList<>();
        BDBCUR cur = new BDBCUR(db);
        if (cur.first()) {
            do {
                keys.add(cur.key());
            } while (cur.next());
        }
        return keys;
    }

    private static int unpackInt(byte[] b) {
        return ByteBuffer.wrap(b).order(ByteOrder.nativeOrder()).getInt();
    }

    private static long unpackLong(byte[] b) {
        return ByteBuffer.wrap(b).order(ByteOrder.nativeOrder()).getLong();
    }

    // ---- built-in functions ----

    @Test
    public void cmpdecimalOrdersKeysAsDecimalNumbers() {
        BDB db = withCmpfunc(path("decimal.tcb"), BDB.CMPDECIMAL);
        for (String k : new String[] {"10", "9", "-1.5", "2.25", "0.5", "-3", "100", "2.3"}) {
            assertTrue(db.put(k, "v" + k));
        }
        List<String> expected = list("-3", "-1.5", "0.5", "2.25", "2.3", "9", "10", "100");
        assertEquals(expected, strings(cursorKeys(db)));
        assertEquals(expected, iterated(db));
        assertEquals(list("2.25", "2.3", "9"), db.range("1", true, "10", false, -1));
        assertEquals(list("-1.5", "0.5"), db.range("-3", false, "2", true, -1));
        assertEquals("v9", db.get("9"));
        BDBCUR cur = new BDBCUR(db);
        assertTrue(cur.jump("5"));
        assertEquals("9", cur.key2());
    }

    @Test
    public void cmpint32OrdersNativeOrderIntKeysNumerically() {
        BDB db = withCmpfunc(path("int32.tcb"), BDB.CMPINT32);
        int[] values = {300, -7, 5, Integer.MIN_VALUE, 0, Integer.MAX_VALUE, 256, 1};
        for (int i = 0; i < values.length; i++) {
            // Both ways of packing a native-order int, as callers did.
            byte[] key = i % 2 == 0 ? Util.packint(values[i]) : nativeInt(values[i]);
            assertTrue(db.put(key, b("v" + values[i])));
        }
        List<Integer> order = new ArrayList<>();
        for (byte[] k : cursorKeys(db)) {
            order.add(unpackInt(k));
        }
        assertEquals(Arrays.asList(Integer.MIN_VALUE, -7, 0, 1, 5, 256, 300, Integer.MAX_VALUE), order);
        List<Integer> range = new ArrayList<>();
        for (Object k : db.range(nativeInt(0), true, nativeInt(300), false, -1)) {
            range.add(unpackInt((byte[]) k));
        }
        assertEquals(Arrays.asList(0, 1, 5, 256), range);
        assertEquals("v-7", s(db.get(nativeInt(-7))));
    }

    @Test
    public void cmpint64OrdersNativeOrderLongKeysNumerically() {
        BDB db = withCmpfunc(path("int64.tcb"), BDB.CMPINT64);
        long[] values = {1L << 40, -1, 2, Long.MIN_VALUE, 1L << 33, -(1L << 40)};
        for (long v : values) {
            assertTrue(db.putdup(nativeLong(v), b("v" + v)));
        }
        assertTrue(db.putdup(nativeLong(2), b("second")));
        List<Long> order = new ArrayList<>();
        for (byte[] k : cursorKeys(db)) {
            order.add(unpackLong(k));
        }
        assertEquals(Arrays.asList(Long.MIN_VALUE, -(1L << 40), -1L, 2L, 2L, 1L << 33, 1L << 40), order);
        List<Long> range = new ArrayList<>();
        for (Object k : db.range(nativeLong(-1), false, null, true, 3)) {
            range.add(unpackLong((byte[]) k));
        }
        assertEquals(Arrays.asList(2L, 1L << 33, 1L << 40), range);
        assertEquals(list("v2", "second"), strings(db.getlist(nativeLong(2))));
    }

    // ---- Java comparators ----

    private BDB reverseSample(String path) {
        BDB db = withComparator(path, new CasketChild.Reverse(), BDB.OWRITER | BDB.OCREAT);
        for (String k : new String[] {"b", "d", "a", "ba", "c"}) {
            assertTrue(db.putdup(k, k + "1"));
        }
        assertTrue(db.putdup("b", "b2"));
        return db;
    }

    @Test
    public void aJavaComparatorDecidesTheIterationOrder() {
        BDB db = reverseSample(path("reverse.tcb"));
        assertEquals(list("d", "c", "ba", "b", "b", "a"), strings(cursorKeys(db)));
        assertEquals(list("d", "c", "ba", "b", "b", "a"), iterated(db));
        assertEquals(list("b1", "b2"), db.getlist("b"));
        assertEquals("c1", db.get("c"));
        assertEquals(6, db.rnum());
        BDBCUR cur = new BDBCUR(db);
        assertTrue(cur.last());
        assertEquals("a", cur.key2());
        assertTrue(cur.jump("bb"));
        assertEquals("ba", cur.key2());
    }

    @Test
    public void aJavaComparatorDecidesTheRangeOrderAndBounds() {
        BDB db = reverseSample(path("reverse-range.tcb"));
        assertEquals(list("c", "ba", "b", "a"), strings(db.range(b("c"), true, b("a"), true, -1)));
        assertEquals(list("ba", "b"), strings(db.range(b("c"), false, b("a"), false, -1)));
        assertEquals(list("d", "c", "ba", "b", "a"), strings(db.range((byte[]) null, true, null, true, -1)));
        assertEquals(list(), strings(db.range(b("a"), true, b("c"), true, -1)));
        assertEquals(list("ba", "b"), strings(db.fwmkeys(b("b"), -1)));
    }

    @Test
    public void aJavaComparatorOrderHoldsAfterOptimizeAndReopen() {
        String path = path("reverse-many.tcb");
        BDB db = withComparator(path, new CasketChild.Reverse(), BDB.OWRITER | BDB.OCREAT);
        for (int i = 0; i < 3000; i++) {
            assertTrue(db.put(String.format("k%05d", i), "v" + i));
        }
        assertTrue(db.optimize());
        assertTrue(db.close());
        BDB again = withComparator(path, new CasketChild.Reverse(), BDB.OREADER);
        List<String> keys = iterated(again);
        assertEquals(3000, keys.size());
        for (int i = 0; i < 3000; i++) {
            assertEquals(String.format("k%05d", 2999 - i), keys.get(i));
        }
        assertEquals("v1234", again.get("k01234"));
    }

    @Test
    public void setcmpfuncAfterSetcomparatorReplacesTheJavaComparator() {
        BDB db = bdb();
        assertTrue(db.setcomparator(new CasketChild.Reverse()));
        assertTrue(db.setcmpfunc(BDB.CMPLEXICAL));
        assertTrue(db.open(path("replaced.tcb"), BDB.OWRITER | BDB.OCREAT));
        assertTrue(db.put("a", "1"));
        assertTrue(db.put("b", "1"));
        assertEquals(list("a", "b"), iterated(db));
    }

    @Test
    public void aThrowingComparatorCountsKeysAsEqualAndNeverCrashes() {
        Throwing.CALLS.set(0);
        BDB db = withComparator(path("throwing.tcb"), new Throwing(), BDB.OWRITER | BDB.OCREAT);
        assertTrue(db.put("a", "1"));
        assertTrue(db.put("b", "2"));
        assertTrue("the comparator was called", Throwing.CALLS.get() > 0);
        assertEquals("b equals a, so it replaced a's value", 1, db.rnum());
        assertEquals("2", db.get("a"));
        assertEquals("2", db.get("zzz"));
        assertFalse(db.putkeep("c", "3"));
        assertEquals(BDB.EKEEP, db.ecode());
        assertEquals(1, iterated(db).size());
        assertTrue(db.close());
    }

    @Test
    public void aThrowingComparatorLeaksNoLocalReferencesUnderCheckJni() throws Exception {
        Path log = tmp.newFile("throwing-cmp.log").toPath();
        Process child = startChild(Arrays.asList("-Xcheck:jni"), log, CasketChild.class, "throwing-cmp", path("throwing-child.tcb"));
        awaitLine(child, log, "DONE", 60);
        assertTrue(child.waitFor(30, TimeUnit.SECONDS));
        String output = new String(Files.readAllBytes(log), StandardCharsets.UTF_8);
        assertEquals(output, 0, child.exitValue());
        assertFalse("-Xcheck:jni complained: " + output, output.contains("WARNING: JNI"));
    }

    // ---- comparators that call a database ----

    /** A database ordered by {@link CallsBack}, not closed after the test (closing would wait for a hung call). */
    private BDB callingBack(String name) {
        CallsBack.callBack = null;
        CallsBack.RESULTS.clear();
        BDB db = new BDB();
        assertTrue(db.setcomparator(new CallsBack()));
        assertOpens(db, path(name), BDB.OWRITER | BDB.OCREAT);
        assertTrue(db.put("a", "1"));
        assertTrue(db.put("c", "3"));
        return db;
    }

    /** The outcome of every kind of call on {@code db} on a fresh thread: "value ecode errmsg". */
    private static Map<String, String> outerCalls(BDB db) {
        Map<String, Callable<?>> calls = new LinkedHashMap<>();
        calls.put("put", () -> db.put("b", "2"));
        calls.put("putdup", () -> db.putdup("b", "2"));
        calls.put("putcat", () -> db.putcat("a", "x"));
        calls.put("putkeep", () -> db.putkeep("a", "x"));
        calls.put("out", () -> db.out("a"));
        calls.put("get", () -> db.get("a"));
        calls.put("vsiz", () -> db.vsiz("a"));
        calls.put("range", () -> db.range("a", true, "z", true, -1).size());
        calls.put("jump", () -> new BDBCUR(db).jump("b"));
        Map<String, String> outcomes = new LinkedHashMap<>();
        for (Map.Entry<String, Callable<?>> c : calls.entrySet()) {
            Outcome o = onNewThread(db::ecode, () -> c.getValue().call() + " " + db.ecode() + " " + db.errmsg());
            outcomes.put(c.getKey(), (String) o.value);
        }
        return outcomes;
    }

    private static void assertEveryCallFailedBecauseOfTheComparator(Map<String, String> outcomes) {
        for (Map.Entry<String, String> o : outcomes.entrySet()) {
            String failure = o.getKey().equals("vsiz") ? "-1" : o.getKey().equals("get") ? "null" : o.getKey().equals("range") ? "0" : "false";
            assertTrue(o.getKey() + ": " + o.getValue(), o.getValue().startsWith(failure + " " + BDB.EINVALID
                    + " invalid operation: the key comparator failed: the BDBCMP comparator called a database from inside compare"));
        }
    }

    /** The records and counts of a database ordered by {@link CallsBack} once it stops calling back. */
    private static void assertUnchangedAndUsable(BDB db, long fsiz) {
        CallsBack.callBack = null;
        assertEquals(list("a=1", "c=3"), records(db));
        assertEquals(2, db.rnum());
        assertEquals(fsiz, db.fsiz());
        assertTrue(db.put("b", "2"));
        assertEquals(list("a=1", "b=2", "c=3"), records(db));
        assertTrue(db.close());
    }

    @Test
    public void aComparatorCallingItsOwnDatabaseFailsThatCallAndTheComparingOneInsteadOfHanging() {
        BDB db = callingBack("self.tcb");
        long fsiz = db.fsiz();
        CallsBack.callBack = () -> db.rnum() + " " + db.ecode() + " " + db.errmsg();
        assertEveryCallFailedBecauseOfTheComparator(outerCalls(db));
        assertFalse(CallsBack.RESULTS.isEmpty());
        for (Object r : CallsBack.RESULTS) {
            assertEquals("0 " + BDB.EINVALID + " invalid operation: called from inside a BDBCMP comparator; a comparator must not"
                    + " use any database (the call that made the comparison fails too)", r);
        }
        assertUnchangedAndUsable(db, fsiz);
    }

    @Test
    public void aComparatorCallingAnotherDatabaseFailsThatCallAndTheComparingOne() {
        BDB other = writer(path("other.tcb"));
        assertTrue(other.put("x", "y"));
        HDB hash = hdbWriter(path("other.tch"));
        BDB db = callingBack("uses-other.tcb");
        long fsiz = db.fsiz();
        CallsBack.callBack = () -> other.get("x") + " " + other.ecode() + " " + hash.put("h", "1") + " " + hash.ecode();
        assertEveryCallFailedBecauseOfTheComparator(outerCalls(db));
        assertTrue(CallsBack.RESULTS.contains("null " + BDB.EINVALID + " false " + HDB.EINVALID));
        assertUnchangedAndUsable(db, fsiz);
        assertEquals("y", other.get("x"));
        assertNull(hash.get("h"));
        assertTrue(hash.put("h", "1"));
    }

    @Test
    public void aComparatorClosingItsDatabaseOrThrowingAfterACallIsRefusedTheSameWay() {
        BDB db = callingBack("closing.tcb");
        long fsiz = db.fsiz();
        CallsBack.callBack = db::close;
        assertEveryCallFailedBecauseOfTheComparator(outerCalls(db));
        assertTrue(CallsBack.RESULTS.contains(false));
        // Throws (NullPointerException) because the call it made failed.
        CallsBack.callBack = () -> db.get("a").length();
        assertEveryCallFailedBecauseOfTheComparator(outerCalls(db));
        assertUnchangedAndUsable(db, fsiz);
    }

    @Test
    public void aComparatorCallingItsDatabaseDuringBackgroundCompactionNeitherHangsNorFailsOptimize() {
        BDB db = callingBack("compacting.tcb");
        for (int i = 0; i < 2000; i++) {
            assertTrue(db.put(String.format("k%05d", i), "v"));
        }
        Set<String> threads = Collections.synchronizedSet(new HashSet<>());
        String test = Thread.currentThread().getName();
        CallsBack.callBack = () -> {
            threads.add(Thread.currentThread().getName());
            return db.rnum();
        };
        Outcome o = onNewThread(db::ecode, db::optimize);
        CallsBack.callBack = null;
        assertEquals(true, o.value);
        assertFalse("the comparator ran during the compaction", threads.isEmpty());
        assertFalse(threads.contains(test));
        assertEquals(2002, db.rnum());
        assertEquals("v", db.get("k01234"));
        assertTrue(db.close());
    }

    // ---- persistence of the order ----

    private void assertReopenFailsWithEmeta(String path, BDB db, int omode) {
        Outcome o = onNewThread(db::ecode, () -> db.open(path, omode));
        assertEquals(false, o.value);
        assertEquals(BDB.EMETA, o.ecode);
        assertEquals(null, db.path());
    }

    @Test
    public void reopeningWithAnotherComparisonFunctionFailsWithEmeta() {
        String path = path("persisted.tcb");
        BDB db = withCmpfunc(path, BDB.CMPINT32);
        assertTrue(db.put(nativeInt(1), b("one")));
        assertTrue(db.close());
        assertReopenFailsWithEmeta(path, bdb(), BDB.OWRITER);
        assertReopenFailsWithEmeta(path, bdb(), BDB.OREADER);
        BDB decimal = bdb();
        assertTrue(decimal.setcmpfunc(BDB.CMPDECIMAL));
        assertReopenFailsWithEmeta(path, decimal, BDB.OWRITER);
        BDB int64 = bdb();
        assertTrue(int64.setcmpfunc(BDB.CMPINT64));
        assertReopenFailsWithEmeta(path, int64, BDB.OREADER);
        BDB java = bdb();
        assertTrue(java.setcomparator(new CasketChild.Reverse()));
        assertReopenFailsWithEmeta(path, java, BDB.OWRITER);
        BDB same = bdb();
        assertTrue(same.setcmpfunc(BDB.CMPINT32));
        assertOpens(same, path, BDB.OWRITER);
        assertArrayEquals(b("one"), same.get(nativeInt(1)));
    }

    @Test
    public void reopeningAJavaComparatorDatabaseWithoutItOrWithAnotherFailsWithEmeta() {
        String path = path("java-persisted.tcb");
        assertTrue(reverseSample(path).close());
        assertReopenFailsWithEmeta(path, bdb(), BDB.OWRITER);
        assertReopenFailsWithEmeta(path, bdb(), BDB.OREADER);
        BDB other = bdb();
        assertTrue(other.setcomparator(new Bytewise()));
        assertReopenFailsWithEmeta(path, other, BDB.OWRITER);
        BDB builtin = bdb();
        assertTrue(builtin.setcmpfunc(BDB.CMPDECIMAL));
        assertReopenFailsWithEmeta(path, builtin, BDB.OWRITER);
        BDB same = withComparator(path, new CasketChild.Reverse(), BDB.OWRITER);
        assertEquals(list("d", "c", "ba", "b", "b", "a"), iterated(same));
    }

    @Test
    public void reopeningADefaultOrderDatabaseWithAComparatorFailsWithEmeta() {
        String path = path("lexical.tcb");
        BDB db = writer(path);
        assertTrue(db.put("a", "1"));
        assertTrue(db.close());
        BDB java = bdb();
        assertTrue(java.setcomparator(new Bytewise()));
        assertReopenFailsWithEmeta(path, java, BDB.OWRITER);
        BDB decimal = bdb();
        assertTrue(decimal.setcmpfunc(BDB.CMPDECIMAL));
        assertReopenFailsWithEmeta(path, decimal, BDB.OREADER);
        BDB lexical = bdb();
        assertTrue(lexical.setcmpfunc(BDB.CMPLEXICAL));
        assertTrue(lexical.open(path, BDB.OREADER));
        assertEquals("1", lexical.get("a"));
    }

    @Test
    public void otruncMayChangeTheComparisonFunction() {
        String path = path("retyped.tcb");
        assertTrue(withCmpfunc(path, BDB.CMPINT32).close());
        BDB db = bdb();
        assertTrue(db.setcmpfunc(BDB.CMPDECIMAL));
        assertOpens(db, path, BDB.OWRITER | BDB.OTRUNC);
        assertTrue(db.put("10", "x"));
        assertTrue(db.put("9", "x"));
        assertEquals(list("9", "10"), iterated(db));
    }

    // ---- process exit ----

    @Test
    public void aJvmThatUsedAJavaComparatorExitsWhenMainReturns() throws Exception {
        String path = path("exit.tcb");
        Path log = tmp.newFile("reverse-cmp.log").toPath();
        Process child = startChild(log, CasketChild.class, "reverse-cmp", path);
        awaitLine(child, log, "DONE", 60);
        boolean exited = child.waitFor(20, TimeUnit.SECONDS);
        if (!exited) {
            child.destroyForcibly();
            child.waitFor(10, TimeUnit.SECONDS);
        }
        assertTrue("the child JVM must exit after main returns (threads the comparator was called on "
                + "must not keep it alive); output: " + new String(Files.readAllBytes(log), StandardCharsets.UTF_8), exited);
        assertEquals(0, child.exitValue());
        BDB db = withComparator(path, new CasketChild.Reverse(), BDB.OREADER);
        assertEquals(20000, db.rnum());
        BDBCUR cur = new BDBCUR(db);
        assertTrue(cur.first());
        assertEquals("k019999", cur.key2());
    }
}
