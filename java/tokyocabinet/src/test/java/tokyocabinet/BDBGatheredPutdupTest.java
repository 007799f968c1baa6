package tokyocabinet;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertNotEquals;
import static org.junit.Assert.assertTrue;

import java.io.File;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.List;
import org.junit.Rule;
import org.junit.Test;
import org.rockcask.SmallFileSystem;
import tokyocabinet.internal.PackedPutdups;

/**
 * {@code putdup}s made during a transaction are gathered and written in one native call
 * before any other call: nothing of that may show. Every call, from any thread, sees them in
 * the order they were made, among the other writes; an abort drops them; a failure to write
 * them fails the commit and leaves the database as it was at {@code tranbegin}.
 */
public class BDBGatheredPutdupTest extends CasketTestBase {
    @Rule
    public SmallFileSystem smallFs = new SmallFileSystem();

    @Test
    public void everyCallFromAnyThreadSeesTheGatheredPutdupsInOrderAmongTheOtherWrites() {
        BDB db = writer(path("order.tcb"));
        assertTrue(db.tranbegin());
        assertTrue(db.putdup("k", "1"));
        assertEquals("a read sees it", list("1"), db.getlist("k"));
        assertTrue(db.putdup("k", "2"));
        assertTrue(db.out("k")); // the first value, written before this removal
        assertTrue(db.putdup("k", "3"));
        assertEquals(list("2", "3"), db.getlist("k"));
        assertTrue(db.putdup("k", "4"));
        Outcome seen = onNewThread(db::ecode, () -> db.getlist("k"));
        assertEquals("another thread reads uncommitted", list("2", "3", "4"), seen.value);
        assertTrue(db.putdup("k", "5"));
        assertEquals(4, db.rnum());
        assertTrue(db.putdup("other", "x"));
        BDBCUR cur = new BDBCUR(db);
        assertTrue(cur.first());
        assertEquals("k", cur.key2());
        assertTrue(db.putdup("k", "6"));
        assertTrue(db.trancommit());
        assertEquals(list("2", "3", "4", "5", "6"), db.getlist("k"));
        assertEquals(6, db.rnum());
    }

    @Test
    public void manyMegabytesOfPutdupsKeepTheirOrderAcrossReopenAndAnAbortDropsThem() {
        String path = path("many.tcb");
        BDB db = writer(path);
        int n = 3 * PackedPutdups.FLUSH_BYTES / 40; // written in several calls on the way
        assertTrue(db.tranbegin());
        for (int i = 0; i < n; i++) {
            assertTrue(db.putdup(key(i % 7), String.format("%032d", i)));
        }
        byte[] large = new byte[PackedPutdups.MAX_PAIR_BYTES + 1]; // written at once, after the rest
        assertTrue(db.putdup(key(0).getBytes(), large));
        assertTrue(db.trancommit());
        assertTrue(db.tranbegin());
        for (int i = 0; i < 1000; i++) {
            assertTrue(db.putdup(key(i % 7), "aborted"));
        }
        assertTrue(db.tranabort());
        assertTrue(db.putdup(key(1), "outside a transaction"));
        assertTrue(db.close());
        BDB again = writer(path);
        assertEquals(n + 2, again.rnum());
        for (int k = 0; k < 7; k++) {
            List<String> expected = new ArrayList<>();
            for (int i = k; i < n; i += 7) {
                expected.add(String.format("%032d", i));
            }
            List<String> values = strings(again.getlist(key(k)));
            if (k == 0) {
                assertEquals(large.length, ((byte[]) again.getlist(key(0).getBytes()).get(values.size() - 1)).length);
                values = values.subList(0, values.size() - 1);
            } else if (k == 1) {
                expected.add("outside a transaction");
            }
            assertEquals("values of " + key(k), expected, values);
        }
    }

    @Test
    public void putdupsFromSeveralThreadsDuringATransactionAreAllCommittedEachInItsOrder() throws Exception {
        String path = path("threads.tcb");
        BDB db = writer(path);
        assertTrue(db.tranbegin());
        int perThread = 20_000;
        List<Thread> threads = new ArrayList<>();
        List<Throwable> failures = java.util.Collections.synchronizedList(new ArrayList<>());
        for (int t = 0; t < 4; t++) {
            String key = key(t);
            Thread thread = new Thread(() -> {
                for (int i = 0; i < perThread; i++) {
                    if (!db.putdup(key, Integer.toString(i))) {
                        failures.add(new AssertionError("putdup " + i + " of " + key + ": " + db.errmsg()));
                        return;
                    }
                    if (i % 5_000 == 0 && db.vnum(key) != i + 1) { // a read in between writes what is gathered
                        failures.add(new AssertionError(key + " has " + db.vnum(key) + " values after " + (i + 1)));
                        return;
                    }
                }
            });
            threads.add(thread);
            thread.start();
        }
        for (Thread thread : threads) {
            thread.join(60_000);
        }
        assertEquals(new ArrayList<>(), failures);
        assertTrue(db.trancommit());
        assertTrue(db.close());
        BDB again = writer(path);
        assertEquals(4L * perThread, again.rnum());
        for (int t = 0; t < 4; t++) {
            List<String> values = strings(again.getlist(key(t)));
            assertEquals(perThread, values.size());
            for (int i = 0; i < perThread; i++) {
                assertEquals(Integer.toString(i), values.get(i));
            }
        }
    }

    @Test
    public void closingDuringATransactionDropsTheGatheredPutdupsWithIt() {
        String path = path("close.tcb");
        BDB db = writer(path);
        assertTrue(db.putdup("k", "before"));
        assertTrue(db.tranbegin());
        assertTrue(db.putdup("k", "during"));
        assertTrue(db.close());
        assertFalse("closed", db.putdup("k", "after"));
        assertEquals(BDB.EINVALID, db.ecode());
        BDB again = writer(path);
        assertEquals(list("before"), again.getlist("k"));
    }

    /**
     * A disk too small for the transaction: a write of gathered putdups fails (each had returned
     * true), then the commit fails and aborts, and with space freed the database reopens as it
     * was at {@code tranbegin}. Needs a tmpfs (root): skipped where it cannot be mounted.
     */
    @Test
    public void aFailedWriteOfGatheredPutdupsFailsTheCommitAndLeavesTheDatabaseAsAtTranbegin() throws Exception {
        File dir = smallFs.mount();
        File filler = new File(dir, "filler");
        String path = new File(dir, "full.tcb").getPath();
        BDB db = openBdb(path, BDB.OWRITER | BDB.OCREAT | BDB.OTSYNC);
        assertTrue(db.putdup("k", "committed"));
        Files.write(filler.toPath(), new byte[1 << 20]);
        assertTrue(db.tranbegin());
        byte[] value = new byte[1000];
        boolean refused = false;
        // Past 64 MiB a transaction's writes are written early, on the way: a disk full there.
        for (int i = 0; i < 100_000 && !refused; i++) {
            refused = !db.putdup("k".getBytes(), value);
        }
        assertTrue("writing the gathered putdups fails on the way", refused);
        int refusal = db.ecode();
        assertNotEquals(BDB.ESUCCESS, refusal);
        boolean committed = db.trancommit();
        assertFalse("a commit of more than the disk holds fails", committed);
        assertEquals("the commit fails as the write did", refusal, db.ecode());
        db.close();
        assertTrue(filler.delete());
        BDB again = writer(path);
        assertEquals(list("committed"), again.getlist("k"));
        assertEquals(1, again.rnum());
    }

    private static String key(int k) {
        return "key" + k;
    }
}
