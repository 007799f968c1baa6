package org.rockcask.internal;

import java.lang.ref.Reference;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;
import java.util.function.LongConsumer;
import java.util.function.LongFunction;
import java.util.function.Supplier;

/**
 * Counts the calls in flight on an object and closes it once: after {@link #close()} starts, new
 * calls are refused (IllegalStateException naming the object), and {@code close} returns only
 * when the calls in flight have. What a {@link NativeResource} guards its handle with, and what a
 * transaction guards the pooled native object it borrows with.
 *
 * <p>Internal: public only for RockCask's own packages; not API.
 */
public final class CallGate {
    private static final int CLOSING = Integer.MIN_VALUE;

    private final String kind;
    /** Calls in flight; the sign bit is set once closing has started. */
    private final AtomicInteger users = new AtomicInteger();

    /** {@code kind} names the object in the message of a refused call ("Store is closed"). */
    public CallGate(String kind) {
        this.kind = kind;
    }

    /**
     * Runs {@code body} with {@code handle} as a call in flight; {@code owner}, the object whose
     * collection would free the handle (its Cleaner), is kept reachable until the call returns.
     */
    public <T> T call(long handle, LongFunction<T> body, Object owner) {
        enter();
        try {
            return body.apply(handle);
        } finally {
            exit();
            Reference.reachabilityFence(owner);
        }
    }

    /** {@link #call} for a body without a result. */
    public void run(long handle, LongConsumer body, Object owner) {
        enter();
        try {
            body.accept(handle);
        } finally {
            exit();
            Reference.reachabilityFence(owner);
        }
    }

    /**
     * {@link #call}, or {@code whenClosed}'s result (without running {@code body}) once closing
     * has started.
     */
    public <T> T callIfOpen(long handle, LongFunction<T> body, Supplier<T> whenClosed, Object owner) {
        if (!tryEnter()) {
            return whenClosed.get();
        }
        try {
            return body.apply(handle);
        } finally {
            exit();
            Reference.reachabilityFence(owner);
        }
    }

    /** Counts a call in flight; refuses it with IllegalStateException once closing has started. */
    private void enter() {
        if (!tryEnter()) {
            throw new IllegalStateException(kind + " is closed");
        }
    }

    /** Counts a call in flight, unless closing has started. */
    private boolean tryEnter() {
        for (;;) {
            int n = users.get();
            if (n < 0) {
                return false;
            }
            if (users.compareAndSet(n, n + 1)) {
                return true;
            }
        }
    }

    /** Ends a call counted by {@link #enter} or a successful {@link #tryEnter}. */
    private void exit() {
        users.decrementAndGet();
    }

    public boolean isClosed() {
        return users.get() < 0;
    }

    /**
     * Starts closing: refuses new calls from now on. True for the one call that started it (which
     * must then {@link #awaitCalls()}); false if closing had started before.
     */
    public boolean startClosing() {
        for (;;) {
            int n = users.get();
            if (n < 0) {
                return false;
            }
            if (users.compareAndSet(n, n | CLOSING)) {
                return true;
            }
        }
    }

    /** Waits until no call is in flight; for the closer, after {@link #startClosing()}. */
    public void awaitCalls() {
        while (users.get() != CLOSING) {
            LockSupport.parkNanos(TimeUnit.MICROSECONDS.toNanos(100));
        }
    }

    /** {@link #startClosing()} then, if this call started it, {@link #awaitCalls()}. */
    public boolean close() {
        if (!startClosing()) {
            return false;
        }
        awaitCalls();
        return true;
    }
}
