package org.rockcask.internal;

import java.lang.ref.Cleaner;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;
import java.util.function.LongConsumer;
import java.util.function.LongFunction;
import java.util.function.Supplier;

/**
 * Owner of one native handle: counts the calls in flight so the handle is never freed under a
 * running call, refuses calls once closing starts (IllegalStateException), frees exactly once,
 * and lets a Cleaner free it if the owner is forgotten without {@code close()}.
 *
 * <p>The API classes hold one (they do not extend it, so it is not part of their API); the
 * drop-in's databases extend it. Internal: public only for RockCask's own packages and the
 * {@code tokyocabinet} drop-in; not API.
 */
public class NativeResource implements AutoCloseable {
    private static final Cleaner CLEANER = Cleaner.create();
    private static final int CLOSING = Integer.MIN_VALUE;

    private final String kind;
    private final long handle;
    /** Calls in flight; the sign bit is set once closing has started. */
    private final AtomicInteger users = new AtomicInteger();
    private final Cleaner.Cleanable cleanable;

    public NativeResource(String kind, long handle, LongConsumer free) {
        this.kind = kind;
        this.handle = handle;
        this.cleanable = CLEANER.register(this, new Free(handle, free));
    }

    /**
     * Runs {@code body} with the handle, counted as a call in flight: the handle cannot be freed
     * until it returns. The one way the owner's methods reach native code.
     */
    public final <T> T call(LongFunction<T> body) {
        long h = acquire();
        try {
            return body.apply(h);
        } finally {
            release();
        }
    }

    /** {@link #call} for a body without a result. */
    public final void run(LongConsumer body) {
        long h = acquire();
        try {
            body.accept(h);
        } finally {
            release();
        }
    }

    /**
     * {@link #call}, or {@code whenClosed}'s result (without running {@code body}) when this
     * resource is closed: for callers that report a closed resource other than by
     * {@link IllegalStateException}.
     */
    public final <T> T callIfOpen(LongFunction<T> body, Supplier<T> whenClosed) {
        if (!tryAcquire()) {
            return whenClosed.get();
        }
        try {
            return body.apply(handle);
        } finally {
            release();
        }
    }

    private long acquire() {
        if (!tryAcquire()) {
            throw new IllegalStateException(kind + " is closed");
        }
        return handle;
    }

    /** Counts a call in flight, unless closing has started. */
    private boolean tryAcquire() {
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

    private void release() {
        users.decrementAndGet();
    }

    public final boolean isClosed() {
        return users.get() < 0;
    }

    /** Runs once when closing starts, while calls may still be in flight (the handle is valid). */
    protected void beforeFree(long handle) {}

    /** Idempotent. Waits for calls in flight on other threads, then frees the native object. */
    @Override
    public void close() {
        for (;;) {
            int n = users.get();
            if (n < 0) {
                return;
            }
            if (users.compareAndSet(n, n | CLOSING)) {
                break;
            }
        }
        try {
            beforeFree(handle);
        } finally {
            while (users.get() != CLOSING) {
                LockSupport.parkNanos(TimeUnit.MICROSECONDS.toNanos(100));
            }
            cleanable.clean();
        }
    }

    /** The cleaning action: must not refer to the owner, or the owner would never be collected. */
    private static final class Free implements Runnable {
        private final long handle;
        private final LongConsumer free;

        Free(long handle, LongConsumer free) {
            this.handle = handle;
            this.free = free;
        }

        @Override
        public void run() {
            free.accept(handle);
        }
    }
}
