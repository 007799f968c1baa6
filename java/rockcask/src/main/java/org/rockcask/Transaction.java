package org.rockcask;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.UUID;

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
 *       queue-owned object replaces its payload and keeps it queue-owned. An entry whose object
 *       was deleted is delivered with a {@code null} payload.</li>
 *   <li>Durability: when {@code commit} returns, the work is on disk (synced when
 *       {@link StoreOptions#syncOnCommit()} is on, the default).</li>
 * </ul>
 *
 * <p>Meant for one thread at a time; calls from several threads are serialized, never raced.
 */
public final class Transaction extends NativeResource {
    private volatile NameBytes lastName = new NameBytes("", new byte[0]);

    Transaction(long handle) {
        super("Transaction", handle, Native::txFree);
    }

    /** Creates an object holding {@code payload} and appends an entry for it to {@code queue}. */
    public UUID enqueue(String queue, byte[] payload) {
        byte[] name = name(queue);
        Objects.requireNonNull(payload, "payload");
        long[] id = new long[2];
        long h = acquire();
        try {
            Native.txEnqueue(h, name, payload, id);
        } finally {
            release();
        }
        return new UUID(id[0], id[1]);
    }

    /**
     * Appends an entry for the existing object {@code id} to {@code queue}, without copying it.
     *
     * @throws RockCaskException with status {@code NoSuchObject} when there is no such object
     */
    public void enqueue(String queue, UUID id) {
        byte[] name = name(queue);
        Objects.requireNonNull(id, "id");
        long h = acquire();
        try {
            Native.txEnqueueId(h, name, id.getMostSignificantBits(), id.getLeastSignificantBits());
        } finally {
            release();
        }
    }

    /** Removes and returns the head of {@code queue}, or {@code null} when it is empty. */
    public Message poll(String queue) {
        List<Message> one = poll(queue, 1);
        return one.isEmpty() ? null : one.get(0);
    }

    /** Removes and returns up to {@code max} items from the head of {@code queue}, in order. */
    public List<Message> poll(String queue, int max) {
        byte[] name = name(queue);
        long h = acquire();
        try {
            return Wire.messages(Native.txPoll(h, name, max));
        } finally {
            release();
        }
    }

    /** The first {@code max} items {@link #poll(String, int)} would return, left in place. */
    public List<Message> peek(String queue, int max) {
        byte[] name = name(queue);
        long h = acquire();
        try {
            return Wire.messages(Native.txPeek(h, name, max));
        } finally {
            release();
        }
    }

    /**
     * Polls one item, waiting up to {@code timeout} for another transaction to commit one.
     *
     * @return the item, or {@code null} when the timeout passed first
     * @throws IllegalStateException when the store is closed while waiting
     */
    public Message take(String queue, Duration timeout) {
        byte[] name = name(queue);
        Objects.requireNonNull(timeout, "timeout");
        if (timeout.isNegative()) {
            throw new IllegalArgumentException("timeout must not be negative: " + timeout);
        }
        long millis = timeout.getSeconds() > Long.MAX_VALUE / 2000 ? Long.MAX_VALUE / 2 : timeout.toMillis();
        long h = acquire();
        try {
            List<Message> one = Wire.messages(Native.txTake(h, name, millis));
            return one.isEmpty() ? null : one.get(0);
        } finally {
            release();
        }
    }

    /** Stores {@code payload} under {@code id}, replacing what was there. */
    public void put(UUID id, byte[] payload) {
        Objects.requireNonNull(id, "id");
        Objects.requireNonNull(payload, "payload");
        long h = acquire();
        try {
            Native.txPut(h, id.getMostSignificantBits(), id.getLeastSignificantBits(), payload);
        } finally {
            release();
        }
    }

    /** The payload of object {@code id}, or {@code null} when there is none. */
    public byte[] get(UUID id) {
        Objects.requireNonNull(id, "id");
        long h = acquire();
        try {
            return Native.txGet(h, id.getMostSignificantBits(), id.getLeastSignificantBits());
        } finally {
            release();
        }
    }

    /** Deletes object {@code id}; returns whether it existed. */
    public boolean delete(UUID id) {
        Objects.requireNonNull(id, "id");
        long h = acquire();
        try {
            return Native.txDelete(h, id.getMostSignificantBits(), id.getLeastSignificantBits());
        } finally {
            release();
        }
    }

    /**
     * Applies everything atomically and durably. After it returns the transaction is finished:
     * further calls throw {@link IllegalStateException}. If it throws, nothing was applied and
     * the transaction is still open (roll it back or close it).
     */
    public void commit() {
        long h = acquire();
        try {
            Native.txCommit(h);
        } finally {
            release();
        }
    }

    /** Discards everything; polled items go back to the head of their queues. Idempotent. */
    public void rollback() {
        long h = acquire();
        try {
            Native.txRollback(h);
        } finally {
            release();
        }
    }

    /** Rolls back unless committed, and releases the native transaction. Idempotent. */
    @Override
    public void close() {
        super.close();
    }

    /** Encodes queue names once per distinct name in a row (engines reuse a few names). */
    private byte[] name(String queue) {
        Objects.requireNonNull(queue, "queue");
        NameBytes last = lastName;
        if (last.name.equals(queue)) {
            return last.bytes;
        }
        byte[] bytes = Wire.queueName(queue);
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
