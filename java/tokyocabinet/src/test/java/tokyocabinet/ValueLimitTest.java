package tokyocabinet;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.Test;
import tokyocabinet.internal.CasketNative;

/** The largest value: what a Java array holds, so that {@code get} can return every value. */
public class ValueLimitTest extends CasketTestBase {
    @Test
    public void theJavaAndNativeLimitsAreTheSameFigureTheMostAJavaArrayHolds() {
        assertEquals(Integer.MAX_VALUE - 8, Database.MAX_VALUE_SIZE);
        assertEquals(Database.MAX_VALUE_SIZE, CasketNative.maxValueSize());
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
