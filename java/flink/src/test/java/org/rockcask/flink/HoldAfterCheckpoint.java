package org.rockcask.flink;

import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * Holds the first subtask to get mid-stream (see {@link AfterCheckpointMapper}) until
 * {@link #RELEASED} opens: a fault injected from outside meanwhile (a TaskManager killed) finds
 * records in flight past a completed checkpoint. Holds once in all. Static state (the MiniCluster
 * runs in this JVM): {@link #reset} before each job.
 */
final class HoldAfterCheckpoint extends AfterCheckpointMapper {
    private static final long serialVersionUID = 1L;
    private static final AtomicBoolean HOLDING = new AtomicBoolean();
    /** Opens when a subtask arms (a checkpoint completed). */
    static volatile CountDownLatch ARMED = new CountDownLatch(1);
    static volatile CountDownLatch HELD = new CountDownLatch(1);
    static volatile CountDownLatch RELEASED = new CountDownLatch(1);

    HoldAfterCheckpoint(long checkpoint, int afterRecords) {
        super(checkpoint, afterRecords);
    }

    static void reset() {
        HOLDING.set(false);
        ARMED = new CountDownLatch(1);
        HELD = new CountDownLatch(1);
        RELEASED = new CountDownLatch(1);
    }

    @Override
    void inject(String record) throws InterruptedException {
        if (HOLDING.compareAndSet(false, true)) {
            HELD.countDown();
            // A killed TaskManager cancels the task, which interrupts this wait.
            RELEASED.await();
        }
    }

    @Override
    boolean pending() {
        return !HOLDING.get();
    }

    @Override
    void armed() {
        ARMED.countDown();
    }
}
