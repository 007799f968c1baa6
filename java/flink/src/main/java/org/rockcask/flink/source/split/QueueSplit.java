package org.rockcask.flink.source.split;

import java.util.Objects;
import org.apache.flink.annotation.Internal;
import org.apache.flink.api.connector.source.SourceSplit;

/**
 * One queue in the store of one host, and the sequence numbers of its entries that a reader
 * claimed but had not committed when the split was checkpointed: after a restore those entries
 * are back at the head of the queue, already delivered downstream, and are acknowledged again
 * without being emitted.
 */
@Internal
public final class QueueSplit implements SourceSplit {
    private final String queue;
    private final String host;
    private final SequenceRanges skip;

    public QueueSplit(String queue, String host, SequenceRanges skip) {
        this.queue = Objects.requireNonNull(queue, "queue");
        this.host = Objects.requireNonNull(host, "host");
        this.skip = skip.copy();
    }

    /** A split of {@code queue} on {@code host} with nothing to skip. */
    public static QueueSplit fresh(String queue, String host) {
        return new QueueSplit(queue, host, new SequenceRanges());
    }

    @Override
    public String splitId() {
        return queue;
    }

    public String queue() {
        return queue;
    }

    /** The host whose store holds the queue. */
    public String host() {
        return host;
    }

    /** The sequences to acknowledge without emitting (a copy). */
    public SequenceRanges skip() {
        return skip.copy();
    }

    @Override
    public boolean equals(Object o) {
        if (!(o instanceof QueueSplit)) {
            return false;
        }
        QueueSplit other = (QueueSplit) o;
        return other.queue.equals(queue) && other.host.equals(host) && other.skip.equals(skip);
    }

    @Override
    public int hashCode() {
        return Objects.hash(queue, host, skip);
    }

    @Override
    public String toString() {
        return "QueueSplit[queue=" + queue + ", host=" + host + ", skip=" + skip + "]";
    }
}
