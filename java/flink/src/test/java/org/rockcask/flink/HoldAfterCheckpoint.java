package org.rockcask.flink;

import java.util.concurrent.CountDownLatch;

/**
 * Holds each subtask of the first run mid-stream (see {@link AfterCheckpointMapper}) until
 * {@link #RELEASED} opens: with every subtask held, a fault injected from outside (a TaskManager
 * killed) finds records in flight. Static state (the MiniCluster runs in this JVM): {@link #reset}
 * before each job.
 */
final class HoldAfterCheckpoint extends AfterCheckpointMapper {
    private static final long serialVersionUID = 1L;
    /** Counts down as each subtask is held. */
    static volatile CountDownLatch HELD = new CountDownLatch(0);
    static volatile CountDownLatch RELEASED = new CountDownLatch(0);

    private transient boolean held;

    HoldAfterCheckpoint(long checkpoint, int afterRecords) {
        super(checkpoint, afterRecords);
    }

    static void reset(int subtasks) {
        HELD = new CountDownLatch(subtasks);
        RELEASED = new CountDownLatch(1);
    }

    @Override
    void inject(String record) throws InterruptedException {
        if (!held && pending()) {
            held = true;
            HELD.countDown();
            // A killed TaskManager cancels the task, which interrupts this wait.
            RELEASED.await();
        }
    }

    @Override
    boolean pending() {
        return RELEASED.getCount() > 0;
    }
}
