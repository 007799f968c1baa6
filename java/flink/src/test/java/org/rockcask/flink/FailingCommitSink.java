package org.rockcask.flink;

import java.io.IOException;
import java.util.Collection;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.flink.api.connector.sink2.Committer;
import org.apache.flink.api.connector.sink2.CommitterInitContext;
import org.apache.flink.api.connector.sink2.Sink;
import org.apache.flink.api.connector.sink2.StatefulSinkWriter;
import org.apache.flink.api.connector.sink2.SupportsCommitter;
import org.apache.flink.api.connector.sink2.SupportsWriterState;
import org.apache.flink.api.connector.sink2.WriterInitContext;
import org.apache.flink.core.io.SimpleVersionedSerializer;
import org.rockcask.flink.sink.RockCaskSink;
import org.rockcask.flink.sink.internal.RockCaskCommittable;
import org.rockcask.flink.sink.internal.RockCaskCommitter;

/**
 * The RockCask sink whose committer fails once, at its third commit call with work (a checkpoint
 * completed, its commit not done): before committing anything, or after committing everything
 * (Flink then believes it failed). Static state, as the MiniCluster runs in this JVM:
 * {@link #reset} before each job.
 */
final class FailingCommitSink implements Sink<String>, SupportsCommitter<RockCaskCommittable>, SupportsWriterState<String, String> {
    private static final long serialVersionUID = 1L;
    private static final int FAILING_COMMIT = 3;
    static final AtomicBoolean FAILED = new AtomicBoolean();
    static final AtomicInteger COMMITS = new AtomicInteger();

    private final RockCaskSink<String> sink;
    private final boolean afterCommitting;

    FailingCommitSink(RockCaskSink<String> sink, boolean afterCommitting) {
        this.sink = sink;
        this.afterCommitting = afterCommitting;
    }

    static void reset() {
        FAILED.set(false);
        COMMITS.set(0);
    }

    @Override
    public StatefulSinkWriter<String, String> createWriter(WriterInitContext context) throws IOException {
        return sink.createWriter(context);
    }

    @Override
    public StatefulSinkWriter<String, String> restoreWriter(WriterInitContext context, Collection<String> state) throws IOException {
        return sink.restoreWriter(context, state);
    }

    @Override
    public SimpleVersionedSerializer<String> getWriterStateSerializer() {
        return sink.getWriterStateSerializer();
    }

    @Override
    public SimpleVersionedSerializer<RockCaskCommittable> getCommittableSerializer() {
        return sink.getCommittableSerializer();
    }

    @Override
    public Committer<RockCaskCommittable> createCommitter(CommitterInitContext context) {
        RockCaskCommitter committer = (RockCaskCommitter) sink.createCommitter(context);
        return new Committer<RockCaskCommittable>() {
            @Override
            public void commit(Collection<CommitRequest<RockCaskCommittable>> requests) throws IOException, InterruptedException {
                boolean fail = !requests.isEmpty() && COMMITS.incrementAndGet() >= FAILING_COMMIT && FAILED.compareAndSet(false, true);
                if (fail && !afterCommitting) {
                    throw new IllegalStateException("injected failure before committing " + requests.size() + " staging queues");
                }
                committer.commit(requests);
                if (fail) {
                    throw new IllegalStateException("injected failure after committing " + requests.size() + " staging queues");
                }
            }

            @Override
            public void close() {
                committer.close();
            }
        };
    }
}
