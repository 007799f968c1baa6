package org.rockcask;

import java.time.Duration;
import java.util.Objects;

/**
 * How {@link Store#inTransaction(RetryPolicy, TransactionFunction)} retries a transaction that
 * failed with status {@code Conflict}: at most {@link #maxAttempts()} attempts, and no new
 * attempt once {@link #maxTime()} has passed since the first began. Before attempt {@code n + 1}
 * it sleeps a random time between 0 and {@code min(maxBackoff, baseBackoff * 2^(n - 1))}
 * ("full jitter"): threads that collided on a hot key spread out instead of colliding again.
 * Immutable: each setter returns a changed copy.
 */
public final class RetryPolicy {
    private int maxAttempts = 100;
    private Duration maxTime = Duration.ofSeconds(10);
    private Duration baseBackoff = Duration.ofNanos(100_000);
    private Duration maxBackoff = Duration.ofMillis(100);

    /**
     * 100 attempts within 10 seconds, backing off from up to 100 µs after the first conflict
     * to up to 100 ms (reached after the 11th).
     */
    public static RetryPolicy defaults() {
        return new RetryPolicy();
    }

    private RetryPolicy() {}

    /** Attempts in all, the first included: at least 1 (1: no retry). */
    public int maxAttempts() {
        return maxAttempts;
    }

    public RetryPolicy maxAttempts(int n) {
        if (n < 1) {
            throw new IllegalArgumentException("maxAttempts must be at least 1: " + n);
        }
        RetryPolicy p = copy();
        p.maxAttempts = n;
        return p;
    }

    /**
     * Time after which no new attempt starts, from the start of the first: an attempt under way
     * then is finished, never cut short. Zero: no retry after the first attempt.
     */
    public Duration maxTime() {
        return maxTime;
    }

    public RetryPolicy maxTime(Duration d) {
        RetryPolicy p = copy();
        p.maxTime = nonNegative(d, "maxTime");
        return p;
    }

    /** The bound of the first backoff (before the second attempt), doubled at each retry up to {@link #maxBackoff()}. */
    public Duration baseBackoff() {
        return baseBackoff;
    }

    public RetryPolicy baseBackoff(Duration d) {
        RetryPolicy p = copy();
        p.baseBackoff = nonNegative(d, "baseBackoff");
        return p;
    }

    /** The largest bound of one backoff. */
    public Duration maxBackoff() {
        return maxBackoff;
    }

    public RetryPolicy maxBackoff(Duration d) {
        RetryPolicy p = copy();
        p.maxBackoff = nonNegative(d, "maxBackoff");
        return p;
    }

    /** The bound of the backoff after failed attempt {@code attempt} (1-based), in nanoseconds. */
    long backoffBoundNanos(int attempt) {
        long base = Math.max(0, saturatedNanos(baseBackoff));
        long max = saturatedNanos(maxBackoff);
        int doublings = Math.min(attempt - 1, 62);
        long bound = base > (Long.MAX_VALUE >> doublings) ? Long.MAX_VALUE : base << doublings;
        return Math.min(bound, max);
    }

    static long saturatedNanos(Duration d) {
        return d.getSeconds() >= Long.MAX_VALUE / 1_000_000_000L - 1 ? Long.MAX_VALUE : d.toNanos();
    }

    private static Duration nonNegative(Duration d, String what) {
        Objects.requireNonNull(d, what);
        if (d.isNegative()) {
            throw new IllegalArgumentException(what + " must not be negative: " + d);
        }
        return d;
    }

    private RetryPolicy copy() {
        RetryPolicy p = new RetryPolicy();
        p.maxAttempts = maxAttempts;
        p.maxTime = maxTime;
        p.baseBackoff = baseBackoff;
        p.maxBackoff = maxBackoff;
        return p;
    }

    @Override
    public String toString() {
        return "RetryPolicy(maxAttempts " + maxAttempts + ", maxTime " + maxTime + ", backoff " + baseBackoff + " .. " + maxBackoff + ")";
    }
}
