package org.rockcask.flink.source.reader;

import java.io.Serializable;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.apache.flink.annotation.Internal;
import org.rockcask.Store;
import org.rockcask.flink.internal.StagingQueues;

/**
 * Which queues a source reads: a fixed list of names, or every queue whose name starts with a
 * prefix. A sink's staging queues ({@code <target>.staging/<lineage>/<subtask>/<epoch>}) hold
 * records of checkpoints not yet committed and are never selected by a prefix.
 */
@Internal
public final class QueueSelector implements Serializable {
    private static final long serialVersionUID = 1L;

    private final List<String> names;
    private final String prefix;

    private QueueSelector(List<String> names, String prefix) {
        this.names = names;
        this.prefix = prefix;
    }

    public static QueueSelector names(List<String> names) {
        return new QueueSelector(Collections.unmodifiableList(new ArrayList<>(names)), null);
    }

    public static QueueSelector prefix(String prefix) {
        return new QueueSelector(null, prefix);
    }

    /** The selected queues that exist in {@code store}, sorted. */
    public List<String> list(Store store) {
        if (prefix != null) {
            List<String> found = new ArrayList<>();
            for (String queue : store.queues(prefix)) {
                if (!StagingQueues.parse(queue).isPresent()) {
                    found.add(queue);
                }
            }
            return found;
        }
        Set<String> existing = new HashSet<>(store.queues());
        List<String> found = new ArrayList<>();
        for (String name : names) {
            if (existing.contains(name)) {
                found.add(name);
            }
        }
        Collections.sort(found);
        return found;
    }

    @Override
    public String toString() {
        return prefix != null ? "queues starting with '" + prefix + "'" : "queues " + names;
    }
}
