package org.rockcask.flink.source;

import java.util.Objects;

/** A queue in the store of one host: what makes a split distinct. */
public final class SplitKey {
    private final String host;
    private final String queue;

    public SplitKey(String host, String queue) {
        this.host = Objects.requireNonNull(host, "host");
        this.queue = Objects.requireNonNull(queue, "queue");
    }

    public static SplitKey of(QueueSplit split) {
        return new SplitKey(split.host(), split.queue());
    }

    public String host() {
        return host;
    }

    public String queue() {
        return queue;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof SplitKey && ((SplitKey) o).host.equals(host) && ((SplitKey) o).queue.equals(queue);
    }

    @Override
    public int hashCode() {
        return Objects.hash(host, queue);
    }

    @Override
    public String toString() {
        return queue + "@" + host;
    }
}
