package org.rockcask.flink.source;

import org.apache.flink.annotation.Internal;
import org.apache.flink.annotation.PublicEvolving;
import org.apache.flink.api.common.serialization.DeserializationSchema;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.connector.source.Boundedness;
import org.apache.flink.api.connector.source.Source;
import org.apache.flink.api.connector.source.SourceReader;
import org.apache.flink.api.connector.source.SourceReaderContext;
import org.apache.flink.api.connector.source.SplitEnumerator;
import org.apache.flink.api.connector.source.SplitEnumeratorContext;
import org.apache.flink.api.java.typeutils.ResultTypeQueryable;
import org.apache.flink.core.io.SimpleVersionedSerializer;
import org.rockcask.flink.RockCaskStoreSpec;
import org.rockcask.flink.source.enumerator.EnumeratorState;
import org.rockcask.flink.source.enumerator.EnumeratorStateSerializer;
import org.rockcask.flink.source.enumerator.QueueSplitEnumerator;
import org.rockcask.flink.source.reader.QueueSelector;
import org.rockcask.flink.source.reader.QueueSourceReader;
import org.rockcask.flink.source.reader.ReadLimits;
import org.rockcask.flink.source.split.QueueSplit;
import org.rockcask.flink.source.split.QueueSplitSerializer;

/**
 * Reads RockCask queues exactly once, in order per queue: one split per queue, entries
 * acknowledged when the checkpoint holding their records completes. Build it with
 * {@link #builder()}:
 *
 * <pre>{@code
 * RockCaskSource<String> source = RockCaskSource.<String>builder()
 *         .store(RockCaskStoreSpec.at("/data/cask"))
 *         .queues("orders", "refunds")
 *         .deserializer(new SimpleStringSchema())
 *         .build();
 * env.fromSource(source, WatermarkStrategy.noWatermarks(), "orders");
 * }</pre>
 *
 * <p>Needs checkpointing: entries are consumed only when a checkpoint covering their records
 * completes. Without it a bounded job reads its queues and ends, consuming nothing (the claims
 * return to their queues), and a continuous one holds every entry it read in one transaction that
 * never commits. Acknowledgement is destructive: restoring an older savepoint does not bring back
 * what later checkpoints consumed.
 *
 * <p>The methods Flink calls to run the source (readers, enumerator, serializers) are
 * {@code @Internal}: their types may change in any release.
 */
@PublicEvolving
public final class RockCaskSource<T> implements Source<T, QueueSplit, EnumeratorState>, ResultTypeQueryable<T> {
    private static final long serialVersionUID = 1L;

    private final RockCaskStoreSpec store;
    private final QueueSelector selector;
    private final Boundedness boundedness;
    private final DeserializationSchema<T> deserializer;
    private final ReadLimits limits;
    private final long discoveryIntervalMillis;

    RockCaskSource(RockCaskStoreSpec store, QueueSelector selector, Boundedness boundedness, DeserializationSchema<T> deserializer,
            ReadLimits limits, long discoveryIntervalMillis) {
        this.store = store;
        this.selector = selector;
        this.boundedness = boundedness;
        this.deserializer = deserializer;
        this.limits = limits;
        this.discoveryIntervalMillis = discoveryIntervalMillis;
    }

    public static <T> RockCaskSourceBuilder<T> builder() {
        return new RockCaskSourceBuilder<>();
    }

    @Override
    public Boundedness getBoundedness() {
        return boundedness;
    }

    @Internal
    @Override
    public SourceReader<T, QueueSplit> createReader(SourceReaderContext context) {
        return new QueueSourceReader<>(context, store, selector, deserializer, limits);
    }

    @Internal
    @Override
    public SplitEnumerator<QueueSplit, EnumeratorState> createEnumerator(SplitEnumeratorContext<QueueSplit> context) {
        return restoreEnumerator(context, null);
    }

    @Internal
    @Override
    public SplitEnumerator<QueueSplit, EnumeratorState> restoreEnumerator(SplitEnumeratorContext<QueueSplit> context, EnumeratorState state) {
        return new QueueSplitEnumerator(context, boundedness == Boundedness.BOUNDED, discoveryIntervalMillis, state);
    }

    @Internal
    @Override
    public SimpleVersionedSerializer<QueueSplit> getSplitSerializer() {
        return new QueueSplitSerializer();
    }

    @Internal
    @Override
    public SimpleVersionedSerializer<EnumeratorState> getEnumeratorCheckpointSerializer() {
        return new EnumeratorStateSerializer();
    }

    @Override
    public TypeInformation<T> getProducedType() {
        return deserializer.getProducedType();
    }

    @Override
    public String toString() {
        return "RockCaskSource[" + selector + " in " + store + ", " + boundedness + "]";
    }
}
