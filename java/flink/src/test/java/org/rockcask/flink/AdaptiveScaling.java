package org.rockcask.flink;

import java.time.Duration;
import org.apache.flink.api.common.JobID;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.JobManagerOptions;
import org.apache.flink.runtime.executiongraph.AccessExecutionJobVertex;
import org.apache.flink.runtime.jobgraph.JobResourceRequirements;
import org.apache.flink.runtime.minicluster.MiniCluster;

/** A MiniCluster whose adaptive scheduler rescales a running job in place (same job id) as soon as asked. */
final class AdaptiveScaling {
    private AdaptiveScaling() {}

    static Configuration clusterConfiguration() {
        Configuration conf = new Configuration();
        conf.set(JobManagerOptions.SCHEDULER, JobManagerOptions.SchedulerType.Adaptive);
        conf.set(JobManagerOptions.SCHEDULER_EXECUTING_COOLDOWN_AFTER_RESCALING, Duration.ZERO);
        conf.set(JobManagerOptions.SCHEDULER_EXECUTING_RESOURCE_STABILIZATION_TIMEOUT, Duration.ZERO);
        // With checkpointing on, the scheduler otherwise waits for a checkpoint to complete (or
        // for a multiple of the interval) before it rescales: a job is rescaled before its first.
        conf.set(JobManagerOptions.SCHEDULER_RESCALE_TRIGGER_MAX_DELAY, Duration.ZERO);
        return conf;
    }

    /** Asks the scheduler to run every vertex of {@code job} at {@code parallelism}. */
    static void lowerParallelism(MiniCluster cluster, JobID job, int parallelism) throws Exception {
        JobResourceRequirements.Builder requirements = JobResourceRequirements.newBuilder();
        for (AccessExecutionJobVertex vertex : cluster.getExecutionGraph(job).get().getVerticesTopologically()) {
            requirements.setParallelismForJobVertex(vertex.getJobVertexId(), 1, parallelism);
        }
        cluster.updateJobResourceRequirements(job, requirements.build()).get();
    }
}
