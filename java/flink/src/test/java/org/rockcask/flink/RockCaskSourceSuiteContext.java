package org.rockcask.flink;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URL;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Random;
import org.apache.flink.api.common.serialization.SimpleStringSchema;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.api.connector.source.Boundedness;
import org.apache.flink.api.connector.source.Source;
import org.apache.flink.connector.testframe.external.ExternalContextFactory;
import org.apache.flink.connector.testframe.external.ExternalSystemSplitDataWriter;
import org.apache.flink.connector.testframe.external.source.DataStreamSourceExternalContext;
import org.apache.flink.connector.testframe.external.source.TestingSourceSettings;
import org.rockcask.Transaction;

/**
 * One RockCask store per test case for Flink's source suite: each split the suite asks for is a
 * new queue under one prefix, which the source reads (discovering queues created while it runs).
 */
final class RockCaskSourceSuiteContext implements DataStreamSourceExternalContext<String> {
    /** Where the suite's stores go: the build's own directory when run from Gradle. */
    private static final String ROOT_PROPERTY = "rockcask.suite.dir";
    private static final String PREFIX = "suite-in-";

    private final RockCaskStoreSpec spec;
    private final RockCaskStores.Lease lease;
    private int splits;

    private RockCaskSourceSuiteContext(String testName) {
        Path root = Paths.get(System.getProperty(ROOT_PROPERTY, System.getProperty("java.io.tmpdir")));
        try {
            Files.createDirectories(root);
            spec = RockCaskStoreSpec.at(Files.createTempDirectory(root, "source-").toString()).withSyncOnCommit(false);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot make a store directory under " + root + " for " + testName, e);
        }
        // Held for the whole case, while the suite's jobs come and go.
        lease = RockCaskStores.acquire(spec);
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
    public TypeInformation<String> getProducedType() {
        return Types.STRING;
    }

    @Override
    public List<URL> getConnectorJarPaths() {
        return Collections.emptyList();
    }

    @Override
    public void close() {
        lease.close();
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
