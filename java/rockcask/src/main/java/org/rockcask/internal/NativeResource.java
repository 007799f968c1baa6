package org.rockcask.internal;

import java.lang.ref.Cleaner;
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

    private final long handle;
    private final CallGate gate;
    private final Cleaner.Cleanable cleanable;

    public NativeResource(String kind, long handle, LongConsumer free) {
        this.handle = handle;
        this.gate = new CallGate(kind);
        this.cleanable = CLEANER.register(this, new Free(handle, free));
    }

    /**
     * Runs {@code body} with the handle, counted as a call in flight: the handle cannot be freed
     * until it returns. The one way the owner's methods reach native code.
     */
    public final <T> T call(LongFunction<T> body) {
        // This is the owner: until the call returns, the Cleaner must not free the handle.
        return gate.call(handle, body, this);
    }

    /** {@link #call} for a body without a result. */
    public final void run(LongConsumer body) {
        gate.run(handle, body, this);
    }

    /**
     * {@link #call}, or {@code whenClosed}'s result (without running {@code body}) when this
     * resource is closed: for callers that report a closed resource other than by
     * {@link IllegalStateException}.
     */
    public final <T> T callIfOpen(LongFunction<T> body, Supplier<T> whenClosed) {
        return gate.callIfOpen(handle, body, whenClosed, this);
    }

    /**
     * The handle, for an owner that keeps this resource from being closed or collected while it
     * uses it by other means (a transaction borrowing a pooled native object guards it with its
     * own {@link CallGate} and keeps it reachable).
     */
    public final long borrowedHandle() {
        return handle;
    }

    public final boolean isClosed() {
        return gate.isClosed();
    }

    /** Runs once when closing starts, while calls may still be in flight (the handle is valid). */
    protected void beforeFree(long handle) {}

    /** Idempotent. Waits for calls in flight on other threads, then frees the native object. */
    @Override
    public void close() {
        if (!gate.startClosing()) {
            return;
        }
        try {
            beforeFree(handle);
        } finally {
            gate.awaitCalls();
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
