package org.rockcask.flink;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertTrue;

import java.util.Collections;
import java.util.List;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.StateRecoveryOptions;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.core.execution.SavepointFormatType;
import org.apache.flink.runtime.testutils.MiniClusterResourceConfiguration;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.test.util.MiniClusterWithClientResource;
import org.junit.After;
import org.junit.Before;
import org.junit.ClassRule;
import org.junit.Rule;
import org.junit.Test;
import org.junit.rules.TemporaryFolder;
import org.rockcask.Store;

/**
 * A job run again at a lower parallelism drains the staging queues of the subtasks it no longer
 * has: restored from a savepoint (the lineage comes with the writer state), or scaled in place
 * by the adaptive scheduler before its first checkpoint (the job and its sink, hence the lineage, stay).
 */
public class RockCaskSinkRescaleTest {
    private static final long RECORDS = 3000;
    private static final int FIRST_PARALLELISM = 4;
    private static final int SECOND_PARALLELISM = 2;

    @ClassRule
    public static final MiniClusterWithClientResource CLUSTER = new MiniClusterWithClientResource(
            new MiniClusterResourceConfiguration.Builder().setConfiguration(AdaptiveScaling.clusterConfiguration()).setNumberTaskManagers(1)
                    .setNumberSlotsPerTaskManager(FIRST_PARALLELISM).build());

    @Rule
    public TemporaryFolder tmp = new TemporaryFolder();

    private RockCaskStoreSpec spec;
    private RockCaskStores.Lease lease;
    private Store store;

    @Before
    public void openStore() throws Exception {
        spec = RockCaskStoreSpec.at(tmp.newFolder("cask").toString());
        lease = RockCaskStores.acquire(spec);
        store = lease.store();
    }

    @After
    public void closeStore() {
        lease.close();
    }

    @Test
    public void aRestoreFromASavepointAtLowerParallelismLeavesNoStagingQueueAndLosesNothing() throws Exception {
        // First run: slow, checkpointed only by one savepoint, then cancelled with records
        // staged after it in every subtask (those are the source's to send again).
        JobClient first = SinkJobs.startStaging(new Configuration(), FIRST_PARALLELISM, spec, store, RECORDS, 300);
        String savepoint = first.triggerSavepoint(tmp.newFolder("savepoints").toString(), SavepointFormatType.CANONICAL).get();
        SinkJobs.awaitUntil(() -> SinkJobs.stagedSubtasks(store, 2).size() == FIRST_PARALLELISM,
                "every subtask staged records after the savepoint");
        first.cancel().get();
        SinkJobs.awaitUntil(() -> first.getJobStatus().get().isGloballyTerminalState(), "the first run ended");
        assertEquals("staged after the savepoint, before the cancel", FIRST_PARALLELISM, SinkJobs.stagedSubtasks(store, 2).size());

        Configuration restore = new Configuration();
        restore.set(StateRecoveryOptions.SAVEPOINT_PATH, savepoint);
        StreamExecutionEnvironment second = SinkJobs.numbersJob(restore, SECOND_PARALLELISM, spec, RECORDS, 4000);
        second.enableCheckpointing(150);
        second.execute();

        SinkJobs.assertExactlyOnceInSplitOrder(SinkJobs.peekAll(store, SinkJobs.TARGET), RECORDS, FIRST_PARALLELISM);
        assertEquals("staging queues left", Collections.emptyList(), SinkJobs.stagingQueues(store));
    }

    @Test
    public void aScaleInBeforeTheFirstCheckpointLeavesNoStagingQueueAndLosesNothing() throws Exception {
        // No checkpointing: the sink commits at the end of input, so nothing reaches the
        // target before the rescale, and the restart begins again from the first record.
        JobClient job = SinkJobs.startStaging(new Configuration(), FIRST_PARALLELISM, spec, store, RECORDS, 600);
        AdaptiveScaling.lowerParallelism(CLUSTER.getMiniCluster(), job.getJobID(), SECOND_PARALLELISM);
        job.getJobExecutionResult().get();

        List<String> target = SinkJobs.peekAll(store, SinkJobs.TARGET);
        SinkJobs.assertExactlyOnceInSubtaskOrder(target, RECORDS);
        for (String record : target) {
            int subtask = Integer.parseInt(record.substring(0, record.indexOf(':')));
            assertTrue("written by a subtask of the first run: " + record, subtask < SECOND_PARALLELISM);
        }
        assertEquals("staging queues left", Collections.emptyList(), SinkJobs.stagingQueues(store));
    }
}
