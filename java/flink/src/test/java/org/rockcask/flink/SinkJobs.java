package org.rockcask.flink;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertTrue;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.api.common.serialization.SimpleStringSchema;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.api.connector.source.SourceReaderContext;
import org.apache.flink.api.connector.source.lib.NumberSequenceSource;
import org.apache.flink.api.connector.source.util.ratelimit.RateLimiterStrategy;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.RestartStrategyOptions;
import org.apache.flink.connector.datagen.source.DataGeneratorSource;
import org.apache.flink.connector.datagen.source.GeneratorFunction;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.rockcask.Message;
import org.rockcask.Store;
import org.rockcask.Transaction;
import org.rockcask.flink.internal.StagingQueues;
import org.rockcask.flink.sink.RockCaskSink;

/**
 * What the sink's MiniCluster tests share: a rate-limited source of numbers 0..n-1, each tagged
 * with the source subtask that emitted it ({@code "subtask:number"}), and the checks on the
 * target queue.
 */
final class SinkJobs {
    static final String TARGET = "out";

    private SinkJobs() {}

    static DataGeneratorSource<String> taggedNumbers(long count, double perSecond) {
        return new DataGeneratorSource<>(new TaggedNumbers(), count, RateLimiterStrategy.perSecond(perSecond), Types.STRING);
    }

    /** {@code "subtask:number"}: within one source subtask's split, numbers increase. */
    static final class TaggedNumbers implements GeneratorFunction<Long, String> {
        private static final long serialVersionUID = 1L;
        private int subtask;

        @Override
        public void open(SourceReaderContext context) {
            subtask = context.getIndexOfSubtask();
        }

        @Override
        public String map(Long number) {
            return subtask + ":" + number;
        }
    }

    static RockCaskSink<String> sink(RockCaskStoreSpec spec) {
        // Small staging batches: a failure then finds staged records to drain.
        return RockCaskSink.<String>builder().store(spec).targetQueue(TARGET).serializer(new SimpleStringSchema())
                .stagingCommitBatch(10, 1 << 20).build();
    }

    /** A job sending {@code count} tagged numbers into the RockCask sink, stable uids for restores. */
    static StreamExecutionEnvironment numbersJob(Configuration conf, int parallelism, RockCaskStoreSpec spec, long count, double perSecond) {
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment(conf);
        env.setParallelism(parallelism);
        env.fromSource(taggedNumbers(count, perSecond), WatermarkStrategy.noWatermarks(), "numbers").uid("numbers").sinkTo(sink(spec))
                .uid("rockcask-sink");
        return env;
    }

    /** Starts {@link #numbersJob} and returns once every one of its subtasks staged records. */
    static JobClient startStaging(Configuration conf, int parallelism, RockCaskStoreSpec spec, Store store, long count, double perSecond)
            throws Exception {
        JobClient job = numbersJob(conf, parallelism, spec, count, perSecond).executeAsync();
        awaitUntil(() -> stagedSubtasks(store, 1).size() == parallelism, "every subtask staged records");
        return job;
    }

    static Configuration restartingConfiguration() {
        Configuration conf = new Configuration();
        conf.set(RestartStrategyOptions.RESTART_STRATEGY, "fixed-delay");
        conf.set(RestartStrategyOptions.RESTART_STRATEGY_FIXED_DELAY_ATTEMPTS, 5);
        conf.set(RestartStrategyOptions.RESTART_STRATEGY_FIXED_DELAY_DELAY, Duration.ofMillis(100));
        return conf;
    }

    /** Every record of {@code queue}, read without consuming. */
    static List<String> peekAll(Store store, String queue) {
        List<String> records = new ArrayList<>();
        try (Transaction tx = store.begin()) {
            for (Message m : tx.peek(queue, 1 << 20)) {
                records.add(new String(m.payload(), StandardCharsets.UTF_8));
            }
        }
        return records;
    }

    static List<String> stagingQueues(Store store) {
        return store.queues(TARGET + StagingQueues.INFIX);
    }

    /** Every number 0..count-1 exactly once, and each source subtask's numbers in increasing order. */
    static void assertExactlyOnceInSubtaskOrder(List<String> records, long count) {
        assertExactlyOnce(records, count);
        Map<String, Long> last = new HashMap<>();
        for (String record : records) {
            String tag = record.substring(0, record.indexOf(':'));
            long number = number(record);
            Long before = last.put(tag, number);
            assertTrue("subtask " + tag + " wrote " + number + " after " + before, before == null || before < number);
        }
    }

    /**
     * Every number exactly once, and in increasing order within each range the source first split
     * them into for {@code firstParallelism} readers (a split keeps its order as it moves between
     * readers).
     */
    static void assertExactlyOnceInSplitOrder(List<String> records, long count, int firstParallelism) {
        assertExactlyOnce(records, count);
        List<NumberSequenceSource.NumberSequenceSplit> splits = new SplitRanges(count).split(firstParallelism);
        long[] last = new long[splits.size()];
        java.util.Arrays.fill(last, -1);
        for (String record : records) {
            long number = number(record);
            for (int s = 0; s < splits.size(); s++) {
                if (number >= splits.get(s).from() && number <= splits.get(s).to()) {
                    assertTrue("split " + s + " wrote " + number + " after " + last[s], last[s] < number);
                    last[s] = number;
                }
            }
        }
    }

    private static void assertExactlyOnce(List<String> records, long count) {
        boolean[] seen = new boolean[(int) count];
        for (String record : records) {
            long number = number(record);
            assertTrue("unexpected record " + record, number >= 0 && number < count);
            assertTrue("duplicate record " + record, !seen[(int) number]);
            seen[(int) number] = true;
        }
        assertEquals("records in the target", count, records.size());
    }

    private static long number(String record) {
        return Long.parseLong(record.substring(record.indexOf(':') + 1));
    }

    /** The ranges the generator's number sequence is split into, as Flink splits them. */
    private static final class SplitRanges extends NumberSequenceSource {
        private static final long serialVersionUID = 1L;

        SplitRanges(long count) {
            super(0, count - 1);
        }

        List<NumberSequenceSplit> split(int parallelism) {
            return splitNumberRange(getFrom(), getTo(), parallelism);
        }
    }

    /**
     * The subtasks with a non-empty staging queue of epoch {@code minEpoch} or later for the
     * target (each test's store has one job's: its lineage is not known outside the sink).
     */
    static Set<Integer> stagedSubtasks(Store store, long minEpoch) {
        Set<Integer> subtasks = new HashSet<>();
        for (String queue : store.queues(SinkJobs.TARGET + StagingQueues.INFIX)) {
            Optional<StagingQueues.Slot> slot = StagingQueues.parse(queue);
            if (slot.isPresent() && slot.get().target.equals(SinkJobs.TARGET) && slot.get().epoch >= minEpoch && store.queueSize(queue) > 0) {
                subtasks.add(slot.get().subtask);
            }
        }
        return subtasks;
    }

    interface Condition {
        boolean holds() throws Exception;
    }

    static void awaitUntil(Condition condition, String what) throws Exception {
        long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
        while (!condition.holds()) {
            assertTrue("timed out waiting until " + what, System.nanoTime() < deadline);
            Thread.sleep(20);
        }
    }
}
