package org.rockcask.internal;

import java.util.List;
import java.util.Optional;
import org.rockcask.QueueMetrics;
import org.rockcask.StoreMetrics;

/**
 * What the JMX beans read from one store. Implemented beside {@code Store} without keeping it
 * reachable, so that a store forgotten without {@code close()} can still be collected (its
 * beans are then unregistered by the next refresh).
 */
public interface MetricsSource {
    String storePath();

    boolean readOnly();

    /** The store's own figures (no queues); IllegalStateException once the store is closed or gone. */
    StoreMetrics store();

    /** One queue's figures; empty when the store lists no such queue. */
    Optional<QueueMetrics> queue(String name);

    /** Changes whenever a queue appears or is forgotten. */
    long queueSetVersion();

    List<String> queueNames();

    /** Closed, or collected without being closed. */
    boolean isGone();
}
