package org.rockcask.flink.source.reader;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import org.apache.flink.annotation.Internal;
import org.apache.flink.api.common.serialization.DeserializationSchema;
import org.apache.flink.api.connector.source.ReaderOutput;
import org.apache.flink.api.connector.source.SourceEvent;
import org.apache.flink.api.connector.source.SourceReader;
import org.apache.flink.api.connector.source.SourceReaderContext;
import org.apache.flink.core.io.InputStatus;
import org.apache.flink.metrics.Counter;
import org.apache.flink.metrics.MetricGroup;
import org.apache.flink.util.Collector;
import org.apache.flink.util.UserCodeClassLoader;
import org.rockcask.flink.RockCaskStoreSpec;
import org.rockcask.flink.RockCaskStores;
import org.rockcask.flink.internal.Hosts;
import org.rockcask.flink.source.enumerator.ListQueuesRequest;
import org.rockcask.flink.source.enumerator.QueuesListed;
import org.rockcask.flink.source.split.QueueSplit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Reads the queues of its splits, each through its own {@link QueueConsumer}, one batch of one
 * split per call, round robin. Entries are acknowledged (committed) only when the checkpoint
 * whose state covers them completes: exactly once, and in order per queue.
 *
 * <p>It implements {@link SourceReader} itself rather than extending Flink's
 * {@code SingleThreadMultiplexSourceReaderBase}, because an entry's claim and its record must cross
 * the checkpoint barrier together. A split's claims are held in a RockCask transaction that
 * {@link QueueConsumer#snapshot} parks at a checkpoint and {@link QueueConsumer#commitThrough}
 * commits, consuming the entries, when that checkpoint completes: so when {@link #snapshotState}
 * runs, every entry claimed so far must already have gone downstream. Here {@link #pollNext}
 * claims and emits in one call on the task's thread, and that holds. The base class polls on a fetcher thread into a
 * hand-over queue: entries claimed there and not yet emitted would be committed with a checkpoint
 * that does not hold their records (and be lost if the job then fails before the next one), and
 * each transaction would be used from two threads. Nor is there anything for a fetcher thread to
 * wait on: a poll is a call into the store open in this process that returns at once, full or
 * empty, and an idle reader waits on {@link PollWakeup}'s timer instead.
 */
@Internal
public final class QueueSourceReader<T> implements SourceReader<T, QueueSplit> {
    private static final Logger LOG = LoggerFactory.getLogger(QueueSourceReader.class);

    private final SourceReaderContext context;
    private final QueueSelector selector;
    private final DeserializationSchema<T> deserializer;
    private final ReadLimits limits;
    private final String host;
    private final RockCaskStores.Lease lease;
    private final Map<String, QueueConsumer> consumers = new LinkedHashMap<>();
    private final List<String> turns = new ArrayList<>();
    private final PollWakeup wakeup;
    private final Counter numRecordsIn;
    private final Counter numRecordsInErrors;
    private final CountingCollector collector = new CountingCollector();
    private int nextTurn;
    private boolean noMoreSplits;
    private boolean idle;
    /** Entries polled in transactions not committed yet, over every split. */
    private long uncommitted;
    /** At {@link ReadLimits#maxUncommittedEntries}: nothing is polled until a checkpoint commits. */
    private boolean waitingForCommit;

    public QueueSourceReader(SourceReaderContext context, RockCaskStoreSpec store, QueueSelector selector, DeserializationSchema<T> deserializer,
            ReadLimits limits) {
        this.context = context;
        this.selector = selector;
        this.deserializer = deserializer;
        this.limits = limits;
        this.host = Hosts.localHost();
        this.numRecordsIn = context.metricGroup().getIOMetricGroup().getNumRecordsInCounter();
        this.numRecordsInErrors = context.metricGroup().getNumRecordsInErrorsCounter();
        this.lease = RockCaskStores.acquire(store);
        this.wakeup = new PollWakeup("rockcask-source-wakeup-" + context.getIndexOfSubtask());
    }

    @Override
    public void start() {
        try {
            deserializer.open(new DeserializationSchema.InitializationContext() {
                @Override
                public MetricGroup getMetricGroup() {
                    return context.metricGroup().addGroup("deserializer");
                }

                @Override
                public UserCodeClassLoader getUserCodeClassLoader() {
                    return context.getUserCodeClassLoader();
                }
            });
        } catch (Exception e) {
            throw new IllegalStateException("cannot open the deserializer of the RockCask source (" + selector + ")", e);
        }
    }

    @Override
    public InputStatus pollNext(ReaderOutput<T> output) throws Exception {
        idle = false;
        long room = limits.maxUncommittedEntries - uncommitted;
        if (room <= 0) {
            if (!waitingForCommit) {
                LOG.warn("RockCask source reader {} holds {} entries polled and not committed, its maximum: it polls again once a checkpoint "
                        + "completes (without checkpointing, never)", context.getIndexOfSubtask(), uncommitted);
            }
            waitingForCommit = true;
            return InputStatus.NOTHING_AVAILABLE;
        }
        int max = (int) Math.min(limits.pollBatchSize, room);
        for (int tried = 0; tried < turns.size(); tried++) {
            QueueConsumer consumer = consumers.get(turns.get(nextTurn));
            nextTurn = (nextTurn + 1) % turns.size();
            int claimed = consumer.poll(max, payload -> emit(payload, output, consumer), numRecordsInErrors::inc);
            if (claimed > 0) {
                uncommitted += claimed;
                wakeup.dataSeen();
                return InputStatus.MORE_AVAILABLE;
            }
        }
        if (noMoreSplits) {
            // Every queue is empty. The claims still open are committed by the checkpoints to
            // come: Flink takes a final checkpoint of a finished source before ending its task.
            return InputStatus.END_OF_INPUT;
        }
        idle = true;
        return InputStatus.NOTHING_AVAILABLE;
    }

    private void emit(byte[] payload, ReaderOutput<T> output, QueueConsumer consumer) {
        collector.output = output;
        try {
            deserializer.deserialize(payload, collector);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot deserialize an entry of RockCask queue " + consumer.queue(), e);
        }
    }

    /** Forwards deserialized records to the output, counting them as read. */
    private final class CountingCollector implements Collector<T> {
        ReaderOutput<T> output;

        @Override
        public void collect(T record) {
            output.collect(record);
            numRecordsIn.inc();
        }

        @Override
        public void close() {}
    }

    @Override
    public List<QueueSplit> snapshotState(long checkpointId) {
        List<QueueSplit> state = new ArrayList<>();
        for (QueueConsumer consumer : consumers.values()) {
            state.add(consumer.snapshot(checkpointId));
        }
        return state;
    }

    @Override
    public void notifyCheckpointComplete(long checkpointId) {
        for (QueueConsumer consumer : consumers.values()) {
            uncommitted -= consumer.commitThrough(checkpointId);
        }
        if (waitingForCommit && uncommitted < limits.maxUncommittedEntries) {
            waitingForCommit = false;
            wakeup.wakeNow();
        }
    }

    @Override
    public CompletableFuture<Void> isAvailable() {
        if (waitingForCommit) {
            return wakeup.untilWoken();
        }
        if (!idle) {
            return CompletableFuture.completedFuture(null);
        }
        return consumers.isEmpty() ? wakeup.untilWoken() : wakeup.afterIdleDelay();
    }

    @Override
    public void addSplits(List<QueueSplit> splits) {
        for (QueueSplit split : splits) {
            if (!split.host().equals(host)) {
                throw new IllegalStateException("RockCask queue " + split.queue() + " lives in the store on host " + split.host()
                        + ", but this reader (subtask " + context.getIndexOfSubtask() + ") runs on host " + host);
            }
            if (consumers.containsKey(split.splitId())) {
                throw new IllegalStateException("RockCask source reader " + context.getIndexOfSubtask() + " was given queue " + split.queue()
                        + " twice");
            }
            consumers.put(split.splitId(), new QueueConsumer(lease.store(), split));
            turns.add(split.splitId());
        }
        wakeup.wakeNow();
    }

    @Override
    public void notifyNoMoreSplits() {
        noMoreSplits = true;
        wakeup.wakeNow();
    }

    @Override
    public void handleSourceEvents(SourceEvent event) {
        if (!(event instanceof ListQueuesRequest)) {
            throw new IllegalArgumentException("RockCask source reader received an unexpected event: " + event);
        }
        context.sendSourceEventToCoordinator(new QueuesListed(host, selector.list(lease.store())));
    }

    /** Rolls back every uncommitted claim (they return to the heads of their queues), then lets go of the store. */
    @Override
    public void close() {
        try {
            for (QueueConsumer consumer : consumers.values()) {
                consumer.close();
            }
            consumers.clear();
        } finally {
            wakeup.close();
            lease.close();
        }
    }
}
