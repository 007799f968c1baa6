package tokyocabinet;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertThrows;
import static org.junit.Assert.assertTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.Test;
import org.rockcask.StaleClasses;

/** The largest value: what a Java array holds, so that {@code get} can return every value. */
public class ValueLimitTest extends CasketTestBase {
    /**
     * The Java figure is the native one: the library compares them when {@code CasketNative}
     * registers, and refuses a jar whose {@code Database} says otherwise.
     */
    @Test
    public void theJavaAndNativeLimitsAreTheSameFigureTheMostAJavaArrayHolds() throws Exception {
        assertEquals(Integer.MAX_VALUE - 8, Database.MAX_VALUE_SIZE);
        Class.forName(CasketNative.class.getName(), true, CasketNative.class.getClassLoader());
        Path classes = StaleClasses.compile(tmp, "tokyocabinet.Database",
                "package tokyocabinet; final class Database { static final int MAX_VALUE_SIZE = Integer.MAX_VALUE - 9; }");
        StaleClasses.copyClassFile(CasketNative.class, classes);
        ClassLoader stale = StaleClasses.childFirst(classes, "tokyocabinet.Database", CasketNative.class.getName());
        UnsatisfiedLinkError e = assertThrows(UnsatisfiedLinkError.class, () -> Class.forName(CasketNative.class.getName(), true, stale));
        assertTrue(e.getMessage(), e.getMessage().contains("tokyocabinet/Database.MAX_VALUE_SIZE is " + (Database.MAX_VALUE_SIZE - 1)
                + " in Java but " + Database.MAX_VALUE_SIZE + " in the native library"));
    }

    @Test
    public void putcatPastTheLargestValueFailsWithEinvalidAndLeavesTheValueReadable() throws Exception {
        Path log = tmp.newFile("limit.log").toPath();
        // The appended array alone is 2 GiB; the native side refuses it without copying it.
        Process child = startChild(Arrays.asList("-Xmx3g"), log, CasketChild.class, "putcat-limit", path("limit"));
        awaitLine(child, log, "DONE", 300);
        assertTrue(child.waitFor(60, TimeUnit.SECONDS));
        List<String> output = Files.readAllLines(log, StandardCharsets.UTF_8);
        assertEquals(output.toString(), 0, child.exitValue());
        for (String kind : new String[] {"bdb", "hdb"}) {
            assertTrue(output.toString(), output.contains(kind + " putcat=false ecode=" + BDB.EINVALID + " vsiz=10 get=0123456789"));
            assertTrue(output.toString(), output.contains(kind + " errmsg=invalid operation: appending " + (Database.MAX_VALUE_SIZE - 9)
                    + " bytes to a value of 10 bytes would make it larger than the " + Database.MAX_VALUE_SIZE
                    + " bytes a value may hold (the most a Java array holds)"));
        }
    }
}
