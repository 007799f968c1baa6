package org.rockcask.flink;

import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * Throws once (in all) after checkpoint {@value #CHECKPOINT} (or the one given) completed, at the
 * first record or past the given number of records since a barrier. Static state (the MiniCluster
 * runs in this JVM): {@link #reset} before each job; {@link #ARMED} opens when a subtask is ready
 * to fail.
 */
final class FailOnceAfterCheckpoint extends AfterCheckpointMapper {
    private static final long serialVersionUID = 1L;
    static final long CHECKPOINT = 2;
    static final AtomicBoolean FAILED = new AtomicBoolean();
    static volatile CountDownLatch ARMED = new CountDownLatch(1);

    FailOnceAfterCheckpoint() {
        this(CHECKPOINT, 0);
    }

    FailOnceAfterCheckpoint(long checkpoint, int afterRecords) {
        super(checkpoint, afterRecords);
    }

    static void reset() {
        FAILED.set(false);
        ARMED = new CountDownLatch(1);
    }

    @Override
    void inject(String record) {
        if (FAILED.compareAndSet(false, true)) {
            throw new IllegalStateException("injected failure " + describe() + ", at " + record);
        }
    }

    @Override
    boolean pending() {
        return !FAILED.get();
    }

    @Override
    void armed() {
        ARMED.countDown();
    }
}
