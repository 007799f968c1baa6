package tokyocabinet;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertNotNull;
import static org.junit.Assert.assertNull;
import static org.junit.Assert.assertThrows;
import static org.junit.Assert.assertTrue;

import java.io.File;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.Test;
import org.junit.function.ThrowingRunnable;

/** Error codes, messages and argument checks of BDB, as the reference lists them. */
public class BDBErrorCodesTest extends CasketTestBase {
    private static final String[] MESSAGES = {"success", "threading error", "invalid operation", "file not found",
            "no permission", "invalid meta data", "invalid record header", "open error", "close error", "trunc error",
            "sync error", "stat error", "seek error", "read error", "write error", "mmap error", "lock error",
            "unlink error", "rename error", "mkdir error", "rmdir error", "existing record", "no record found"};

    // ---- messages ----

    @Test
    public void errmsgGivesTheTokyoCabinetMessageOfEveryCode() {
        for (int code = 0; code < MESSAGES.length; code++) {
            assertEquals("code " + code, MESSAGES[code], BDB.errmsg(code));
        }
        assertEquals("miscellaneous error", BDB.errmsg(BDB.EMISC));
    }

    @Test
    public void errmsgOfAnUnknownCodeIsUnknownError() {
        for (int code : new int[] {-1, 23, 100, 9998, 10000, Integer.MIN_VALUE, Integer.MAX_VALUE}) {
            assertEquals("code " + code, "unknown error", BDB.errmsg(code));
        }
    }

    @Test
    public void errorCodeConstantsHaveTheMessagesOfTheirNames() {
        assertEquals("success", BDB.errmsg(BDB.ESUCCESS));
        assertEquals("invalid operation", BDB.errmsg(BDB.EINVALID));
        assertEquals("file not found", BDB.errmsg(BDB.ENOFILE));
        assertEquals("invalid meta data", BDB.errmsg(BDB.EMETA));
        assertEquals("lock error", BDB.errmsg(BDB.ELOCK));
        assertEquals("existing record", BDB.errmsg(BDB.EKEEP));
        assertEquals("no record found", BDB.errmsg(BDB.ENOREC));
    }

    @Test
    public void errmsgWithoutArgumentDescribesTheLastErrorOfTheCallingThread() {
        BDB db = bdb();
        assertEquals(BDB.ESUCCESS, db.ecode());
        assertEquals("success", db.errmsg());
        assertNull(db.get(b("k")));
        assertEquals(BDB.EINVALID, db.ecode());
        assertEquals("invalid operation", db.errmsg());
    }

    // ---- EINVALID ----

    /** Every operation of a database that is not open, with its failure value. */
    private static Map<String, Callable<?>> operations(BDB db) {
        Map<String, Callable<?>> ops = new LinkedHashMap<>();
        ops.put("put", () -> db.put(b("k"), b("v")));
        ops.put("put(String)", () -> db.put("k", "v"));
        ops.put("putkeep", () -> db.putkeep(b("k"), b("v")));
        ops.put("putcat", () -> db.putcat(b("k"), b("v")));
        ops.put("putdup", () -> db.putdup(b("k"), b("v")));
        ops.put("putlist", () -> db.putlist(b("k"), new ArrayList<>(Collections.singletonList(b("v")))));
        ops.put("out", () -> db.out(b("k")));
        ops.put("outlist", () -> db.outlist(b("k")));
        ops.put("get", () -> db.get(b("k")));
        ops.put("get(String)", () -> db.get("k"));
        ops.put("getlist", () -> db.getlist(b("k")));
        ops.put("vnum", () -> db.vnum(b("k")));
        ops.put("vsiz", () -> db.vsiz(b("k")));
        ops.put("iterinit", db::iterinit);
        ops.put("iternext", db::iternext);
        ops.put("range", () -> db.range(b("a"), true, b("z"), true, -1));
        ops.put("fwmkeys", () -> db.fwmkeys(b("k"), -1));
        ops.put("addint", () -> db.addint(b("k"), 1));
        ops.put("adddouble", () -> db.adddouble(b("k"), 1.0));
        ops.put("sync", db::sync);
        ops.put("optimize", () -> db.optimize());
        ops.put("vanish", db::vanish);
        ops.put("copy", () -> db.copy(new File(System.getProperty("java.io.tmpdir"), "never-written").getPath()));
        ops.put("tranbegin", db::tranbegin);
        ops.put("trancommit", db::trancommit);
        ops.put("tranabort", db::tranabort);
        ops.put("path", db::path);
        ops.put("rnum", db::rnum);
        ops.put("fsiz", db::fsiz);
        ops.put("cursor first", () -> new BDBCUR(db).first());
        ops.put("cursor last", () -> new BDBCUR(db).last());
        ops.put("cursor jump", () -> new BDBCUR(db).jump(b("k")));
        ops.put("close", db::close);
        return ops;
    }

    private static Object failureValue(String op) {
        switch (op) {
            case "get": case "get(String)": case "getlist": case "iternext": case "path":
                return null;
            case "vnum":
                return 0;
            case "vsiz":
                return -1;
            case "addint":
                return Integer.MIN_VALUE;
            case "adddouble":
                return Double.NaN;
            case "rnum": case "fsiz":
                return 0L;
            case "range": case "fwmkeys":
                return new ArrayList<>();
            default:
                return false;
        }
    }

    private void assertEveryOperationFailsWithEinvalid(BDB db) {
        List<String> problems = new ArrayList<>();
        for (Map.Entry<String, Callable<?>> op : operations(db).entrySet()) {
            Outcome o = onNewThread(db::ecode, op.getValue());
            Object expected = failureValue(op.getKey());
            if (!java.util.Objects.equals(expected, o.value) || o.ecode != BDB.EINVALID) {
                problems.add(op.getKey() + " returned " + o.value + " with ecode " + o.ecode);
            }
        }
        assertEquals(new ArrayList<>(), problems);
    }

    @Test
    public void everyOperationOnANeverOpenedDatabaseFailsWithEinvalid() {
        assertEveryOperationFailsWithEinvalid(bdb());
    }

    @Test
    public void everyOperationOnAClosedDatabaseFailsWithEinvalid() {
        BDB db = writer(path("closed.tcb"));
        assertTrue(db.put("k", "v"));
        assertTrue(db.close());
        assertEveryOperationFailsWithEinvalid(db);
    }

    @Test
    public void everyWriteOnAReaderFailsWithEinvalidAndLeavesTheRecords() {
        String path = path("reader.tcb");
        BDB w = writer(path);
        assertTrue(w.put("k", "v"));
        assertTrue(w.close());
        BDB db = openBdb(path, BDB.OREADER);
        Map<String, Callable<?>> writes = new LinkedHashMap<>();
        writes.put("put", () -> db.put(b("k"), b("w")));
        writes.put("putkeep", () -> db.putkeep(b("n"), b("w")));
        writes.put("putcat", () -> db.putcat(b("k"), b("w")));
        writes.put("putdup", () -> db.putdup(b("k"), b("w")));
        writes.put("putlist", () -> db.putlist(b("k"), new ArrayList<>(Collections.singletonList(b("w")))));
        writes.put("out", () -> db.out(b("k")));
        writes.put("outlist", () -> db.outlist(b("k")));
        writes.put("addint", () -> db.addint(b("i"), 1));
        writes.put("adddouble", () -> db.adddouble(b("d"), 1.0));
        writes.put("vanish", db::vanish);
        writes.put("optimize", () -> db.optimize());
        writes.put("sync", db::sync);
        writes.put("tranbegin", db::tranbegin);
        writes.put("cursor put", () -> {
            BDBCUR cur = new BDBCUR(db);
            assertTrue(cur.first());
            return cur.put(b("w"), BDBCUR.CPCURRENT);
        });
        writes.put("cursor out", () -> {
            BDBCUR cur = new BDBCUR(db);
            assertTrue(cur.first());
            return cur.out();
        });
        List<String> problems = new ArrayList<>();
        for (Map.Entry<String, Callable<?>> op : writes.entrySet()) {
            Outcome o = onNewThread(db::ecode, op.getValue());
            Object expected = op.getKey().equals("addint") ? (Object) Integer.MIN_VALUE
                    : op.getKey().equals("adddouble") ? (Object) Double.NaN : (Object) false;
            if (!expected.equals(o.value) || o.ecode != BDB.EINVALID) {
                problems.add(op.getKey() + " returned " + o.value + " with ecode " + o.ecode);
            }
        }
        assertEquals(new ArrayList<>(), problems);
        assertEquals(list("k=v"), records(db));
        assertEquals(1, db.rnum());
    }

    @Test
    public void openingAnOpenDatabaseAgainFailsWithEinvalidAndKeepsTheFirstOpen() {
        String first = path("first.tcb");
        BDB db = writer(first);
        assertFalse(db.open(path("second.tcb"), BDB.OWRITER | BDB.OCREAT));
        assertEquals(BDB.EINVALID, db.ecode());
        assertFalse(new File(path("second.tcb")).exists());
        assertEquals(first, db.path());
        assertTrue(db.put("still", "open"));
    }

    @Test
    public void settingsAreAcceptedBeforeOpenAndRefusedWithEinvalidAfterOpen() {
        BDB db = bdb();
        assertTrue(db.tune(0, 0, 0, -1, -1, 0));
        assertTrue(db.setcache(0, 0));
        assertTrue(db.setxmsiz(0));
        assertTrue(db.setdfunit(0));
        assertTrue(db.setcmpfunc(BDB.CMPLEXICAL));
        assertTrue(db.open(path("settings.tcb"), BDB.OWRITER | BDB.OCREAT));
        Map<String, Callable<?>> settings = new LinkedHashMap<>();
        settings.put("tune", () -> db.tune(0, 0, 0, -1, -1, 0));
        settings.put("setcache", () -> db.setcache(0, 0));
        settings.put("setxmsiz", () -> db.setxmsiz(0));
        settings.put("setdfunit", () -> db.setdfunit(0));
        settings.put("setcmpfunc", () -> db.setcmpfunc(BDB.CMPLEXICAL));
        settings.put("setcomparator", () -> db.setcomparator(new CasketChild.Reverse()));
        for (Map.Entry<String, Callable<?>> op : settings.entrySet()) {
            Outcome o = onNewThread(db::ecode, op.getValue());
            assertEquals(op.getKey(), false, o.value);
            assertEquals(op.getKey(), BDB.EINVALID, o.ecode);
        }
        assertTrue("still usable", db.put("k", "v"));
    }

    @Test
    public void tuningOptionsAndCacheSettingsGiveAWorkingDatabase() {
        BDB db = bdb();
        assertTrue(db.tune(64, 128, 1000, 4, 8, BDB.TLARGE | BDB.TDEFLATE));
        assertTrue(db.setcache(10, 10));
        assertTrue(db.setxmsiz(1 << 20));
        assertTrue(db.setdfunit(8));
        assertTrue(db.open(path("tuned.tcb"), BDB.OWRITER | BDB.OCREAT));
        for (int i = 0; i < 100; i++) {
            assertTrue(db.put("k" + i, "value " + i));
        }
        assertEquals("value 42", db.get("k42"));
        assertEquals(100, db.rnum());
    }

    @Test
    public void trancommitAndTranabortWithoutATransactionFailWithEinvalid() {
        BDB db = writer(path("notx.tcb"));
        Outcome commit = onNewThread(db::ecode, db::trancommit);
        assertEquals(false, commit.value);
        assertEquals(BDB.EINVALID, commit.ecode);
        Outcome abort = onNewThread(db::ecode, db::tranabort);
        assertEquals(false, abort.value);
        assertEquals(BDB.EINVALID, abort.ecode);
        assertTrue(db.tranbegin());
        assertTrue(db.trancommit());
        Outcome again = onNewThread(db::ecode, db::trancommit);
        assertEquals("a second commit has no transaction", false, again.value);
        assertEquals(BDB.EINVALID, again.ecode);
    }

    @Test
    public void setcmpfuncWithAnUnknownFunctionFailsWithEinvalid() {
        BDB db = bdb();
        for (int bad : new int[] {-1, 4, 99}) {
            Outcome o = onNewThread(db::ecode, () -> db.setcmpfunc(bad));
            assertEquals("cmp " + bad, false, o.value);
            assertEquals("cmp " + bad, BDB.EINVALID, o.ecode);
        }
        assertTrue(db.setcmpfunc(BDB.CMPINT64));
    }

    @Test
    public void copyToACommandIsRefusedWithEinvalidAndRunsNothing() throws Exception {
        BDB db = writer(path("cmd.tcb"));
        assertTrue(db.put("k", "v"));
        File marker = new File(tmp.getRoot(), "ran");
        Outcome o = onNewThread(db::ecode, () -> db.copy("@touch " + marker.getPath()));
        assertEquals(false, o.value);
        assertEquals(BDB.EINVALID, o.ecode);
        Thread.sleep(100);
        assertFalse("the command must not run", marker.exists());
    }

    // ---- EKEEP ----

    @Test
    public void putkeepOnAnExistingKeyFailsWithEkeepAndKeepsTheValue() {
        BDB db = writer(path("keep.tcb"));
        assertTrue(db.putkeep("k", "first"));
        Outcome o = onNewThread(db::ecode, () -> db.putkeep("k", "second"));
        assertEquals(false, o.value);
        assertEquals(BDB.EKEEP, o.ecode);
        assertEquals("first", db.get("k"));
        assertEquals(1, db.rnum());
    }

    @Test
    public void addintAndAdddoubleOnAValueOfTheWrongSizeFailWithEkeep() {
        BDB db = writer(path("addkeep.tcb"));
        assertTrue(db.put("five", "12345"));
        Outcome i = onNewThread(db::ecode, () -> db.addint(b("five"), 1));
        assertEquals(Integer.MIN_VALUE, i.value);
        assertEquals(BDB.EKEEP, i.ecode);
        Outcome d = onNewThread(db::ecode, () -> db.adddouble(b("five"), 1.5));
        assertTrue("NaN, was " + d.value, Double.isNaN((Double) d.value));
        assertEquals(BDB.EKEEP, d.ecode);
        assertEquals("12345", db.get("five"));
        // A 4-byte value is no double, an 8-byte value no int.
        assertTrue(db.put(b("int"), nativeInt(7)));
        assertTrue(Double.isNaN(db.adddouble(b("int"), 1.0)));
        assertEquals(BDB.EKEEP, db.ecode());
        assertTrue(db.put(b("double"), nativeDouble(7.0)));
        assertEquals(Integer.MIN_VALUE, db.addint(b("double"), 1));
        assertEquals(BDB.EKEEP, db.ecode());
    }

    // ---- ENOREC ----

    @Test
    public void lookupsOfAMissingKeyFailWithEnorec() {
        BDB db = writer(path("norec.tcb"));
        assertTrue(db.put("other", "v"));
        Map<String, Callable<?>> ops = new LinkedHashMap<>();
        ops.put("get", () -> db.get(b("missing")));
        ops.put("get(String)", () -> db.get("missing"));
        ops.put("getlist", () -> db.getlist(b("missing")));
        ops.put("getlist(String)", () -> db.getlist("missing"));
        ops.put("out", () -> db.out(b("missing")));
        ops.put("outlist", () -> db.outlist(b("missing")));
        ops.put("vsiz", () -> db.vsiz(b("missing")));
        Map<String, Object> failures = new LinkedHashMap<>();
        failures.put("get", null);
        failures.put("get(String)", null);
        failures.put("getlist", null);
        failures.put("getlist(String)", null);
        failures.put("out", false);
        failures.put("outlist", false);
        failures.put("vsiz", -1);
        for (Map.Entry<String, Callable<?>> op : ops.entrySet()) {
            Outcome o = onNewThread(db::ecode, op.getValue());
            assertEquals(op.getKey(), failures.get(op.getKey()), o.value);
            assertEquals(op.getKey(), BDB.ENOREC, o.ecode);
        }
        assertEquals("vnum of a missing key is 0", 0, db.vnum(b("missing")));
        assertEquals(1, db.rnum());
    }

    @Test
    public void cursorsAndTheIteratorOnAnEmptyDatabaseFailWithEnorec() {
        BDB db = writer(path("empty.tcb"));
        Map<String, Callable<?>> ops = new LinkedHashMap<>();
        ops.put("iterinit", db::iterinit);
        ops.put("first", () -> new BDBCUR(db).first());
        ops.put("last", () -> new BDBCUR(db).last());
        ops.put("jump", () -> new BDBCUR(db).jump(b("")));
        for (Map.Entry<String, Callable<?>> op : ops.entrySet()) {
            Outcome o = onNewThread(db::ecode, op.getValue());
            assertEquals(op.getKey(), false, o.value);
            assertEquals(op.getKey(), BDB.ENOREC, o.ecode);
        }
        Outcome next = onNewThread(db::ecode, db::iternext);
        assertNull(next.value);
        assertEquals(BDB.ENOREC, next.ecode);
    }

    // ---- ENOFILE ----

    @Test
    public void openingAMissingPathWithoutOcreatFailsWithEnofileAndCreatesNothing() {
        String path = path("missing.tcb");
        for (int mode : new int[] {BDB.OREADER, BDB.OWRITER, BDB.OREADER | BDB.OLCKNB, BDB.OWRITER | BDB.OTRUNC}) {
            BDB db = bdb();
            Outcome o = onNewThread(db::ecode, () -> db.open(path, mode));
            assertEquals("mode " + mode, false, o.value);
            assertEquals("mode " + mode, BDB.ENOFILE, o.ecode);
            assertFalse(new File(path).exists());
            assertNull(db.path());
        }
        BDB db = bdb();
        assertFalse(db.open(path("no/such/dir/x.tcb"), BDB.OWRITER | BDB.OCREAT));
        assertEquals(BDB.ENOFILE, db.ecode());
    }

    @Test
    public void openWithOneArgumentOpensAReader() {
        String path = path("one-arg.tcb");
        BDB missing = bdb();
        assertFalse(missing.open(path));
        assertEquals(BDB.ENOFILE, missing.ecode());
        BDB w = writer(path);
        assertTrue(w.put("k", "v"));
        assertTrue(w.close());
        BDB r = bdb();
        boolean opened = r.open(path);
        assertTrue(r.errmsg(), opened);
        assertEquals("v", r.get("k"));
        assertFalse(r.put("k", "w"));
        assertEquals(BDB.EINVALID, r.ecode());
    }

    // ---- thread-local codes ----

    @Test
    public void theErrorCodeIsPerThread() throws Exception {
        BDB db = writer(path("threads.tcb"));
        assertTrue(db.put("k", "v"));
        AtomicInteger otherBefore = new AtomicInteger(-1);
        AtomicInteger otherAfter = new AtomicInteger(-1);
        CountDownLatch failedHere = new CountDownLatch(1);
        CountDownLatch otherFailed = new CountDownLatch(1);
        CountDownLatch checkedHere = new CountDownLatch(1);
        Thread other = new Thread(() -> {
            try {
                failedHere.await();
                otherBefore.set(db.ecode()); // the main thread's EKEEP must not show here
                db.get("missing");
                otherFailed.countDown();
                checkedHere.await();
                otherAfter.set(db.ecode());
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        });
        other.start();
        assertFalse(db.putkeep("k", "w"));
        assertEquals(BDB.EKEEP, db.ecode());
        failedHere.countDown();
        otherFailed.await();
        assertEquals("the other thread's ENOREC must not show here", BDB.EKEEP, db.ecode());
        checkedHere.countDown();
        other.join(10_000);
        assertEquals(BDB.ESUCCESS, otherBefore.get());
        assertEquals(BDB.ENOREC, otherAfter.get());
    }

    @Test
    public void successDoesNotResetTheErrorCode() {
        BDB db = writer(path("sticky.tcb"));
        assertNull(db.get("missing"));
        assertEquals(BDB.ENOREC, db.ecode());
        assertTrue(db.put("k", "v"));
        assertEquals("v", db.get("k"));
        assertEquals(1, db.rnum());
        assertEquals(BDB.ENOREC, db.ecode());
        assertEquals("no record found", db.errmsg());
        assertFalse(db.putkeep("k", "w"));
        assertEquals("the next failure replaces it", BDB.EKEEP, db.ecode());
    }

    @Test
    public void eachDatabaseObjectHasItsOwnErrorCode() {
        BDB a = writer(path("a.tcb"));
        BDB other = writer(path("b.tcb"));
        assertNull(a.get("missing"));
        assertEquals(BDB.ENOREC, a.ecode());
        assertEquals(BDB.ESUCCESS, other.ecode());
    }

    // ---- null arguments ----

    private static void assertIllegalArgument(String what, ThrowingRunnable call) {
        IllegalArgumentException e = assertThrows(what, IllegalArgumentException.class, call);
        assertEquals(what, "illegal argument", e.getMessage());
    }

    @Test
    public void nullArgumentsThrowIllegalArgumentException() {
        BDB db = writer(path("nulls.tcb"));
        assertTrue(db.put("k", "v"));
        byte[] k = b("k");
        List<Object> values = new ArrayList<>(Arrays.asList(b("v")));
        assertIllegalArgument("put key", () -> db.put(null, k));
        assertIllegalArgument("put value", () -> db.put(k, null));
        assertIllegalArgument("put String key", () -> db.put(null, "v"));
        assertIllegalArgument("put String value", () -> db.put("k", null));
        assertIllegalArgument("putkeep", () -> db.putkeep(null, k));
        assertIllegalArgument("putkeep value", () -> db.putkeep(k, null));
        assertIllegalArgument("putkeep String", () -> db.putkeep((String) null, "v"));
        assertIllegalArgument("putcat", () -> db.putcat(null, k));
        assertIllegalArgument("putcat String", () -> db.putcat("k", null));
        assertIllegalArgument("putdup", () -> db.putdup(k, null));
        assertIllegalArgument("putdup String", () -> db.putdup((String) null, "v"));
        assertIllegalArgument("putlist key", () -> db.putlist((byte[]) null, values));
        assertIllegalArgument("putlist list", () -> db.putlist(k, null));
        assertIllegalArgument("putlist String key", () -> db.putlist((String) null, new ArrayList<>()));
        assertIllegalArgument("putlist String list", () -> db.putlist("k", null));
        assertIllegalArgument("out", () -> db.out((byte[]) null));
        assertIllegalArgument("out String", () -> db.out((String) null));
        assertIllegalArgument("outlist", () -> db.outlist((byte[]) null));
        assertIllegalArgument("outlist String", () -> db.outlist((String) null));
        assertIllegalArgument("get", () -> db.get((byte[]) null));
        assertIllegalArgument("get String", () -> db.get((String) null));
        assertIllegalArgument("getlist", () -> db.getlist((byte[]) null));
        assertIllegalArgument("getlist String", () -> db.getlist((String) null));
        assertIllegalArgument("vnum", () -> db.vnum((byte[]) null));
        assertIllegalArgument("vnum String", () -> db.vnum((String) null));
        assertIllegalArgument("vsiz", () -> db.vsiz((byte[]) null));
        assertIllegalArgument("vsiz String", () -> db.vsiz((String) null));
        assertIllegalArgument("fwmkeys", () -> db.fwmkeys((byte[]) null, -1));
        assertIllegalArgument("fwmkeys String", () -> db.fwmkeys((String) null, -1));
        assertIllegalArgument("addint", () -> db.addint((byte[]) null, 1));
        assertIllegalArgument("addint String", () -> db.addint((String) null, 1));
        assertIllegalArgument("adddouble", () -> db.adddouble((byte[]) null, 1));
        assertIllegalArgument("adddouble String", () -> db.adddouble((String) null, 1));
        assertIllegalArgument("copy", () -> db.copy(null));
        assertIllegalArgument("setcomparator", () -> bdb().setcomparator(null));
        assertIllegalArgument("open", () -> bdb().open(null, BDB.OWRITER | BDB.OCREAT));
        assertIllegalArgument("open one argument", () -> bdb().open(null));
        assertIllegalArgument("cursor", () -> new BDBCUR(null));
        BDBCUR cur = new BDBCUR(db);
        assertTrue(cur.first());
        assertIllegalArgument("cursor jump", () -> cur.jump((byte[]) null));
        assertIllegalArgument("cursor jump String", () -> cur.jump((String) null));
        assertIllegalArgument("cursor put", () -> cur.put((byte[]) null, BDBCUR.CPCURRENT));
        assertIllegalArgument("cursor put String", () -> cur.put((String) null, BDBCUR.CPCURRENT));
        // Nothing was written by the refused calls.
        assertEquals(list("k=v"), records(db));
    }

    @Test
    public void nullArgumentsThrowEvenWhenTheDatabaseIsNotOpen() {
        BDB db = bdb();
        assertIllegalArgument("put", () -> db.put(null, b("v")));
        assertIllegalArgument("get", () -> db.get((byte[]) null));
        assertIllegalArgument("getlist", () -> db.getlist((byte[]) null));
        assertIllegalArgument("vnum", () -> db.vnum((byte[]) null));
        assertIllegalArgument("copy", () -> db.copy(null));
        assertNotNull(db.range((byte[]) null, true, null, true, -1));
    }
}
