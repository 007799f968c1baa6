package org.rockcask.flink.sink.internal;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertThrows;
import static org.junit.Assert.assertTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import org.junit.Rule;
import org.junit.Test;
import org.junit.rules.TemporaryFolder;
import org.rockcask.Message;
import org.rockcask.QueueOptions;
import org.rockcask.Store;
import org.rockcask.Transaction;
import org.rockcask.flink.RockCaskStoreSpec;
import org.rockcask.flink.RockCaskStores;
import org.rockcask.flink.internal.StagingQueues;

public class RockCaskCommitterTest {
    private static final String STAGING = StagingQueues.name("out", "0123456789abcdef0123456789abcdef", 0, 1);

    @Rule
    public TemporaryFolder tmp = new TemporaryFolder();

    @Test
    public void aCommitOnAnotherHostFailsNamingBothHostsAndLeavesTheStagedRecords() throws Exception {
        RockCaskStoreSpec spec = RockCaskStoreSpec.at(tmp.newFolder("cask").toString());
        try (RockCaskStores.Lease lease = RockCaskStores.acquire(spec); RockCaskCommitter committer = new RockCaskCommitter(spec, "here")) {
            stage(lease.store(), 3);
            CommitRequests.Recorded request = new CommitRequests.Recorded(new RockCaskCommittable("there", spec.path(), STAGING, "out", 3));
            committer.commit(Collections.singletonList(request));
            assertEquals(Collections.singletonList("failedWithUnknownReason"), request.answers);
            String message = request.failure.getMessage();
            assertTrue(message, message.contains("host there") && message.contains("host here") && message.contains(STAGING));
            assertEquals(3, lease.store().queueSize(STAGING));
            assertEquals(0, lease.store().queueSize("out"));
        }
    }

    @Test
    public void aCommitMovesTheStagedRecordsInOrderAndRemovesTheStagingQueue() throws Exception {
        RockCaskStoreSpec spec = RockCaskStoreSpec.at(tmp.newFolder("cask").toString());
        try (RockCaskStores.Lease lease = RockCaskStores.acquire(spec); RockCaskCommitter committer = new RockCaskCommitter(spec, "here")) {
            Store store = lease.store();
            enqueue(store, "out", "before");
            stage(store, 3);
            CommitRequests.Recorded request = new CommitRequests.Recorded(new RockCaskCommittable("here", spec.path(), STAGING, "out", 3));
            committer.commit(Collections.singletonList(request));
            assertEquals(Collections.emptyList(), request.answers);
            assertEquals(List.of("before", "r0", "r1", "r2"), drain(store, "out"));
            assertEquals(Collections.emptyList(), store.queues("out.staging/"));
        }
    }

    @Test
    public void committingTheSameStagingQueueAgainIsAlreadyCommittedAndAddsNothing() throws Exception {
        RockCaskStoreSpec spec = RockCaskStoreSpec.at(tmp.newFolder("cask").toString());
        try (RockCaskStores.Lease lease = RockCaskStores.acquire(spec); RockCaskCommitter committer = new RockCaskCommitter(spec, "here")) {
            stage(lease.store(), 2);
            RockCaskCommittable committable = new RockCaskCommittable("here", spec.path(), STAGING, "out", 2);
            committer.commit(Collections.singletonList(new CommitRequests.Recorded(committable)));
            CommitRequests.Recorded again = new CommitRequests.Recorded(committable);
            committer.commit(Collections.singletonList(again));
            assertEquals(Collections.singletonList("alreadyCommitted"), again.answers);
            assertEquals(2, lease.store().queueSize("out"));
        }
    }

    @Test
    public void aCommitNamingAStoreThatIsNotThereFailsInsteadOfCreatingOne() throws Exception {
        RockCaskStoreSpec spec = RockCaskStoreSpec.at(tmp.newFolder("cask").toString());
        Path moved = tmp.getRoot().toPath().resolve("moved-away");
        try (RockCaskCommitter committer = new RockCaskCommitter(spec, "here")) {
            RockCaskCommittable committable = new RockCaskCommittable("here", moved.toString(), STAGING, "out", 2);
            IllegalStateException e = assertThrows(IllegalStateException.class,
                    () -> committer.commit(Collections.singletonList(new CommitRequests.Recorded(committable))));
            assertTrue(e.getMessage(), e.getMessage().contains(moved.toString()) && e.getMessage().contains("does not exist"));
        }
        assertFalse("nothing was created", Files.exists(moved));
    }

    @Test
    public void aStagingQueueHoldingFewerRecordsThanStagedIsLeftUncommittedAndFailsTheJob() throws Exception {
        RockCaskStoreSpec spec = RockCaskStoreSpec.at(tmp.newFolder("cask").toString());
        try (RockCaskStores.Lease lease = RockCaskStores.acquire(spec); RockCaskCommitter committer = new RockCaskCommitter(spec, "here")) {
            stage(lease.store(), 2);
            CommitRequests.Recorded request = new CommitRequests.Recorded(new RockCaskCommittable("here", spec.path(), STAGING, "out", 3));
            committer.commit(Collections.singletonList(request));
            assertEquals(Collections.singletonList("failedWithUnknownReason"), request.answers);
            assertTrue(request.failure.getMessage(), request.failure.getMessage().contains("holds 2 records where its writer staged 3"));
            assertEquals(2, lease.store().queueSize(STAGING));
            assertEquals(0, lease.store().queueSize("out"));
        }
    }

    @Test
    public void aFullBoundedTargetIsRetriedLaterAndTakesTheRecordsOnceThereIsRoom() throws Exception {
        RockCaskStoreSpec spec = RockCaskStoreSpec.at(tmp.newFolder("cask").toString());
        try (RockCaskStores.Lease lease = RockCaskStores.acquire(spec); RockCaskCommitter committer = new RockCaskCommitter(spec, "here")) {
            Store store = lease.store();
            store.configureQueue("out", QueueOptions.defaults().capacity(3));
            enqueue(store, "out", "before");
            stage(store, 3);
            RockCaskCommittable committable = new RockCaskCommittable("here", spec.path(), STAGING, "out", 3);
            CommitRequests.Recorded full = new CommitRequests.Recorded(committable);
            committer.commit(Collections.singletonList(full));
            assertEquals(Collections.singletonList("retryLater"), full.answers);
            assertEquals("left staged", 3, store.queueSize(STAGING));
            assertEquals(List.of("before"), drain(store, "out"));
            CommitRequests.Recorded retried = new CommitRequests.Recorded(committable);
            committer.commit(Collections.singletonList(retried));
            assertEquals(Collections.emptyList(), retried.answers);
            assertEquals(List.of("r0", "r1", "r2"), drain(store, "out"));
        }
    }

    @Test
    public void aStagingQueueLargerThanTheTargetsCapacityFailsTheJobInsteadOfRetryingForever() throws Exception {
        RockCaskStoreSpec spec = RockCaskStoreSpec.at(tmp.newFolder("cask").toString());
        try (RockCaskStores.Lease lease = RockCaskStores.acquire(spec); RockCaskCommitter committer = new RockCaskCommitter(spec, "here")) {
            lease.store().configureQueue("out", QueueOptions.defaults().capacity(2));
            stage(lease.store(), 3);
            CommitRequests.Recorded request = new CommitRequests.Recorded(new RockCaskCommittable("here", spec.path(), STAGING, "out", 3));
            committer.commit(Collections.singletonList(request));
            assertEquals(Collections.singletonList("failedWithUnknownReason"), request.answers);
            assertTrue(request.failure.getMessage(), request.failure.getMessage().contains("can never be committed"));
            assertEquals(3, lease.store().queueSize(STAGING));
        }
    }

    private static void stage(Store store, int records) {
        try (Transaction tx = store.begin()) {
            for (int i = 0; i < records; i++) {
                tx.enqueue(STAGING, ("r" + i).getBytes(StandardCharsets.UTF_8));
            }
            tx.commit();
        }
    }

    private static void enqueue(Store store, String queue, String record) {
        try (Transaction tx = store.begin()) {
            tx.enqueue(queue, record.getBytes(StandardCharsets.UTF_8));
            tx.commit();
        }
    }

    private static List<String> drain(Store store, String queue) {
        List<String> out = new ArrayList<>();
        try (Transaction tx = store.begin()) {
            for (Message m : tx.poll(queue, 1000)) {
                out.add(new String(m.payload(), StandardCharsets.UTF_8));
            }
            tx.commit();
        }
        return out;
    }
}
