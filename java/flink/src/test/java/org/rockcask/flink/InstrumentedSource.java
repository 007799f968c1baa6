package org.rockcask.flink;

import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.flink.api.connector.source.Boundedness;
import org.apache.flink.api.connector.source.ReaderOutput;
import org.apache.flink.api.connector.source.Source;
import org.apache.flink.api.connector.source.SourceEvent;
import org.apache.flink.api.connector.source.SourceReader;
import org.apache.flink.api.connector.source.SourceReaderContext;
import org.apache.flink.api.connector.source.SplitEnumerator;
import org.apache.flink.api.connector.source.SplitEnumeratorContext;
import org.apache.flink.core.io.InputStatus;
import org.apache.flink.core.io.SimpleVersionedSerializer;
import org.rockcask.flink.source.RockCaskSource;
import org.rockcask.flink.source.enumerator.EnumeratorState;
import org.rockcask.flink.source.reader.QueueSourceReader;
import org.rockcask.flink.source.split.QueueSplit;

/**
 * A {@link RockCaskSource} whose readers are counted (a count above the parallelism proves a
 * restart) and, when asked, fail once in {@code notifyCheckpointComplete} before committing: at
 * the first notification covering a checkpoint whose state holds claimed, uncommitted entries.
 * Static state: the MiniCluster runs in this JVM; {@link #reset} before each job.
 */
final class InstrumentedSource implements Source<String, QueueSplit, EnumeratorState> {
    private static final long serialVersionUID = 1L;
    static final AtomicInteger READERS_CREATED = new AtomicInteger();
    static final AtomicBoolean FAILED_BEFORE_COMMIT = new AtomicBoolean();

    private final RockCaskSource<String> source;
    private final boolean failOnceBeforeCommit;

    InstrumentedSource(RockCaskSource<String> source, boolean failOnceBeforeCommit) {
        this.source = source;
        this.failOnceBeforeCommit = failOnceBeforeCommit;
    }

    static void reset() {
        READERS_CREATED.set(0);
        FAILED_BEFORE_COMMIT.set(false);
    }

    @Override
    public Boundedness getBoundedness() {
        return source.getBoundedness();
    }

    @Override
    public SourceReader<String, QueueSplit> createReader(SourceReaderContext context) {
        READERS_CREATED.incrementAndGet();
        return new Reader((QueueSourceReader<String>) source.createReader(context), failOnceBeforeCommit);
    }

    @Override
    public SplitEnumerator<QueueSplit, EnumeratorState> createEnumerator(SplitEnumeratorContext<QueueSplit> context) {
        return source.createEnumerator(context);
    }

    @Override
    public SplitEnumerator<QueueSplit, EnumeratorState> restoreEnumerator(SplitEnumeratorContext<QueueSplit> context, EnumeratorState state) {
        return source.restoreEnumerator(context, state);
    }

    @Override
    public SimpleVersionedSerializer<QueueSplit> getSplitSerializer() {
        return source.getSplitSerializer();
    }

    @Override
    public SimpleVersionedSerializer<EnumeratorState> getEnumeratorCheckpointSerializer() {
        return source.getEnumeratorCheckpointSerializer();
    }

    private static final class Reader implements SourceReader<String, QueueSplit> {
        private final QueueSourceReader<String> reader;
        private final boolean failOnceBeforeCommit;
        private boolean claimedSinceSnapshot;
        private long firstCheckpointWithClaims = -1;

        Reader(QueueSourceReader<String> reader, boolean failOnceBeforeCommit) {
            this.reader = reader;
            this.failOnceBeforeCommit = failOnceBeforeCommit;
        }

        @Override
        public void start() {
            reader.start();
        }

        @Override
        public InputStatus pollNext(ReaderOutput<String> output) throws Exception {
            InputStatus status = reader.pollNext(output);
            claimedSinceSnapshot |= status == InputStatus.MORE_AVAILABLE;
            return status;
        }

        @Override
        public List<QueueSplit> snapshotState(long checkpointId) {
            if (claimedSinceSnapshot && firstCheckpointWithClaims < 0) {
                firstCheckpointWithClaims = checkpointId;
            }
            claimedSinceSnapshot = false;
            return reader.snapshotState(checkpointId);
        }

        @Override
        public void notifyCheckpointComplete(long checkpointId) throws Exception {
            if (failOnceBeforeCommit && firstCheckpointWithClaims >= 0 && checkpointId >= firstCheckpointWithClaims
                    && FAILED_BEFORE_COMMIT.compareAndSet(false, true)) {
                throw new IllegalStateException("injected failure: checkpoint " + checkpointId + " completed, its entries not committed yet");
            }
            reader.notifyCheckpointComplete(checkpointId);
        }

        @Override
        public CompletableFuture<Void> isAvailable() {
            return reader.isAvailable();
        }

        @Override
        public void addSplits(List<QueueSplit> splits) {
            reader.addSplits(splits);
        }

        @Override
        public void notifyNoMoreSplits() {
            reader.notifyNoMoreSplits();
        }

        @Override
        public void handleSourceEvents(SourceEvent event) {
            reader.handleSourceEvents(event);
        }

        @Override
        public void close() {
            reader.close();
        }
    }
}
