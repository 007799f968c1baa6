package org.rockcask;

import org.rockcask.management.QueueMXBean;

/** A queue's {@link QueueMXBean}: each read of any attribute brings the store's queue beans up to date, then reads the queue. */
final class QueueBean implements QueueMXBean {
    private final MetricsBeans owner;
    private final String name;

    QueueBean(MetricsBeans owner, String name) {
        this.owner = owner;
        this.name = name;
    }

    private QueueMetrics figures() {
        owner.refresh();
        return owner.source().queue(name)
                .orElseThrow(() -> new IllegalStateException("queue '" + name + "' of the store at " + owner.source().storePath() + " no longer exists"));
    }

    @Override
    public String getName() {
        owner.refresh();
        return name;
    }

    @Override
    public String getStorePath() {
        owner.refresh();
        return owner.source().storePath();
    }

    @Override
    public long getDepth() {
        return figures().depth();
    }

    @Override
    public long getAvailable() {
        return figures().available();
    }

    @Override
    public long getClaimed() {
        return figures().claimed();
    }

    @Override
    public long getEnqueued() {
        return figures().enqueued();
    }

    @Override
    public double getEnqueuedPerSecond() {
        return figures().enqueuedPerSecond();
    }

    @Override
    public long getPolled() {
        return figures().polled();
    }

    @Override
    public double getPolledPerSecond() {
        return figures().polledPerSecond();
    }

    @Override
    public long getConsumed() {
        return figures().consumed();
    }

    @Override
    public double getConsumedPerSecond() {
        return figures().consumedPerSecond();
    }

    @Override
    public long getReturned() {
        return figures().returned();
    }

    @Override
    public long getDeadLettered() {
        return figures().deadLettered();
    }

    @Override
    public long getOldestEntryAgeMillis() {
        return figures().oldestEntryAgeMillis().orElse(-1);
    }

    @Override
    public boolean isOldestAgeLowerBound() {
        return figures().oldestAgeIsLowerBound();
    }
}
