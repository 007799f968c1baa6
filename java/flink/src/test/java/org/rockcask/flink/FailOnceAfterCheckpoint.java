package org.rockcask.flink;

import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicBoolean;
import org.apache.flink.api.common.functions.MapFunction;
import org.apache.flink.api.common.state.CheckpointListener;

/**
 * Passes records through, and throws once at the first record after checkpoint
 * {@value #CHECKPOINT} completed. Static state (the MiniCluster runs in this JVM): {@link #reset}
 * before each job; {@link #ARMED} opens when a subtask is ready to fail.
 */
final class FailOnceAfterCheckpoint implements MapFunction<String, String>, CheckpointListener {
    private static final long serialVersionUID = 1L;
    static final long CHECKPOINT = 2;
    static final AtomicBoolean FAILED = new AtomicBoolean();
    static volatile CountDownLatch ARMED = new CountDownLatch(1);

    private transient boolean armed;

    static void reset() {
        FAILED.set(false);
        ARMED = new CountDownLatch(1);
    }

    @Override
    public String map(String record) {
        if (armed && FAILED.compareAndSet(false, true)) {
            throw new IllegalStateException("injected failure after checkpoint " + CHECKPOINT + ", at " + record);
        }
        return record;
    }

    @Override
    public void notifyCheckpointComplete(long checkpointId) {
        if (checkpointId >= CHECKPOINT && !FAILED.get()) {
            armed = true;
            ARMED.countDown();
        }
    }
}
