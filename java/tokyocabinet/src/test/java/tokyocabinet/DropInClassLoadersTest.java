package tokyocabinet;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertNotSame;

import java.net.URL;
import java.net.URLClassLoader;
import java.util.Arrays;
import org.junit.Rule;
import org.junit.Test;
import org.junit.rules.TemporaryFolder;

/**
 * The drop-in loaded by several class loaders beside one RockCask (as an application server
 * shares a library between applications): each loader's databases call its own comparator
 * classes and get its own error codes, though one copy of the native library serves them all.
 */
public class DropInClassLoadersTest {
    @Rule
    public TemporaryFolder tmp = new TemporaryFolder();

    /** Defines the drop-in's classes (and this test's) itself; RockCask comes from the test's loader. */
    private static URLClassLoader dropInLoader() {
        URL main = BDB.class.getProtectionDomain().getCodeSource().getLocation();
        URL test = DropInClassLoadersTest.class.getProtectionDomain().getCodeSource().getLocation();
        return new URLClassLoader(new URL[] {main, test}, DropInClassLoadersTest.class.getClassLoader()) {
            @Override
            protected Class<?> loadClass(String name, boolean resolve) throws ClassNotFoundException {
                if (!name.startsWith("tokyocabinet.")) {
                    return super.loadClass(name, resolve);
                }
                synchronized (getClassLoadingLock(name)) {
                    Class<?> c = findLoadedClass(name);
                    return c != null ? c : findClass(name);
                }
            }
        };
    }

    @Test
    public void twoLoadersOfTheDropInBesideOneRockCaskEachUseTheirOwnComparatorAndErrorCodes() throws Exception {
        try (URLClassLoader a = dropInLoader(); URLClassLoader b = dropInLoader()) {
            for (URLClassLoader loader : Arrays.asList(a, b, a)) {
                Class<?> probe = loader.loadClass(Probe.class.getName());
                assertNotSame(Probe.class, probe);
                assertEquals("ok", probe.getMethod("run", String.class).invoke(null, tmp.newFolder().toString()));
            }
        }
    }

    /** Runs inside one loader of the drop-in: a database in reverse order, and a failure reported as a code. */
    public static final class Probe {
        private Probe() {}

        public static String run(String dir) {
            BDB db = new BDB();
            db.setcomparator(new CasketChild.Reverse());
            if (!db.open(dir + "/db.tcb", BDB.OWRITER | BDB.OCREAT)) {
                return "open: " + db.errmsg();
            }
            for (String k : new String[] {"b", "a", "c"}) {
                db.put(k, k);
            }
            BDBCUR cursor = new BDBCUR(db);
            cursor.first();
            String first = cursor.key2();
            // A failure of the native side, thrown as this loader's CasketException and caught as one.
            boolean kept = db.putkeep("a", "again");
            int code = db.ecode();
            db.close();
            if (!"c".equals(first)) {
                return "first key " + first + " (the comparator was not this loader's)";
            }
            return !kept && code == BDB.EKEEP ? "ok" : "putkeep: " + kept + ", ecode " + code;
        }
    }
}
