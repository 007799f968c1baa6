package tokyocabinet;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertTrue;

import java.io.File;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.Test;

/**
 * A child JVM is killed with SIGKILL in the middle of a transaction whose writes already reached
 * the disk; the next open must show exactly the state before tranbegin.
 */
public class CrashDuringTransactionTest extends CasketTestBase {
    private static List<String> committedRecords() {
        List<String> out = new ArrayList<>();
        for (int i = 0; i < CasketChild.COMMITTED; i++) {
            out.add(String.format("c%05d", i) + "=v" + i);
        }
        out.add("q=q0");
        out.add("q=q1");
        out.add("q=q2");
        return out;
    }

    private void killInTransaction(String mode, String path) throws Exception {
        Path log = tmp.newFile(mode + ".log").toPath();
        Process child = startChild(log, CasketChild.class, mode, path);
        try {
            awaitLine(child, log, "IN-TX", 90);
        } finally {
            child.destroyForcibly(); // SIGKILL on Linux
            assertTrue(child.waitFor(30, TimeUnit.SECONDS));
        }
        assertEquals("killed (SIGKILL, TerminateProcess on Windows)", org.rockcask.testsupport.ChildJvm.killedExitValue(), child.exitValue());
    }

    private void assertCommittedStateOnly(String path) {
        BDB db = openBdb(path, BDB.OWRITER);
        assertEquals(committedRecords(), records(db));
        assertEquals(CasketChild.COMMITTED + 3, db.rnum());
        assertEquals(3, db.vnum("q"));
        // Usable again, transactions included.
        assertTrue(db.tranbegin());
        assertTrue(db.put("new", "1"));
        assertTrue(db.trancommit());
        assertTrue(db.close());
        BDB reader = openBdb(path, BDB.OREADER);
        assertEquals(CasketChild.COMMITTED + 4, reader.rnum());
        assertEquals("1", reader.get("new"));
        assertEquals("v0", reader.get("c00000"));
        assertTrue(reader.close());
    }

    private static long dataBytes(String path) throws Exception {
        try (Stream<Path> files = Files.walk(new File(path + ".rockcask").toPath())) {
            return files.filter(Files::isRegularFile).mapToLong(p -> p.toFile().length()).sum();
        }
    }

    @Test
    public void aTransactionOfWritesReadsAndRemovalsIsRolledBackAfterSigkill() throws Exception {
        String path = path("crash-reads.tcb");
        killInTransaction("crash-reads", path);
        assertCommittedStateOnly(path);
    }

    @Test
    public void aTransactionOfOnlyPutdupsTooLargeToKeepInMemoryIsRolledBackAfterSigkill() throws Exception {
        String path = path("crash-putdup.tcb");
        killInTransaction("crash-putdup", path);
        assertTrue("the transaction's values reached the disk before the kill",
                dataBytes(path) > 50L * 1024 * 1024);
        assertCommittedStateOnly(path);
    }

    @Test
    public void theRollbackHappensOnlyOnceAndLaterSessionsKeepTheirWrites() throws Exception {
        String path = path("crash-twice.tcb");
        killInTransaction("crash-reads", path);
        assertCommittedStateOnly(path);
        BDB db = openBdb(path, BDB.OWRITER);
        assertTrue(db.out("c00000"));
        assertTrue(db.close());
        BDB again = openBdb(path, BDB.OWRITER);
        assertEquals(null, again.get("c00000"));
        assertEquals("1", again.get("new"));
        assertEquals(CasketChild.COMMITTED + 3, again.rnum());
    }
}
