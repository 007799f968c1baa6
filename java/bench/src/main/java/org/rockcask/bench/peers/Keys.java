package org.rockcask.bench.peers;

import java.nio.ByteBuffer;
import java.util.UUID;

/** The key-value peers' keys: queue entries under queue id + big-endian sequence, objects under their 16-byte id. */
final class Keys {
    /** The id of queue "q", the only queue of the workloads. */
    static final int QUEUE_ID = 0;

    private Keys() {}

    static byte[] entry(long seq) {
        return entry(QUEUE_ID, seq);
    }

    /** An entry of queue {@code queue} (the concurrent components' queues are numbered). */
    static byte[] entry(int queue, long seq) {
        return ByteBuffer.allocate(12).putInt(queue).putLong(seq).array();
    }

    static byte[] object(UUID id) {
        return ByteBuffer.allocate(16).putLong(id.getMostSignificantBits()).putLong(id.getLeastSignificantBits()).array();
    }
}
