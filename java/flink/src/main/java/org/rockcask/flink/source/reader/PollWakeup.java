package org.rockcask.flink.source.reader;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * The reader's availability: a store has no way to announce new entries without claiming them,
 * so an idle reader is woken by a timer whose delay doubles while its queues stay empty (up to
 * {@link #MAX_DELAY_MILLIS}) and drops back once data flows; events that change what the reader
 * can do (new splits, a commit) wake it at once. Used from the task's thread only; the timer
 * thread merely completes futures.
 */
final class PollWakeup implements AutoCloseable {
    static final long MIN_DELAY_MILLIS = 1;
    static final long MAX_DELAY_MILLIS = 50;

    private final ScheduledExecutorService timer;
    private CompletableFuture<Void> wake = CompletableFuture.completedFuture(null);
    private long delayMillis = MIN_DELAY_MILLIS;

    PollWakeup(String threadName) {
        timer = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, threadName);
            t.setDaemon(true);
            return t;
        });
    }

    /** A future completed after the current idle delay (which then grows). */
    CompletableFuture<Void> afterIdleDelay() {
        if (wake.isDone()) {
            CompletableFuture<Void> next = new CompletableFuture<>();
            wake = next;
            timer.schedule(() -> next.complete(null), delayMillis, TimeUnit.MILLISECONDS);
            delayMillis = Math.min(MAX_DELAY_MILLIS, delayMillis * 2);
        }
        return wake;
    }

    /** A future completed only by {@link #wakeNow()}. */
    CompletableFuture<Void> untilWoken() {
        if (wake.isDone()) {
            wake = new CompletableFuture<>();
        }
        return wake;
    }

    /** Data arrived: the next idle wait starts short again. */
    void dataSeen() {
        delayMillis = MIN_DELAY_MILLIS;
    }

    void wakeNow() {
        wake.complete(null);
    }

    @Override
    public void close() {
        timer.shutdownNow();
        wake.complete(null);
    }
}
