package org.rockcask.flink;

import static org.junit.Assert.fail;

import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.Map;
import org.apache.flink.api.common.serialization.SimpleStringSchema;
import org.junit.rules.ExternalResource;
import org.junit.rules.TemporaryFolder;
import org.rockcask.Store;
import org.rockcask.Transaction;
import org.rockcask.flink.source.RockCaskSource;
import org.rockcask.flink.source.RockCaskSourceBuilder;

/**
 * A JUnit rule: a fresh RockCask store per test, in a temporary folder, holding test data in
 * queues as entries {@code "<queue>#<index>"}, written and watched through the shared store.
 * Before each test it also resets the fault injectors, whose state is static (the MiniCluster
 * runs in this JVM).
 */
final class QueueFixture extends ExternalResource {
    private final TemporaryFolder tmp = new TemporaryFolder();
    private final Map<String, Integer> written = new LinkedHashMap<>();
    private RockCaskStoreSpec spec;
    private RockCaskStores.Lease lease;

    @Override
    protected void before() throws IOException {
        tmp.create();
        spec = RockCaskStoreSpec.at(tmp.newFolder("cask").toString()).withSyncOnCommit(false);
        lease = RockCaskStores.acquire(spec);
        InstrumentedSource.reset();
        FailOnceAfterCheckpoint.reset();
        FailingCommitSink.reset();
    }

    @Override
    protected void after() {
        try {
            lease.close();
        } finally {
            tmp.delete();
        }
    }

    /** A new empty folder beside the store (for savepoints), removed after the test. */
    File newFolder() throws IOException {
        return tmp.newFolder();
    }

    RockCaskStoreSpec spec() {
        return spec;
    }

    Store store() {
        return lease.store();
    }

    /**
     * A source over this store, in small batches (a checkpoint then falls between the entries of
     * one queue) and listing queues often (a continuous source finds new ones quickly).
     */
    RockCaskSourceBuilder<String> source() {
        return RockCaskSource.<String>builder().store(spec).deserializer(new SimpleStringSchema()).pollBatchSize(16)
                .discoveryInterval(Duration.ofMillis(100));
    }

    /** Appends the next {@code count} entries of {@code queue}, in one transaction. */
    void append(String queue, int count) {
        int from = written.getOrDefault(queue, 0);
        try (Transaction tx = lease.store().begin()) {
            for (int i = from; i < from + count; i++) {
                tx.enqueue(queue, (queue + "#" + i).getBytes(StandardCharsets.UTF_8));
            }
            tx.commit();
        }
        written.put(queue, from + count);
    }

    /** Queue name -> how many entries were written to it. */
    Map<String, Integer> written() {
        return new LinkedHashMap<>(written);
    }

    int total() {
        return written.values().stream().mapToInt(Integer::intValue).sum();
    }

    long size(String queue) {
        return lease.store().queueSize(queue);
    }

    /** Waits (up to a minute) until every queue written to holds no committed entry. */
    void awaitAllConsumed() throws InterruptedException {
        long deadline = System.nanoTime() + 60_000_000_000L;
        while (!allConsumed(written.keySet())) {
            if (System.nanoTime() > deadline) {
                fail("queues still hold entries after a minute: " + sizes());
            }
            Thread.sleep(20);
        }
    }

    private boolean allConsumed(Collection<String> queues) {
        return queues.stream().allMatch(q -> size(q) == 0);
    }

    Map<String, Long> sizes() {
        Map<String, Long> sizes = new LinkedHashMap<>();
        written.keySet().forEach(q -> sizes.put(q, size(q)));
        return sizes;
    }
}
