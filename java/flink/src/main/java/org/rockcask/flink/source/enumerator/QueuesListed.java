package org.rockcask.flink.source.enumerator;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import org.apache.flink.annotation.Internal;
import org.apache.flink.api.connector.source.SourceEvent;

/** A reader's answer to {@link ListQueuesRequest}: its host and the selected queues found there. */
@Internal
public final class QueuesListed implements SourceEvent {
    private static final long serialVersionUID = 1L;

    private final String host;
    private final List<String> queues;

    public QueuesListed(String host, List<String> queues) {
        this.host = host;
        this.queues = Collections.unmodifiableList(new ArrayList<>(queues));
    }

    public String host() {
        return host;
    }

    public List<String> queues() {
        return queues;
    }

    @Override
    public String toString() {
        return "QueuesListed[host=" + host + ", queues=" + queues + "]";
    }
}
