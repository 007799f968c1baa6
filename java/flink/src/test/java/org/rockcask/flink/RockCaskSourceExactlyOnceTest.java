package org.rockcask.flink;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertTrue;

import java.time.Duration;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.api.connector.source.Source;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.RestartStrategyOptions;
import org.apache.flink.core.execution.CheckpointingMode;
import org.apache.flink.runtime.minicluster.MiniCluster;
import org.apache.flink.runtime.testutils.MiniClusterResourceConfiguration;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.test.util.MiniClusterWithClientResource;
import org.junit.ClassRule;
import org.junit.Rule;
import org.junit.Test;
import org.junit.rules.Timeout;

/**
 * Jobs reading RockCask queues through failures: each delivers every entry exactly once (the
 * collect sink keeps only what completed checkpoints cover), in order per queue, and leaves the
 * queues empty.
 */
public class RockCaskSourceExactlyOnceTest {
    private static final int TASK_MANAGERS = 2;

    @ClassRule
    public static final MiniClusterWithClientResource CLUSTER = new MiniClusterWithClientResource(
            new MiniClusterResourceConfiguration.Builder().setNumberTaskManagers(TASK_MANAGERS).setNumberSlotsPerTaskManager(1).build());

    @Rule
    public final QueueFixture queues = new QueueFixture();

    @Rule
    public final Timeout timeout = new Timeout(180, TimeUnit.SECONDS);

    @Test
    public void aMapperFailingAfterACheckpointLosesAndRepeatsNothing() throws Exception {
        appendToBoth(500);
        StreamExecutionEnvironment env = env(2);
        DataStream<String> out = readBoth(env, false).map(new FailOnceAfterCheckpoint());
        try (CollectedJob job = CollectedJob.start(env, out, "mapper fails once")) {
            assertTrue("no checkpoint completed", FailOnceAfterCheckpoint.ARMED.await(60, TimeUnit.SECONDS));
            appendToBoth(500);
            finish(job);
        }
        assertTrue("the mapper never failed", FailOnceAfterCheckpoint.FAILED.get());
        assertRestarted(2);
    }

    @Test
    public void aReaderFailingBeforeItCommitsAcknowledgesWhatItHadDeliveredWithoutEmittingItAgain() throws Exception {
        appendToBoth(1000);
        StreamExecutionEnvironment env = env(2);
        DataStream<String> out = readBoth(env, true);
        try (CollectedJob job = CollectedJob.start(env, out, "reader fails before commit")) {
            finish(job);
        }
        assertTrue("the reader never failed", InstrumentedSource.FAILED_BEFORE_COMMIT.get());
        assertRestarted(2);
    }

    @Test
    public void aTaskManagerKilledMidStreamLosesAndRepeatsNothing() throws Exception {
        appendToBoth(500);
        StreamExecutionEnvironment env = env(TASK_MANAGERS);
        DataStream<String> out = readBoth(env, false);
        try (CollectedJob job = CollectedJob.start(env, out, "task manager killed")) {
            // A record out of the collect sink means a checkpoint with data completed.
            job.awaitReceived(1);
            MiniCluster cluster = CLUSTER.getMiniCluster();
            cluster.terminateTaskManager(0).get();
            cluster.startTaskManager();
            appendToBoth(500);
            finish(job);
        }
        assertRestarted(TASK_MANAGERS);
    }

    @Test
    public void severalQueuesOverTwoReadersAreReadBoundedInOrderPerQueueSkippingStagingQueues() throws Exception {
        for (String q : new String[] {"in.1", "in.2", "in.3", "in.4", "in.5"}) {
            queues.append(q, 300);
        }
        Map<String, Integer> expected = queues.written();
        String staging = "in.1.staging/0123456789abcdef0123456789abcdef/0/1";
        queues.append(staging, 10);
        StreamExecutionEnvironment env = env(2);
        DataStream<String> out = read(env, queues.source().queuePrefix("in.").bounded().build());
        try (CollectedJob job = CollectedJob.start(env, out, "bounded queues")) {
            job.awaitFinished();
            ExactlyOnce.assertEachOnceInQueueOrder(expected, job.received());
        }
        for (String q : expected.keySet()) {
            assertEquals("entries left in " + q, 0, queues.size(q));
        }
        assertEquals("a staging queue is not the source's to read", 10, queues.size(staging));
    }

    @Test
    public void aContinuousSourceReadsAQueueCreatedAfterItStarted() throws Exception {
        queues.append("new-a", 100);
        StreamExecutionEnvironment env = env(2);
        DataStream<String> out = read(env, queues.source().queuePrefix("new-").build());
        try (CollectedJob job = CollectedJob.start(env, out, "discovers queues")) {
            job.awaitReceived(100);
            queues.append("new-b", 100);
            finish(job);
        }
    }

    /** Waits for every record and for the queues to empty, stops the job, and checks what it delivered. */
    private void finish(CollectedJob job) throws Exception {
        job.awaitReceived(queues.total());
        queues.awaitAllConsumed();
        job.stop(queues.newFolder().toURI().toString());
        ExactlyOnce.assertEachOnceInQueueOrder(queues.written(), job.received());
        for (Map.Entry<String, Long> size : queues.sizes().entrySet()) {
            assertEquals("entries left in " + size.getKey() + " after the job stopped", 0L, (long) size.getValue());
        }
    }

    private void appendToBoth(int entries) {
        queues.append("a", entries);
        queues.append("b", entries);
    }

    /** Queues a and b through an {@link InstrumentedSource}. */
    private DataStream<String> readBoth(StreamExecutionEnvironment env, boolean failOnceBeforeCommit) {
        return read(env, new InstrumentedSource(queues.source().queues("a", "b").build(), failOnceBeforeCommit));
    }

    private static void assertRestarted(int parallelism) {
        assertTrue("readers created: " + InstrumentedSource.READERS_CREATED.get() + ", so the job never restarted",
                InstrumentedSource.READERS_CREATED.get() > parallelism);
    }

    private static DataStream<String> read(StreamExecutionEnvironment env, Source<String, ?, ?> source) {
        return env.fromSource(source, WatermarkStrategy.noWatermarks(), "rockcask", Types.STRING);
    }

    private static StreamExecutionEnvironment env(int parallelism) {
        Configuration conf = new Configuration();
        conf.set(RestartStrategyOptions.RESTART_STRATEGY, "fixed-delay");
        conf.set(RestartStrategyOptions.RESTART_STRATEGY_FIXED_DELAY_ATTEMPTS, 20);
        conf.set(RestartStrategyOptions.RESTART_STRATEGY_FIXED_DELAY_DELAY, Duration.ofMillis(100));
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment(conf);
        env.setParallelism(parallelism);
        env.enableCheckpointing(100, CheckpointingMode.EXACTLY_ONCE);
        return env;
    }
}
