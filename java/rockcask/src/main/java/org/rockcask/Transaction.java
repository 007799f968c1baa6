package org.rockcask;

import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Objects;
import java.util.UUID;
import java.util.function.LongConsumer;
import java.util.function.LongFunction;
import org.rockcask.internal.CallGate;
import org.rockcask.internal.NativeResource;

/**
 * A unit of work on a {@link Store}: polls, enqueues, puts and deletes all take effect at
 * {@link #commit()}, atomically, or not at all.
 *
 * <ul>
 *   <li>Polled entries are invisible to other transactions at once; {@link #rollback()} (or
 *       {@link #close()} without commit, or a crash) puts them back at the head of their queue
 *       in their original order.</li>
 *   <li>Reads see this transaction's own writes: {@link #get} returns what {@link #put} wrote,
 *       and {@link #poll} returns this transaction's own enqueues after the committed entries.</li>
 *   <li>Object lifetime: an object created by {@link #enqueue(String, byte[])} is owned by its
 *       queue entries and deleted when the last of them is consumed ({@link #enqueue(String,
 *       UUID)} of such an object adds an owning entry). An object created by {@link #put}
 *       lives until {@link #delete}; entries enqueued for it are references. {@code put} over a
 *       queue-owned object replaces its payload and keeps it queue-owned. Deleting an object
 *       leaves the entries committed before for it: they are delivered with a {@code null}
 *       payload. A store opened with {@link StoreOptions#inlinePayloadBytes} keeps small
 *       payloads of {@code enqueue(queue, bytes)} in their entry instead: no object has their
 *       id, so {@code get}, {@code put}, {@code delete} and {@code enqueue(queue, id)} of it see
 *       none.</li>
 *   <li>No new entry for a deleted object: what a transaction relied on finding is checked again
 *       when it commits, in commit order, against every commit ordered before it. If an object
 *       it enqueued by id, or a queue-owned object it replaced with {@code put}, has been deleted
 *       by such a commit (with {@link #delete}, or by consuming its last entry), the commit fails
 *       with status {@code NoSuchObject} and nothing of it is applied. (An object this
 *       transaction created itself, with {@code enqueue(queue, bytes)} or with {@code put} of an
 *       id that was not queue-owned, needs no such check.)</li>
 *   <li>Durability: when {@code commit} returns, the work is on disk (synced when
 *       {@link StoreOptions#syncOnCommit()} is on, the default).</li>
 *   <li>Names (of queues, dead-letter queues and maps, and name prefixes, everywhere in the API)
 *       are their UTF-8 bytes, 1 to {@link Store#MAX_QUEUE_NAME_BYTES} of them, and must be
 *       valid UTF-16: a string holding an unpaired surrogate has no UTF-8 form (Java's encoder
 *       would write {@code '?'} for it, making a lone U+D800, a lone U+DC00 and {@code "?"} one
 *       name) and is refused with {@link IllegalArgumentException} naming the argument and the
 *       surrogate's index. Characters above U+FFFF (surrogate pairs) are names like any other.
 *       A rollback's reason is text, not a name: an unpaired surrogate in it becomes
 *       {@code '?'}, as Java encodes it, so a rollback never fails on its reason.</li>
 * </ul>
 *
 * <p>Enqueues and puts are buffered on the Java side and handed to the native store in chunks
 * (before any other call, at commit, and whenever the buffer fills), so a transaction of many
 * small items costs a few JNI crossings, not one per item. Arguments are checked at once; a
 * storage failure while a chunk is applied rolls the whole transaction back and is reported by
 * the call that handed the chunk over (the exception's status is the failure's, such as
 * {@code IOError}).
 *
 * <p>Meant for one thread at a time; calls from several threads are serialized, never raced.
 */
public final class Transaction implements AutoCloseable {
    /**
     * The native transaction, borrowed from the store's pool for this transaction's life and
     * returned to it by {@link #close()}, started again as a new one ({@link TransactionPool}).
     */
    private final NativeResource nativeTx;
    /** {@link #nativeTx}'s handle, used under {@link #gate}. */
    private final long handle;
    /** Guards the borrowed native transaction: no call once this transaction is closed. */
    private final CallGate gate = new CallGate("Transaction");
    private final Store store;
    private final PendingOps pending = new PendingOps();
    /** Null while open; how the transaction ended otherwise. */
    private String finished;
    /** The last id given to {@link #put}, still in {@link #pending}: enqueueing it needs no lookup. */
    private UUID lastPendingPut;
    /** The last queue name used and its checked UTF-8 bytes; null before the first. */
    private NameBytes lastName;

    Transaction(NativeResource nativeTx, Store store) {
        this.nativeTx = nativeTx;
        this.handle = nativeTx.borrowedHandle();
        this.store = store;
    }

    /** Creates an object holding {@code payload} and appends an entry for it to {@code queue}. */
    public synchronized UUID enqueue(String queue, byte[] payload) {
        byte[] name = name(queue);
        checkPayload(payload);
        return call(h -> {
            checkWritable();
            UUID id = Ids.next();
            if (payload.length > PendingOps.DIRECT_PAYLOAD_BYTES) {
                flush(h);
                TransactionNative.enqueueNew(h, name, id.getMostSignificantBits(), id.getLeastSignificantBits(), payload);
            } else if (!pending.enqueueNew(name, id, payload)) {
                flush(h);
                pending.enqueueNew(name, id, payload);
            }
            return id;
        });
    }

    /**
     * Appends an entry for the existing object {@code id} to {@code queue}, without copying it.
     * The object must still exist when the transaction commits: if another commit deletes it
     * first, {@link #commit()} fails with status {@code NoSuchObject}.
     *
     * @throws RockCaskException with status {@code NoSuchObject} when there is no such object
     */
    public synchronized void enqueue(String queue, UUID id) {
        byte[] name = name(queue);
        Objects.requireNonNull(id, "id");
        run(h -> {
            checkWritable();
            // An object put in the pending buffer certainly exists: keep buffering.
            if (id.equals(lastPendingPut) && pending.enqueueExisting(name, id)) {
                return;
            }
            flush(h);
            TransactionNative.enqueueId(h, name, id.getMostSignificantBits(), id.getLeastSignificantBits());
        });
    }

    /** Removes and returns the head of {@code queue}, or {@code null} when it is empty. */
    public Message poll(String queue) {
        List<Message> one = poll(queue, 1);
        return one.isEmpty() ? null : one.get(0);
    }

    /**
     * Removes and returns up to {@code max} (1 to 1,048,576) items from the head of
     * {@code queue}, in order. If the store cannot read what this claimed (a damaged object, a
     * failed disk), the whole transaction is rolled back and the exception says so: claimed items
     * are never consumed without having been delivered.
     *
     * <p>One call returns at most {@link Store#MAX_RESULT_BYTES} of payloads (the result crosses
     * as one Java array): when the items' payloads together are larger, it returns fewer
     * (always at least one, whatever its size) and the rest stay at the head for the next call. If the Java heap
     * cannot hold the result ({@link OutOfMemoryError}), the transaction is rolled back first,
     * so nothing polled is lost.
     */
    public synchronized List<Message> poll(String queue, int max) {
        byte[] name = name(queue);
        return call(h -> {
            checkOpen();
            flush(h);
            return delivered(h, TransactionNative.poll(h, name, max));
        });
    }

    /** Decodes polled items; a heap too small for them rolls the transaction back (see poll). */
    private List<Message> delivered(long h, byte[] packed) {
        try {
            return Wire.messages(packed);
        } catch (OutOfMemoryError e) {
            pending.clear();
            TransactionNative.rollback(h);
            finished = "rolled back";
            throw e;
        }
    }

    /**
     * The first {@code max} items of {@code queue} in this transaction's snapshot, left in place
     * (at most what one call of {@code poll} returns: fewer when their payloads exceed
     * {@link Store#MAX_RESULT_BYTES}): the entries committed when the snapshot was taken (at the
     * transaction's first read, a peek or a map read; docs/MAPS.md, "Isolation"), in order, less
     * those this transaction polled, then its own enqueues. Entries another open transaction
     * polled are still committed and shown; a {@link #poll(String, int)} claims from the latest
     * state and may get other items.
     */
    public synchronized List<Message> peek(String queue, int max) {
        byte[] name = name(queue);
        return call(h -> {
            checkOpen();
            flush(h);
            return Wire.messages(TransactionNative.peek(h, name, max));
        });
    }

    /**
     * Polls one item, waiting up to {@code timeout} for another transaction to commit one.
     *
     * @return the item, or {@code null} when the timeout passed first
     * @throws IllegalStateException when the store is closed while waiting
     */
    public synchronized Message take(String queue, Duration timeout) {
        byte[] name = name(queue);
        long millis = millis(timeout, "timeout");
        return call(h -> {
            checkOpen();
            flush(h);
            List<Message> one = delivered(h, TransactionNative.take(h, name, millis));
            return one.isEmpty() ? null : one.get(0);
        });
    }

    /**
     * Stores {@code payload} under {@code id}, replacing what was there. Over a queue-owned
     * object, the object stays queue-owned: if another commit consumes its last entry (deleting
     * it) before this transaction commits, {@link #commit()} fails with status
     * {@code NoSuchObject}.
     */
    public synchronized void put(UUID id, byte[] payload) {
        Objects.requireNonNull(id, "id");
        checkPayload(payload);
        run(h -> {
            checkWritable();
            if (payload.length > PendingOps.DIRECT_PAYLOAD_BYTES) {
                flush(h);
                TransactionNative.put(h, id.getMostSignificantBits(), id.getLeastSignificantBits(), payload);
            } else {
                if (!pending.put(id, payload)) {
                    flush(h);
                    pending.put(id, payload);
                }
                lastPendingPut = id;
            }
        });
    }

    /** The payload of object {@code id}, or {@code null} when there is none. */
    public synchronized byte[] get(UUID id) {
        Objects.requireNonNull(id, "id");
        return call(h -> {
            checkOpen();
            flush(h);
            return TransactionNative.get(h, id.getMostSignificantBits(), id.getLeastSignificantBits());
        });
    }

    /**
     * The payloads of objects {@code ids}, in their order: element {@code i} is what
     * {@link #get(UUID) get(ids.get(i))} returns ({@code null} where there is no object). One call
     * into the store for all of them, whose stored objects are read in batched lookups: much
     * faster than a {@code get} per id. At most 1,048,576 ids per call
     * (more are refused with {@link IllegalArgumentException}).
     *
     * @throws NullPointerException when {@code ids} or one of its elements is null (naming its index)
     */
    public synchronized List<byte[]> getAll(List<UUID> ids) {
        Objects.requireNonNull(ids, "ids");
        if (ids.size() > Wire.MAX_BATCH_ITEMS) {
            throw new IllegalArgumentException("getAll reads at most " + Wire.MAX_BATCH_ITEMS + " ids per call, got " + ids.size());
        }
        long[] bits = new long[ids.size() * 2];
        int i = 0;
        for (UUID id : ids) {
            if (id == null) {
                throw new NullPointerException("ids[" + i / 2 + "]");
            }
            bits[i++] = id.getMostSignificantBits();
            bits[i++] = id.getLeastSignificantBits();
        }
        return call(h -> {
            checkOpen();
            flush(h);
            return Arrays.asList(TransactionNative.getAll(h, bits));
        });
    }

    /** Deletes object {@code id}; returns whether it existed. */
    public synchronized boolean delete(UUID id) {
        Objects.requireNonNull(id, "id");
        return call(h -> {
            checkWritable();
            flush(h);
            return TransactionNative.delete(h, id.getMostSignificantBits(), id.getLeastSignificantBits());
        });
    }

    /**
     * Removes every entry of {@code queue}: claims each one no other transaction holds (as a
     * poll of all of them would, without reading their payloads), those a rollback delayed
     * ({@link #rollback(String, Duration)}) and that are not due yet included, and takes back this
     * transaction's own enqueues to it. The commit deletes them (a queue-owned object goes with
     * its last entry) and, if the queue has no entry left then, forgets its name: {@link
     * Store#queues()} no longer lists it, and a later enqueue creates it anew, numbering from 0.
     * Entries another transaction holds, and entries committed after this call, stay (and so
     * does the name). Nothing happens unless this transaction commits; a rollback hands every
     * entry back as it was, a delayed one with the delay it has left.
     *
     * @return how many entries the commit removes
     */
    public synchronized long dropQueue(String queue) {
        byte[] name = name(queue);
        return call(h -> {
            checkWritable();
            flush(h);
            return TransactionNative.dropQueue(h, name);
        });
    }

    /**
     * Moves every entry of {@code from} to the tail of {@code to}, in order: claims each one no
     * other transaction holds, delayed ones included as in {@link #dropQueue}, and this
     * transaction's own enqueues to {@code from}, and enqueues the same objects in {@code to} (no
     * payload is read or copied; a queue-owned object stays queue-owned, by its entry in {@code
     * to}). Each arrives in {@code to} as a new entry: its {@link Message#deliveries()} count from 1
     * again and it carries no delay, so one that was waiting out a delay in {@code from} is
     * delivered in its turn in {@code to}. The commit then forgets {@code from} as {@link
     * #dropQueue} does; a rollback hands every entry back to {@code from} as it was.
     *
     * @return how many entries move
     */
    public synchronized long moveQueue(String from, String to) {
        byte[] fromName = name(from);
        byte[] toName = name(to);
        if (from.equals(to)) {
            throw new IllegalArgumentException("queue '" + from + "' cannot be moved into itself");
        }
        return call(h -> {
            checkWritable();
            flush(h);
            return TransactionNative.moveQueue(h, fromName, toName);
        });
    }

    /**
     * Applies everything atomically and durably. Afterwards the transaction is finished, whether
     * the commit succeeded or not: further calls throw {@link IllegalStateException}. Commits
     * from several threads share one synced write (group commit).
     *
     * <p>When it throws, the items this transaction polled are back at the head of their queues
     * in their original order, as after {@link #rollback()}, and none of its work is visible:
     * <ul>
     *   <li>Status {@code NoSuchObject}: refused before anything was written, because an object
     *       this transaction relied on was deleted by a commit ordered before it (see the class
     *       description). The store is exactly as before; do the work again in a new transaction
     *       if it still applies.</li>
     *   <li>Status {@code IOError} (a full disk, a failing device): the write failed. The store
     *       then refuses every write and poll (status {@code IOError}, naming the first failure)
     *       until it is reopened, while {@code peek}, {@code get} and queue sizes still answer. Free space (or fix the device), then
     *       {@link Store#close()} the store and open it again. As with any store after a failed
     *       sync, whether that last commit reached the disk is unknown until then, and the reopened
     *       store shows it; every commit that returned is recovered.</li>
     * </ul>
     */
    public synchronized void commit() {
        commit(Duration.ZERO);
    }

    /**
     * {@link #commit()} that, when a queue this transaction enqueues to is at its
     * {@link QueueOptions#capacity()}, waits up to {@code wait} for consumers to make room (a
     * commit consuming from that queue) and tries again: how a producer is slowed down by a slow
     * consumer instead of filling the disk. The capacity is checked inside the commit, in commit
     * order, so concurrent producers never push a queue past it together.
     *
     * <p>Status {@code QueueFull} (a {@link RockCaskException}) when there is still no room once
     * {@code wait} has passed ({@link #commit()} does not wait): nothing was written and the
     * transaction <em>stays open</em> with everything it did, to be committed again later or
     * rolled back. Every other failure ends the transaction as {@link #commit()} says.
     */
    public synchronized void commit(Duration wait) {
        long millis = millis(wait, "wait");
        run(h -> {
            checkWritable();
            flush(h);
            try {
                // On success the native transaction has started again, as a new one (for the pool).
                TransactionNative.commitWaiting(h, millis);
            } catch (RockCaskException e) {
                if (e.status() != RockCaskException.Status.QueueFull) {
                    finished = "ended by a failed commit";
                }
                throw e;
            } catch (RuntimeException e) {
                finished = "ended by a failed commit";
                throw e;
            }
            finished = "committed";
        });
    }

    /**
     * {@link #rollback()} saying why: each item this transaction polled comes back with one more
     * failed delivery ({@link Message#deliveries()}), and those that reach their queue's delivery
     * limit ({@link QueueOptions#maxDeliveries()}, {@link StoreOptions#maxDeliveries()}) are moved,
     * with their objects and in one commit, to the queue's dead-letter queue, which records
     * {@code reason} (cut to 4096 UTF-8 bytes; an unpaired surrogate becomes {@code '?'}, see
     * the class description), the count and the time ({@link Store#deadLetters}).
     * Without a reason, a dead letter records "rolled back".
     *
     * <p>The transaction is over even if moving dead letters fails (the exception says why):
     * those entries stay in their queue and are moved by the next rollback that finds them, or
     * when the store is next opened.
     */
    public void rollback(String reason) {
        rollback(reason, Duration.ZERO);
    }

    /**
     * {@link #rollback(String)} that also delays the items it gives back (NiFi's "penalize"):
     * none is delivered again before {@code retryAfter} has passed. A delayed item keeps its
     * place: polls skip it until it is due, delivering the items after it meanwhile, and once
     * due it comes before every item after it that was not delivered yet. The order rule: a poll
     * delivers the due items handed back by rollbacks, lowest {@link Message#sequence()} first,
     * then the items never delivered, in order. Delays are kept in memory: after the store is
     * reopened, delayed items are due at once. {@code Duration.ZERO}: no delay.
     *
     * @throws IllegalArgumentException if {@code retryAfter} is negative or longer than 365 days
     *     (the message names it and the limit); nothing is rolled back then, and the transaction
     *     stays open and usable
     */
    public synchronized void rollback(String reason, Duration retryAfter) {
        byte[] utf8 = Wire.reason(reason);
        long millis = retryDelayMillis(retryAfter);
        run(h -> {
            pending.clear();
            lastPendingPut = null;
            if (finished == null) {
                try {
                    TransactionNative.rollbackBecause(h, utf8, millis);
                } finally {
                    // Over even when moving dead letters failed (see rollback(String)).
                    finished = "rolled back";
                }
            }
        });
    }

    /**
     * Puts every dead letter of {@code queue} (those in its dead-letter queue that no other
     * transaction holds) back at the tail of the queue each came from, as new entries whose
     * deliveries count from 1 again. Takes effect at commit.
     *
     * @return how many it requeues
     */
    public synchronized long requeueAllDeadLetters(String queue) {
        return onDeadLetters(queue, null, true);
    }

    /**
     * {@link #requeueAllDeadLetters} of the dead letters at these {@link DeadLetter#sequence()}s
     * only; each must be a dead letter of {@code queue} that no other transaction holds.
     */
    public synchronized long requeueDeadLetters(String queue, long... sequences) {
        return onDeadLetters(queue, checkedSequences(sequences), true);
    }

    /** Deletes every dead letter of {@code queue} no other transaction holds, at commit. */
    public synchronized long dropAllDeadLetters(String queue) {
        return onDeadLetters(queue, null, false);
    }

    /** {@link #dropAllDeadLetters} of the dead letters at these {@link DeadLetter#sequence()}s only. */
    public synchronized long dropDeadLetters(String queue, long... sequences) {
        return onDeadLetters(queue, checkedSequences(sequences), false);
    }

    private long onDeadLetters(String queue, long[] sequences, boolean requeue) {
        byte[] name = name(queue);
        return call(h -> {
            checkWritable();
            flush(h);
            return requeue ? TransactionNative.requeueDeadLetters(h, name, sequences) : TransactionNative.dropDeadLetters(h, name, sequences);
        });
    }

    private static long[] checkedSequences(long[] sequences) {
        Objects.requireNonNull(sequences, "sequences");
        if (sequences.length == 0) {
            throw new IllegalArgumentException("no sequences given (the *All* variant takes every dead letter)");
        }
        if (sequences.length > Wire.MAX_BATCH_ITEMS) {
            throw new IllegalArgumentException(sequences.length + " sequences are more than the " + Wire.MAX_BATCH_ITEMS + " one call takes");
        }
        return sequences.clone();
    }

    /** A retry delay in milliseconds, refused when negative or over the native limit. */
    private static long retryDelayMillis(Duration d) {
        long millis = millis(d, "retryAfter");
        if (d.compareTo(Duration.ofMillis(Wire.MAX_RETRY_DELAY_MILLIS)) > 0) {
            throw new IllegalArgumentException("retryAfter of " + d + " exceeds the limit of "
                    + Wire.MAX_RETRY_DELAY_MILLIS + " ms (365 days)");
        }
        return millis;
    }

    /** A non-negative duration in milliseconds for the native side, capped where no wait ends. */
    private static long millis(Duration d, String what) {
        Objects.requireNonNull(d, what);
        if (d.isNegative()) {
            throw new IllegalArgumentException(what + " must not be negative: " + d);
        }
        return d.getSeconds() > Long.MAX_VALUE / 2000 ? Long.MAX_VALUE / 2 : d.toMillis();
    }

    /** Discards everything; polled items go back to the head of their queues. Idempotent. */
    public synchronized void rollback() {
        run(h -> {
            pending.clear();
            lastPendingPut = null;
            // An ended transaction has nothing to roll back; after a commit, the native one is
            // already the next transaction's.
            if (finished == null) {
                TransactionNative.rollback(h);
                finished = "rolled back";
            }
        });
    }

    /**
     * Rolls back unless committed, and releases the native transaction. Idempotent. A call in
     * progress on another thread (such as a blocking {@link #take}) is waited for first.
     */
    @Override
    public void close() {
        synchronized (this) {
            pending.clear();
        }
        if (!gate.close()) {
            return;
        }
        boolean committed;
        synchronized (this) {
            committed = "committed".equals(finished);
        }
        try {
            if (!committed) {
                // Ends it as a drop would (an open one rolls back) and starts a new one.
                nativeTx.run(TransactionNative::restart);
            }
        } catch (RuntimeException | Error e) {
            nativeTx.close();
            throw e;
        }
        store.recycle(nativeTx);
    }

    /** Runs {@code body} with the native handle, counted as a call in flight of this transaction. */
    private <T> T call(LongFunction<T> body) {
        // The borrowed native object must not be collected (and freed) during the call.
        return gate.call(handle, body, nativeTx);
    }

    /** {@link #call} for a body without a result. */
    private void run(LongConsumer body) {
        gate.run(handle, body, nativeTx);
    }

    /**
     * Map {@code name} as this transaction sees it (created at the first commit writing to it).
     * Its calls take part in this transaction; see {@link TxMap}.
     */
    public TxMap map(String name) {
        return new TxMap(this, name);
    }

    /** A map call with the native handle, after the buffered operations (`write`: it writes). */
    synchronized <T> T onMaps(LongFunction<T> call, boolean write) {
        return call(h -> {
            if (write) {
                checkWritable();
            } else {
                checkOpen();
            }
            flush(h);
            return call.apply(h);
        });
    }

    /**
     * {@link #onMaps} for a call that takes keys for update ({@link TxMap#getForUpdate}): when
     * it fails with {@code Conflict}, the native transaction has ended, releasing its keys.
     */
    synchronized <T> T onMapsHoldingKeys(LongFunction<T> call) {
        try {
            return onMaps(call, true);
        } catch (RockCaskException e) {
            if (e.status() == RockCaskException.Status.Conflict) {
                finished = "ended when a key it asked for update could not be taken";
            }
            throw e;
        }
    }

    /** Whether this transaction has ended (committed, rolled back, or ended by a failed commit or call). */
    synchronized boolean isFinished() {
        return finished != null;
    }

    /** Throws {@link IllegalStateException} unless this transaction is open (not finished, not closed) on an open store. */
    synchronized void ensureOpen() {
        run(h -> checkOpen());
    }

    /** Runs {@code body} with the native handle, guarded: for this package's tests. */
    void withHandle(LongConsumer body) {
        run(body);
    }

    /** First step of every call that needs an open transaction on an open store. */
    private void checkOpen() {
        if (finished != null) {
            throw new IllegalStateException("transaction already " + finished);
        }
        if (store.isClosed()) {
            throw new IllegalStateException("store is closed");
        }
    }

    /** {@link #checkOpen()} for calls that write. */
    private void checkWritable() {
        checkOpen();
        if (store.options().readOnly()) {
            throw new RockCaskException(RockCaskException.Status.ReadOnly, "store at " + store.path() + " is open read-only");
        }
    }

    /** Hands buffered operations to the native transaction; a failure there rolled it back. */
    private void flush(long h) {
        if (pending.size() == 0) {
            return;
        }
        try {
            TransactionNative.apply(h, pending.buffer(), pending.size());
        } catch (RuntimeException e) {
            finished = "rolled back";
            throw e;
        } finally {
            pending.clear();
            lastPendingPut = null;
        }
    }

    private static void checkPayload(byte[] payload) {
        Objects.requireNonNull(payload, "payload");
        if (payload.length > Wire.MAX_PAYLOAD_BYTES) {
            throw new IllegalArgumentException("payload of " + payload.length + " bytes exceeds the limit of " + Wire.MAX_PAYLOAD_BYTES + " bytes");
        }
    }

    /** Encodes queue names once per distinct name in a row (engines reuse a few names). */
    private byte[] name(String queue) {
        Objects.requireNonNull(queue, "queue");
        NameBytes last = lastName;
        if (last != null && last.name.equals(queue)) {
            return last.bytes;
        }
        byte[] bytes = Wire.checkedQueueName(queue);
        lastName = new NameBytes(queue, bytes);
        return bytes;
    }

    private static final class NameBytes {
        final String name;
        final byte[] bytes;

        NameBytes(String name, byte[] bytes) {
            this.name = name;
            this.bytes = bytes;
        }
    }
}
