package org.rockcask.flink.source.enumerator;

import org.apache.flink.annotation.Internal;
import org.apache.flink.api.connector.source.SourceEvent;

/**
 * Asks a reader to list the selected queues in the store of its host: the enumerator may run on
 * another machine, whose store (if any) is not the one the readers consume.
 */
@Internal
public final class ListQueuesRequest implements SourceEvent {
    private static final long serialVersionUID = 1L;

    @Override
    public String toString() {
        return "ListQueuesRequest";
    }
}
