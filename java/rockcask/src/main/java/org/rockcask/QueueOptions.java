package org.rockcask;

import java.util.Objects;

/**
 * The settings of one queue, kept in the store and shared by everyone who opens it (see
 * {@link Store#configureQueue}): its delivery limit, its dead-letter queue and its capacity.
 * Settings are by name, so a queue can be configured before it exists; they outlive the queue
 * being dropped and created again. Immutable: each setter returns a changed copy.
 */
public final class QueueOptions {
    /** {@link #maxDeliveries()} that defers to {@link StoreOptions#maxDeliveries()}. */
    public static final int STORE_DEFAULT = -1;

    private int maxDeliveries = STORE_DEFAULT;
    private String deadLetterQueue;
    private long capacity;
    private long capacityBytes;

    /** No settings of its own: the store's delivery limit, {@code <queue>.dead}, no capacity. */
    public static QueueOptions defaults() {
        return new QueueOptions();
    }

    QueueOptions(int maxDeliveries, String deadLetterQueue, long capacity, long capacityBytes) {
        this.maxDeliveries = maxDeliveries;
        this.deadLetterQueue = deadLetterQueue;
        this.capacity = capacity;
        this.capacityBytes = capacityBytes;
    }

    private QueueOptions() {}

    /**
     * Deliveries after which an entry that comes back unconsumed (a rollback, a transaction
     * closed without commit, a refused commit, the process ending while it was delivered) goes
     * to the dead-letter queue instead: 0 for no limit, {@link #STORE_DEFAULT} for the store's.
     */
    public int maxDeliveries() {
        return maxDeliveries;
    }

    public QueueOptions maxDeliveries(int n) {
        if (n < STORE_DEFAULT) {
            throw new IllegalArgumentException("maxDeliveries must be 0 (no limit), positive, or STORE_DEFAULT (-1): " + n);
        }
        QueueOptions o = copy();
        o.maxDeliveries = n;
        return o;
    }

    /** Where entries over the limit go; null for {@code <queue>.dead}. */
    public String deadLetterQueue() {
        return deadLetterQueue;
    }

    public QueueOptions deadLetterQueue(String queue) {
        if (queue != null) {
            Wire.checkedQueueName(queue);
        }
        QueueOptions o = copy();
        o.deadLetterQueue = queue;
        return o;
    }

    /**
     * Most entries the queue may hold once a commit is written (entries claimed by open
     * transactions still count); 0 for no limit. A commit that would exceed it throws status
     * {@code QueueFull} (see {@link Transaction#commit()}).
     */
    public long capacity() {
        return capacity;
    }

    public QueueOptions capacity(long entries) {
        if (entries < 0) {
            throw new IllegalArgumentException("capacity must be 0 (no limit) or positive: " + entries);
        }
        QueueOptions o = copy();
        o.capacity = entries;
        return o;
    }

    /**
     * Most payload bytes the queue's entries may hold once a commit is written, as stored (after
     * compression: what fills the disk), each entry counting the size its object had when the
     * entry was committed; 0 for no limit. Checked like {@link #capacity()}, which may be set
     * too: a commit must fit both.
     */
    public long capacityBytes() {
        return capacityBytes;
    }

    public QueueOptions capacityBytes(long bytes) {
        if (bytes < 0) {
            throw new IllegalArgumentException("capacityBytes must be 0 (no limit) or positive: " + bytes);
        }
        QueueOptions o = copy();
        o.capacityBytes = bytes;
        return o;
    }

    private QueueOptions copy() {
        return new QueueOptions(maxDeliveries, deadLetterQueue, capacity, capacityBytes);
    }

    @Override
    public boolean equals(Object o) {
        if (!(o instanceof QueueOptions)) {
            return false;
        }
        QueueOptions q = (QueueOptions) o;
        return q.maxDeliveries == maxDeliveries && q.capacity == capacity && q.capacityBytes == capacityBytes
                && Objects.equals(q.deadLetterQueue, deadLetterQueue);
    }

    @Override
    public int hashCode() {
        return Objects.hash(maxDeliveries, deadLetterQueue, capacity, capacityBytes);
    }

    @Override
    public String toString() {
        return "QueueOptions[maxDeliveries=" + (maxDeliveries == STORE_DEFAULT ? "store default" : maxDeliveries) + ", deadLetterQueue="
                + (deadLetterQueue == null ? "<queue>.dead" : deadLetterQueue) + ", capacity=" + capacity + ", capacityBytes=" + capacityBytes + "]";
    }
}
