package org.rockcask.flink;

import java.io.IOException;
import java.util.Collection;
import java.util.Collections;
import java.util.Objects;
import java.util.StringJoiner;
import java.util.UUID;
import org.apache.flink.api.common.serialization.SerializationSchema;
import org.apache.flink.api.connector.sink2.CommitterInitContext;
import org.apache.flink.api.connector.sink2.Sink;
import org.apache.flink.api.connector.sink2.SupportsCommitter;
import org.apache.flink.api.connector.sink2.SupportsWriterState;
import org.apache.flink.api.connector.sink2.WriterInitContext;
import org.apache.flink.core.io.SimpleVersionedSerializer;
import org.rockcask.Store;
import org.rockcask.flink.sink.LineageSerializer;
import org.rockcask.flink.sink.RockCaskCommittable;
import org.rockcask.flink.sink.RockCaskCommittableSerializer;
import org.rockcask.flink.sink.RockCaskCommitter;
import org.rockcask.flink.sink.RockCaskWriter;
import org.rockcask.flink.sink.SinkSettings;
import org.rockcask.flink.sink.StagingQueues;

/**
 * Appends records to a RockCask queue exactly once: each checkpoint's records become visible in
 * the target queue, in the order each subtask wrote them, when the checkpoint completes.
 *
 * <p>Until then they wait, durably, in staging queues named
 * {@code <target>.staging/<lineage>/<subtask>/<checkpoint>}, which the target's consumers never
 * see. A restored job drains what was staged after its checkpoint and commits what the
 * checkpoint holds. Staged data is never dropped on a timeout: the staging queues of a job that
 * is abandoned for good must be committed or dropped by hand.
 *
 * <pre>{@code
 * RockCaskSink<String> sink = RockCaskSink.<String>builder()
 *         .store(RockCaskStoreSpec.at("/data/cask"))
 *         .targetQueue("out")
 *         .serializer(new SimpleStringSchema())
 *         .build();
 * stream.sinkTo(sink);
 * }</pre>
 */
public final class RockCaskSink<T>
        implements Sink<T>, SupportsCommitter<RockCaskCommittable>, SupportsWriterState<T, String> {
    private static final long serialVersionUID = 1L;

    private final RockCaskStoreSpec store;
    private final String targetQueue;
    private final SerializationSchema<T> schema;
    private final SinkSettings settings;
    /**
     * Drawn when the sink is built, so it travels with the job graph: every subtask and every
     * restart of this job sees the same id, and no other sink (in this job, or in a job
     * submitted again under the same job id) has it. Mixed into a fresh start's lineage, it keeps
     * two sinks from ever naming, and draining, each other's staging queues.
     */
    private final UUID sinkId = UUID.randomUUID();

    private RockCaskSink(RockCaskStoreSpec store, String targetQueue, SerializationSchema<T> schema, SinkSettings settings) {
        this.store = store;
        this.targetQueue = targetQueue;
        this.schema = schema;
        this.settings = settings;
    }

    public static <T> Builder<T> builder() {
        return new Builder<>();
    }

    @Override
    public RockCaskWriter<T> createWriter(WriterInitContext context) throws IOException {
        return restoreWriter(context, Collections.emptyList());
    }

    @Override
    public RockCaskWriter<T> restoreWriter(WriterInitContext context, Collection<String> recoveredState) throws IOException {
        return new RockCaskWriter<>(context, recoveredState, store, targetQueue, schema, settings, sinkId);
    }

    @Override
    public SimpleVersionedSerializer<String> getWriterStateSerializer() {
        return new LineageSerializer();
    }

    @Override
    public RockCaskCommitter createCommitter(CommitterInitContext context) {
        return new RockCaskCommitter(store);
    }

    @Override
    public SimpleVersionedSerializer<RockCaskCommittable> getCommittableSerializer() {
        return new RockCaskCommittableSerializer();
    }

    public RockCaskStoreSpec store() {
        return store;
    }

    public String targetQueue() {
        return targetQueue;
    }

    /** Builds a {@link RockCaskSink}; store, target queue and serialization schema are required. */
    public static final class Builder<T> {
        private RockCaskStoreSpec store;
        private String targetQueue;
        private SerializationSchema<T> schema;
        private SinkSettings settings = new SinkSettings(1000, 4L << 20);

        private Builder() {}

        /** The store, on every TaskManager's machine, that holds the target queue. */
        public Builder<T> store(RockCaskStoreSpec spec) {
            this.store = Objects.requireNonNull(spec, "store");
            return this;
        }

        /**
         * The queue records are appended to.
         *
         * @throws IllegalArgumentException when empty, or too long for its staging queues' names
         */
        public Builder<T> targetQueue(String queue) {
            Objects.requireNonNull(queue, "targetQueue");
            if (queue.isEmpty()) {
                throw new IllegalArgumentException("the target queue name must not be empty");
            }
            if (!StagingQueues.fits(queue)) {
                throw new IllegalArgumentException("target queue name " + queue + " is too long: its staging queues add up to "
                        + StagingQueues.MAX_SUFFIX_BYTES + " bytes to it and a queue name is at most " + Store.MAX_QUEUE_NAME_BYTES
                        + " bytes");
            }
            this.targetQueue = queue;
            return this;
        }

        /** How each record becomes the payload of its entry. */
        public Builder<T> serializer(SerializationSchema<T> schema) {
            this.schema = Objects.requireNonNull(schema, "serializer");
            return this;
        }

        /**
         * Commits staged records every {@code records} records (1 to 1,048,576; default 1000) or
         * {@code bytes} payload bytes (1 KiB to 1 GiB; default 4 MiB), whichever comes first:
         * bounds the memory an open transaction holds, at the cost of one commit each.
         */
        public Builder<T> stagingCommitBatch(int records, long bytes) {
            this.settings = new SinkSettings(records, bytes);
            return this;
        }

        /** @throws IllegalStateException naming what was not set */
        public RockCaskSink<T> build() {
            StringJoiner missing = new StringJoiner(", ");
            if (store == null) {
                missing.add("store");
            }
            if (targetQueue == null) {
                missing.add("targetQueue");
            }
            if (schema == null) {
                missing.add("serializer");
            }
            if (missing.length() > 0) {
                throw new IllegalStateException("a RockCask sink needs a store, a target queue and a serialization schema; missing: " + missing);
            }
            return new RockCaskSink<>(store, targetQueue, schema, settings);
        }
    }
}
