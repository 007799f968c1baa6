package org.rockcask;

import java.nio.ByteBuffer;
import java.util.UUID;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Operations a {@link Transaction} buffers instead of crossing JNI once per item: the buffer is
 * handed to native code in one call before any other operation, at commit, and when full.
 * Layout (big-endian), defined and read by rust/jni/src/wire.rs ({@code PendingOps}):
 * {@link #OP_ENQUEUE_NEW} (u16 name length, name, id, i32 length, payload), {@link #OP_PUT}
 * (id, i32 length, payload), {@link #OP_ENQUEUE_EXISTING} (u16 name length, name, id).
 */
final class PendingOps {
    /** The byte each operation starts with (checked by the library as it registers TransactionNative). */
    static final int OP_ENQUEUE_NEW = 1;
    static final int OP_PUT = 2;
    static final int OP_ENQUEUE_EXISTING = 3;
    /** Payloads above this go to native code directly (after a flush), keeping the buffer small. */
    static final int DIRECT_PAYLOAD_BYTES = 64 << 10;
    private static final int CAPACITY = 256 << 10;
    /**
     * Empty buffers ready for reuse: allocating a direct buffer costs far more than a small
     * transaction, so a buffer goes back here after every flush. Bounded, so idle memory is too.
     */
    private static final ConcurrentLinkedQueue<ByteBuffer> POOL = new ConcurrentLinkedQueue<>();
    private static final AtomicInteger POOLED = new AtomicInteger();
    private static final int MAX_POOLED = 16;

    /** Borrowed from the pool at the first buffered operation, returned by {@link #clear()}. */
    private ByteBuffer buffer;

    /** Bytes buffered so far. */
    int size() {
        return buffer == null ? 0 : buffer.position();
    }

    ByteBuffer buffer() {
        return buffer;
    }

    /** Drops what is buffered and returns the buffer to the pool. */
    void clear() {
        ByteBuffer b = buffer;
        if (b == null) {
            return;
        }
        buffer = null;
        b.clear();
        if (POOLED.incrementAndGet() <= MAX_POOLED) {
            POOL.offer(b);
        } else {
            POOLED.decrementAndGet();
        }
    }

    /** False when the record does not fit: flush and try again. */
    boolean enqueueNew(byte[] queue, UUID id, byte[] payload) {
        if (!room(1 + 2 + queue.length + 16 + 4 + payload.length)) {
            return false;
        }
        buffer.put((byte) OP_ENQUEUE_NEW).putShort((short) queue.length).put(queue);
        putId(id);
        buffer.putInt(payload.length).put(payload);
        return true;
    }

    boolean put(UUID id, byte[] payload) {
        if (!room(1 + 16 + 4 + payload.length)) {
            return false;
        }
        buffer.put((byte) OP_PUT);
        putId(id);
        buffer.putInt(payload.length).put(payload);
        return true;
    }

    boolean enqueueExisting(byte[] queue, UUID id) {
        if (!room(1 + 2 + queue.length + 16)) {
            return false;
        }
        buffer.put((byte) OP_ENQUEUE_EXISTING).putShort((short) queue.length).put(queue);
        putId(id);
        return true;
    }

    private void putId(UUID id) {
        buffer.putLong(id.getMostSignificantBits()).putLong(id.getLeastSignificantBits());
    }

    private boolean room(int bytes) {
        if (buffer == null) {
            buffer = POOL.poll();
            if (buffer == null) {
                buffer = ByteBuffer.allocateDirect(CAPACITY);
            } else {
                POOLED.decrementAndGet();
            }
        }
        return buffer.remaining() >= bytes;
    }
}
