package org.rockcask.management;

/**
 * One queue's figures over JMX: the attributes of {@link org.rockcask.QueueMetrics}, read live at
 * each attribute read.
 */
public interface QueueMXBean {
    String getName();

    /** The directory of the store holding the queue. */
    String getStorePath();

    long getDepth();

    long getAvailable();

    long getClaimed();

    long getEnqueued();

    double getEnqueuedPerSecond();

    long getPolled();

    double getPolledPerSecond();

    long getConsumed();

    double getConsumedPerSecond();

    long getReturned();

    long getDeadLettered();

    /** Milliseconds since the oldest entry present became visible; -1 for an empty queue. */
    long getOldestEntryAgeMillis();

    /** The oldest entry predates the store's open: its age counts from the open and is a lower bound. */
    boolean isOldestAgeLowerBound();
}
