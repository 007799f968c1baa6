package org.rockcask.flink;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.apache.flink.api.common.serialization.SimpleStringSchema;
import org.apache.flink.api.connector.source.Boundedness;
import org.apache.flink.api.connector.source.Source;
import org.apache.flink.connector.testframe.external.ExternalContextFactory;
import org.apache.flink.connector.testframe.external.ExternalSystemSplitDataWriter;
import org.apache.flink.connector.testframe.external.source.DataStreamSourceExternalContext;
import org.apache.flink.connector.testframe.external.source.TestingSourceSettings;
import org.rockcask.Transaction;
import org.rockcask.flink.source.RockCaskSource;
import org.rockcask.flink.source.RockCaskSourceBuilder;

/**
 * One RockCask store per test case for Flink's source suite: each split the suite asks for is a
 * new queue under one prefix, which the source reads (discovering queues created while it runs).
 */
final class RockCaskSourceSuiteContext extends SuiteStoreContext implements DataStreamSourceExternalContext<String> {
    private static final String PREFIX = "suite-in-";

    private int splits;

    private RockCaskSourceSuiteContext(String testName) {
        super("source-", testName);
    }

    static ExternalContextFactory<RockCaskSourceSuiteContext> factory() {
        return RockCaskSourceSuiteContext::new;
    }

    @Override
    public Source<String, ?, ?> createSource(TestingSourceSettings settings) {
        RockCaskSourceBuilder<String> builder = RockCaskSource.<String>builder().store(spec).queuePrefix(PREFIX)
                .deserializer(new SimpleStringSchema()).pollBatchSize(32).discoveryInterval(Duration.ofMillis(100));
        return settings.getBoundedness() == Boundedness.BOUNDED ? builder.bounded().build() : builder.continuous().build();
    }

    @Override
    public ExternalSystemSplitDataWriter<String> createSourceSplitDataWriter(TestingSourceSettings settings) {
        return new QueueWriter(PREFIX + splits++);
    }

    @Override
    public List<String> generateTestData(TestingSourceSettings settings, int splitIndex, long seed) {
        Random random = new Random(seed);
        int count = 50 + random.nextInt(150);
        List<String> records = new ArrayList<>(count);
        for (int i = 0; i < count; i++) {
            records.add("split-" + splitIndex + "/" + i + "/" + Integer.toHexString(random.nextInt()));
        }
        return records;
    }

    @Override
    public String toString() {
        return "RockCask source over " + PREFIX + "* in " + spec.path();
    }

    /** Appends each batch of records to one queue, in one transaction. */
    private final class QueueWriter implements ExternalSystemSplitDataWriter<String> {
        private final String queue;

        QueueWriter(String queue) {
            this.queue = queue;
        }

        @Override
        public void writeRecords(List<String> records) {
            try (Transaction tx = lease.store().begin()) {
                for (String record : records) {
                    tx.enqueue(queue, record.getBytes(StandardCharsets.UTF_8));
                }
                tx.commit();
            }
        }

        @Override
        public void close() {
            // Nothing held between writes.
        }
    }
}
