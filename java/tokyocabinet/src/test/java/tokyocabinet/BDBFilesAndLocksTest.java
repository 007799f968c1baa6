package tokyocabinet;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertNotNull;
import static org.junit.Assert.assertNull;
import static org.junit.Assert.assertTrue;
import static org.junit.Assert.fail;

import java.io.File;
import java.io.OutputStream;
import java.lang.reflect.Method;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.Test;

/** The database as a file: path, copy, truncation, deletion, size, maintenance, locks. */
public class BDBFilesAndLocksTest extends CasketTestBase {
    private static List<String> sample = list("a=1", "a=2", "b=3");

    private BDB sampleDb(String path) {
        BDB db = writer(path);
        assertTrue(db.putdup("a", "1"));
        assertTrue(db.putdup("a", "2"));
        assertTrue(db.put("b", "3"));
        return db;
    }

    // ---- the path ----

    @Test
    public void thePathIsAFileOnceOpenAndPathReturnsIt() {
        String path = path("file.tcb");
        BDB db = writer(path);
        assertTrue(new File(path).isFile());
        assertEquals(path, db.path());
        assertTrue(db.close());
        assertTrue(new File(path).isFile());
        assertNull(db.path());
        assertEquals(BDB.EINVALID, db.ecode());
    }

    @Test
    public void deletingTheFileAfterCloseMakesTheNextCreateStartEmpty() {
        // As the original benchmark did: open, fill, close, delete, again.
        String path = path("bench.tcb");
        for (int round = 0; round < 5; round++) {
            BDB db = bdb();
            assertOpens(db, path, BDB.OWRITER | BDB.OCREAT);
            assertEquals("round " + round + " starts empty", 0, db.rnum());
            assertFalse(db.iterinit());
            for (int i = 0; i <= round * 10; i++) {
                assertTrue(db.putdup("k" + (i % 3), "round" + round));
            }
            assertEquals(round * 10 + 1, db.rnum());
            assertTrue(db.close());
            assertTrue(new File(path).delete());
            assertFalse(new File(path).exists());
        }
    }

    @Test
    public void deletingTheFileMakesAReaderOpenFailWithEnofile() {
        String path = path("deleted.tcb");
        assertTrue(sampleDb(path).close());
        assertTrue(new File(path).delete());
        BDB db = bdb();
        assertFalse(db.open(path, BDB.OREADER));
        assertEquals(BDB.ENOFILE, db.ecode());
    }

    @Test
    public void otruncEmptiesTheDatabase() {
        String path = path("trunc.tcb");
        assertTrue(sampleDb(path).close());
        BDB db = openBdb(path, BDB.OWRITER | BDB.OTRUNC);
        assertEquals(0, db.rnum());
        assertNull(db.get("a"));
        assertTrue(db.put("c", "4"));
        assertTrue(db.close());
        BDB again = openBdb(path, BDB.OREADER);
        assertEquals(list("c=4"), records(again));
    }

    @Test
    public void aWriterWithoutOtruncKeepsTheRecords() {
        String path = path("keep.tcb");
        assertTrue(sampleDb(path).close());
        BDB db = openBdb(path, BDB.OWRITER | BDB.OCREAT);
        assertEquals(sample, records(db));
    }

    @Test
    public void aFileThatIsNotADatabaseFailsWithEmeta() throws Exception {
        String path = path("text.txt");
        Files.write(new File(path).toPath(), "just some text\n".getBytes(StandardCharsets.UTF_8));
        for (int mode : new int[] {BDB.OREADER, BDB.OWRITER, BDB.OWRITER | BDB.OCREAT}) {
            BDB db = bdb();
            Outcome o = onNewThread(db::ecode, () -> db.open(path, mode));
            assertEquals("mode " + mode, false, o.value);
            assertEquals("mode " + mode, BDB.EMETA, o.ecode);
        }
        assertEquals("the file is left alone", "just some text\n",
                new String(Files.readAllBytes(new File(path).toPath()), StandardCharsets.UTF_8));
        byte[] binary = {(byte) 0xff, (byte) 0xfe, 0, 1, 2, (byte) 0x80};
        String binaryPath = path("binary.bin");
        Files.write(new File(binaryPath).toPath(), binary);
        BDB db = bdb();
        assertFalse(db.open(binaryPath, BDB.OREADER));
        assertEquals(BDB.EMETA, db.ecode());
    }

    @Test
    public void aDirectoryIsNotADatabase() throws Exception {
        File dir = tmp.newFolder("dir.tcb");
        BDB db = bdb();
        assertFalse(db.open(dir.getPath(), BDB.OREADER));
        assertTrue(db.ecode() != BDB.ESUCCESS);
        assertTrue(dir.isDirectory());
    }

    @Test
    public void hdbOpeningABdbDatabaseFailsWithEmetaAndTheReverseToo() {
        String bdbPath = path("b.tcb");
        assertTrue(sampleDb(bdbPath).close());
        HDB h = hdb();
        for (int mode : new int[] {HDB.OREADER, HDB.OWRITER, HDB.OWRITER | HDB.OCREAT}) {
            assertFalse(h.open(bdbPath, mode));
            assertEquals(HDB.EMETA, h.ecode());
        }
        String hdbPath = path("h.tch");
        assertTrue(hdbWriter(hdbPath).close());
        BDB b = bdb();
        assertFalse(b.open(hdbPath, BDB.OWRITER));
        assertEquals(BDB.EMETA, b.ecode());
        assertTrue("the BDB is untouched", openBdb(bdbPath, BDB.OREADER).rnum() == 3);
    }

    // ---- copy ----

    @Test
    public void copyMakesADatabaseThatOpensAtTheDestinationWithTheSameRecords() {
        BDB db = sampleDb(path("source.tcb"));
        String dest = path("copy.tcb");
        assertTrue(db.errmsg(), db.copy(dest));
        assertTrue(new File(dest).isFile());
        assertTrue(db.put("after", "copy"));
        BDB copy = openBdb(dest, BDB.OWRITER);
        assertEquals(sample, records(copy));
        assertEquals(3, copy.rnum());
        assertTrue("the copy is independent", copy.put("only", "copy"));
        assertNull(db.get("only"));
        assertEquals("copy", db.get("after"));
    }

    @Test
    public void copyFromAReaderWorks() {
        String path = path("ro-source.tcb");
        assertTrue(sampleDb(path).close());
        BDB reader = openBdb(path, BDB.OREADER);
        String dest = path("ro-copy.tcb");
        assertTrue(reader.errmsg(), reader.copy(dest));
        assertEquals(sample, records(openBdb(dest, BDB.OREADER)));
    }

    @Test
    public void copyKeepsTheComparator() {
        BDB db = bdb();
        assertTrue(db.setcmpfunc(BDB.CMPDECIMAL));
        assertTrue(db.open(path("dec.tcb"), BDB.OWRITER | BDB.OCREAT));
        assertTrue(db.put("10", "x"));
        assertTrue(db.put("9", "y"));
        String dest = path("dec-copy.tcb");
        assertTrue(db.copy(dest));
        BDB plain = bdb();
        assertFalse(plain.open(dest, BDB.OREADER));
        assertEquals(BDB.EMETA, plain.ecode());
        BDB copy = bdb();
        assertTrue(copy.setcmpfunc(BDB.CMPDECIMAL));
        assertTrue(copy.open(dest, BDB.OREADER));
        assertEquals(list("9", "10"), iterated(copy));
    }

    @Test
    public void copyReplacesAnOlderCopy() {
        BDB db = sampleDb(path("src.tcb"));
        String dest = path("dst.tcb");
        assertTrue(db.copy(dest));
        assertTrue(db.outlist("a"));
        assertTrue(db.copy(dest));
        assertEquals(list("b=3"), records(openBdb(dest, BDB.OREADER)));
    }

    @Test
    public void copyOntoItselfFailsAndKeepsTheDatabase() {
        String path = path("self.tcb");
        BDB db = sampleDb(path);
        assertFalse(db.copy(path));
        assertTrue(db.ecode() != BDB.ESUCCESS);
        assertEquals(sample, records(db));
        assertTrue(db.close());
        assertEquals(sample, records(openBdb(path, BDB.OREADER)));
    }

    // ---- size and maintenance ----

    @Test
    public void fsizIsPositiveAndGrowsWithTheRecords() {
        BDB db = writer(path("size.tcb"));
        long empty = db.fsiz();
        assertTrue("fsiz " + empty, empty > 0);
        byte[] value = new byte[1000];
        for (int i = 0; i < 2000; i++) {
            assertTrue(db.put(b("k" + i), value));
        }
        assertTrue(db.sync());
        long full = db.fsiz();
        assertTrue("fsiz grew from " + empty + " to " + full, full > empty + 1_000_000);
    }

    @Test
    public void fsizIs256PlusSixteenAndTheKeyAndValueOfEveryRecord() {
        BDB db = writer(path("figure.tcb"));
        assertEquals(256, db.fsiz());
        assertTrue(db.putdup("key", "value"));
        assertTrue(db.putdup("key", "v2"));
        assertEquals(256 + (16 + 3 + 5) + (16 + 3 + 2), db.fsiz());
        assertTrue(db.putcat("key", "++"));
        assertEquals(256 + (16 + 3 + 7) + (16 + 3 + 2), db.fsiz());
        assertTrue(db.out("key"));
        assertEquals(256 + (16 + 3 + 2), db.fsiz());
        HDB h = hdbWriter(path("figure.tch"));
        assertTrue(h.put("k", "v"));
        assertEquals(256 + 16 + 1 + 1, h.fsiz());
    }

    @Test
    public void vanishRemovesEveryRecord() {
        BDB db = sampleDb(path("vanish.tcb"));
        for (int i = 0; i < 25_000; i++) {
            assertTrue(db.put("n" + i, "v"));
        }
        assertTrue(db.vanish());
        assertEquals(0, db.rnum());
        assertFalse(db.iterinit());
        assertNull(db.get("a"));
        assertEquals(list(), strings(db.fwmkeys("", -1)));
        assertTrue(db.put("a", "again"));
        assertEquals(list("a=again"), records(db));
    }

    @Test
    public void optimizeAndSyncKeepTheRecords() {
        String path = path("maintain.tcb");
        BDB db = sampleDb(path);
        for (int i = 0; i < 1000; i++) {
            assertTrue(db.put("n" + i, "v" + i));
            if (i % 2 == 0) {
                assertTrue(db.out("n" + i));
            }
        }
        assertTrue(db.sync());
        assertTrue(db.optimize());
        assertTrue(db.optimize(64, 128, 1000, 4, 8, 0xff));
        assertEquals(503, db.rnum());
        assertEquals("v999", db.get("n999"));
        assertTrue(db.close());
        BDB again = openBdb(path, BDB.OREADER);
        assertEquals(503, again.rnum());
        assertEquals(sample, records(again).subList(0, 3));
    }

    @Test
    public void closingWhileOtherThreadsUseTheDatabaseNeverCrashesAndLaterCallsFailWithEinvalid() throws Exception {
        String path = path("busy.tcb");
        BDB db = writer(path);
        int threads = 4;
        CountDownLatch running = new CountDownLatch(threads);
        AtomicBoolean stop = new AtomicBoolean();
        AtomicInteger unexpected = new AtomicInteger();
        AtomicInteger afterClose = new AtomicInteger();
        Thread[] workers = new Thread[threads];
        for (int t = 0; t < threads; t++) {
            int id = t;
            workers[t] = new Thread(() -> {
                running.countDown();
                for (int i = 0; !stop.get(); i++) {
                    try {
                        boolean ok = db.putdup("k" + id, "v" + i);
                        BDBCUR cur = new BDBCUR(db);
                        ok &= cur.first() && cur.key() != null;
                        ok &= db.get("k" + id) != null;
                        if (!ok) {
                            if (db.ecode() != BDB.EINVALID) {
                                unexpected.incrementAndGet();
                            }
                            afterClose.incrementAndGet();
                        }
                    } catch (RuntimeException e) {
                        unexpected.incrementAndGet();
                    }
                }
            });
            workers[t].start();
        }
        assertTrue(running.await(10, TimeUnit.SECONDS));
        Thread.sleep(100);
        assertTrue(db.close());
        Thread.sleep(100);
        stop.set(true);
        for (Thread w : workers) {
            w.join(30_000);
            assertFalse(w.isAlive());
        }
        assertEquals("every failure is EINVALID and nothing throws", 0, unexpected.get());
        assertTrue("calls after close fail", afterClose.get() > 0);
        BDB again = openBdb(path, BDB.OREADER);
        assertTrue(again.rnum() > 0);
    }

    // ---- locks in one process ----

    @Test
    public void aSecondDatabaseObjectOpeningTheSamePathFailsWithElock() {
        String path = path("twice.tcb");
        BDB first = sampleDb(path);
        for (int mode : new int[] {BDB.OWRITER, BDB.OREADER, BDB.OREADER | BDB.ONOLCK, BDB.OWRITER | BDB.OLCKNB}) {
            BDB second = bdb();
            Outcome o = onNewThread(second::ecode, () -> second.open(path, mode));
            assertEquals("mode " + mode, false, o.value);
            assertEquals("mode " + mode, BDB.ELOCK, o.ecode);
        }
        HDB h = hdb();
        assertFalse(h.open(path, HDB.OREADER));
        assertEquals(HDB.ELOCK, h.ecode());
        assertTrue(first.close());
        BDB second = openBdb(path, BDB.OWRITER);
        assertEquals(sample, records(second));
    }

    @Test
    public void theSamePathSpelledDifferentlyIsStillTheSameDatabase() throws Exception {
        String path = path("spelled.tcb");
        sampleDb(path);
        String other = tmp.getRoot().getPath() + File.separator + "." + File.separator + "spelled.tcb";
        BDB second = bdb();
        assertFalse(second.open(other, BDB.OREADER));
        assertEquals(BDB.ELOCK, second.ecode());
    }

    @Test
    public void theSameDatabaseReachedThroughASymlinkFailsWithElockInsteadOfWaitingForItself() throws Exception {
        File real = tmp.newFolder("real");
        Path alias = new File(tmp.getRoot(), "alias").toPath();
        Files.createSymbolicLink(alias, real.toPath());
        String path = new File(real, "linked.tcb").getPath();
        sampleDb(path);
        String aliased = alias.resolve("linked.tcb").toString();
        for (int mode : new int[] {BDB.OREADER, BDB.OWRITER}) {
            // Not closed after the test: if its open hangs, closing would wait for it.
            BDB second = new BDB();
            // A blocking lock on a file this process holds would wait forever: bounded by onNewThread.
            Outcome o = onNewThread(second::ecode, () -> second.open(aliased, mode));
            assertEquals("mode " + mode, false, o.value);
            assertEquals("mode " + mode, BDB.ELOCK, o.ecode);
        }
        BDB db = openBdb(path("other.tcb"), BDB.OWRITER | BDB.OCREAT);
        assertFalse("a copy must not replace the database it is copied from", db.copy(aliased));
        assertEquals(BDB.ELOCK, db.ecode());
    }

    @Test
    public void copyOntoADatabaseOpenInThisProcessFailsWithElockAndLeavesItAlone() {
        String targetPath = path("target.tcb");
        BDB target = sampleDb(targetPath);
        BDB source = writer(path("source.tcb"));
        assertTrue(source.put("s", "1"));
        assertFalse(source.copy(targetPath));
        assertEquals(BDB.ELOCK, source.ecode());
        assertEquals(sample, records(target));
        assertTrue(target.put("still", "writable"));
        assertTrue(target.close());
        assertTrue(source.copy(targetPath));
        assertEquals(list("s=1"), records(openBdb(targetPath, BDB.OREADER)));
    }

    /** The drop-in loaded by a class loader of its own (with its own copy of the native library). */
    private static URLClassLoader secondLoader() throws Exception {
        String cp = System.getProperty("tokyocabinet.dropin.classpath");
        assertNotNull("system property tokyocabinet.dropin.classpath (set by the Gradle build)", cp);
        List<URL> urls = new ArrayList<>();
        for (String entry : cp.split(File.pathSeparator)) {
            urls.add(new File(entry).toURI().toURL());
        }
        return new URLClassLoader(urls.toArray(new URL[0]), ClassLoader.getPlatformClassLoader());
    }

    @Test
    public void aDatabaseOpenInAnotherClassLoaderFailsWithElockAtOnceInEveryMode() throws Exception {
        String path = path("loaders.tcb");
        BDB first = sampleDb(path);
        try (URLClassLoader loader = secondLoader()) {
            Class<?> bdb = Class.forName("tokyocabinet.BDB", true, loader);
            assertTrue("a class of its own", bdb != BDB.class);
            Method open = bdb.getMethod("open", String.class, int.class);
            Method ecode = bdb.getMethod("ecode");
            Method close = bdb.getMethod("close");
            for (int mode : new int[] {BDB.OWRITER, BDB.OWRITER | BDB.OCREAT, BDB.OREADER, BDB.OWRITER | BDB.OLCKNB,
                    BDB.OWRITER | BDB.ONOLCK, BDB.OREADER | BDB.ONOLCK}) {
                // Not closed after the test: if its open hangs, closing would wait for it.
                Object second = bdb.getConstructor().newInstance();
                // A blocking lock would wait for this loader's handle forever: bounded by onNewThread.
                Outcome o = onNewThread(() -> (int) invoke(ecode, second), () -> open.invoke(second, path, mode));
                assertEquals("mode " + mode, false, o.value);
                assertEquals("mode " + mode, BDB.ELOCK, o.ecode);
            }
            assertTrue(first.put("c", "4"));
            assertEquals(list("a=1", "a=2", "b=3", "c=4"), records(first));
            // The other way round: open there, refused here.
            assertTrue(first.close());
            Object there = bdb.getConstructor().newInstance();
            assertEquals(true, open.invoke(there, path, BDB.OREADER));
            for (int mode : new int[] {BDB.OREADER, BDB.OWRITER, BDB.OREADER | BDB.ONOLCK}) {
                BDB here = new BDB();
                Outcome o = onNewThread(here::ecode, () -> here.open(path, mode));
                assertEquals("mode " + mode, false, o.value);
                assertEquals("mode " + mode, BDB.ELOCK, o.ecode);
            }
            assertEquals(true, close.invoke(there));
        }
        assertEquals(list("a=1", "a=2", "b=3", "c=4"), records(openBdb(path, BDB.OWRITER)));
    }

    private static Object invoke(Method m, Object target) {
        try {
            return m.invoke(target);
        } catch (ReflectiveOperationException e) {
            throw new AssertionError(e);
        }
    }

    // ---- locks between processes ----

    @Test
    public void aWriterInAnotherProcessLocksTheDatabase() throws Exception {
        String path = path("shared.tcb");
        Path log = tmp.newFile("hold.log").toPath();
        Process child = startChild(log, CasketChild.class, "hold", path);
        try {
            awaitLine(child, log, "READY", 60);

            BDB writer = bdb();
            long start = System.nanoTime();
            assertFalse(writer.open(path, BDB.OWRITER | BDB.OLCKNB));
            assertEquals(BDB.ELOCK, writer.ecode());
            assertTrue("OLCKNB fails at once", System.nanoTime() - start < TimeUnit.SECONDS.toNanos(2));

            BDB reader = bdb();
            assertFalse(reader.open(path, BDB.OREADER | BDB.OLCKNB));
            assertEquals(BDB.ELOCK, reader.ecode());

            HDB hdb = hdb();
            assertFalse(hdb.open(path, HDB.OREADER | HDB.OLCKNB));
            assertEquals("the lock is checked before the content", HDB.ELOCK, hdb.ecode());

            BDB secondWriter = bdb();
            assertFalse("two writers never share the data, lock or not", secondWriter.open(path, BDB.OWRITER | BDB.ONOLCK));
            assertEquals(BDB.ELOCK, secondWriter.ecode());

            BDB unlocked = bdb();
            assertOpens(unlocked, path, BDB.OREADER | BDB.ONOLCK);
            assertEquals(CasketChild.HELD, unlocked.rnum());
            assertEquals("yes", unlocked.get("held0"));
            assertTrue(unlocked.close());

            // A blocking open waits until the other process lets go.
            AtomicBoolean opened = new AtomicBoolean();
            AtomicInteger code = new AtomicInteger(-1);
            CountDownLatch done = new CountDownLatch(1);
            BDB waiting = bdb();
            Thread t = new Thread(() -> {
                opened.set(waiting.open(path, BDB.OWRITER));
                code.set(waiting.ecode());
                done.countDown();
            });
            t.start();
            assertFalse("a blocking open waits for the other process", done.await(300, TimeUnit.MILLISECONDS));

            try (OutputStream in = child.getOutputStream()) {
                in.write("quit\n".getBytes(StandardCharsets.UTF_8));
            }
            assertTrue(child.waitFor(30, TimeUnit.SECONDS));
            assertEquals(new String(Files.readAllBytes(log), StandardCharsets.UTF_8), 0, child.exitValue());
            assertTrue("the blocking open proceeds once the lock is free", done.await(30, TimeUnit.SECONDS));
            assertTrue("ecode " + code.get(), opened.get());
            assertEquals(CasketChild.HELD, waiting.rnum());
            assertTrue(waiting.close());

            BDB after = bdb();
            assertOpens(after, path, BDB.OWRITER | BDB.OLCKNB);
            assertEquals(CasketChild.HELD, after.rnum());
        } finally {
            child.destroyForcibly();
            child.waitFor(10, TimeUnit.SECONDS);
        }
    }

    @Test
    public void aKilledLockHolderReleasesTheLock() throws Exception {
        String path = path("killed.tcb");
        Path log = tmp.newFile("killed.log").toPath();
        Process child = startChild(log, CasketChild.class, "hold", path);
        try {
            awaitLine(child, log, "READY", 60);
            BDB locked = bdb();
            assertFalse(locked.open(path, BDB.OWRITER | BDB.OLCKNB));
            assertEquals(BDB.ELOCK, locked.ecode());
        } finally {
            child.destroyForcibly();
            assertTrue(child.waitFor(30, TimeUnit.SECONDS));
        }
        BDB db = bdb();
        assertOpens(db, path, BDB.OWRITER | BDB.OLCKNB);
        assertEquals("writes before the kill were kept", CasketChild.HELD, db.rnum());
    }

    // ---- forgotten databases ----

    @Test
    public void aDatabaseDroppedWithoutCloseIsReleasedByTheGarbageCollector() throws Exception {
        String path = path("forgotten.tcb");
        for (int round = 0; round < 3; round++) {
            openAndForget(path, round);
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
            BDB db = bdb();
            while (!db.open(path, BDB.OWRITER | BDB.OLCKNB)) {
                assertEquals("only the forgotten object holds it", BDB.ELOCK, db.ecode());
                if (System.nanoTime() > deadline) {
                    fail("the forgotten database was not released within 30 s");
                }
                System.gc();
                Thread.sleep(20);
            }
            assertEquals("what the forgotten object wrote is there", "round" + round, db.get("k" + round));
            assertEquals(round + 1, db.rnum());
            assertTrue(db.close());
        }
    }

    private static void openAndForget(String path, int round) {
        BDB db = new BDB();
        assertOpens(db, path, BDB.OWRITER | BDB.OCREAT);
        assertTrue(db.put("k" + round, "round" + round));
        BDB other = new BDB();
        assertFalse("still open", other.open(path, BDB.OREADER | BDB.OLCKNB));
        assertEquals(BDB.ELOCK, other.ecode());
    }

    @Test
    public void manyDatabasesDroppedWithoutCloseAreAllReleased() throws Exception {
        for (int i = 0; i < 20; i++) {
            BDB db = new BDB();
            assertTrue(db.open(path("many" + i + ".tcb"), BDB.OWRITER | BDB.OCREAT));
            assertTrue(db.put("k", "v" + i));
        }
        for (int i = 0; i < 20; i++) {
            String path = path("many" + i + ".tcb");
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
            BDB db = bdb();
            while (!db.open(path, BDB.OREADER | BDB.OLCKNB)) {
                if (System.nanoTime() > deadline) {
                    fail("database " + i + " was not released within 30 s: " + db.errmsg());
                }
                System.gc();
                Thread.sleep(20);
            }
            assertEquals("v" + i, db.get("k"));
            assertTrue(db.close());
        }
    }
}
