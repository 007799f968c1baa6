package org.rockcask.flink;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertTrue;

import java.util.Collection;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.api.common.functions.RichMapFunction;
import org.apache.flink.api.common.state.CheckpointListener;
import org.apache.flink.runtime.state.FunctionInitializationContext;
import org.apache.flink.runtime.state.FunctionSnapshotContext;
import org.apache.flink.streaming.api.checkpoint.CheckpointedFunction;
import org.apache.flink.api.connector.sink2.Committer;
import org.apache.flink.api.connector.sink2.CommitterInitContext;
import org.apache.flink.api.connector.sink2.Sink;
import org.apache.flink.api.connector.sink2.StatefulSinkWriter;
import org.apache.flink.api.connector.sink2.SupportsCommitter;
import org.apache.flink.api.connector.sink2.SupportsWriterState;
import org.apache.flink.api.connector.sink2.WriterInitContext;
import org.apache.flink.core.io.SimpleVersionedSerializer;
import org.apache.flink.runtime.testutils.MiniClusterResourceConfiguration;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.test.util.MiniClusterWithClientResource;
import org.junit.Before;
import org.junit.ClassRule;
import org.junit.Rule;
import org.junit.Test;
import org.junit.rules.TemporaryFolder;
import org.rockcask.flink.sink.RockCaskCommittable;
import org.rockcask.flink.sink.RockCaskCommitter;

/** Exactly once through failures between a checkpoint and its commit, and after it. */
public class RockCaskSinkFailoverTest {
    private static final int PARALLELISM = 2;
    private static final long RECORDS = 3000;

    @ClassRule
    public static final MiniClusterWithClientResource CLUSTER = new MiniClusterWithClientResource(
            new MiniClusterResourceConfiguration.Builder().setNumberTaskManagers(1).setNumberSlotsPerTaskManager(4).build());

    @Rule
    public TemporaryFolder tmp = new TemporaryFolder();

    // Shared with the job's operators, which run in this JVM; each fault fires once per test.
    static final AtomicBoolean FAULT_FIRED = new AtomicBoolean();
    static final AtomicInteger COMMITS = new AtomicInteger();

    @Before
    public void resetFaults() {
        FAULT_FIRED.set(false);
        COMMITS.set(0);
    }

    @Test
    public void aFailureAfterACheckpointDrainsWhatWasStagedSinceAndDeliversEveryRecordOnce() throws Exception {
        RockCaskStoreSpec spec = RockCaskStoreSpec.at(tmp.newFolder("cask").toString());
        run(spec, stream -> stream.map(new FailOnceAfterCheckpoint(2, 50)), SinkJobs.sink(spec));
        assertTrue("the mapper never failed", FAULT_FIRED.get());
        assertTarget(spec);
    }

    @Test
    public void aCommitFailingBeforeItMovesAnythingIsRedoneFromTheRestoredCheckpoint() throws Exception {
        RockCaskStoreSpec spec = RockCaskStoreSpec.at(tmp.newFolder("cask").toString());
        run(spec, stream -> stream, new FailingCommitSink(SinkJobs.sink(spec), false));
        assertTrue("the committer never failed", FAULT_FIRED.get());
        assertTarget(spec);
    }

    @Test
    public void aCommitFailingAfterItMovedTheRecordsIsNotRepeatedAfterTheRestore() throws Exception {
        RockCaskStoreSpec spec = RockCaskStoreSpec.at(tmp.newFolder("cask").toString());
        run(spec, stream -> stream, new FailingCommitSink(SinkJobs.sink(spec), true));
        assertTrue("the committer never failed", FAULT_FIRED.get());
        assertTarget(spec);
    }

    private interface Middle {
        DataStream<String> apply(DataStream<String> stream);
    }

    private static void run(RockCaskStoreSpec spec, Middle middle, Sink<String> sink) throws Exception {
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment(SinkJobs.restartingConfiguration());
        env.setParallelism(PARALLELISM);
        env.enableCheckpointing(150);
        DataStream<String> numbers = env.fromSource(SinkJobs.taggedNumbers(RECORDS, 1500), WatermarkStrategy.noWatermarks(), "numbers");
        middle.apply(numbers).sinkTo(sink);
        env.execute();
    }

    private static void assertTarget(RockCaskStoreSpec spec) {
        try (RockCaskStores.Lease lease = RockCaskStores.acquire(spec)) {
            SinkJobs.assertExactlyOnceInSubtaskOrder(SinkJobs.peekAll(lease.store(), SinkJobs.TARGET), RECORDS);
            assertEquals("staging queues left", java.util.Collections.emptyList(), SinkJobs.stagingQueues(lease.store()));
        }
    }

    /**
     * Throws once, after checkpoint {@code checkpoint} completed, when {@code afterRecords} records
     * passed since the last checkpoint barrier: the chained writer staged them for a checkpoint
     * that never completes.
     */
    static final class FailOnceAfterCheckpoint extends RichMapFunction<String, String> implements CheckpointListener, CheckpointedFunction {
        private static final long serialVersionUID = 1L;
        private final long checkpoint;
        private final int afterRecords;
        private boolean armed;
        private int sinceBarrier;

        FailOnceAfterCheckpoint(long checkpoint, int afterRecords) {
            this.checkpoint = checkpoint;
            this.afterRecords = afterRecords;
        }

        @Override
        public String map(String value) {
            if (armed && ++sinceBarrier > afterRecords && FAULT_FIRED.compareAndSet(false, true)) {
                throw new IllegalStateException("injected failure " + afterRecords + " records after a barrier past checkpoint " + checkpoint);
            }
            return value;
        }

        @Override
        public void snapshotState(FunctionSnapshotContext context) {
            sinceBarrier = 0;
        }

        @Override
        public void initializeState(FunctionInitializationContext context) {
            // Stateless: only the barriers matter.
        }

        @Override
        public void notifyCheckpointComplete(long checkpointId) {
            armed |= checkpointId >= checkpoint;
        }
    }

    /**
     * The RockCask sink whose committer fails once, at its third commit call with work: before
     * committing anything, or after committing everything (Flink then believes it failed).
     */
    static final class FailingCommitSink
            implements Sink<String>, SupportsCommitter<RockCaskCommittable>, SupportsWriterState<String, String> {
        private static final long serialVersionUID = 1L;
        private final RockCaskSink<String> sink;
        private final boolean afterCommitting;

        FailingCommitSink(RockCaskSink<String> sink, boolean afterCommitting) {
            this.sink = sink;
            this.afterCommitting = afterCommitting;
        }

        @Override
        public StatefulSinkWriter<String, String> createWriter(WriterInitContext context) throws java.io.IOException {
            return sink.createWriter(context);
        }

        @Override
        public StatefulSinkWriter<String, String> restoreWriter(WriterInitContext context, Collection<String> state) throws java.io.IOException {
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
            RockCaskCommitter committer = sink.createCommitter(context);
            return new Committer<RockCaskCommittable>() {
                @Override
                public void commit(Collection<CommitRequest<RockCaskCommittable>> requests) throws java.io.IOException, InterruptedException {
                    boolean fail = !requests.isEmpty() && COMMITS.incrementAndGet() >= 3 && FAULT_FIRED.compareAndSet(false, true);
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
}
