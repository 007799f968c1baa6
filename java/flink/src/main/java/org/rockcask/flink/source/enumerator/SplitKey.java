package org.rockcask.flink.source.enumerator;

import java.util.Objects;

/** A queue in the store of one host: what makes a split distinct. */
final class SplitKey {
    private final String host;
    private final String queue;

    SplitKey(String host, String queue) {
        this.host = Objects.requireNonNull(host, "host");
        this.queue = Objects.requireNonNull(queue, "queue");
    }

    String host() {
        return host;
    }

    String queue() {
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
