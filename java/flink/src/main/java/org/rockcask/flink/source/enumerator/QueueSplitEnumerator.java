package org.rockcask.flink.source.enumerator;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Deque;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import org.apache.flink.annotation.Internal;
import org.apache.flink.api.connector.source.ReaderInfo;
import org.apache.flink.api.connector.source.SourceEvent;
import org.apache.flink.api.connector.source.SplitEnumerator;
import org.apache.flink.api.connector.source.SplitEnumeratorContext;
import org.apache.flink.api.connector.source.SplitsAssignment;
import org.apache.flink.util.FlinkRuntimeException;
import org.rockcask.flink.source.split.QueueSplit;

/**
 * Makes one split per selected queue per host and hands each to a reader on that host.
 *
 * <p>The queues are listed by the readers (one per TaskManager location), since only they see
 * their host's store. Bounded: one listing once every reader has registered, then no more
 * splits. Unbounded: a listing every discovery interval, so queues created later are read too.
 * Readers are matched to hosts through the location Flink registered them with: a split of host H
 * goes, round robin, to the readers at the location of the reader that found it on H.
 */
@Internal
public final class QueueSplitEnumerator implements SplitEnumerator<QueueSplit, EnumeratorState> {
    private final SplitEnumeratorContext<QueueSplit> context;
    private final boolean bounded;
    private final long discoveryIntervalMillis;
    private final Set<SplitKey> known = new LinkedHashSet<>();
    private final Map<String, Deque<QueueSplit>> unassignedByHost = new LinkedHashMap<>();
    private final Map<String, String> locationOfHost = new HashMap<>();
    private final Map<String, Integer> roundRobinAtLocation = new HashMap<>();
    /** Bounded: the locations asked to list and not answered, with the reader asked; null before asking. */
    private Map<String, Integer> awaitingListing;
    private boolean listed;

    public QueueSplitEnumerator(SplitEnumeratorContext<QueueSplit> context, boolean bounded, long discoveryIntervalMillis,
            EnumeratorState restored) {
        this.context = context;
        this.bounded = bounded;
        this.discoveryIntervalMillis = discoveryIntervalMillis;
        if (restored != null) {
            known.addAll(restored.known());
            for (QueueSplit split : restored.unassigned()) {
                queueForAssignment(split);
            }
        }
    }

    @Override
    public void start() {
        if (bounded) {
            startBoundedListingWhenAllRegistered();
        } else {
            context.callAsync(() -> null, (ignored, error) -> {
                if (error != null) {
                    throw new FlinkRuntimeException("RockCask queue discovery failed", error);
                }
                askOneReaderPerLocation();
            }, 0, discoveryIntervalMillis);
        }
    }

    @Override
    public void addReader(int subtask) {
        boolean wasListed = listed;
        String location = locationOf(subtask);
        if (location != null) {
            // Splits waiting at its location came back from a failed reader: this one takes them
            // (before a listing that ends now tells every reader no more splits will come).
            assignWaitingSplitsAt(location, Collections.singletonList(subtask));
        }
        if (bounded && !listed) {
            if (awaitingListing == null) {
                startBoundedListingWhenAllRegistered();
            } else {
                askAgainIfTheAskedReaderFailed(subtask);
            }
        }
        if (!bounded) {
            // The periodic listing's first round ran before any reader had registered (the
            // enumerator starts before the tasks deploy): without this, a job would read nothing
            // for a whole discovery interval after each start.
            context.sendEventToSourceReader(subtask, new ListQueuesRequest());
        }
        if (bounded && wasListed) {
            context.signalNoMoreSplits(subtask);
        }
    }

    @Override
    public void handleSourceEvent(int subtask, SourceEvent event) {
        if (!(event instanceof QueuesListed)) {
            throw new IllegalArgumentException("RockCask source enumerator received an unexpected event from reader " + subtask + ": " + event);
        }
        String location = locationOf(subtask);
        if (location == null) {
            // The reader failed after answering; its location is asked again when one registers there.
            return;
        }
        QueuesListed listing = (QueuesListed) event;
        locationOfHost.put(listing.host(), location);
        for (String queue : listing.queues()) {
            if (known.add(new SplitKey(listing.host(), queue))) {
                queueForAssignment(QueueSplit.fresh(queue, listing.host()));
            }
        }
        assignWaitingSplitsAt(location, readersAt(location));
        if (bounded && awaitingListing != null && !listed) {
            awaitingListing.remove(location);
            if (awaitingListing.isEmpty()) {
                finishBoundedListing();
            }
        }
    }

    @Override
    public void addSplitsBack(List<QueueSplit> splits, int subtask) {
        for (QueueSplit split : splits) {
            queueForAssignment(split);
        }
        // Assigned again when a reader registers at the split's location.
    }

    @Override
    public void handleSplitRequest(int subtask, String requesterHostname) {
        // Readers never ask: splits are pushed as their queues are found.
    }

    @Override
    public EnumeratorState snapshotState(long checkpointId) {
        List<QueueSplit> unassigned = new ArrayList<>();
        unassignedByHost.values().forEach(unassigned::addAll);
        return new EnumeratorState(known, unassigned);
    }

    @Override
    public void close() {}

    private void startBoundedListingWhenAllRegistered() {
        if (context.registeredReaders().size() < context.currentParallelism()) {
            return;
        }
        awaitingListing = askOneReaderPerLocation();
    }

    private void askAgainIfTheAskedReaderFailed(int subtask) {
        String location = locationOf(subtask);
        Integer asked = location == null ? null : awaitingListing.get(location);
        if (asked != null && (asked == subtask || !context.registeredReaders().containsKey(asked))) {
            awaitingListing.put(location, subtask);
            context.sendEventToSourceReader(subtask, new ListQueuesRequest());
        }
        // A location left with no reader (its TaskManager lost, its readers now elsewhere) will
        // never answer: waiting for it would keep every reader waiting for the end of the listing.
        awaitingListing.keySet().removeIf(where -> readersAt(where).isEmpty());
        if (location != null && !awaitingListing.containsKey(location) && !locationOfHost.containsValue(location)) {
            awaitingListing.put(location, subtask);
            context.sendEventToSourceReader(subtask, new ListQueuesRequest());
        }
        if (awaitingListing.isEmpty()) {
            finishBoundedListing();
        }
    }

    /** Returns location -> the reader asked there. */
    private Map<String, Integer> askOneReaderPerLocation() {
        Map<String, Integer> asked = new HashMap<>();
        for (Map.Entry<Integer, ReaderInfo> reader : new TreeMap<>(context.registeredReaders()).entrySet()) {
            if (asked.putIfAbsent(reader.getValue().getLocation(), reader.getKey()) == null) {
                context.sendEventToSourceReader(reader.getKey(), new ListQueuesRequest());
            }
        }
        return asked;
    }

    private void finishBoundedListing() {
        listed = true;
        if (!unassignedByHost.isEmpty()) {
            throw new IllegalStateException("RockCask source has splits for queues on hosts where no reader runs (the queues live in those hosts' "
                    + "stores): " + unassignedByHost);
        }
        for (int subtask : context.registeredReaders().keySet()) {
            context.signalNoMoreSplits(subtask);
        }
    }

    private void queueForAssignment(QueueSplit split) {
        unassignedByHost.computeIfAbsent(split.host(), h -> new ArrayDeque<>()).add(split);
    }

    /** Hands the waiting splits of the hosts at {@code location} to {@code readers}, round robin. */
    private void assignWaitingSplitsAt(String location, List<Integer> readers) {
        if (readers.isEmpty()) {
            return;
        }
        Map<Integer, List<QueueSplit>> assignment = new HashMap<>();
        for (String host : new ArrayList<>(unassignedByHost.keySet())) {
            if (!location.equals(locationOfHost.get(host))) {
                continue;
            }
            for (QueueSplit split : unassignedByHost.remove(host)) {
                int turn = roundRobinAtLocation.merge(location, 1, Integer::sum) - 1;
                assignment.computeIfAbsent(readers.get(turn % readers.size()), r -> new ArrayList<>()).add(split);
            }
        }
        if (!assignment.isEmpty()) {
            context.assignSplits(new SplitsAssignment<>(assignment));
        }
    }

    private List<Integer> readersAt(String location) {
        Set<Integer> readers = new TreeSet<>();
        context.registeredReaders().forEach((subtask, info) -> {
            if (info.getLocation().equals(location)) {
                readers.add(subtask);
            }
        });
        return new ArrayList<>(readers);
    }

    private String locationOf(int subtask) {
        ReaderInfo info = context.registeredReaders().get(subtask);
        return info == null ? null : info.getLocation();
    }
}
