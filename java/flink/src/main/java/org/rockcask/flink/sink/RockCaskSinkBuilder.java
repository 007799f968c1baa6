package org.rockcask.flink.sink;

import java.util.Objects;
import java.util.StringJoiner;
import org.apache.flink.annotation.PublicEvolving;
import org.apache.flink.api.common.serialization.SerializationSchema;
import org.rockcask.Store;
import org.rockcask.flink.RockCaskStoreSpec;
import org.rockcask.flink.internal.StagingQueues;

/**
 * Configures a {@link RockCaskSink}. Required: the store, the target queue and the serialization
 * schema. By default the writer commits its staged records every 1000 records or 4 MiB.
 */
@PublicEvolving
public final class RockCaskSinkBuilder<T> {
    private RockCaskStoreSpec store;
    private String targetQueue;
    private SerializationSchema<T> schema;
    private SinkSettings settings = new SinkSettings(1000, 4L << 20);

    RockCaskSinkBuilder() {}

    /** The store, on every TaskManager's machine, that holds the target queue. */
    public RockCaskSinkBuilder<T> store(RockCaskStoreSpec spec) {
        this.store = Objects.requireNonNull(spec, "store");
        return this;
    }

    /**
     * The queue records are appended to.
     *
     * @throws IllegalArgumentException when empty, or too long for its staging queues' names
     */
    public RockCaskSinkBuilder<T> targetQueue(String queue) {
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
    public RockCaskSinkBuilder<T> serializer(SerializationSchema<T> schema) {
        this.schema = Objects.requireNonNull(schema, "serializer");
        return this;
    }

    /**
     * Commits staged records every {@code records} records (1 to 1,048,576; default 1000) or
     * {@code bytes} payload bytes (1 KiB to 1 GiB; default 4 MiB), whichever comes first:
     * bounds the memory an open transaction holds, at the cost of one commit each.
     */
    public RockCaskSinkBuilder<T> stagingCommitBatch(int records, long bytes) {
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
