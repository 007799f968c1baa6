package org.rockcask.flink;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertTrue;

import java.util.Collections;
import java.util.List;
import org.apache.flink.api.common.JobID;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.JobManagerOptions;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.runtime.executiongraph.AccessExecutionJobVertex;
import org.apache.flink.runtime.jobgraph.JobResourceRequirements;
import org.apache.flink.runtime.minicluster.MiniCluster;
import org.apache.flink.runtime.testutils.MiniClusterResourceConfiguration;
import org.apache.flink.test.util.MiniClusterWithClientResource;
import org.junit.ClassRule;
import org.junit.Rule;
import org.junit.Test;
import org.junit.rules.TemporaryFolder;
import org.rockcask.Store;

/**
 * A job the adaptive scheduler scales in before its first checkpoint keeps its job id, hence its
 * lineage: the restarted subtask 0 drains what the subtasks gone had staged.
 */
public class RockCaskSinkInPlaceRescaleTest {
    private static final long RECORDS = 3000;
    private static final int FIRST_PARALLELISM = 4;
    private static final int SECOND_PARALLELISM = 2;

    @ClassRule
    public static final MiniClusterWithClientResource CLUSTER = new MiniClusterWithClientResource(
            new MiniClusterResourceConfiguration.Builder().setConfiguration(adaptiveScheduler()).setNumberTaskManagers(1)
                    .setNumberSlotsPerTaskManager(FIRST_PARALLELISM).build());

    @Rule
    public TemporaryFolder tmp = new TemporaryFolder();

    private static Configuration adaptiveScheduler() {
        Configuration conf = new Configuration();
        conf.set(JobManagerOptions.SCHEDULER, JobManagerOptions.SchedulerType.Adaptive);
        conf.set(JobManagerOptions.SCHEDULER_EXECUTING_COOLDOWN_AFTER_RESCALING, java.time.Duration.ZERO);
        conf.set(JobManagerOptions.SCHEDULER_EXECUTING_RESOURCE_STABILIZATION_TIMEOUT, java.time.Duration.ZERO);
        return conf;
    }

    @Test
    public void aScaleInBeforeTheFirstCheckpointLeavesNoStagingQueueAndLosesNothing() throws Exception {
        RockCaskStoreSpec spec = RockCaskStoreSpec.at(tmp.newFolder("cask").toString());
        try (RockCaskStores.Lease lease = RockCaskStores.acquire(spec)) {
            Store store = lease.store();
            // No checkpointing: the sink commits at the end of input, so nothing reaches the
            // target before the rescale, and the restart begins again from the first record.
            JobClient job = SinkJobs.numbersJob(new Configuration(), FIRST_PARALLELISM, spec, RECORDS, 600).executeAsync();
            String lineage = job.getJobID().toHexString();
            SinkJobs.awaitUntil(() -> SinkJobs.stagedSubtasks(store, lineage, 1).size() == FIRST_PARALLELISM, "every subtask staged records");
            lowerParallelism(CLUSTER.getMiniCluster(), job.getJobID(), SECOND_PARALLELISM);
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

    private static void lowerParallelism(MiniCluster cluster, JobID job, int parallelism) throws Exception {
        JobResourceRequirements.Builder requirements = JobResourceRequirements.newBuilder();
        for (AccessExecutionJobVertex vertex : cluster.getExecutionGraph(job).get().getVerticesTopologically()) {
            requirements.setParallelismForJobVertex(vertex.getJobVertexId(), 1, parallelism);
        }
        cluster.updateJobResourceRequirements(job, requirements.build()).get();
    }
}
