package org.rockcask.flink.source.enumerator;

import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import org.apache.flink.annotation.Internal;
import org.rockcask.flink.source.split.QueueSplit;

/**
 * What the enumerator checkpoints: every split it ever made (so a queue is never split twice)
 * and those not assigned yet. Assigned splits live in their reader's state. Public as the type of
 * the source's enumerator checkpoints; only the enumerator and its serializer look inside.
 */
@Internal
public final class EnumeratorState {
    private final Set<SplitKey> known;
    private final List<QueueSplit> unassigned;

    EnumeratorState(Set<SplitKey> known, List<QueueSplit> unassigned) {
        this.known = Collections.unmodifiableSet(new LinkedHashSet<>(known));
        this.unassigned = Collections.unmodifiableList(new ArrayList<>(unassigned));
    }

    Set<SplitKey> known() {
        return known;
    }

    List<QueueSplit> unassigned() {
        return unassigned;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof EnumeratorState && ((EnumeratorState) o).known.equals(known) && ((EnumeratorState) o).unassigned.equals(unassigned);
    }

    @Override
    public int hashCode() {
        return known.hashCode() * 31 + unassigned.hashCode();
    }

    @Override
    public String toString() {
        return "EnumeratorState[known=" + known + ", unassigned=" + unassigned + "]";
    }
}
