package tokyocabinet;

import static org.junit.Assert.assertArrayEquals;
import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertNull;
import static org.junit.Assert.assertThrows;
import static org.junit.Assert.assertTrue;

import java.io.File;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.Test;

/** HDB: one value per key, otherwise the same rules as BDB. */
public class HDBTest extends CasketTestBase {
    private HDB db() {
        return hdbWriter(path("hash.tch"));
    }

    @Test
    public void putOverwritesAndKeepsOneValuePerKey() {
        HDB db = db();
        assertTrue(db.put(b("k"), b("1")));
        assertTrue(db.put("k", "2"));
        assertEquals("2", db.get("k"));
        assertArrayEquals(b("2"), db.get(b("k")));
        assertEquals(1, db.rnum());
    }

    @Test
    public void putkeepAddsOnlyAbsentKeys() {
        HDB db = db();
        assertTrue(db.putkeep("k", "1"));
        assertFalse(db.putkeep(b("k"), b("2")));
        assertEquals(HDB.EKEEP, db.ecode());
        assertEquals("1", db.get("k"));
    }

    @Test
    public void putcatAppendsOrCreates() {
        HDB db = db();
        assertTrue(db.putcat("k", "ab"));
        assertTrue(db.putcat(b("k"), b("cd")));
        assertEquals("abcd", db.get("k"));
        assertEquals(1, db.rnum());
    }

    @Test
    public void putasyncStoresLikePut() {
        String path = path("async.tch");
        HDB db = hdbWriter(path);
        assertTrue(db.putasync("k", "1"));
        assertTrue(db.putasync(b("k"), b("2")));
        assertTrue(db.putasync("j", "3"));
        assertEquals(2, db.rnum());
        assertTrue(db.close());
        HDB again = hdb();
        assertTrue(again.open(path, HDB.OREADER));
        assertEquals("2", again.get("k"));
        assertEquals("3", again.get("j"));
    }

    @Test
    public void outRemovesTheRecordAndFailsWithEnorecWhenAbsent() {
        HDB db = db();
        assertTrue(db.put("k", "v"));
        assertTrue(db.out("k"));
        assertNull(db.get("k"));
        assertEquals(HDB.ENOREC, db.ecode());
        Outcome o = onNewThread(db::ecode, () -> db.out(b("k")));
        assertEquals(false, o.value);
        assertEquals(HDB.ENOREC, o.ecode);
        assertEquals(0, db.rnum());
    }

    @Test
    public void vsizIsTheValueSizeOrMinusOneWithEnorec() {
        HDB db = db();
        assertTrue(db.put("k", "12345"));
        assertEquals(5, db.vsiz("k"));
        assertEquals(5, db.vsiz(b("k")));
        Outcome o = onNewThread(db::ecode, () -> db.vsiz("missing"));
        assertEquals(-1, o.value);
        assertEquals(HDB.ENOREC, o.ecode);
    }

    @Test
    public void iterinitSucceedsOnAnEmptyDatabaseAndIternextThenReturnsNull() {
        HDB db = db();
        assertTrue(db.iterinit());
        assertNull(db.iternext());
        assertEquals(HDB.ENOREC, db.ecode());
        assertNull(db.iternext2());
    }

    @Test
    public void iternextVisitsEveryKeyOnce() {
        HDB db = db();
        for (String k : new String[] {"c", "a", "b", "a", "c"}) {
            assertTrue(db.put(k, "v"));
        }
        List<String> keys = iterated(db);
        assertEquals(list("a", "b", "c"), keys);
        assertTrue(db.iterinit());
        assertEquals("a", db.iternext2());
    }

    @Test
    public void fwmkeysReturnsTheKeysWithThePrefix() {
        HDB db = db();
        for (String k : new String[] {"ab", "abc", "b", "a"}) {
            assertTrue(db.put(k, "v"));
        }
        assertEquals(list("ab", "abc"), db.fwmkeys("ab", -1));
        assertEquals(list("a"), strings(db.fwmkeys(b("a"), 1)));
        assertEquals(list(), db.fwmkeys("x", -1));
    }

    @Test
    public void addintAndAdddoubleUseNativeOrderAndFailWithEkeepOnAWrongSize() {
        HDB db = db();
        assertEquals(3, db.addint("i", 3));
        assertEquals(10, db.addint(b("i"), 7));
        assertArrayEquals(nativeInt(10), db.get(b("i")));
        assertEquals(2.5, db.adddouble("d", 2.5), 0.0);
        assertEquals(3.0, db.adddouble(b("d"), 0.5), 0.0);
        assertArrayEquals(nativeDouble(3.0), db.get(b("d")));
        assertTrue(db.put("s", "abc"));
        assertEquals(Integer.MIN_VALUE, db.addint("s", 1));
        assertEquals(HDB.EKEEP, db.ecode());
        assertTrue(Double.isNaN(db.adddouble("s", 1)));
        assertEquals(HDB.EKEEP, db.ecode());
        assertEquals("abc", db.get("s"));
    }

    @Test
    public void tranabortRestoresTheRecordsAndTrancommitKeepsThem() {
        String path = path("tx.tch");
        HDB db = hdbWriter(path);
        assertTrue(db.put("a", "1"));
        assertTrue(db.put("b", "2"));
        assertTrue(db.tranbegin());
        assertTrue(db.put("a", "changed"));
        assertTrue(db.out("b"));
        for (int i = 0; i < 100; i++) {
            assertTrue(db.put("n" + i, "v"));
            assertEquals("v", db.get("n" + i));
        }
        assertEquals(101, db.rnum());
        assertTrue(db.tranabort());
        assertEquals(2, db.rnum());
        assertEquals(list("a", "b"), iterated(db));
        assertEquals("1", db.get("a"));
        assertTrue(db.tranbegin());
        assertTrue(db.put("c", "3"));
        assertTrue(db.trancommit());
        assertFalse(db.trancommit());
        assertEquals(HDB.EINVALID, db.ecode());
        assertFalse(db.tranabort());
        assertTrue(db.close());
        assertTrue(db.open(path, HDB.OREADER));
        assertEquals(list("a", "b", "c"), iterated(db));
        assertFalse(db.tranbegin());
        assertEquals(HDB.EINVALID, db.ecode());
    }

    @Test
    public void tranabortLeavesRnumAndFsizAsTheyWereAtTranbegin() {
        HDB db = hdbWriter(path("size.tch"));
        assertTrue(db.put("a", "1"));
        assertTrue(db.put("b", "2"));
        long rnum = db.rnum();
        long fsiz = db.fsiz();
        assertTrue(db.tranbegin());
        for (int i = 0; i < 100; i++) {
            assertTrue(db.putcat("a", "appended"));
            assertTrue(db.putcat("n" + i, "v"));
            assertEquals("v", db.get("n" + i));
            if (i % 2 == 0) {
                assertTrue(db.out("n" + i));
            }
        }
        assertTrue(db.out("b"));
        assertTrue(db.tranabort());
        assertEquals(rnum, db.rnum());
        assertEquals(fsiz, db.fsiz());
        assertEquals("1", db.get("a"));
        assertTrue(db.tranbegin());
        assertTrue(db.putcat("a", "23"));
        assertTrue(db.trancommit());
        assertEquals("committed growth counts", fsiz + 2, db.fsiz());
        assertTrue(db.close());
        assertTrue(db.open(path("size.tch"), HDB.OREADER));
        assertEquals(fsiz + 2, db.fsiz());
    }

    @Test
    public void tranbeginOnAnotherThreadWaitsUntilTheTransactionEnds() throws Exception {
        HDB db = db();
        assertTrue(db.tranbegin());
        CountDownLatch begun = new CountDownLatch(1);
        AtomicBoolean began = new AtomicBoolean();
        Thread other = new Thread(() -> {
            began.set(db.tranbegin());
            begun.countDown();
            db.tranabort();
        });
        other.start();
        assertFalse(begun.await(250, TimeUnit.MILLISECONDS));
        assertTrue(db.tranabort());
        assertTrue(begun.await(5, TimeUnit.SECONDS));
        assertTrue(began.get());
        other.join(10_000);
    }

    @Test
    public void closeDuringATransactionAbortsIt() {
        String path = path("close.tch");
        HDB db = hdbWriter(path);
        assertTrue(db.put("a", "1"));
        assertTrue(db.tranbegin());
        assertTrue(db.put("a", "2"));
        assertTrue(db.close());
        assertTrue(db.open(path, HDB.OWRITER));
        assertEquals("1", db.get("a"));
    }

    @Test
    public void copyMakesAnHdbThatOpensAtTheDestination() {
        HDB db = db();
        assertTrue(db.put("a", "1"));
        assertTrue(db.put("b", "2"));
        String dest = path("copy.tch");
        assertTrue(db.copy(dest));
        assertFalse(db.copy("@true"));
        assertEquals(HDB.EINVALID, db.ecode());
        HDB copy = hdb();
        assertOpens(copy, dest, HDB.OREADER);
        assertEquals(list("a", "b"), iterated(copy));
        assertTrue(copy.close());
        BDB asBdb = bdb();
        assertFalse(asBdb.open(dest, BDB.OREADER));
        assertEquals(BDB.EMETA, asBdb.ecode());
    }

    @Test
    public void vanishRemovesEveryRecord() {
        HDB db = db();
        for (int i = 0; i < 100; i++) {
            assertTrue(db.put("k" + i, "v"));
        }
        assertTrue(db.vanish());
        assertEquals(0, db.rnum());
        assertTrue(db.iterinit());
        assertNull(db.iternext());
    }

    @Test
    public void pathFsizSyncAndOptimizeWork() {
        String path = path("misc.tch");
        HDB db = hdbWriter(path);
        assertEquals(path, db.path());
        assertTrue(new File(path).isFile());
        assertTrue(db.fsiz() > 0);
        for (int i = 0; i < 100; i++) {
            assertTrue(db.put("k" + i, "v"));
        }
        assertTrue(db.sync());
        assertTrue(db.optimize());
        assertTrue(db.optimize(0, -1, -1, 0xff));
        assertEquals(100, db.rnum());
    }

    @Test
    public void settingsAreRefusedWithEinvalidAfterOpen() {
        HDB db = hdb();
        assertTrue(db.tune(0, -1, -1, HDB.TLARGE));
        assertTrue(db.setcache(100));
        assertTrue(db.setxmsiz(0));
        assertTrue(db.setdfunit(0));
        assertTrue(db.open(path("settings.tch"), HDB.OWRITER | HDB.OCREAT));
        assertFalse(db.tune(0, -1, -1, 0));
        assertEquals(HDB.EINVALID, db.ecode());
        assertFalse(db.setcache(1));
        assertFalse(db.setxmsiz(1));
        assertFalse(db.setdfunit(1));
        assertFalse(db.open(path("other.tch"), HDB.OWRITER | HDB.OCREAT));
        assertEquals(HDB.EINVALID, db.ecode());
    }

    @Test
    public void everyOperationOnAClosedHdbFailsWithEinvalid() {
        HDB db = hdb();
        Map<String, Callable<?>> ops = new LinkedHashMap<>();
        ops.put("put", () -> db.put("k", "v"));
        ops.put("putkeep", () -> db.putkeep("k", "v"));
        ops.put("putcat", () -> db.putcat("k", "v"));
        ops.put("putasync", () -> db.putasync("k", "v"));
        ops.put("out", () -> db.out("k"));
        ops.put("get", () -> db.get("k"));
        ops.put("vsiz", () -> db.vsiz("k"));
        ops.put("iterinit", db::iterinit);
        ops.put("iternext", db::iternext);
        ops.put("fwmkeys", () -> db.fwmkeys("k", -1));
        ops.put("addint", () -> db.addint("k", 1));
        ops.put("adddouble", () -> db.adddouble("k", 1));
        ops.put("sync", db::sync);
        ops.put("optimize", () -> db.optimize());
        ops.put("vanish", db::vanish);
        ops.put("copy", () -> db.copy(path("nowhere.tch")));
        ops.put("tranbegin", db::tranbegin);
        ops.put("path", db::path);
        ops.put("rnum", db::rnum);
        ops.put("fsiz", db::fsiz);
        ops.put("close", db::close);
        List<String> problems = new ArrayList<>();
        for (Map.Entry<String, Callable<?>> op : ops.entrySet()) {
            Outcome o = onNewThread(db::ecode, op.getValue());
            if (o.ecode != HDB.EINVALID) {
                problems.add(op.getKey() + " ecode " + o.ecode);
            }
        }
        assertEquals(new ArrayList<>(), problems);
        assertNull(db.get("k"));
        assertEquals(-1, db.vsiz("k"));
        assertEquals(Integer.MIN_VALUE, db.addint("k", 1));
        assertEquals(0, db.rnum());
        assertEquals(list(), db.fwmkeys("k", -1));
    }

    @Test
    public void readersCannotWriteAndMissingFilesFailWithEnofile() {
        String path = path("ro.tch");
        HDB missing = hdb();
        assertFalse(missing.open(path, HDB.OREADER));
        assertEquals(HDB.ENOFILE, missing.ecode());
        assertTrue(hdbWriter(path).close());
        HDB reader = hdb();
        assertTrue(reader.open(path));
        assertFalse(reader.put("k", "v"));
        assertEquals(HDB.EINVALID, reader.ecode());
        assertEquals(0, reader.rnum());
    }

    @Test
    public void nullArgumentsThrowIllegalArgumentException() {
        HDB db = db();
        for (ThrowingCall call : new ThrowingCall[] {
                () -> db.put((byte[]) null, b("v")), () -> db.put("k", null), () -> db.putkeep((String) null, "v"),
                () -> db.putcat(b("k"), null), () -> db.putasync((byte[]) null, b("v")), () -> db.out((byte[]) null),
                () -> db.get((String) null), () -> db.vsiz((byte[]) null), () -> db.fwmkeys((String) null, 1),
                () -> db.addint((byte[]) null, 1), () -> db.adddouble((String) null, 1), () -> db.copy(null),
                () -> hdb().open(null, HDB.OREADER)}) {
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class, call::run);
            assertEquals("illegal argument", e.getMessage());
        }
    }

    private interface ThrowingCall {
        void run() throws Throwable;
    }

    @Test
    public void theErrorCodeIsPerThread() throws Exception {
        HDB db = db();
        assertNull(db.get("missing"));
        assertEquals(HDB.ENOREC, db.ecode());
        Outcome o = onNewThread(db::ecode, () -> db.put("k", "v"));
        assertEquals(true, o.value);
        assertEquals(HDB.ESUCCESS, o.ecode);
        assertEquals(HDB.ENOREC, db.ecode());
    }

    @Test
    public void errmsgMatchesBdb() {
        for (int code : new int[] {0, 2, 5, 16, 21, 22, 9999, 23, -1}) {
            assertEquals(BDB.errmsg(code), HDB.errmsg(code));
        }
        HDB db = hdb();
        assertEquals("success", db.errmsg());
    }
}
