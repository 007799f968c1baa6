package org.rockcask;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Objects;
import java.util.UUID;

/** Decoding of the packed results native calls return (layout in rust/jni/src/wire.rs). */
final class Wire {
    private Wire() {}

    /** Limits the native store enforces too (rust/core: keys.rs, options.rs; a test in rust/jni/src/wire.rs compares them). */
    static final int MAX_QUEUE_NAME_BYTES = 1024;
    static final int MAX_PAYLOAD_BYTES = 1 << 30;
    static final int MAX_WORKERS = 64;
    static final long MIN_WRITE_BUFFER_BYTES = 1L << 20;
    static final long MAX_WRITE_BUFFER_BYTES = 64L << 30;
    static final long MAX_BLOCK_CACHE_BYTES = 1L << 40;

    static int checkWorkers(int workers) {
        if (workers < 1 || workers > MAX_WORKERS) {
            throw new IllegalArgumentException("workers must be 1 to " + MAX_WORKERS + ": " + workers);
        }
        return workers;
    }

    static void checkQueueName(byte[] utf8) {
        if (utf8.length == 0) {
            throw new IllegalArgumentException("queue name is empty");
        }
        if (utf8.length > MAX_QUEUE_NAME_BYTES) {
            throw new IllegalArgumentException("queue name is " + utf8.length + " bytes long; at most " + MAX_QUEUE_NAME_BYTES + " are allowed");
        }
    }

    static byte[] queueName(String queue) {
        Objects.requireNonNull(queue, "queue");
        return queue.getBytes(StandardCharsets.UTF_8);
    }

    static List<Message> messages(byte[] packed) {
        ByteBuffer b = ByteBuffer.wrap(packed);
        int n = b.getInt();
        if (n == 0) {
            return Collections.emptyList();
        }
        List<Message> out = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            UUID id = new UUID(b.getLong(), b.getLong());
            int len = b.getInt();
            byte[] payload = null;
            if (len >= 0) {
                payload = new byte[len];
                b.get(payload);
            }
            out.add(new Message(id, payload));
        }
        return Collections.unmodifiableList(out);
    }

    static List<String> strings(byte[] packed) {
        ByteBuffer b = ByteBuffer.wrap(packed);
        int n = b.getInt();
        List<String> out = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            int len = b.getInt();
            out.add(new String(packed, b.position(), len, StandardCharsets.UTF_8));
            b.position(b.position() + len);
        }
        return Collections.unmodifiableList(out);
    }
}
