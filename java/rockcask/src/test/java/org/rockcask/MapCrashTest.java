package org.rockcask;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import org.junit.Rule;
import org.junit.Test;
import org.junit.rules.TemporaryFolder;
import org.rockcask.testsupport.ChildJvm;

/**
 * A child JVM moves items between queues and counts each move in a map counter, in one
 * transaction each, and is killed with SIGKILL at random moments: after every kill the counter
 * equals the items moved and no item is lost or doubled.
 */
public class MapCrashTest {
    private static final int ITEMS = 200_000;
    private static final int KILLS = 8;

    @Rule
    public TemporaryFolder tmp = new TemporaryFolder();

    @Test
    public void aCounterAndTheQueuesItCountsAlwaysAgreeAfterSigkill() throws Exception {
        Path dir = tmp.newFolder().toPath().resolve("store");
        try (Store store = Store.open(dir, StoreOptions.defaults().syncOnCommit(false)); Transaction tx = store.begin()) {
            for (int i = 0; i < ITEMS; i++) {
                tx.enqueue("in", Integer.toString(i).getBytes(StandardCharsets.UTF_8));
            }
            tx.commit();
        }
        Random random = new Random(Long.getLong("rockcask.crash.seed", System.nanoTime()));
        long lastMoved = 0;
        for (int kill = 0; kill < KILLS; kill++) {
            Path log = tmp.newFile("child-" + kill + ".log").toPath();
            Process child = ChildJvm.builder(new ArrayList<>(), MapCrashChild.class, dir.toString())
                    .redirectErrorStream(true).redirectOutput(log.toFile()).start();
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
            while (!new String(Files.readAllBytes(log), StandardCharsets.UTF_8).contains("C\n") && child.isAlive() && System.nanoTime() < deadline) {
                Thread.sleep(5);
            }
            Thread.sleep(random.nextInt(200));
            child.destroyForcibly();
            assertTrue(child.waitFor(30, TimeUnit.SECONDS));
            try (Store store = Store.open(dir, StoreOptions.defaults()); Transaction tx = store.begin()) {
                long moved = tx.map("counts").counter("moved");
                assertEquals("the counter and the moved items agree after kill " + kill, store.queueSize("out"), moved);
                assertEquals("no item lost or doubled", ITEMS, store.queueSize("in") + store.queueSize("out"));
                assertTrue("the child made progress", moved > lastMoved || store.queueSize("in") == 0);
                lastMoved = moved;
            }
        }
    }
}
