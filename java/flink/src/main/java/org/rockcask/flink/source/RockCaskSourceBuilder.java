package org.rockcask.flink.source;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Objects;
import org.apache.flink.annotation.PublicEvolving;
import org.apache.flink.api.common.serialization.DeserializationSchema;
import org.apache.flink.api.connector.source.Boundedness;
import org.rockcask.flink.RockCaskStoreSpec;
import org.rockcask.flink.source.reader.QueueSelector;
import org.rockcask.flink.source.reader.ReadLimits;

/**
 * Configures a {@link RockCaskSource}. Required: the store, the queues (names or a prefix) and the
 * deserializer. By default the source is continuous (unbounded), polls batches of
 * {@value #DEFAULT_POLL_BATCH_SIZE} entries and looks for new queues every
 * {@link #DEFAULT_DISCOVERY_INTERVAL}.
 */
@PublicEvolving
public final class RockCaskSourceBuilder<T> {
    public static final int DEFAULT_POLL_BATCH_SIZE = 512;
    /** The most entries one RockCask poll returns. */
    public static final int MAX_POLL_BATCH_SIZE = 1 << 20;
    public static final Duration DEFAULT_DISCOVERY_INTERVAL = Duration.ofSeconds(10);
    public static final int DEFAULT_MAX_UNCOMMITTED_ENTRIES = 1_000_000;
    public static final Duration MIN_DISCOVERY_INTERVAL = Duration.ofMillis(10);
    public static final Duration MAX_DISCOVERY_INTERVAL = Duration.ofDays(1);

    private RockCaskStoreSpec store;
    private List<String> names;
    private String prefix;
    private Boundedness boundedness = Boundedness.CONTINUOUS_UNBOUNDED;
    private DeserializationSchema<T> deserializer;
    private int pollBatchSize = DEFAULT_POLL_BATCH_SIZE;
    private int maxUncommittedEntries = DEFAULT_MAX_UNCOMMITTED_ENTRIES;
    private Duration discoveryInterval = DEFAULT_DISCOVERY_INTERVAL;

    RockCaskSourceBuilder() {}

    public RockCaskSourceBuilder<T> store(RockCaskStoreSpec spec) {
        this.store = Objects.requireNonNull(spec, "store");
        return this;
    }

    /** Reads these queues (each one split); replaces a prefix given before. */
    public RockCaskSourceBuilder<T> queues(String... queues) {
        return queues(Arrays.asList(Objects.requireNonNull(queues, "queues")));
    }

    /** Reads these queues (each one split); replaces a prefix given before. */
    public RockCaskSourceBuilder<T> queues(List<String> queues) {
        Objects.requireNonNull(queues, "queues");
        if (queues.isEmpty()) {
            throw new IllegalArgumentException("RockCask source needs at least one queue name");
        }
        for (int i = 0; i < queues.size(); i++) {
            if (queues.get(i) == null || queues.get(i).isEmpty()) {
                throw new IllegalArgumentException("RockCask source queue name " + i + " is null or empty: " + queues);
            }
        }
        this.names = new ArrayList<>(new LinkedHashSet<>(queues));
        this.prefix = null;
        return this;
    }

    /**
     * Reads every queue whose name starts with {@code prefix} (an empty prefix: every queue),
     * except sinks' staging queues; replaces names given before.
     */
    public RockCaskSourceBuilder<T> queuePrefix(String prefix) {
        this.prefix = Objects.requireNonNull(prefix, "prefix");
        this.names = null;
        return this;
    }

    /** Reads what the queues hold when each is reached, then finishes. */
    public RockCaskSourceBuilder<T> bounded() {
        this.boundedness = Boundedness.BOUNDED;
        return this;
    }

    /** Reads forever, discovering new queues every discovery interval (the default). */
    public RockCaskSourceBuilder<T> continuous() {
        this.boundedness = Boundedness.CONTINUOUS_UNBOUNDED;
        return this;
    }

    public RockCaskSourceBuilder<T> deserializer(DeserializationSchema<T> schema) {
        this.deserializer = Objects.requireNonNull(schema, "deserializer");
        return this;
    }

    /** Entries claimed per poll of one queue: 1 to {@value #MAX_POLL_BATCH_SIZE}. */
    public RockCaskSourceBuilder<T> pollBatchSize(int entries) {
        if (entries < 1 || entries > MAX_POLL_BATCH_SIZE) {
            throw new IllegalArgumentException("RockCask source poll batch size must be 1 to " + MAX_POLL_BATCH_SIZE + ", got " + entries);
        }
        this.pollBatchSize = entries;
        return this;
    }

    /**
     * At most this many entries (1 to {@link Integer#MAX_VALUE}; default
     * {@value #DEFAULT_MAX_UNCOMMITTED_ENTRIES}) one reader holds polled and not yet committed: the
     * native memory an open checkpoint interval takes (about 150 bytes per entry) stays bounded.
     * A reader that reaches it stops polling until the next checkpoint completes.
     */
    public RockCaskSourceBuilder<T> maxUncommittedEntries(int entries) {
        if (entries < 1) {
            throw new IllegalArgumentException("RockCask source maxUncommittedEntries must be 1 to " + Integer.MAX_VALUE + ", got " + entries);
        }
        this.maxUncommittedEntries = entries;
        return this;
    }

    /**
     * How often a continuous source lists the queues again ({@link #MIN_DISCOVERY_INTERVAL} to
     * {@link #MAX_DISCOVERY_INTERVAL}); a bounded source lists them once.
     */
    public RockCaskSourceBuilder<T> discoveryInterval(Duration interval) {
        Objects.requireNonNull(interval, "discoveryInterval");
        if (interval.compareTo(MIN_DISCOVERY_INTERVAL) < 0 || interval.compareTo(MAX_DISCOVERY_INTERVAL) > 0) {
            throw new IllegalArgumentException("RockCask source discovery interval must be " + MIN_DISCOVERY_INTERVAL + " to "
                    + MAX_DISCOVERY_INTERVAL + ", got " + interval);
        }
        this.discoveryInterval = interval;
        return this;
    }

    /** @throws IllegalStateException naming what is missing */
    public RockCaskSource<T> build() {
        if (store == null) {
            throw new IllegalStateException("RockCask source needs a store: call store(RockCaskStoreSpec)");
        }
        if (names == null && prefix == null) {
            throw new IllegalStateException("RockCask source needs queues: call queues(...) or queuePrefix(...)");
        }
        if (deserializer == null) {
            throw new IllegalStateException("RockCask source needs a deserializer: call deserializer(DeserializationSchema)");
        }
        QueueSelector selector = names != null ? QueueSelector.names(names) : QueueSelector.prefix(prefix);
        return new RockCaskSource<>(store, selector, boundedness, deserializer, new ReadLimits(pollBatchSize, maxUncommittedEntries),
                discoveryInterval.toMillis());
    }
}
