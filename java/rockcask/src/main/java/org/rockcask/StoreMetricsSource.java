package org.rockcask;

import java.lang.ref.WeakReference;
import java.util.Collections;
import java.util.List;
import java.util.Optional;

/**
 * What a store's JMX beans read from it. It holds the store only weakly, so that a store
 * forgotten without {@code close()} can still be collected (its beans are then unregistered by
 * the next refresh).
 */
final class StoreMetricsSource {
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

    String storePath() {
        return path;
    }

    boolean readOnly() {
        return readOnly;
    }

    /** The store's own figures (no queues); IllegalStateException once the store is closed or gone. */
    StoreMetrics store() {
        return new StoreMetrics(open().handle().call(MetricsNative::store), Collections.emptyList());
    }

    /** One queue's figures; empty when the store lists no such queue. */
    Optional<QueueMetrics> queue(String name) {
        byte[] utf8 = Wire.queueName(name);
        long[] v = open().handle().call(h -> MetricsNative.queue(h, utf8));
        return v.length == 0 ? Optional.empty() : Optional.of(new QueueMetrics(name, v));
    }

    /** Changes whenever a queue appears or is forgotten. */
    long queueSetVersion() {
        return open().handle().call(MetricsNative::queueSetVersion);
    }

    List<String> queueNames() {
        return open().queues();
    }

    /** Closed, or collected without being closed. */
    boolean isGone() {
        Store s = store.get();
        return s == null || s.isClosed();
    }
}
