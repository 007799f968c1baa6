package org.rockcask;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertTrue;

import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Set;
import javax.management.MBeanServer;
import javax.management.ObjectName;
import org.junit.After;
import org.junit.Before;
import org.junit.Rule;
import org.junit.Test;
import org.junit.rules.TemporaryFolder;

public class MetricsTest {
    /** A queue name with every character an ObjectName treats specially. */
    private static final String ODD_QUEUE = "in,type=Store:\"*?\\\n";

    @Rule
    public TemporaryFolder tmp = new TemporaryFolder();

    private final MBeanServer server = ManagementFactory.getPlatformMBeanServer();
    private Store store;

    @Before
    public void openStore() {
        store = Store.open(tmp.getRoot().toPath().resolve("store"), StoreOptions.defaults().syncOnCommit(false));
    }

    @After
    public void closeStore() {
        store.close();
    }

    private static byte[] b(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    private static ObjectName name(String pattern) throws Exception {
        return new ObjectName("org.rockcask:" + pattern);
    }

    private static ObjectName storeBean(Store s) throws Exception {
        return name("type=Store,name=" + ObjectName.quote(s.path().toString()));
    }

    private static ObjectName queueBeans(Store s) throws Exception {
        return name("type=Queue,store=" + ObjectName.quote(s.path().toString()) + ",*");
    }

    private static ObjectName queueBean(Store s, String queue) throws Exception {
        return name("type=Queue,store=" + ObjectName.quote(s.path().toString()) + ",name=" + ObjectName.quote(queue));
    }

    private Set<ObjectName> beans(ObjectName pattern) {
        return server.queryNames(pattern, null);
    }

    private void enqueue(String queue, int n) {
        try (Transaction tx = store.begin()) {
            for (int i = 0; i < n; i++) {
                tx.enqueue(queue, b("item " + i));
            }
            tx.commit();
        }
    }

    /** Ten enqueued; three polled and rolled back; four polled (two enqueued elsewhere) and one taken, committed. */
    private void knownSequence() {
        enqueue(ODD_QUEUE, 10);
        try (Transaction tx = store.begin()) {
            assertEquals(3, tx.poll(ODD_QUEUE, 3).size());
            tx.rollback();
        }
        try (Transaction tx = store.begin()) {
            assertEquals(4, tx.poll(ODD_QUEUE, 4).size());
            tx.enqueue("out", b("a"));
            tx.enqueue("out", b("b"));
            tx.commit();
        }
        try (Transaction tx = store.begin()) {
            tx.take(ODD_QUEUE, Duration.ofSeconds(5));
            tx.commit();
        }
    }

    @Test
    public void storeMetricsCountExactlyWhatTheTransactionsDid() {
        knownSequence();
        StoreMetrics m = store.metrics();
        assertTrue(m.counting());
        assertEquals(3, m.commits());
        assertEquals(3, m.commitLatencyNanos().count());
        assertTrue(m.commitLatencyNanos().max() > 0 && m.commitLatencyNanos().p50() <= m.commitLatencyNanos().max());
        assertEquals("every commit was in some group write", 3, m.groupCommitSize().sum());
        assertEquals(m.groupCommitSize().count(), m.syncedWriteNanos().count());
        assertEquals(2, m.queueCount());
        assertEquals(7, m.queuedItems());
        assertTrue(m.diskBytes() > 0 && m.walBytes() > 0 && m.walBytes() <= m.diskBytes());
        assertTrue(m.memtableBytes() > 0);
        assertFalse(m.writeStopped());

        QueueMetrics in = m.queue(ODD_QUEUE).get();
        assertEquals(5, in.depth());
        assertEquals(5, in.available());
        assertEquals(0, in.claimed());
        assertEquals(10, in.enqueued());
        assertEquals(8, in.polled());
        assertEquals(5, in.consumed());
        assertEquals(3, in.returned());
        assertEquals(0, in.deadLettered());
        assertTrue(in.oldestEntryAgeMillis().isPresent());
        assertFalse(in.oldestAgeIsLowerBound());
        assertTrue(in.enqueuedPerSecond() > 0);
        QueueMetrics out = m.queues().get(1);
        assertEquals("out", m.queues().get(1).name());
        assertEquals(2, out.enqueued());
        assertEquals(0, out.polled());
    }

    @Test
    public void claimedEntriesShowUntilTheirTransactionEnds() {
        enqueue("q", 4);
        try (Transaction tx = store.begin()) {
            tx.poll("q", 3);
            QueueMetrics q = store.metrics().queue("q").get();
            assertEquals(4, q.depth());
            assertEquals(1, q.available());
            assertEquals(3, q.claimed());
        }
        QueueMetrics q = store.metrics().queue("q").get();
        assertEquals(0, q.claimed());
        assertEquals(3, q.returned());
    }

    @Test
    public void beansAppearWithTheStoreShowANewQueueOnTheNextReadAndGoWhenItCloses() throws Exception {
        assertEquals(1, beans(storeBean(store)).size());
        assertEquals(0, beans(queueBeans(store)).size());
        enqueue(ODD_QUEUE, 1);
        server.getAttribute(storeBean(store), "Commits");
        assertEquals(beans(queueBean(store, ODD_QUEUE)), beans(queueBeans(store)));
        assertEquals(1, beans(queueBeans(store)).size());
        assertEquals(ODD_QUEUE, server.getAttribute(queueBean(store, ODD_QUEUE), "Name"));

        try (Transaction tx = store.begin()) {
            tx.dropQueue(ODD_QUEUE);
            tx.commit();
        }
        server.getAttribute(storeBean(store), "Queues");
        assertEquals(0, beans(queueBeans(store)).size());

        enqueue("q", 1);
        store.close();
        assertEquals(0, beans(storeBean(store)).size());
        assertEquals(0, beans(queueBeans(store)).size());
    }

    @Test
    public void everyAttributeOfEveryBeanBringsTheQueueBeansUpToDate() throws Exception {
        enqueue("seen", 1);
        server.getAttribute(storeBean(store), "Commits");
        // Each read right after a new queue's commit, before the daemon's next pass (a second away).
        String[][] reads = {{"Path", "a"}, {"ReadOnly", "b"}, {"Name", "c"}, {"StorePath", "d"}};
        for (String[] read : reads) {
            enqueue(read[1], 1);
            ObjectName bean = read[0].equals("Name") || read[0].equals("StorePath") ? queueBean(store, "seen") : storeBean(store);
            server.getAttribute(bean, read[0]);
            assertEquals("reading " + read[0] + " registers queue " + read[1], 1, beans(queueBean(store, read[1])).size());
        }
    }

    @Test
    public void theDaemonRegistersANewQueueWithoutAnyBeanBeingRead() throws Exception {
        enqueue("unread", 1);
        ObjectName bean = queueBean(store, "unread");
        long deadline = System.nanoTime() + Duration.ofSeconds(20).toNanos();
        while (beans(bean).isEmpty() && System.nanoTime() < deadline) {
            Thread.sleep(20);
        }
        assertEquals(1, beans(bean).size());
    }

    @Test
    public void attributesReadThroughTheMBeanServerAreThoseOfStoreMetrics() throws Exception {
        knownSequence();
        StoreMetrics m = store.metrics();
        ObjectName s = storeBean(store);
        assertEquals(m.commits(), server.getAttribute(s, "Commits"));
        assertEquals(m.commitLatencyNanos().max(), server.getAttribute(s, "CommitLatencyMaxNanos"));
        assertEquals(m.commitLatencyNanos().p99(), server.getAttribute(s, "CommitLatencyP99Nanos"));
        assertEquals(m.syncedWriteNanos().count(), server.getAttribute(s, "SyncedWrites"));
        assertEquals(m.groupCommitSize().max(), server.getAttribute(s, "GroupCommitMaxSize"));
        assertEquals(m.queuedItems(), server.getAttribute(s, "QueuedItems"));
        assertEquals(m.queueCount(), server.getAttribute(s, "Queues"));
        assertEquals(store.path().toString(), server.getAttribute(s, "Path"));
        assertEquals(false, server.getAttribute(s, "ReadOnly"));
        assertEquals(m.writeStopped(), server.getAttribute(s, "WriteStopped"));

        QueueMetrics in = m.queue(ODD_QUEUE).get();
        ObjectName q = queueBean(store, ODD_QUEUE);
        assertEquals(in.depth(), server.getAttribute(q, "Depth"));
        assertEquals(in.available(), server.getAttribute(q, "Available"));
        assertEquals(in.claimed(), server.getAttribute(q, "Claimed"));
        assertEquals(in.enqueued(), server.getAttribute(q, "Enqueued"));
        assertEquals(in.polled(), server.getAttribute(q, "Polled"));
        assertEquals(in.consumed(), server.getAttribute(q, "Consumed"));
        assertEquals(in.returned(), server.getAttribute(q, "Returned"));
        assertEquals(in.deadLettered(), server.getAttribute(q, "DeadLettered"));
        assertEquals(in.oldestAgeIsLowerBound(), server.getAttribute(q, "OldestAgeLowerBound"));
        assertTrue((Long) server.getAttribute(q, "OldestEntryAgeMillis") >= in.oldestEntryAgeMillis().getAsLong());
    }

    @Test
    public void withMetricsOffNoBeanIsRegisteredAndNothingIsCounted() throws Exception {
        try (Store quiet = Store.open(tmp.getRoot().toPath().resolve("quiet"), StoreOptions.defaults().syncOnCommit(false).metrics(false))) {
            try (Transaction tx = quiet.begin()) {
                tx.enqueue("q", b("x"));
                tx.commit();
            }
            assertEquals(0, beans(storeBean(quiet)).size());
            assertEquals(0, beans(queueBeans(quiet)).size());
            StoreMetrics m = quiet.metrics();
            assertFalse(m.counting());
            assertEquals(0, m.commits());
            assertEquals(0, m.commitLatencyNanos().count());
            QueueMetrics q = m.queue("q").get();
            assertEquals(1, q.depth());
            assertEquals(0, q.enqueued());
            assertFalse(q.oldestEntryAgeMillis().isPresent());
        }
    }

    @Test
    public void eachOpenHasBeansOfItsOwnAndAReopenedStoreHasThemAgain() throws Exception {
        enqueue("q", 2);
        Path otherDir = tmp.getRoot().toPath().resolve("other");
        try (Store other = Store.open(otherDir, StoreOptions.defaults().syncOnCommit(false))) {
            assertEquals(1, beans(storeBean(other)).size());
            assertEquals(1, beans(storeBean(store)).size());
        }
        assertEquals(0, beans(name("type=Store,name=" + ObjectName.quote(otherDir.toAbsolutePath().toString()))).size());

        // A read-only open beside the writer: beans of its own, told apart by an instance key.
        try (Store reader = Store.open(store.path(), StoreOptions.defaults().readOnly(true))) {
            ObjectName readerBean = name("type=Store,name=" + ObjectName.quote(reader.path().toString()) + ",instance=2");
            assertEquals(true, server.getAttribute(readerBean, "ReadOnly"));
            assertEquals(0L, server.getAttribute(readerBean, "Commits"));
            assertEquals(2L, server.getAttribute(readerBean, "QueuedItems"));
            assertEquals(1, beans(name("type=Queue,store=" + ObjectName.quote(reader.path().toString()) + ",name=\"q\",instance=2")).size());
            assertTrue(reader.metrics().queue("q").get().oldestAgeIsLowerBound());
        }
        server.getAttribute(storeBean(store), "Commits");
        assertEquals("the writer's own beans are untouched", 1, beans(queueBeans(store)).size());

        Path path = store.path();
        store.close();
        store = Store.open(path, StoreOptions.defaults().syncOnCommit(false));
        assertEquals(1, beans(storeBean(store)).size());
        assertEquals(0L, server.getAttribute(storeBean(store), "Commits"));
        assertEquals(1, beans(queueBeans(store)).size());
    }
}
