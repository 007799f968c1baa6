package org.rockcask.flink.source.reader;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertTrue;
import static org.junit.Assert.fail;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.apache.flink.api.common.serialization.SimpleStringSchema;
import org.apache.flink.connector.testutils.source.reader.TestingReaderContext;
import org.apache.flink.connector.testutils.source.reader.TestingReaderOutput;
import org.apache.flink.core.io.InputStatus;
import org.junit.After;
import org.junit.Before;
import org.junit.Rule;
import org.junit.Test;
import org.junit.rules.TemporaryFolder;
import org.rockcask.Message;
import org.rockcask.Store;
import org.rockcask.Transaction;
import org.rockcask.flink.RockCaskStoreSpec;
import org.rockcask.flink.RockCaskStores;
import org.rockcask.flink.internal.Hosts;
import org.rockcask.flink.source.enumerator.ListQueuesRequest;
import org.rockcask.flink.source.enumerator.QueuesListed;
import org.rockcask.flink.source.split.QueueSplit;
import org.rockcask.flink.source.split.SequenceRanges;

public class QueueSourceReaderTest {
    @Rule
    public final TemporaryFolder tmp = new TemporaryFolder();

    private RockCaskStoreSpec spec;
    private RockCaskStores.Lease lease;
    private TestingReaderContext context;
    private TestingReaderOutput<String> output;
    private QueueSourceReader<String> reader;
    private final Map<String, Integer> appended = new HashMap<>();

    @Before
    public void open() throws Exception {
        spec = RockCaskStoreSpec.at(tmp.newFolder("cask").toString()).withSyncOnCommit(false);
        lease = RockCaskStores.acquire(spec);
        context = new TestingReaderContext();
        output = new TestingReaderOutput<>();
        reader = reader(Integer.MAX_VALUE);
        reader.start();
    }

    @After
    public void close() {
        reader.close();
        lease.close();
    }

    private QueueSourceReader<String> reader(int maxUncommittedEntries) {
        return new QueueSourceReader<>(context, spec, QueueSelector.prefix("q"), new SimpleStringSchema(), new ReadLimits(4, maxUncommittedEntries));
    }

    @Test
    public void aReaderHoldingItsMaximumOfUncommittedEntriesPollsAgainOnlyOnceACheckpointCommits() throws Exception {
        reader.close();
        reader = reader(6);
        reader.start();
        reader.addSplits(Collections.singletonList(QueueSplit.fresh("q", Hosts.localHost())));
        append("q", 10);
        assertEquals(InputStatus.NOTHING_AVAILABLE, drain());
        assertEquals("polled up to the maximum, in batches of 4", records("q", 0, 6), output.getEmittedRecords());
        assertFalse("waits for a checkpoint, not for a timer", reader.isAvailable().isDone());
        reader.snapshotState(1);
        assertFalse(reader.isAvailable().isDone());
        reader.notifyCheckpointComplete(1);
        assertTrue("woken by the commit", reader.isAvailable().isDone());
        assertEquals(4, store().queueSize("q"));
        drain();
        assertEquals(records("q", 0, 10), output.getEmittedRecords());
    }

    @Test
    public void restoredSkipRangesAreAcknowledgedWithoutBeingEmitted() throws Exception {
        append("q", 10);
        SequenceRanges delivered = new SequenceRanges();
        try (Transaction tx = store().begin()) {
            for (Message m : tx.peek("q", 4)) {
                delivered.add(m.sequence());
            }
        }
        reader.addSplits(Collections.singletonList(new QueueSplit("q", Hosts.localHost(), delivered)));
        drain();
        assertEquals(records("q", 4, 10), output.getEmittedRecords());
        QueueSplit state = reader.snapshotState(1).get(0);
        assertEquals("every claim stays in the state until committed", 10, count(state.skip()));
        reader.notifyCheckpointComplete(1);
        assertEquals(0, store().queueSize("q"));
    }

    @Test
    public void aCompletedCheckpointCommitsOnlyTheTransactionsParkedUpToIt() throws Exception {
        reader.addSplits(Collections.singletonList(QueueSplit.fresh("q", Hosts.localHost())));
        append("q", 5);
        drain();
        reader.snapshotState(1);
        append("q", 3);
        drain();
        reader.snapshotState(2);
        reader.notifyCheckpointComplete(1);
        assertEquals(3, store().queueSize("q"));
        reader.notifyCheckpointComplete(2);
        assertEquals(0, store().queueSize("q"));
        assertEquals(records("q", 0, 8), output.getEmittedRecords());
    }

    @Test
    public void closeReturnsEveryUncommittedClaimToTheHeadInOrder() throws Exception {
        append("q", 6);
        reader.addSplits(Collections.singletonList(QueueSplit.fresh("q", Hosts.localHost())));
        drain();
        reader.snapshotState(1);
        reader.close();
        List<String> left = new ArrayList<>();
        try (Transaction tx = store().begin()) {
            for (Message m : tx.peek("q", 100)) {
                left.add(new String(m.payload(), StandardCharsets.UTF_8));
            }
        }
        assertEquals(records("q", 0, 6), left);
    }

    @Test
    public void anEntryOfADeletedObjectIsAcknowledgedWithoutBeingEmitted() throws Exception {
        UUID gone = UUID.randomUUID();
        try (Transaction tx = store().begin()) {
            tx.put(gone, "deleted".getBytes(StandardCharsets.UTF_8));
            tx.enqueue("q", gone);
            tx.enqueue("q", "kept".getBytes(StandardCharsets.UTF_8));
            tx.commit();
        }
        try (Transaction tx = store().begin()) {
            tx.delete(gone);
            tx.commit();
        }
        reader.addSplits(Collections.singletonList(QueueSplit.fresh("q", Hosts.localHost())));
        drain();
        assertEquals(Collections.singletonList("kept"), output.getEmittedRecords());
        reader.snapshotState(1);
        reader.notifyCheckpointComplete(1);
        assertEquals(0, store().queueSize("q"));
    }

    @Test
    public void aBoundedReaderEndsAtEmptyQueuesAndItsFinalCheckpointCommitsWhatItRead() throws Exception {
        append("q", 3);
        reader.addSplits(Collections.singletonList(QueueSplit.fresh("q", Hosts.localHost())));
        reader.notifyNoMoreSplits();
        assertEquals(InputStatus.END_OF_INPUT, drain());
        assertEquals(3, count(reader.snapshotState(1).get(0).skip()));
        assertEquals("nothing is consumed before the checkpoint completes", 3, store().queueSize("q"));
        reader.notifyCheckpointComplete(1);
        assertEquals(0, store().queueSize("q"));
    }

    @Test
    public void aSplitOfAnotherHostIsRefusedNamingBothHosts() {
        try {
            reader.addSplits(Collections.singletonList(QueueSplit.fresh("q", "elsewhere.example")));
            fail("a split of another host's store was accepted");
        } catch (IllegalStateException expected) {
            assertTrue(expected.getMessage(), expected.getMessage().contains("elsewhere.example") && expected.getMessage().contains(Hosts.localHost()));
        }
    }

    @Test
    public void aListingRequestIsAnsweredWithTheHostAndTheSelectedQueuesButNoStagingQueue() {
        append("q2", 1);
        append("q1", 1);
        append("q1.staging/0123456789abcdef0123456789abcdef/0/3", 1);
        append("other", 1);
        reader.handleSourceEvents(new ListQueuesRequest());
        QueuesListed answer = (QueuesListed) context.getSentEvents().get(0);
        assertEquals(Hosts.localHost(), answer.host());
        assertEquals(Arrays.asList("q1", "q2"), answer.queues());
    }

    /** Polls until the reader has nothing more to give; returns the last status. */
    private InputStatus drain() throws Exception {
        InputStatus status;
        do {
            status = reader.pollNext(output);
        } while (status == InputStatus.MORE_AVAILABLE);
        return status;
    }

    private Store store() {
        return lease.store();
    }

    private void append(String queue, int count) {
        int from = appended.getOrDefault(queue, 0);
        appended.put(queue, from + count);
        try (Transaction tx = store().begin()) {
            for (String record : records(queue, from, from + count)) {
                tx.enqueue(queue, record.getBytes(StandardCharsets.UTF_8));
            }
            tx.commit();
        }
    }

    private List<String> records(String queue, int from, int to) {
        List<String> records = new ArrayList<>();
        for (int i = from; i < to; i++) {
            records.add(queue + "#" + i);
        }
        return records;
    }

    private static long count(SequenceRanges ranges) {
        long[] pairs = ranges.toPairs();
        long n = 0;
        for (int i = 0; i < pairs.length; i += 2) {
            n += pairs[i + 1] - pairs[i] + 1;
        }
        return n;
    }
}
