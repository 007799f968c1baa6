package org.rockcask;

import java.util.Objects;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;

/** The retry loop behind {@link Store#inTransaction}: attempts, backoff, and what is thrown when it gives up. */
final class Retries {
    private Retries() {}

    static <T> T run(Store store, RetryPolicy policy, TransactionFunction<T> fn) {
        Objects.requireNonNull(policy, "policy");
        Objects.requireNonNull(fn, "fn");
        long start = System.nanoTime();
        long maxTime = RetryPolicy.saturatedNanos(policy.maxTime());
        for (int attempt = 1; ; attempt++) {
            RockCaskException conflict;
            try (Transaction tx = store.begin()) {
                T result = fn.apply(tx);
                if (!tx.isFinished()) {
                    tx.commit();
                }
                return result;
            } catch (RockCaskException e) {
                // Any other status is no race lost: retrying would fail again, or hide a fault.
                if (e.status() != RockCaskException.Status.Conflict) {
                    throw e;
                }
                conflict = e;
            }
            long elapsed = System.nanoTime() - start;
            if (attempt >= policy.maxAttempts() || elapsed >= maxTime) {
                throw gaveUp(conflict, attempt, elapsed, "");
            }
            long bound = policy.backoffBoundNanos(attempt);
            long sleep = Math.min(bound <= 0 ? 0 : ThreadLocalRandom.current().nextLong(bound), maxTime - elapsed);
            // TimeUnit.sleep of 0 does not look at the interrupt flag: a thread that was asked
            // to stop must not spin through attempts.
            if (Thread.currentThread().isInterrupted()) {
                throw gaveUp(conflict, attempt, elapsed, ", interrupted before retrying");
            }
            try {
                TimeUnit.NANOSECONDS.sleep(sleep);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw gaveUp(conflict, attempt, System.nanoTime() - start, ", interrupted while backing off");
            }
        }
    }

    /** The last conflict, with how many attempts were made and how long they took; the thread's interrupt flag is left as it is. */
    private static RockCaskException gaveUp(RockCaskException last, int attempts, long elapsedNanos, String why) {
        String prefix = RockCaskException.Status.Conflict.name() + ": ";
        String detail = last.getMessage().startsWith(prefix) ? last.getMessage().substring(prefix.length()) : last.getMessage();
        RockCaskException e = new RockCaskException(RockCaskException.Status.Conflict, String.format("gave up after %d attempt%s in %.1f ms%s,"
                + " each ended by a conflict; the last: %s", attempts, attempts == 1 ? "" : "s", elapsedNanos / 1e6, why, detail));
        e.initCause(last);
        return e;
    }
}
