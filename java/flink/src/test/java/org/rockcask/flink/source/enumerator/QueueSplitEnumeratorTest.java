package org.rockcask.flink.source.enumerator;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertTrue;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import org.apache.flink.api.connector.source.SourceEvent;
import org.apache.flink.connector.testutils.source.reader.TestingSplitEnumeratorContext;
import org.junit.Test;
import org.rockcask.flink.source.split.QueueSplit;

public class QueueSplitEnumeratorTest {
    private final TestingSplitEnumeratorContext<QueueSplit> context = new TestingSplitEnumeratorContext<>(2);

    @Test
    public void boundedListsOnceEveryReaderRegisteredThenAssignsRoundRobinAndEndsTheSplits() {
        QueueSplitEnumerator enumerator = new QueueSplitEnumerator(context, true, 1000, null);
        enumerator.start();
        register(0, "tm-1", enumerator);
        assertTrue("asked before every reader registered", context.getSentEvents().isEmpty());
        register(1, "tm-1", enumerator);
        assertEquals("one reader per location is asked", Collections.singleton(0), context.getSentEvents().keySet());

        enumerator.handleSourceEvent(0, new QueuesListed("host-1", Arrays.asList("a", "b", "c")));

        assertEquals(Arrays.asList("a", "c"), queuesOf(0));
        assertEquals(Collections.singletonList("b"), queuesOf(1));
        assertTrue(context.getSplitAssignments().get(0).hasReceivedNoMoreSplitsSignal());
        assertTrue(context.getSplitAssignments().get(1).hasReceivedNoMoreSplitsSignal());
        assertEquals("host-1", context.getSplitAssignments().get(1).getAssignedSplits().get(0).host());
    }

    @Test
    public void eachLocationListsItsOwnStoreAndGetsOnlyItsOwnSplits() {
        QueueSplitEnumerator enumerator = new QueueSplitEnumerator(context, true, 1000, null);
        enumerator.start();
        register(0, "tm-1", enumerator);
        register(1, "tm-2", enumerator);
        assertEquals(2, context.getSentEvents().size());

        enumerator.handleSourceEvent(1, new QueuesListed("host-2", Arrays.asList("a", "z")));
        assertEquals(Arrays.asList("a", "z"), queuesOf(1));
        assertFalse("no more splits before every location answered", context.getSplitAssignments().get(1).hasReceivedNoMoreSplitsSignal());

        enumerator.handleSourceEvent(0, new QueuesListed("host-1", Collections.singletonList("a")));
        assertEquals(Collections.singletonList("a"), queuesOf(0));
        assertTrue(context.getSplitAssignments().get(0).hasReceivedNoMoreSplitsSignal());
        assertTrue(context.getSplitAssignments().get(1).hasReceivedNoMoreSplitsSignal());
    }

    @Test
    public void unboundedListsAgainEveryIntervalAndSplitsOnlyNewQueues() throws Exception {
        QueueSplitEnumerator enumerator = new QueueSplitEnumerator(context, false, 1000, null);
        register(0, "tm-1", enumerator);
        register(1, "tm-1", enumerator);
        enumerator.start();
        context.triggerAllActions();
        assertEquals("asked as it registered, then by the first round", 2, requestsTo(0));
        enumerator.handleSourceEvent(0, new QueuesListed("host-1", Collections.singletonList("a")));

        context.getExecutorService().triggerPeriodicScheduledTasks();
        context.triggerAllActions();
        assertTrue("not asked again", requestsTo(0) > 1);
        enumerator.handleSourceEvent(0, new QueuesListed("host-1", Arrays.asList("a", "b")));

        List<String> assigned = new ArrayList<>(queuesOf(0));
        assigned.addAll(queuesOf(1));
        Collections.sort(assigned);
        assertEquals(Arrays.asList("a", "b"), assigned);
        assertFalse(context.getSplitAssignments().get(0).hasReceivedNoMoreSplitsSignal());
    }

    @Test
    public void unboundedAsksReadersRegisteringAfterItsFirstRoundWithoutWaitingForTheNext() {
        QueueSplitEnumerator enumerator = new QueueSplitEnumerator(context, false, 60_000, null);
        enumerator.start();
        context.triggerAllActions();
        assertTrue("no reader to ask yet", context.getSentEvents().isEmpty());
        register(0, "tm-1", enumerator);
        register(1, "tm-1", enumerator);
        assertEquals(1, requestsTo(0));
        assertEquals(1, requestsTo(1));
    }

    @Test
    public void aBoundedListingWhoseAskedLocationLostItsReadersAsksTheLocationReplacingItAndEnds() {
        QueueSplitEnumerator enumerator = new QueueSplitEnumerator(context, true, 1000, null);
        enumerator.start();
        register(0, "tm-1", enumerator);
        register(1, "tm-1", enumerator);
        assertEquals(1, requestsTo(0));
        // tm-1 is lost before it answers; its readers come back on tm-2.
        context.registeredReaders().clear();
        register(0, "tm-2", enumerator);
        assertEquals("the new location is asked", 2, requestsTo(0));
        register(1, "tm-2", enumerator);
        enumerator.handleSourceEvent(0, new QueuesListed("host-2", Arrays.asList("a", "b")));
        assertEquals(Collections.singletonList("a"), queuesOf(0));
        assertEquals(Collections.singletonList("b"), queuesOf(1));
        assertTrue("the listing ended", context.getSplitAssignments().get(0).hasReceivedNoMoreSplitsSignal());
        assertTrue(context.getSplitAssignments().get(1).hasReceivedNoMoreSplitsSignal());
    }

    @Test
    public void aSplitAddedBackGoesToAReaderRegisteringAgainAtItsLocation() {
        QueueSplitEnumerator enumerator = new QueueSplitEnumerator(context, true, 1000, null);
        enumerator.start();
        register(0, "tm-1", enumerator);
        register(1, "tm-1", enumerator);
        enumerator.handleSourceEvent(0, new QueuesListed("host-1", Collections.singletonList("a")));
        QueueSplit split = context.getSplitAssignments().get(0).getAssignedSplits().get(0);

        enumerator.addSplitsBack(Collections.singletonList(split), 0);
        assertEquals("the split waits in the state", Collections.singletonList(split), enumerator.snapshotState(1).unassigned());
        enumerator.addReader(0);
        assertEquals("given back to the reader that registered again", Arrays.asList("a", "a"), queuesOf(0));
        assertTrue(enumerator.snapshotState(2).unassigned().isEmpty());
    }

    @Test
    public void aRestoredEnumeratorNeverSplitsAKnownQueueAgain() throws Exception {
        QueueSplitEnumerator first = new QueueSplitEnumerator(context, true, 1000, null);
        first.start();
        register(0, "tm-1", first);
        register(1, "tm-1", first);
        first.handleSourceEvent(0, new QueuesListed("host-1", Collections.singletonList("a")));
        EnumeratorStateSerializer serializer = new EnumeratorStateSerializer();
        EnumeratorState state = serializer.deserialize(serializer.getVersion(), serializer.serialize(first.snapshotState(1)));

        TestingSplitEnumeratorContext<QueueSplit> again = new TestingSplitEnumeratorContext<>(2);
        QueueSplitEnumerator restored = new QueueSplitEnumerator(again, true, 1000, state);
        restored.start();
        again.registerReader(0, "tm-1");
        again.registerReader(1, "tm-1");
        restored.addReader(0);
        restored.addReader(1);
        restored.handleSourceEvent(0, new QueuesListed("host-1", Arrays.asList("a", "b")));
        List<QueueSplit> assigned = new ArrayList<>();
        again.getSplitAssignments().values().forEach(s -> assigned.addAll(s.getAssignedSplits()));
        assertEquals(Collections.singletonList(QueueSplit.fresh("b", "host-1")), assigned);
    }

    private void register(int subtask, String location, QueueSplitEnumerator enumerator) {
        context.registerReader(subtask, location);
        enumerator.addReader(subtask);
    }

    private int requestsTo(int subtask) {
        List<SourceEvent> events = context.getSentEvents().getOrDefault(subtask, Collections.emptyList());
        return (int) events.stream().filter(e -> e instanceof ListQueuesRequest).count();
    }

    private List<String> queuesOf(int subtask) {
        Map<Integer, TestingSplitEnumeratorContext.SplitAssignmentState<QueueSplit>> assignments = context.getSplitAssignments();
        List<String> queues = new ArrayList<>();
        if (assignments.containsKey(subtask)) {
            assignments.get(subtask).getAssignedSplits().forEach(s -> queues.add(s.queue()));
        }
        return queues;
    }
}
