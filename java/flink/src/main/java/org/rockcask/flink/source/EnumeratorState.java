package org.rockcask.flink.source;

import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/**
 * What the enumerator checkpoints: every split it ever made (so a queue is never split twice)
 * and those not assigned yet. Assigned splits live in their reader's state.
 */
public final class EnumeratorState {
    private final Set<SplitKey> known;
    private final List<QueueSplit> unassigned;

    public EnumeratorState(Set<SplitKey> known, List<QueueSplit> unassigned) {
        this.known = Collections.unmodifiableSet(new LinkedHashSet<>(known));
        this.unassigned = Collections.unmodifiableList(new ArrayList<>(unassigned));
    }

    public Set<SplitKey> known() {
        return known;
    }

    public List<QueueSplit> unassigned() {
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
