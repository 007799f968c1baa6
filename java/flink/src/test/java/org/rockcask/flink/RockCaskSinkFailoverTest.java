package org.rockcask.flink;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertTrue;

import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.api.connector.sink2.Sink;
import org.apache.flink.runtime.testutils.MiniClusterResourceConfiguration;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.test.util.MiniClusterWithClientResource;
import org.junit.Before;
import org.junit.ClassRule;
import org.junit.Rule;
import org.junit.Test;
import org.junit.rules.TemporaryFolder;

/** Exactly once through failures between a checkpoint and its commit, and after it. */
public class RockCaskSinkFailoverTest {
    private static final int PARALLELISM = 2;
    private static final long RECORDS = 3000;

    @ClassRule
    public static final MiniClusterWithClientResource CLUSTER = new MiniClusterWithClientResource(
            new MiniClusterResourceConfiguration.Builder().setNumberTaskManagers(1).setNumberSlotsPerTaskManager(4).build());

    @Rule
    public TemporaryFolder tmp = new TemporaryFolder();

    @Before
    public void resetFaults() {
        FailOnceAfterCheckpoint.reset();
        FailingCommitSink.reset();
    }

    @Test
    public void aFailureAfterACheckpointDrainsWhatWasStagedSinceAndDeliversEveryRecordOnce() throws Exception {
        RockCaskStoreSpec spec = RockCaskStoreSpec.at(tmp.newFolder("cask").toString());
        run(spec, stream -> stream.map(new FailOnceAfterCheckpoint(2, 50)), SinkJobs.sink(spec));
        assertTrue("the mapper never failed", FailOnceAfterCheckpoint.FAILED.get());
        assertTarget(spec);
    }

    @Test
    public void aCommitFailingBeforeItMovesAnythingIsRedoneFromTheRestoredCheckpoint() throws Exception {
        RockCaskStoreSpec spec = RockCaskStoreSpec.at(tmp.newFolder("cask").toString());
        run(spec, stream -> stream, new FailingCommitSink(SinkJobs.sink(spec), false));
        assertTrue("the committer never failed", FailingCommitSink.FAILED.get());
        assertTarget(spec);
    }

    @Test
    public void aCommitFailingAfterItMovedTheRecordsIsNotRepeatedAfterTheRestore() throws Exception {
        RockCaskStoreSpec spec = RockCaskStoreSpec.at(tmp.newFolder("cask").toString());
        run(spec, stream -> stream, new FailingCommitSink(SinkJobs.sink(spec), true));
        assertTrue("the committer never failed", FailingCommitSink.FAILED.get());
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
}
