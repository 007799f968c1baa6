package org.rockcask;

import java.lang.ref.WeakReference;
import java.util.Collections;
import java.util.List;
import java.util.Optional;
import org.rockcask.internal.MetricsSource;

/** A store's figures for its JMX beans, holding the store only weakly (see {@link MetricsSource}). */
final class StoreMetricsSource implements MetricsSource {
    private final WeakReference<Store> store;
    private final String path;
    private final boolean readOnly;

    StoreMetricsSource(Store store) {
        this.store = new WeakReference<>(store);
        this.path = store.path().toString();
        this.readOnly = store.options().readOnly();
    }

    private Store open() {
        Store s = store.get();
        if (s == null) {
            throw new IllegalStateException("Store is closed");
        }
        return s;
    }

    @Override
    public String storePath() {
        return path;
    }

    @Override
    public boolean readOnly() {
        return readOnly;
    }

    @Override
    public StoreMetrics store() {
        return new StoreMetrics(open().handle().call(MetricsNative::store), Collections.emptyList());
    }

    @Override
    public Optional<QueueMetrics> queue(String name) {
        byte[] utf8 = Wire.queueName(name);
        long[] v = open().handle().call(h -> MetricsNative.queue(h, utf8));
        return v.length == 0 ? Optional.empty() : Optional.of(new QueueMetrics(name, v));
    }

    @Override
    public long queueSetVersion() {
        return open().handle().call(MetricsNative::queueSetVersion);
    }

    @Override
    public List<String> queueNames() {
        return open().queues();
    }

    @Override
    public boolean isGone() {
        Store s = store.get();
        return s == null || s.isClosed();
    }
}
