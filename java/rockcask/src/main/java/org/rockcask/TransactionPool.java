package org.rockcask;

import java.util.concurrent.atomic.AtomicReferenceArray;
import org.rockcask.internal.NativeResource;

/**
 * A store's native transactions that are ready to serve a new {@link Transaction}: a transaction
 * that ends returns its native object here, started again as a new transaction of the store,
 * and the next {@link Store#begin()} on the same thread takes it. Beginning then costs no native
 * call, no native allocation and no Cleaner registration (a registration locks the Cleaner's
 * list, which every thread shares).
 *
 * <p>One slot per thread (threads spread over {@value #SLOTS} slots by id, each slot
 * on a cache line of its own so that threads do not contend): a thread that finds its slot empty
 * has the store make a native transaction, one that finds it full when returning one frees it.
 * So the pool holds at most {@value #SLOTS} idle native transactions, each a few hundred bytes
 * that hold no snapshot, no key and no entry (the restart released them).
 *
 * <p>Each pooled object keeps its Cleaner registration: a {@link Transaction} that is never
 * closed is collected with the native object it borrowed, which the Cleaner frees (rolling it
 * back). {@link #drain()} frees the idle ones when the store closes.
 */
final class TransactionPool {
    static final int SLOTS = 16;
    /** References apart per slot: 16 compressed references (64 bytes) or 8 plain ones fill a line. */
    private static final int SPREAD = 16;

    private final AtomicReferenceArray<NativeResource> slots = new AtomicReferenceArray<>(SLOTS * SPREAD);

    /** This thread's idle native transaction, or null. */
    NativeResource take() {
        int i = slot();
        // Read first: an empty slot is then not written, and stays in this core's cache.
        return slots.get(i) == null ? null : slots.getAndSet(i, null);
    }

    /**
     * Keeps {@code tx} (a new transaction of the store) for this thread's next begin, or frees it
     * when the slot is taken or the store has closed.
     */
    void give(NativeResource tx, Store store) {
        int i = slot();
        if (!slots.compareAndSet(i, null, tx)) {
            tx.close();
            return;
        }
        // A close that drained the pool before the line above missed tx: take it back. Whatever
        // is in the slot now belongs to a closed store and is freed either way.
        if (store.isClosed()) {
            NativeResource left = slots.getAndSet(i, null);
            if (left != null) {
                left.close();
            }
        }
    }

    /** Frees every idle native transaction; for the store's close, once it refuses new calls. */
    void drain() {
        for (int i = 0; i < SLOTS; i++) {
            NativeResource tx = slots.getAndSet(i * SPREAD, null);
            if (tx != null) {
                tx.close();
            }
        }
    }

    private static int slot() {
        // Thread ids are given in sequence, so threads started together get slots of their own;
        // the id is a field read (an identity hash called into the VM here).
        @SuppressWarnings("deprecation") // Thread.threadId() replaces it from Java 19 on
        long id = Thread.currentThread().getId();
        return ((int) id & (SLOTS - 1)) * SPREAD;
    }
}
