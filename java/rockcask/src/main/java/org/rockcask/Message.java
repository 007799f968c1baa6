package org.rockcask;

import java.util.Arrays;
import java.util.Objects;
import java.util.UUID;

/** One item taken from (or seen at the head of) a queue: its object's id and payload. */
public final class Message {
    private final UUID id;
    private final byte[] payload;

    Message(UUID id, byte[] payload) {
        this.id = id;
        this.payload = payload;
    }

    /** The id of the object this entry points at (use it to enqueue the same object elsewhere). */
    public UUID id() {
        return id;
    }

    /** The payload (this caller's own copy), or {@code null} when the object was deleted. */
    public byte[] payload() {
        return payload;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof Message && ((Message) o).id.equals(id) && Arrays.equals(((Message) o).payload, payload);
    }

    @Override
    public int hashCode() {
        return Objects.hash(id, Arrays.hashCode(payload));
    }

    @Override
    public String toString() {
        return "Message[" + id + ", " + (payload == null ? "deleted" : payload.length + " bytes") + "]";
    }
}
