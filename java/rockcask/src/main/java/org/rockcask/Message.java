package org.rockcask;

import java.util.Arrays;
import java.util.Objects;
import java.util.UUID;

/**
 * One item taken from (or seen at the head of) a queue: its object's id and payload, and the
 * entry's position in the queue.
 */
public final class Message {
    /** {@link #sequence()} of an item a transaction enqueued itself and took back before committing. */
    public static final long NO_SEQUENCE = -1;

    private final UUID id;
    private final byte[] payload;
    private final long sequence;
    private final int deliveries;

    Message(UUID id, byte[] payload, long sequence, int deliveries) {
        this.id = id;
        this.payload = payload;
        this.sequence = sequence;
        this.deliveries = deliveries;
    }

    /** The id of the object this entry points at (use it to enqueue the same object elsewhere). */
    public UUID id() {
        return id;
    }

    /** The payload (this caller's own copy), or {@code null} when the object was deleted. */
    public byte[] payload() {
        return payload;
    }

    /**
     * The entry's position in its queue, from 0: assigned when the entry is committed,
     * increasing in enqueue order, the same each time the entry is delivered (after a rollback,
     * a failed commit or a restart), and never given to another entry while the queue exists
     * (a queue dropped and created again numbers from 0). With the queue's name it identifies
     * a delivery, which makes it the key for consumers that must recognise one seen before.
     * {@link #NO_SEQUENCE} for an item this transaction enqueued itself: it has no position
     * before the commit.
     */
    public long sequence() {
        return sequence;
    }

    /**
     * Which delivery of the entry this is: 1 the first time, one more each time it came back
     * without being consumed (a rollback, a transaction closed without commit, a refused or
     * failed commit, and, for queues with a delivery limit, the process ending while it was
     * delivered: their deliveries are recorded in the store as they happen). For
     * {@link Transaction#peek}, the count a poll would give now. Not part of {@link #equals}.
     */
    public int deliveries() {
        return deliveries;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof Message && ((Message) o).id.equals(id) && ((Message) o).sequence == sequence && Arrays.equals(((Message) o).payload, payload);
    }

    @Override
    public int hashCode() {
        return Objects.hash(id, sequence, Arrays.hashCode(payload));
    }

    @Override
    public String toString() {
        return "Message[" + id + ", #" + sequence + ", delivery " + deliveries + ", " + (payload == null ? "deleted" : payload.length + " bytes") + "]";
    }
}
