package org.rockcask;

import java.util.OptionalLong;

/**
 * One queue's figures at one moment, from {@link StoreMetrics#queues()}. Counts are since the
 * store was opened (by this process) and 0 when {@link StoreOptions#metrics()} is off; rates are
 * per second over the last minute: the events of the seconds that began within the last 60 s,
 * divided by the time those seconds cover (the time since open when that is shorter, at least
 * one second).
 */
public final class QueueMetrics {
    private final String name;
    private final long[] v;

    QueueMetrics(String name, long[] v) {
        this.name = name;
        this.v = v;
    }

    /** The record as it crossed from the native side (for this package's tests of its layout). */
    long[] values() {
        return v;
    }

    public String name() {
        return name;
    }

    /** Committed entries present: available ones and those claimed by open transactions ({@link Store#queueSize}). */
    public long depth() {
        return v[Wire.QUEUE_DEPTH];
    }

    /** Entries a consumer could claim now. */
    public long available() {
        return v[Wire.QUEUE_AVAILABLE];
    }

    /** Entries claimed by open transactions (polled, not yet committed or rolled back). */
    public long claimed() {
        return v[Wire.QUEUE_CLAIMED];
    }

    /** Entries committed to this queue, counted once written and visible to consumers. */
    public long enqueued() {
        return v[Wire.QUEUE_ENQUEUED];
    }

    public double enqueuedPerSecond() {
        return Double.longBitsToDouble(v[Wire.QUEUE_ENQUEUED_PER_SECOND]);
    }

    /**
     * Entries handed out: claimed by {@code poll}, {@code take}, {@code dropQueue} or
     * {@code moveQueue}, counted at the claim (entries claimed past a poll's byte budget and
     * handed straight back count here and in {@link #returned()}).
     */
    public long polled() {
        return v[Wire.QUEUE_POLLED];
    }

    public double polledPerSecond() {
        return Double.longBitsToDouble(v[Wire.QUEUE_POLLED_PER_SECOND]);
    }

    /** Claimed entries removed by commits (a commit whose write fails is taken back out). */
    public long consumed() {
        return v[Wire.QUEUE_CONSUMED];
    }

    public double consumedPerSecond() {
        return Double.longBitsToDouble(v[Wire.QUEUE_CONSUMED_PER_SECOND]);
    }

    /** Claimed entries handed back to the queue: by a rollback, a failed commit or a poll's byte budget. */
    public long returned() {
        return v[Wire.QUEUE_RETURNED];
    }

    /** Entries moved from this queue to its dead-letter queue. */
    public long deadLettered() {
        return v[Wire.QUEUE_DEAD_LETTERED];
    }

    /**
     * Milliseconds since the oldest entry present (claimed ones and ones handed back included)
     * became visible; empty for an empty queue, and always empty when metrics are off. Entries
     * carry no time on disk: one already in the queue when the store opened counts from the open,
     * and {@link #oldestAgeIsLowerBound()} says so.
     */
    public OptionalLong oldestEntryAgeMillis() {
        long age = v[Wire.QUEUE_OLDEST_ENTRY_AGE_MILLIS];
        return age < 0 ? OptionalLong.empty() : OptionalLong.of(age);
    }

    /** The oldest entry was in the queue when the store opened: its true age is at least {@link #oldestEntryAgeMillis()}. */
    public boolean oldestAgeIsLowerBound() {
        return v[Wire.QUEUE_OLDEST_AGE_IS_LOWER_BOUND] != 0;
    }

    @Override
    public String toString() {
        return "QueueMetrics[" + name + ": depth=" + depth() + ", available=" + available() + ", claimed=" + claimed() + ", enqueued=" + enqueued()
                + ", polled=" + polled() + ", consumed=" + consumed() + ", returned=" + returned() + ", deadLettered=" + deadLettered()
                + ", oldestEntryAgeMillis=" + oldestEntryAgeMillis() + (oldestAgeIsLowerBound() ? " (at least)" : "") + "]";
    }
}
