package org.rockcask.flink;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertTrue;

import java.time.Duration;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.flink.api.common.JobStatus;
import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.api.common.functions.MapFunction;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.api.connector.sink2.Sink;
import org.apache.flink.core.execution.CheckpointingMode;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.core.execution.SavepointFormatType;
import org.apache.flink.runtime.minicluster.MiniCluster;
import org.apache.flink.runtime.testutils.MiniClusterResourceConfiguration;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.streaming.util.TestStreamEnvironment;
import org.apache.flink.test.util.MiniClusterWithClientResource;
import org.junit.ClassRule;
import org.junit.Rule;
import org.junit.Test;
import org.junit.rules.Timeout;
import org.rockcask.flink.sink.RockCaskSink;

/**
 * RockCask queues through a Flink job into a RockCask queue: four source queues under a prefix
 * -> map -> one target queue, parallelism 2, through one fault per test. Each ends with every
 * entry in the target exactly once and in its source queue's order, the source queues empty and
 * no staging queue left.
 */
public class RockCaskEndToEndTest {
    private static final String PREFIX = "in.";
    private static final int QUEUES = 4;
    /** The source queues are filled in rounds, each delivered before the next: every fault finds data before and after it. */
    private static final int ROUNDS = 5;
    private static final int ENTRIES_PER_ROUND = 1000;
    private static final int PARALLELISM = 2;
    private static final long CHECKPOINT_INTERVAL_MS = 100;
    /** Faults come once this checkpoint completed, this many records past a barrier: mid-stream, with records in flight. */
    private static final long FAULT_AFTER_CHECKPOINT = 2;
    private static final int FAULT_AFTER_RECORDS = 50;

    /** One TaskManager: the one killed surely runs the subtask held mid-stream. */
    @ClassRule
    public static final MiniClusterWithClientResource CLUSTER = new MiniClusterWithClientResource(
            new MiniClusterResourceConfiguration.Builder().setNumberTaskManagers(1).setNumberSlotsPerTaskManager(PARALLELISM).build());

    @ClassRule
    public static final MiniClusterWithClientResource SCALING_CLUSTER = new MiniClusterWithClientResource(
            new MiniClusterResourceConfiguration.Builder().setConfiguration(AdaptiveScaling.clusterConfiguration()).setNumberTaskManagers(1)
                    .setNumberSlotsPerTaskManager(PARALLELISM).build());

    @Rule
    public final QueueFixture queues = new QueueFixture();

    @Rule
    public final Timeout timeout = new Timeout(120, TimeUnit.SECONDS);

    @Test
    public void aMapperFailingAfterACheckpointLosesRepeatsAndReordersNothing() throws Exception {
        runInRounds(env(CLUSTER, CHECKPOINT_INTERVAL_MS), continuousSource(false), failingMapper(), sink());
        assertTrue("the mapper never failed", FailOnceAfterCheckpoint.FAILED.get());
    }

    @Test
    public void aTaskManagerKilledMidStreamLosesRepeatsAndReordersNothing() throws Exception {
        HoldAfterCheckpoint.reset();
        appendRound();
        JobClient job = start(env(CLUSTER, CHECKPOINT_INTERVAL_MS), continuousSource(false),
                new HoldAfterCheckpoint(FAULT_AFTER_CHECKPOINT, FAULT_AFTER_RECORDS), sink());
        try {
            try {
                assertTrue("no checkpoint completed", HoldAfterCheckpoint.ARMED.await(60, TimeUnit.SECONDS));
                // Enough to pass a barrier by far: a subtask reading it is then held mid-stream.
                for (int round = 1; round < ROUNDS; round++) {
                    appendRound();
                }
                assertTrue("no subtask was held mid-stream", HoldAfterCheckpoint.HELD.await(60, TimeUnit.SECONDS));
                MiniCluster cluster = CLUSTER.getMiniCluster();
                cluster.terminateTaskManager(0).get();
                cluster.startTaskManager();
            } finally {
                HoldAfterCheckpoint.RELEASED.countDown();
            }
            finish(job);
        } finally {
            cancelIfRunning(job);
        }
        assertDeliveredExactlyOnceAndCleanedUp();
    }

    @Test
    public void aCommitFailingBetweenTheCheckpointAndItsCommitLosesRepeatsAndReordersNothing() throws Exception {
        runInRounds(env(CLUSTER, CHECKPOINT_INTERVAL_MS), continuousSource(false), passThrough(), new FailingCommitSink(sink(), false));
        assertTrue("the committer never failed", FailingCommitSink.FAILED.get());
    }

    @Test
    public void aSourceReaderFailingBeforeItCommitsLosesRepeatsAndReordersNothing() throws Exception {
        runInRounds(env(CLUSTER, CHECKPOINT_INTERVAL_MS), continuousSource(true), passThrough(), sink());
        assertTrue("the reader never failed", InstrumentedSource.FAILED_BEFORE_COMMIT.get());
    }

    @Test
    public void concurrentCheckpointsThroughAMapperFailureLoseRepeatAndReorderNothing() throws Exception {
        StreamExecutionEnvironment env = env(CLUSTER, 10);
        env.getCheckpointConfig().setMaxConcurrentCheckpoints(4);
        runInRounds(env, continuousSource(false), failingMapper(), sink());
        assertTrue("the mapper never failed", FailOnceAfterCheckpoint.FAILED.get());
    }

    @Test
    public void aScaleInBeforeTheFirstCheckpointLosesRepeatsAndReordersNothing() throws Exception {
        for (int round = 0; round < ROUNDS; round++) {
            appendRound();
        }
        // No periodic checkpoint (its first would come after a day): the test takes them, once
        // the job is scaled in, until the bounded job has read every queue and ends.
        long day = Duration.ofDays(1).toMillis();
        StreamExecutionEnvironment env = env(SCALING_CLUSTER, day);
        env.getCheckpointConfig().setMinPauseBetweenCheckpoints(day);
        JobClient job = start(env, new InstrumentedSource(queues.source().queuePrefix(PREFIX).bounded().build(), false), passThrough(), sink());
        try {
            SinkJobs.awaitUntil(() -> SinkJobs.stagedSubtasks(queues.store(), 1).size() == PARALLELISM, "every sink subtask staged records");
            MiniCluster cluster = SCALING_CLUSTER.getMiniCluster();
            assertEquals("checkpoints completed before the scale-in", 0,
                    cluster.getExecutionGraph(job.getJobID()).get().getCheckpointStatsSnapshot().getCounts().getNumberOfCompletedCheckpoints());
            AdaptiveScaling.lowerParallelism(cluster, job.getJobID(), 1);
            checkpointUntilEnded(cluster, job);
            job.getJobExecutionResult().get();
            assertEquals(JobStatus.FINISHED, job.getJobStatus().get());
        } finally {
            cancelIfRunning(job);
        }
        assertDeliveredExactlyOnceAndCleanedUp();
    }

    /**
     * Two pipelines of one job, each with its own source queues and sink, write the same target:
     * one pipeline's mapper fails (a restart of its tasks alone), and the other's staged records
     * must survive the restarted writers, which drain what their own sink staged after the
     * checkpoint.
     */
    @Test
    public void twoSinksWritingOneTargetThroughAFailureInOnePipelineLoseRepeatAndReorderNothing() throws Exception {
        StreamExecutionEnvironment env = env(CLUSTER, CHECKPOINT_INTERVAL_MS);
        pipeline(env, "first", new InstrumentedSource(queues.source().queues(PREFIX + 0, PREFIX + 1).continuous().build(), false), failingMapper());
        pipeline(env, "second", new InstrumentedSource(queues.source().queues(PREFIX + 2, PREFIX + 3).continuous().build(), false), passThrough());
        runInRounds(() -> env.executeAsync("two sinks, one target"));
        assertTrue("the mapper never failed", FailOnceAfterCheckpoint.FAILED.get());
    }

    private void pipeline(StreamExecutionEnvironment env, String name, InstrumentedSource source, MapFunction<String, String> mapper) {
        env.fromSource(source, WatermarkStrategy.noWatermarks(), name + "-queues", Types.STRING).uid(name + "-queues")
                .map(mapper).returns(Types.STRING).uid(name + "-map")
                .sinkTo(sink()).uid(name + "-target");
    }

    /**
     * Runs a continuous job while the source queues are filled round by round (each round in the
     * target before the next is appended), then finishes it and checks the result.
     */
    private void runInRounds(StreamExecutionEnvironment env, InstrumentedSource source, MapFunction<String, String> mapper, Sink<String> sink)
            throws Exception {
        runInRounds(() -> start(env, source, mapper, sink));
    }

    /** {@link #runInRounds} of the job {@code submit} starts (once the first round is in the source queues). */
    private void runInRounds(Callable<JobClient> submit) throws Exception {
        appendRound();
        JobClient job = submit.call();
        try {
            for (int round = 1; round < ROUNDS; round++) {
                awaitInTarget();
                appendRound();
            }
            finish(job);
        } finally {
            cancelIfRunning(job);
        }
        assertDeliveredExactlyOnceAndCleanedUp();
    }

    /** Waits until everything written is in the target and the source queues are empty, then stops the job with a savepoint. */
    private void finish(JobClient job) throws Exception {
        awaitInTarget();
        queues.awaitAllConsumed();
        job.stopWithSavepoint(false, queues.newFolder().toURI().toString(), SavepointFormatType.CANONICAL).get();
        assertTrue("the job did not stop", job.getJobStatus().get().isGloballyTerminalState());
    }

    private void awaitInTarget() throws Exception {
        int written = queues.total();
        SinkJobs.awaitUntil(() -> queues.size(SinkJobs.TARGET) >= written, "the target holds the " + written + " entries written so far");
    }

    private void appendRound() {
        for (int q = 0; q < QUEUES; q++) {
            queues.append(PREFIX + q, ENTRIES_PER_ROUND);
        }
    }

    private static JobClient start(StreamExecutionEnvironment env, InstrumentedSource source, MapFunction<String, String> mapper, Sink<String> sink)
            throws Exception {
        env.fromSource(source, WatermarkStrategy.noWatermarks(), "rockcask-queues", Types.STRING).uid("rockcask-queues")
                .map(mapper).returns(Types.STRING).uid("map")
                .sinkTo(sink).uid("rockcask-target");
        return env.executeAsync("rockcask end to end");
    }

    /**
     * Takes checkpoints one after another until the job ends. None can be taken while it restarts,
     * and a request made as the scheduler swaps execution graphs may never be answered: then ask
     * again.
     */
    private static void checkpointUntilEnded(MiniCluster cluster, JobClient job) throws Exception {
        long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
        while (!job.getJobStatus().get().isGloballyTerminalState()) {
            assertTrue("the job still runs after a minute of checkpoints", System.nanoTime() < deadline);
            try {
                cluster.triggerCheckpoint(job.getJobID()).get(5, TimeUnit.SECONDS);
            } catch (ExecutionException | TimeoutException notNow) {
                Thread.sleep(20);
            }
        }
    }

    private static void cancelIfRunning(JobClient job) throws Exception {
        if (!job.getJobStatus().get().isGloballyTerminalState()) {
            job.cancel().get();
        }
    }

    private void assertDeliveredExactlyOnceAndCleanedUp() {
        List<String> target = SinkJobs.peekAll(queues.store(), SinkJobs.TARGET);
        ExactlyOnce.assertEachOnceInQueueOrder(queues.written(), target);
        queues.sizes().forEach((queue, size) -> assertEquals("entries left in source queue " + queue, 0L, (long) size));
        assertEquals("staging queues left", Collections.emptyList(), SinkJobs.stagingQueues(queues.store()));
        assertTrue("readers created: " + InstrumentedSource.READERS_CREATED.get() + ", so the job never restarted",
                InstrumentedSource.READERS_CREATED.get() > PARALLELISM);
    }

    private InstrumentedSource continuousSource(boolean failOnceBeforeCommit) {
        return new InstrumentedSource(queues.source().queuePrefix(PREFIX).continuous().build(), failOnceBeforeCommit);
    }

    private RockCaskSink<String> sink() {
        return SinkJobs.sink(queues.spec());
    }

    private static FailOnceAfterCheckpoint failingMapper() {
        return new FailOnceAfterCheckpoint(FAULT_AFTER_CHECKPOINT, FAULT_AFTER_RECORDS);
    }

    private static MapFunction<String, String> passThrough() {
        return record -> record;
    }

    private static StreamExecutionEnvironment env(MiniClusterWithClientResource cluster, long checkpointIntervalMs) {
        StreamExecutionEnvironment env = new TestStreamEnvironment(cluster.getMiniCluster(), SinkJobs.restartingConfiguration(), PARALLELISM,
                Collections.emptyList(), Collections.emptyList());
        env.enableCheckpointing(checkpointIntervalMs, CheckpointingMode.EXACTLY_ONCE);
        return env;
    }
}
