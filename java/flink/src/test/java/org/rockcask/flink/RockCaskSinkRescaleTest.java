package org.rockcask.flink;

import static org.junit.Assert.assertEquals;

import java.util.Collections;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.StateRecoveryOptions;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.core.execution.SavepointFormatType;
import org.apache.flink.runtime.testutils.MiniClusterResourceConfiguration;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.test.util.MiniClusterWithClientResource;
import org.junit.ClassRule;
import org.junit.Rule;
import org.junit.Test;
import org.junit.rules.TemporaryFolder;
import org.rockcask.Store;

/** A job restored at a lower parallelism drains the staging queues of the subtasks it no longer has. */
public class RockCaskSinkRescaleTest {
    private static final long RECORDS = 4000;
    private static final int FIRST_PARALLELISM = 4;
    private static final int SECOND_PARALLELISM = 2;

    @ClassRule
    public static final MiniClusterWithClientResource CLUSTER = new MiniClusterWithClientResource(
            new MiniClusterResourceConfiguration.Builder().setNumberTaskManagers(1).setNumberSlotsPerTaskManager(FIRST_PARALLELISM).build());

    @Rule
    public TemporaryFolder tmp = new TemporaryFolder();

    @Test
    public void aRestoreFromASavepointAtLowerParallelismLeavesNoStagingQueueAndLosesNothing() throws Exception {
        RockCaskStoreSpec spec = RockCaskStoreSpec.at(tmp.newFolder("cask").toString());
        try (RockCaskStores.Lease lease = RockCaskStores.acquire(spec)) {
            Store store = lease.store();
            // First run: slow, checkpointed only by one savepoint, then cancelled with records
            // staged after it in every subtask (those are the source's to send again).
            JobClient first = SinkJobs.numbersJob(new Configuration(), FIRST_PARALLELISM, spec, RECORDS, 400).executeAsync();
            String lineage = first.getJobID().toHexString();
            SinkJobs.awaitUntil(() -> SinkJobs.stagedSubtasks(store, lineage, 1).size() == FIRST_PARALLELISM, "every subtask staged records");
            String savepoint = first.triggerSavepoint(tmp.newFolder("savepoints").toString(), SavepointFormatType.CANONICAL).get();
            SinkJobs.awaitUntil(() -> SinkJobs.stagedSubtasks(store, lineage, 2).size() == FIRST_PARALLELISM, "every subtask staged records after the savepoint");
            first.cancel().get();
            SinkJobs.awaitUntil(() -> first.getJobStatus().get().isGloballyTerminalState(), "the first run ended");
            assertEquals("staged after the savepoint, before the cancel", FIRST_PARALLELISM, SinkJobs.stagedSubtasks(store, lineage, 2).size());

            Configuration restore = new Configuration();
            restore.set(StateRecoveryOptions.SAVEPOINT_PATH, savepoint);
            StreamExecutionEnvironment second = SinkJobs.numbersJob(restore, SECOND_PARALLELISM, spec, RECORDS, 4000);
            second.enableCheckpointing(150);
            second.execute();

            SinkJobs.assertExactlyOnceInSplitOrder(SinkJobs.peekAll(store, SinkJobs.TARGET), RECORDS, FIRST_PARALLELISM);
            assertEquals("staging queues left", Collections.emptyList(), SinkJobs.stagingQueues(store));
        }
    }
}
