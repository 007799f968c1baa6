package org.rockcask;

import java.time.Instant;
import java.util.UUID;

/**
 * An entry moved to a dead-letter queue after as many deliveries as its queue allows, as
 * {@link Store#deadLetters} lists it: what it holds, where it came from and why its last
 * delivery failed.
 */
public final class DeadLetter {
    private final long sequence;
    private final UUID id;
    private final byte[] payload;
    private final String originQueue;
    private final long originSequence;
    private final int deliveries;
    private final String reason;
    private final Instant deadAt;

    DeadLetter(long sequence, UUID id, byte[] payload, String originQueue, long originSequence, int deliveries, String reason, Instant deadAt) {
        this.sequence = sequence;
        this.id = id;
        this.payload = payload;
        this.originQueue = originQueue;
        this.originSequence = originSequence;
        this.deliveries = deliveries;
        this.reason = reason;
        this.deadAt = deadAt;
    }

    /** Its position in the dead-letter queue: what {@link Transaction#requeueDeadLetters(String, long...)} takes. */
    public long sequence() {
        return sequence;
    }

    public UUID id() {
        return id;
    }

    /** The payload (a copy), or null when its object was deleted. */
    public byte[] payload() {
        return payload == null ? null : payload.clone();
    }

    /** The queue it was dead-lettered from. */
    public String originQueue() {
        return originQueue;
    }

    /** Its {@link Message#sequence()} in {@link #originQueue()}. */
    public long originSequence() {
        return originSequence;
    }

    /** Deliveries it had, the last one included. */
    public int deliveries() {
        return deliveries;
    }

    /**
     * Why its last delivery failed: the reason given to {@link Transaction#rollback(String)}, or
     * what ended it ("rolled back", "transaction closed without commit or rollback", "commit
     * refused: ...", "the process ended while the entry was being delivered").
     */
    public String reason() {
        return reason;
    }

    public Instant deadAt() {
        return deadAt;
    }

    @Override
    public String toString() {
        return "DeadLetter[#" + sequence + " from " + originQueue + " #" + originSequence + ", " + deliveries + " deliveries, at " + deadAt + ": " + reason + "]";
    }
}
