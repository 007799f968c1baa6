package tokyocabinet;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertNull;
import static org.junit.Assert.assertTrue;

import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.Test;

/** tranbegin / trancommit / tranabort on a BDB. */
public class BDBTransactionTest extends CasketTestBase {
    private BDB committed(String path) {
        BDB db = writer(path);
        assertTrue(db.put("keep", "old"));
        assertTrue(db.putdup("dup", "1"));
        assertTrue(db.putdup("dup", "2"));
        assertTrue(db.put("gone", "x"));
        return db;
    }

    private static final List<String> BEFORE = list("dup=1", "dup=2", "gone=x", "keep=old");

    @Test
    public void tranbeginOnAReaderFailsWithEinvalid() {
        String path = path("reader.tcb");
        assertTrue(committed(path).close());
        BDB reader = openBdb(path, BDB.OREADER);
        Outcome o = onNewThread(reader::ecode, reader::tranbegin);
        assertEquals(false, o.value);
        assertEquals(BDB.EINVALID, o.ecode);
        assertEquals(BEFORE, records(reader));
    }

    @Test
    public void tranabortRestoresValuesDuplicatesAndRnum() {
        BDB db = committed(path("abort.tcb"));
        assertTrue(db.tranbegin());
        assertTrue(db.put("keep", "new"));
        assertTrue(db.putdup("dup", "3"));
        assertTrue(db.out("dup"));
        assertTrue(db.out("gone"));
        assertTrue(db.put("added", "y"));
        assertEquals(5, db.addint("count", 5));
        assertTrue(db.putcat("keep", "!"));
        assertEquals("read uncommitted inside the transaction", "new!", db.get("keep"));
        assertEquals(5, db.rnum());
        assertTrue(db.tranabort());
        assertEquals(BEFORE, records(db));
        assertEquals(4, db.rnum());
        assertEquals(2, db.vnum("dup"));
    }

    @Test
    public void tranabortLeavesRnumAndFsizAsTheyWereAtTranbeginAndTrancommitKeepsTheGrowth() {
        BDB db = committed(path("size.tcb"));
        long rnum = db.rnum();
        long fsiz = db.fsiz();
        assertTrue(db.tranbegin());
        for (int i = 0; i < 200; i++) {
            assertTrue(db.putcat("keep", "more"));
            assertTrue(db.putcat("new" + i, "value"));
            if (i % 3 == 0) {
                assertTrue(db.out("new" + i));
            }
            assertEquals("old", db.get("keep").substring(0, 3));
        }
        assertTrue(db.out("gone"));
        assertTrue(db.fsiz() > fsiz);
        assertTrue(db.tranabort());
        assertEquals(rnum, db.rnum());
        assertEquals(fsiz, db.fsiz());
        assertTrue(db.tranbegin());
        assertTrue(db.putcat("keep", "more"));
        assertTrue(db.trancommit());
        assertEquals(fsiz + 4, db.fsiz());
    }

    @Test
    public void tranabortRestoresManyWritesInterleavedWithReads() {
        BDB db = writer(path("many.tcb"));
        for (int i = 0; i < 500; i++) {
            assertTrue(db.put(String.format("k%04d", i), "v" + i));
        }
        assertTrue(db.tranbegin());
        for (int i = 0; i < 500; i++) {
            String k = String.format("k%04d", i);
            // Reading between the writes makes them be written before the abort.
            assertEquals("v" + i, db.get(k));
            if (i % 3 == 0) {
                assertTrue(db.out(k));
            } else {
                assertTrue(db.put(k, "changed"));
            }
            assertTrue(db.putdup(k, "dup"));
            assertTrue(db.put(String.format("n%04d", i), "new"));
        }
        assertTrue(db.vanish());
        assertEquals(0, db.rnum());
        assertTrue(db.tranabort());
        assertEquals(500, db.rnum());
        List<String> all = records(db);
        assertEquals(500, all.size());
        for (int i = 0; i < 500; i++) {
            assertEquals(String.format("k%04d", i) + "=v" + i, all.get(i));
        }
    }

    @Test
    public void tranabortRestoresAnEmptyDatabase() {
        BDB db = writer(path("empty.tcb"));
        assertTrue(db.tranbegin());
        for (int i = 0; i < 100; i++) {
            assertTrue(db.putdup("k", "v" + i));
        }
        assertEquals(100, db.vnum("k"));
        assertTrue(db.tranabort());
        assertEquals(0, db.rnum());
        assertFalse(db.iterinit());
        assertNull(db.getlist("k"));
    }

    @Test
    public void aCursorOnARecordAddedInAnAbortedTransactionFailsWithEnorec() {
        BDB db = committed(path("cursor.tcb"));
        assertTrue(db.tranbegin());
        assertTrue(db.put("added", "y"));
        BDBCUR cur = new BDBCUR(db);
        assertTrue(cur.jump("added"));
        assertEquals("y", cur.val2());
        assertTrue(db.tranabort());
        assertNull(cur.key());
        assertEquals(BDB.ENOREC, db.ecode());
        assertNull(cur.val());
        assertFalse(cur.put("z", BDBCUR.CPCURRENT));
        assertFalse(cur.out());
        assertEquals(4, db.rnum());
        assertTrue(cur.next());
        assertEquals("dup", cur.key2());
    }

    @Test
    public void trancommitKeepsTheWritesAcrossCloseAndReopen() {
        String path = path("commit.tcb");
        BDB db = committed(path);
        assertTrue(db.tranbegin());
        assertTrue(db.put("keep", "new"));
        assertTrue(db.out("gone"));
        assertTrue(db.putdup("dup", "3"));
        assertTrue(db.trancommit());
        List<String> after = list("dup=1", "dup=2", "dup=3", "keep=new");
        assertEquals(after, records(db));
        assertTrue(db.close());
        BDB again = openBdb(path, BDB.OWRITER);
        assertEquals(after, records(again));
        assertEquals(4, again.rnum());
    }

    @Test
    public void aTransactionCanFollowACommittedOne() {
        BDB db = committed(path("sequence.tcb"));
        assertTrue(db.tranbegin());
        assertTrue(db.put("first", "1"));
        assertTrue(db.trancommit());
        assertTrue(db.tranbegin());
        assertTrue(db.put("second", "2"));
        assertTrue(db.tranabort());
        assertEquals("1", db.get("first"));
        assertNull(db.get("second"));
        assertEquals(5, db.rnum());
    }

    @Test
    public void closeDuringATransactionAbortsIt() {
        String path = path("close.tcb");
        BDB db = committed(path);
        assertTrue(db.tranbegin());
        assertTrue(db.put("keep", "new"));
        assertTrue(db.out("gone"));
        for (int i = 0; i < 200; i++) {
            assertTrue(db.put("n" + i, "v"));
            assertEquals("v", db.get("n" + i));
        }
        assertTrue(db.close());
        assertTrue(db.open(path, BDB.OWRITER));
        assertEquals(BEFORE, records(db));
        assertEquals(4, db.rnum());
        assertFalse("no transaction is left running", db.trancommit());
        assertEquals(BDB.EINVALID, db.ecode());
    }

    @Test
    public void aSecondTranbeginOnTheSameThreadFailsInsteadOfWaitingForever() {
        BDB db = writer(path("twice.tcb"));
        assertTrue(db.tranbegin());
        assertFalse(db.tranbegin());
        assertEquals(BDB.EINVALID, db.ecode());
        assertTrue("the first transaction is still running", db.trancommit());
    }

    @Test
    public void tranbeginOnAnotherThreadWaitsUntilTheRunningTransactionEnds() throws Exception {
        BDB db = writer(path("wait.tcb"));
        assertTrue(db.tranbegin());
        assertTrue(db.put("a", "1"));
        CountDownLatch started = new CountDownLatch(1);
        CountDownLatch begun = new CountDownLatch(1);
        AtomicBoolean began = new AtomicBoolean();
        AtomicLong begunAt = new AtomicLong();
        AtomicBoolean sawCommitted = new AtomicBoolean();
        Thread other = new Thread(() -> {
            started.countDown();
            began.set(db.tranbegin());
            begunAt.set(System.nanoTime());
            begun.countDown();
            sawCommitted.set("1".equals(db.get("a")));
            db.put("b", "2");
            db.trancommit();
        });
        long start = System.nanoTime();
        other.start();
        assertTrue(started.await(10, TimeUnit.SECONDS));
        assertFalse("the other thread's tranbegin must wait while this transaction runs",
                begun.await(300, TimeUnit.MILLISECONDS));
        long commitAt = System.nanoTime();
        assertTrue(db.trancommit());
        assertTrue("the other thread's tranbegin must return once the transaction ended",
                begun.await(5, TimeUnit.SECONDS));
        other.join(10_000);
        assertTrue(began.get());
        assertTrue("blocked at least 200 ms", TimeUnit.NANOSECONDS.toMillis(begunAt.get() - start) >= 200);
        assertTrue("began after the commit", begunAt.get() >= commitAt);
        assertTrue("finished within 2 s of the commit",
                TimeUnit.NANOSECONDS.toMillis(begunAt.get() - commitAt) < 2000);
        assertTrue(sawCommitted.get());
        assertEquals(list("a=1", "b=2"), records(db));
    }

    @Test
    public void transactionsFromManyThreadsRunOneAtATimeAndAllCommit() throws Exception {
        BDB db = writer(path("serial.tcb"));
        int threads = 4;
        int rounds = 50;
        AtomicLong failures = new AtomicLong();
        AtomicBoolean overlap = new AtomicBoolean();
        java.util.concurrent.atomic.AtomicInteger inside = new java.util.concurrent.atomic.AtomicInteger();
        List<Thread> workers = new java.util.ArrayList<>();
        for (int t = 0; t < threads; t++) {
            int id = t;
            Thread w = new Thread(() -> {
                for (int r = 0; r < rounds; r++) {
                    if (!db.tranbegin()) {
                        failures.incrementAndGet();
                        continue;
                    }
                    if (inside.incrementAndGet() != 1) {
                        overlap.set(true);
                    }
                    boolean ok = db.putdup("log", "t" + id + "r" + r) && db.addint("count", 1) != Integer.MIN_VALUE;
                    if (r % 5 == 0) {
                        // Every fifth round is rolled back.
                        inside.decrementAndGet();
                        ok &= db.tranabort();
                    } else {
                        inside.decrementAndGet();
                        ok &= db.trancommit();
                    }
                    if (!ok) {
                        failures.incrementAndGet();
                    }
                }
            });
            workers.add(w);
            w.start();
        }
        for (Thread w : workers) {
            w.join(60_000);
            assertFalse(w.isAlive());
        }
        assertEquals(0, failures.get());
        assertFalse("two transactions ran at once", overlap.get());
        int committed = threads * (rounds - rounds / 5);
        assertEquals(committed, db.vnum("log"));
        assertEquals(committed, db.addint("count", 0));
        assertEquals(committed + 1, db.rnum());
    }

    @Test
    public void aWaitingTranbeginFailsWithEinvalidWhenTheDatabaseIsClosed() throws Exception {
        BDB db = writer(path("close-wait.tcb"));
        assertTrue(db.tranbegin());
        CountDownLatch done = new CountDownLatch(1);
        AtomicBoolean began = new AtomicBoolean(true);
        java.util.concurrent.atomic.AtomicInteger code = new java.util.concurrent.atomic.AtomicInteger();
        Thread other = new Thread(() -> {
            began.set(db.tranbegin());
            code.set(db.ecode());
            done.countDown();
        });
        other.start();
        assertFalse(done.await(200, TimeUnit.MILLISECONDS));
        assertTrue(db.close());
        assertTrue("the waiting thread is released by close", done.await(10, TimeUnit.SECONDS));
        assertFalse(began.get());
        assertEquals(BDB.EINVALID, code.get());
    }

    @Test
    public void aWriteFromAnotherThreadDuringATransactionIsRolledBackByTranabort() throws Exception {
        BDB db = committed(path("uncommitted.tcb"));
        assertTrue(db.tranbegin());
        assertTrue(db.put("mine", "1"));
        AtomicBoolean otherPut = new AtomicBoolean();
        AtomicBoolean otherSawMine = new AtomicBoolean();
        Thread other = new Thread(() -> {
            // Not waiting for the transaction: ordinary calls are part of it.
            otherSawMine.set("1".equals(db.get("mine")));
            otherPut.set(db.put("theirs", "2") && db.out("keep"));
        });
        other.start();
        other.join(10_000);
        assertFalse(other.isAlive());
        assertTrue("an ordinary write from another thread does not wait", otherPut.get());
        assertTrue("the other thread reads uncommitted data", otherSawMine.get());
        assertEquals("this thread sees the other's write", "2", db.get("theirs"));
        assertTrue(db.tranabort());
        assertNull(db.get("theirs"));
        assertEquals("old", db.get("keep"));
        assertEquals(BEFORE, records(db));
    }

    @Test
    public void aWriteFromAnotherThreadDuringATransactionIsCommittedWithIt() throws Exception {
        String path = path("joined.tcb");
        BDB db = writer(path);
        assertTrue(db.tranbegin());
        Thread other = new Thread(() -> db.put("theirs", "2"));
        other.start();
        other.join(10_000);
        assertTrue(db.trancommit());
        assertTrue(db.close());
        assertTrue(db.open(path, BDB.OREADER));
        assertEquals("2", db.get("theirs"));
    }

    @Test
    public void transactionsWorkWithOtsync() {
        String path = path("tsync.tcb");
        BDB db = openBdb(path, BDB.OWRITER | BDB.OCREAT | BDB.OTSYNC);
        assertTrue(db.tranbegin());
        for (int i = 0; i < 100; i++) {
            assertTrue(db.putdup("k", "v" + i));
        }
        assertTrue(db.trancommit());
        assertTrue(db.tranbegin());
        assertTrue(db.outlist("k"));
        assertTrue(db.tranabort());
        assertTrue(db.close());
        BDB again = openBdb(path, BDB.OWRITER | BDB.OTSYNC);
        assertEquals(100, again.vnum("k"));
        assertEquals(100, again.rnum());
    }

    @Test
    public void tranabortRestoresRecordsChangedThroughACursor() {
        BDB db = committed(path("cursor-writes.tcb"));
        assertTrue(db.tranbegin());
        BDBCUR cur = new BDBCUR(db);
        assertTrue(cur.jump("dup"));
        assertTrue(cur.put("0", BDBCUR.CPBEFORE));
        assertTrue(cur.put("0.5", BDBCUR.CPAFTER));
        assertTrue(cur.next());
        assertTrue(cur.put("ONE", BDBCUR.CPCURRENT));
        assertTrue(cur.next());
        assertTrue(cur.out());
        assertEquals(list("0", "0.5", "ONE"), db.getlist("dup"));
        assertTrue(db.tranabort());
        assertEquals(BEFORE, records(db));
    }
}
