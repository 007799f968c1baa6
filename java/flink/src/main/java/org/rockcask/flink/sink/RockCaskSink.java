package org.rockcask.flink.sink;

import java.io.IOException;
import java.util.Collection;
import java.util.Collections;
import java.util.UUID;
import org.apache.flink.annotation.Internal;
import org.apache.flink.annotation.PublicEvolving;
import org.apache.flink.api.common.serialization.SerializationSchema;
import org.apache.flink.api.connector.sink2.Committer;
import org.apache.flink.api.connector.sink2.CommitterInitContext;
import org.apache.flink.api.connector.sink2.Sink;
import org.apache.flink.api.connector.sink2.StatefulSinkWriter;
import org.apache.flink.api.connector.sink2.SupportsCommitter;
import org.apache.flink.api.connector.sink2.SupportsWriterState;
import org.apache.flink.api.connector.sink2.WriterInitContext;
import org.apache.flink.core.io.SimpleVersionedSerializer;
import org.rockcask.flink.RockCaskStoreSpec;
import org.rockcask.flink.sink.internal.RockCaskCommittable;
import org.rockcask.flink.sink.internal.RockCaskCommittableSerializer;
import org.rockcask.flink.sink.internal.RockCaskCommitter;

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
 *
 * <p>The methods Flink calls to run the sink (writers, committer, serializers) are
 * {@code @Internal}: their types may change in any release.
 */
@PublicEvolving
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

    RockCaskSink(RockCaskStoreSpec store, String targetQueue, SerializationSchema<T> schema, SinkSettings settings) {
        this.store = store;
        this.targetQueue = targetQueue;
        this.schema = schema;
        this.settings = settings;
    }

    public static <T> RockCaskSinkBuilder<T> builder() {
        return new RockCaskSinkBuilder<>();
    }

    @Internal
    @Override
    public StatefulSinkWriter<T, String> createWriter(WriterInitContext context) throws IOException {
        return restoreWriter(context, Collections.emptyList());
    }

    @Internal
    @Override
    public StatefulSinkWriter<T, String> restoreWriter(WriterInitContext context, Collection<String> recoveredState) throws IOException {
        return new RockCaskWriter<>(context, recoveredState, store, targetQueue, schema, settings, sinkId);
    }

    @Internal
    @Override
    public SimpleVersionedSerializer<String> getWriterStateSerializer() {
        return new LineageSerializer();
    }

    @Internal
    @Override
    public Committer<RockCaskCommittable> createCommitter(CommitterInitContext context) {
        return new RockCaskCommitter(store);
    }

    @Internal
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
}
