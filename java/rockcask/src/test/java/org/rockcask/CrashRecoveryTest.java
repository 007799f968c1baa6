package org.rockcask;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertTrue;
import static org.junit.Assert.fail;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.junit.Rule;
import org.junit.Test;
import org.junit.rules.TemporaryFolder;
import org.rockcask.testsupport.ChildJvm;

/**
 * A child JVM commits a numbered stream of transactions and is killed with SIGKILL at random
 * moments; after each kill the store must hold every acknowledged transaction exactly once and
 * in order, and any transaction in flight either whole or not at all.
 */
public class CrashRecoveryTest {
    private static final int KILL_CYCLES = Integer.getInteger("rockcask.crash.cycles", 20);

    @Rule
    public TemporaryFolder tmp = new TemporaryFolder();

    @Test
    public void everyAcknowledgedCommitSurvivesSigkillExactlyOnceInOrder() throws Exception {
        killRepeatedly(KILL_CYCLES, 0, 0);
    }

    /**
     * The store writes over flushed log files rather than growing new ones, and a log written over
     * still holds an older log's records after the new ones: recovery after a kill must stop at
     * the new records' end and lose none of them. Each child writes the logs' cap of 16 MiB
     * several times over (an object of 64 KiB written over in each transaction) before it is
     * killed, and the store's info logs must say that a log was reused.
     */
    @Test
    public void everyAcknowledgedCommitSurvivesSigkillWhileTheLogIsOneWrittenOver() throws Exception {
        int padding = 64 << 10;
        // 96 MiB a child: six caps of 16 MiB, of which the first three are new files.
        long commitsBeforeKill = (96L << 20) / padding;
        Path dir = killRepeatedly(3, padding, commitsBeforeKill);
        assertTrue("no log was written over: " + dir, reusedLogs(dir) > 0);
    }

    /**
     * Runs {@code cycles} children on one store, each killed at a random moment after its first
     * {@code commitsBeforeKill} + 1 acknowledged commits, and checks the store after each kill.
     * Returns the store's directory.
     */
    private Path killRepeatedly(int cycles, int padding, long commitsBeforeKill) throws Exception {
        Path dir = tmp.newFolder().toPath().resolve("crash-store");
        Random random = new Random(Long.getLong("rockcask.crash.seed", System.nanoTime()));
        long nextK = 0;
        long totalAcked = 0;
        for (int cycle = 0; cycle < cycles; cycle++) {
            // The child's output goes to a file, not a pipe: what the child wrote before the kill
            // is all there afterwards (the JDK closes a dead child's pipe under its reader).
            Path log = tmp.newFile("child-" + cycle + ".log").toPath();
            Process child = ChildJvm.builder(new ArrayList<>(), CrashChild.class, dir.toString(), Long.toString(nextK), Integer.toString(padding))
                    .redirectErrorStream(true).redirectOutput(log.toFile()).start();
            // Wait until the child has committed enough, then kill it at a random moment.
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(120);
            long wanted = nextK + commitsBeforeKill;
            while (lastAcked(log, nextK) < wanted && child.isAlive() && System.nanoTime() < deadline) {
                Thread.sleep(5);
            }
            assertTrue("child never committed " + (commitsBeforeKill + 1) + " times; output: " + Files.readAllLines(log), lastAcked(log, nextK) >= wanted);
            Thread.sleep(random.nextInt(300));
            child.destroyForcibly(); // SIGKILL on Linux
            assertTrue(child.waitFor(30, TimeUnit.SECONDS));
            assertEquals("killed (SIGKILL, TerminateProcess on Windows)", org.rockcask.testsupport.ChildJvm.killedExitValue(), child.exitValue());
            long acked = lastAcked(log, nextK);
            totalAcked += acked - nextK + 1;
            nextK = verify(dir, acked, cycle, padding > 0);
        }
        assertTrue("made progress across cycles", totalAcked >= cycles);
        return dir;
    }

    /** How many times the store's info logs (RocksDB's LOG files) say a log file was written over. */
    private static long reusedLogs(Path dir) throws IOException {
        long reused = 0;
        try (var files = Files.list(dir)) {
            for (Path f : (Iterable<Path>) files::iterator) {
                if (f.getFileName().toString().startsWith("LOG")) {
                    String text = new String(Files.readAllBytes(f), StandardCharsets.ISO_8859_1);
                    reused += text.split("from recycle list", -1).length - 1;
                }
            }
        }
        return reused;
    }

    /** The last transaction number the child acknowledged; fails on any other output. */
    private static long lastAcked(Path log, long start) throws IOException {
        long acked = start - 1;
        String text = new String(Files.readAllBytes(log), StandardCharsets.UTF_8);
        // Only whole lines: while the child runs, the last one may be half written. The child's
        // println ends them with its platform's separator (\r\n on Windows).
        for (String line : text.substring(0, text.lastIndexOf('\n') + 1).split("\r?\n")) {
            if (line.startsWith("C ")) {
                acked = Long.parseLong(line.substring(2));
            } else if (!line.equals("READY") && !line.isEmpty()) {
                fail("unexpected child output: " + line);
            }
        }
        return acked;
    }

    /** Checks the store after a kill and returns the next transaction number the child starts at. */
    private static long verify(Path dir, long acked, int cycle, boolean padded) {
        try (Store store = Store.open(dir, StoreOptions.defaults()); Transaction tx = store.begin()) {
            List<long[]> in = items(tx, "in");
            List<long[]> out = items(tx, "out");
            assertEquals(store.queueSize("in"), in.size());
            assertEquals(store.queueSize("out"), out.size());
            Set<String> seen = new HashSet<>();
            long maxK = -1;
            for (List<long[]> q : List.of(in, out)) {
                long[] prev = null;
                for (long[] item : q) {
                    assertTrue("cycle " + cycle + ": duplicate " + item[0] + ":" + item[1], seen.add(item[0] + ":" + item[1]));
                    if (prev != null) {
                        assertTrue("cycle " + cycle + ": out of order " + prev[0] + ":" + prev[1] + " before " + item[0] + ":" + item[1],
                                prev[0] < item[0] || (prev[0] == item[0] && prev[1] < item[1]));
                    }
                    prev = item;
                    maxK = Math.max(maxK, item[0]);
                }
            }
            // The transaction in flight at the kill is whole or absent; all acknowledged ones are whole.
            assertTrue("cycle " + cycle + ": acknowledged " + acked + " but store ends at " + maxK, maxK == acked || maxK == acked + 1);
            for (long k = 0; k <= maxK; k++) {
                for (int i = 0; i < CrashChild.ITEMS; i++) {
                    if (!seen.contains(k + ":" + i)) {
                        fail("cycle " + cycle + ": committed item " + k + ":" + i + " lost");
                    }
                }
            }
            assertEquals((maxK + 1) * CrashChild.ITEMS, seen.size());
            if (padded) {
                String last = new String(tx.get(CrashChild.PADDED), StandardCharsets.UTF_8);
                assertEquals("cycle " + cycle + ": the object written over holds the last transaction's number", Long.toString(maxK), last.substring(0, last.indexOf(':')));
            }
            return maxK + 1;
        }
    }

    private static List<long[]> items(Transaction tx, String queue) {
        List<long[]> out = new ArrayList<>();
        for (Message m : tx.peek(queue, 1 << 20)) {
            String[] parts = new String(m.payload(), StandardCharsets.UTF_8).split(":");
            out.add(new long[] {Long.parseLong(parts[0]), Long.parseLong(parts[1])});
        }
        return out;
    }
}
