package tokyocabinet;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertTrue;
import static org.junit.Assert.fail;

import java.io.File;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.IntSupplier;
import org.junit.After;
import org.junit.Rule;
import org.junit.rules.TemporaryFolder;
import org.rockcask.testsupport.ChildJvm;

/**
 * What the drop-in's test classes share: a temporary folder for database paths, databases closed
 * after each test, byte/String helpers, running a call on a fresh thread (whose error code starts
 * at ESUCCESS, so the code seen afterwards was set by that call), and child JVMs.
 */
public abstract class CasketTestBase {
    @Rule
    public final TemporaryFolder tmp = new TemporaryFolder();

    private final List<BDB> bdbs = new ArrayList<>();
    private final List<HDB> hdbs = new ArrayList<>();

    @After
    public final void closeDatabases() {
        for (BDB db : bdbs) {
            db.close();
        }
        for (HDB db : hdbs) {
            db.close();
        }
    }

    /** A path in the temporary folder where nothing exists yet. */
    protected String path(String name) {
        return new File(tmp.getRoot(), name).getPath();
    }

    /** A new BDB, closed after the test. */
    protected BDB bdb() {
        BDB db = new BDB();
        bdbs.add(db);
        return db;
    }

    protected HDB hdb() {
        HDB db = new HDB();
        hdbs.add(db);
        return db;
    }

    protected BDB openBdb(String path, int omode) {
        BDB db = bdb();
        assertOpens(db, path, omode);
        return db;
    }

    protected BDB writer(String path) {
        return openBdb(path, BDB.OWRITER | BDB.OCREAT);
    }

    protected HDB hdbWriter(String path) {
        HDB db = hdb();
        assertOpens(db, path, HDB.OWRITER | HDB.OCREAT);
        return db;
    }

    /** Opens, or fails with the error code (read after the attempt). */
    static void assertOpens(BDB db, String path, int omode) {
        boolean opened = db.open(path, omode);
        assertTrue("open " + path + ": " + db.ecode() + " " + db.errmsg(), opened);
    }

    static void assertOpens(HDB db, String path, int omode) {
        boolean opened = db.open(path, omode);
        assertTrue("open " + path + ": " + db.ecode() + " " + db.errmsg(), opened);
    }

    static byte[] b(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    static String s(byte[] b) {
        return b == null ? null : new String(b, StandardCharsets.UTF_8);
    }

    /** Elements of a list from the API (byte[] or String) as Strings. */
    static List<String> strings(List<?> list) {
        List<String> out = new ArrayList<>();
        for (Object o : list) {
            out.add(o instanceof byte[] ? s((byte[]) o) : (String) o);
        }
        return out;
    }

    static List<String> list(String... items) {
        return Arrays.asList(items);
    }

    static byte[] nativeInt(int v) {
        return ByteBuffer.allocate(4).order(ByteOrder.nativeOrder()).putInt(v).array();
    }

    static byte[] nativeLong(long v) {
        return ByteBuffer.allocate(8).order(ByteOrder.nativeOrder()).putLong(v).array();
    }

    static byte[] nativeDouble(double v) {
        return ByteBuffer.allocate(8).order(ByteOrder.nativeOrder()).putDouble(v).array();
    }

    /** Every record as "key=value", in cursor order (each duplicate value separately). */
    static List<String> records(BDB db) {
        List<String> out = new ArrayList<>();
        BDBCUR cur = new BDBCUR(db);
        if (!cur.first()) {
            assertEquals("an empty database's first() fails with ENOREC", BDB.ENOREC, db.ecode());
            return out;
        }
        do {
            out.add(s(cur.key()) + "=" + s(cur.val()));
        } while (cur.next());
        return out;
    }

    /** Every key the embedded iterator returns, from iterinit to the end. */
    static List<String> iterated(DBM db) {
        List<String> out = new ArrayList<>();
        if (!db.iterinit()) {
            return out;
        }
        for (byte[] k = db.iternext(); k != null; k = db.iternext()) {
            out.add(s(k));
        }
        return out;
    }

    /** What a call returned and the error code of the thread that made it. */
    static final class Outcome {
        final Object value;
        final int ecode;

        Outcome(Object value, int ecode) {
            this.value = value;
            this.ecode = ecode;
        }
    }

    /**
     * Runs {@code op} on a new thread and reads {@code ecode} there afterwards. A new thread's
     * code is ESUCCESS, so a failure code in the outcome was set by {@code op}.
     */
    static Outcome onNewThread(IntSupplier ecode, Callable<?> op) {
        AtomicReference<Outcome> result = new AtomicReference<>();
        AtomicReference<Throwable> thrown = new AtomicReference<>();
        Thread t = new Thread(() -> {
            try {
                int before = ecode.getAsInt();
                assertEquals("a new thread starts with ESUCCESS", BDB.ESUCCESS, before);
                Object v = op.call();
                result.set(new Outcome(v, ecode.getAsInt()));
            } catch (Throwable e) {
                thrown.set(e);
            }
        });
        t.start();
        try {
            t.join(TimeUnit.SECONDS.toMillis(30));
        } catch (InterruptedException e) {
            throw new AssertionError(e);
        }
        if (t.isAlive()) {
            fail("call did not return within 30 s");
        }
        if (thrown.get() != null) {
            throw new AssertionError("call threw", thrown.get());
        }
        return result.get();
    }

    // ---- child JVMs ----

    /** A child JVM running {@code main} on this test run's class path and library. */
    static ProcessBuilder childJvm(List<String> jvmArgs, Class<?> main, String... args) {
        List<String> childArgs = new ArrayList<>();
        String library = System.getProperty("rockcask.library.path");
        if (library != null && !library.isEmpty()) {
            childArgs.add("-Drockcask.library.path=" + library);
        }
        childArgs.addAll(jvmArgs);
        return ChildJvm.builder(childArgs, main, args);
    }

    /**
     * Starts a child whose output (stdout and stderr) goes to a file: what it printed before being
     * killed stays readable.
     */
    Process startChild(Path log, Class<?> main, String... args) throws IOException {
        return startChild(new ArrayList<>(), log, main, args);
    }

    Process startChild(List<String> jvmArgs, Path log, Class<?> main, String... args) throws IOException {
        return childJvm(jvmArgs, main, args).redirectErrorStream(true).redirectOutput(log.toFile()).start();
    }

    /** Waits until the child's log has the line; fails if the child exits first or on timeout. */
    static void awaitLine(Process child, Path log, String line, long timeoutSeconds) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(timeoutSeconds);
        while (System.nanoTime() < deadline) {
            if (Files.readAllLines(log, StandardCharsets.UTF_8).contains(line)) {
                return;
            }
            if (!child.isAlive()) {
                // It may have printed the line just before exiting.
                if (Files.readAllLines(log, StandardCharsets.UTF_8).contains(line)) {
                    return;
                }
                fail("child exited with " + child.exitValue() + " before printing " + line + "; output: "
                        + Files.readAllLines(log, StandardCharsets.UTF_8));
            }
            Thread.sleep(10);
        }
        child.destroyForcibly();
        fail("child did not print " + line + " within " + timeoutSeconds + " s; output: "
                + Files.readAllLines(log, StandardCharsets.UTF_8));
    }
}
