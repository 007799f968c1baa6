package org.rockcask.flink;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Random;
import org.apache.flink.api.common.serialization.SimpleStringSchema;
import org.apache.flink.api.connector.sink2.Sink;
import org.apache.flink.connector.testframe.external.ExternalContextFactory;
import org.apache.flink.connector.testframe.external.ExternalSystemDataReader;
import org.apache.flink.connector.testframe.external.sink.DataStreamSinkV2ExternalContext;
import org.apache.flink.connector.testframe.external.sink.TestingSinkSettings;
import org.rockcask.Message;
import org.rockcask.Transaction;
import org.rockcask.flink.sink.RockCaskSink;

/**
 * One RockCask store per test case for Flink's sink suite: the suite's jobs write its target
 * queue, and its readers look at the queue without consuming it.
 */
final class RockCaskSinkSuiteContext extends SuiteStoreContext implements DataStreamSinkV2ExternalContext<String> {
    private static final String TARGET = "suite-out";

    RockCaskSinkSuiteContext(String testName) {
        super("sink-", testName);
    }

    static ExternalContextFactory<RockCaskSinkSuiteContext> factory() {
        return RockCaskSinkSuiteContext::new;
    }

    @Override
    public Sink<String> createSink(TestingSinkSettings settings) {
        return RockCaskSink.<String>builder().store(spec).targetQueue(TARGET).serializer(new SimpleStringSchema())
                .stagingCommitBatch(16, 1 << 20).build();
    }

    @Override
    public ExternalSystemDataReader<String> createSinkDataReader(TestingSinkSettings settings) {
        return new PeekingReader();
    }

    @Override
    public List<String> generateTestData(TestingSinkSettings settings, long seed) {
        Random random = new Random(seed);
        int count = 100 + random.nextInt(200);
        List<String> records = new ArrayList<>(count);
        for (int i = 0; i < count; i++) {
            records.add("record-" + i + "-" + Long.toHexString(random.nextLong()));
        }
        return records;
    }

    @Override
    public String toString() {
        return "RockCask sink in " + spec.path();
    }

    /**
     * Returns what the target queue gained since its last poll, reading from the head each time
     * and consuming nothing: every new reader starts again from the first record.
     */
    private final class PeekingReader implements ExternalSystemDataReader<String> {
        private int seen;

        @Override
        public List<String> poll(Duration timeout) {
            long deadline = System.nanoTime() + timeout.toNanos();
            while (true) {
                List<String> fresh = unseen();
                if (!fresh.isEmpty() || System.nanoTime() >= deadline) {
                    seen += fresh.size();
                    return fresh;
                }
                try {
                    Thread.sleep(20);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    return Collections.emptyList();
                }
            }
        }

        private List<String> unseen() {
            List<String> fresh = new ArrayList<>();
            try (Transaction tx = lease.store().begin()) {
                List<Message> all = tx.peek(TARGET, 1 << 20);
                for (Message m : all.subList(Math.min(seen, all.size()), all.size())) {
                    fresh.add(new String(m.payload(), java.nio.charset.StandardCharsets.UTF_8));
                }
            }
            return fresh;
        }

        @Override
        public void close() {
            // Reads hold nothing between polls.
        }
    }
}
