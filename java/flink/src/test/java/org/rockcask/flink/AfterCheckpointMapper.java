package org.rockcask.flink;

import org.apache.flink.api.common.functions.MapFunction;
import org.apache.flink.api.common.state.CheckpointListener;
import org.apache.flink.runtime.state.FunctionInitializationContext;
import org.apache.flink.runtime.state.FunctionSnapshotContext;
import org.apache.flink.streaming.api.checkpoint.CheckpointedFunction;

/**
 * Passes records through and injects a fault mid-stream: once checkpoint {@code checkpoint}
 * completed, at each record past the first {@code afterRecords} since the last checkpoint
 * barrier. Those records are then read (their claims open) and staged by a chained writer for a
 * checkpoint that has not completed: what a restart must neither lose nor repeat.
 */
abstract class AfterCheckpointMapper implements MapFunction<String, String>, CheckpointListener, CheckpointedFunction {
    private static final long serialVersionUID = 1L;
    private final long checkpoint;
    private final int afterRecords;
    private transient boolean armed;
    private transient int sinceBarrier;

    AfterCheckpointMapper(long checkpoint, int afterRecords) {
        this.checkpoint = checkpoint;
        this.afterRecords = afterRecords;
    }

    /** The fault, for a record past {@code afterRecords} since a barrier. */
    abstract void inject(String record) throws Exception;

    /** Whether the fault is still to come (a mapper arms only then). */
    abstract boolean pending();

    /** Called when this subtask arms. */
    void armed() {}

    final String describe() {
        return afterRecords + " records after a barrier past checkpoint " + checkpoint;
    }

    @Override
    public final String map(String record) throws Exception {
        if (armed && ++sinceBarrier > afterRecords) {
            inject(record);
        }
        return record;
    }

    @Override
    public final void snapshotState(FunctionSnapshotContext context) {
        sinceBarrier = 0;
    }

    @Override
    public final void initializeState(FunctionInitializationContext context) {
        // Stateless: only the barriers matter.
    }

    @Override
    public final void notifyCheckpointComplete(long checkpointId) {
        if (checkpointId >= checkpoint && !armed && pending()) {
            armed = true;
            armed();
        }
    }
}
