package org.rockcask;

import static org.junit.Assert.assertArrayEquals;
import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertTrue;
import static org.junit.Assert.fail;

import java.io.ByteArrayOutputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;
import java.util.UUID;
import org.junit.Test;
import org.rockcask.GoldenVectors.Fields;
import org.rockcask.GoldenVectors.Vector;

/**
 * Java reads and writes the packed layouts as rust/jni/src/wire/ defines them: each golden
 * vector (written from the Rust code) decodes with the Java code to the values written beside
 * it, and those values encode again to the same bytes (with the Java writer where Java writes
 * the layout, else with one written here from the layout's definition).
 */
public class PackedLayoutsGoldenTest {
    @Test
    public void everyVectorDecodesToItsValuesAndEncodesToItsBytes() throws IOException {
        TreeSet<String> layouts = new TreeSet<>();
        for (Vector v : GoldenVectors.all()) {
            switch (v.layout) {
                case "list":
                    list(v);
                    break;
                case "messages":
                    messages(v);
                    break;
                case "queue-options":
                    queueOptions(v);
                    break;
                case "dead-letters":
                    deadLetters(v);
                    break;
                case "metrics":
                    metrics(v);
                    break;
                case "queue-codecs":
                    queueCodecs(v);
                    break;
                case "pending-ops":
                    pendingOps(v);
                    break;
                default:
                    fail("no Java check for the layout of " + v);
            }
            layouts.add(v.layout);
        }
        assertEquals(new TreeSet<>(Arrays.asList("list", "messages", "queue-options", "dead-letters", "metrics", "queue-codecs", "pending-ops")),
                layouts);
    }

    /**
     * The list layout, as each of its readers reads it: any list, names, a scan's pairs (ending
     * with one absent item when the scan was cut at its byte bound).
     */
    private static void list(Vector v) {
        List<byte[]> items = Wire.optionalByteArrays(v.bytes);
        Fields f = new Fields();
        items.forEach(item -> f.bytes("item", item));
        assertEquals(v.toString(), v.values, f.toString());
        assertArrayEquals(v.toString(), v.bytes, Wire.list(items));
        if (v.name.startsWith("pairs")) {
            boolean cut = v.name.equals("pairs-cut");
            assertEquals(v.toString(), cut, Wire.cut(v.bytes));
            Fields pairs = new Fields();
            Wire.pairs(v.bytes).forEach(e -> pairs.bytes("item", e.getKey()).bytes("item", e.getValue()));
            assertEquals(v.toString(), v.values, (cut ? pairs.bytes("item", null) : pairs).toString());
        }
        if (items.contains(null)) {
            return;
        }
        if (items.stream().allMatch(PackedLayoutsGoldenTest::isUtf8)) {
            Fields names = new Fields();
            Wire.strings(v.bytes).forEach(s -> names.text("item", s));
            assertEquals(v.toString(), v.values, names.toString());
        }
        if (items.size() % 2 == 0) {
            Fields pairs = new Fields();
            Wire.pairs(v.bytes).forEach(e -> pairs.bytes("item", e.getKey()).bytes("item", e.getValue()));
            assertEquals(v.toString(), v.values, pairs.toString());
        }
    }

    private static void messages(Vector v) throws IOException {
        List<Message> messages = Wire.messages(v.bytes);
        Fields f = new Fields();
        Packer p = new Packer().i32(messages.size());
        for (Message m : messages) {
            f.field("id", m.id()).field("sequence", m.sequence()).field("deliveries", m.deliveries()).bytes("payload", m.payload());
            p.id(m.id()).i64(m.sequence()).i32(m.deliveries()).optional(m.payload());
        }
        assertEquals(v.toString(), v.values, f.toString());
        assertArrayEquals(v.toString(), v.bytes, p.bytes());
    }

    private static void queueOptions(Vector v) throws IOException {
        QueueOptions o = Wire.queueOptions(v.bytes);
        Fields f = new Fields().field("maxDeliveries", o.maxDeliveries()).field("capacity", o.capacity()).field("capacityBytes", o.capacityBytes())
                .text("deadLetterQueue", o.deadLetterQueue());
        assertEquals(v.toString(), v.values, f.toString());
        Packer p = new Packer().i64(o.maxDeliveries()).i64(o.capacity()).i64(o.capacityBytes()).optional(utf8(o.deadLetterQueue()));
        assertArrayEquals(v.toString(), v.bytes, p.bytes());
    }

    private static void deadLetters(Vector v) throws IOException {
        List<DeadLetter> letters = Wire.deadLetters(v.bytes);
        Fields f = new Fields();
        Packer p = new Packer().i32(letters.size());
        for (DeadLetter d : letters) {
            f.field("sequence", d.sequence()).field("id", d.id()).text("originQueue", d.originQueue()).field("originSequence", d.originSequence())
                    .field("deliveries", d.deliveries()).field("deadAt", d.deadAt().toEpochMilli()).text("reason", d.reason()).bytes("payload", d.payload());
            p.id(d.id()).i64(d.sequence()).i64(d.originSequence()).i32(d.deliveries()).i64(d.deadAt().toEpochMilli()).optional(utf8(d.originQueue()))
                    .optional(utf8(d.reason())).optional(d.payload());
        }
        assertEquals(v.toString(), v.values, f.toString());
        assertArrayEquals(v.toString(), v.bytes, p.bytes());
    }

    private static void metrics(Vector v) throws IOException {
        StoreMetrics m = StoreMetrics.unpack(v.bytes);
        Fields f = new Fields();
        Packer p = new Packer();
        for (long value : m.values()) {
            f.field("store", value);
            p.i64(value);
        }
        p.i32(m.queues().size());
        for (QueueMetrics q : m.queues()) {
            f.text("queue", q.name());
            p.optional(utf8(q.name()));
            for (long value : q.values()) {
                f.field("figure", value);
                p.i64(value);
            }
        }
        assertEquals(v.toString(), v.values, f.toString());
        assertArrayEquals(v.toString(), v.bytes, p.bytes());
    }

    /** Java writes these ({@link Wire#queueCodecs}); read here as the layout says. */
    private static void queueCodecs(Vector v) {
        ByteBuffer b = ByteBuffer.wrap(v.bytes);
        Map<String, Compression> codecs = new LinkedHashMap<>();
        Fields f = new Fields();
        for (int n = b.getInt(); n > 0; n--) {
            byte[] name = new byte[b.getInt()];
            b.get(name);
            int code = b.getInt();
            f.bytes("queue", name).field("code", code);
            codecs.put(new String(name, StandardCharsets.UTF_8), Compression.ofCode(code));
        }
        assertFalse(v.toString(), b.hasRemaining());
        assertEquals(v.toString(), v.values, f.toString());
        assertArrayEquals(v.toString(), v.bytes, Wire.queueCodecs(codecs));
    }

    /** Java writes these ({@link PendingOps}); read here as the layout says. */
    private static void pendingOps(Vector v) {
        ByteBuffer b = ByteBuffer.wrap(v.bytes);
        Fields f = new Fields();
        PendingOps ops = new PendingOps();
        try {
            while (b.hasRemaining()) {
                int op = b.get();
                f.field("op", op);
                byte[] queue = null;
                if (op == PendingOps.OP_ENQUEUE_NEW || op == PendingOps.OP_ENQUEUE_EXISTING) {
                    queue = new byte[b.getShort() & 0xffff];
                    b.get(queue);
                    f.bytes("queue", queue);
                }
                UUID id = new UUID(b.getLong(), b.getLong());
                f.field("id", id);
                byte[] payload = null;
                if (op != PendingOps.OP_ENQUEUE_EXISTING) {
                    payload = new byte[b.getInt()];
                    b.get(payload);
                    f.bytes("payload", payload);
                }
                boolean fits = op == PendingOps.OP_ENQUEUE_NEW ? ops.enqueueNew(queue, id, payload)
                        : op == PendingOps.OP_PUT ? ops.put(id, payload) : ops.enqueueExisting(queue, id);
                assertTrue(v.toString(), fits);
            }
            assertEquals(v.toString(), v.values, f.toString());
            ByteBuffer written = ops.buffer().duplicate();
            written.flip();
            byte[] bytes = new byte[written.remaining()];
            written.get(bytes);
            assertArrayEquals(v.toString(), v.bytes, bytes);
        } finally {
            ops.clear();
        }
    }

    private static boolean isUtf8(byte[] b) {
        return Arrays.equals(b, new String(b, StandardCharsets.UTF_8).getBytes(StandardCharsets.UTF_8));
    }

    private static byte[] utf8(String s) {
        return s == null ? null : s.getBytes(StandardCharsets.UTF_8);
    }

    /** Big-endian numbers and optional byte strings (i32 length, -1 for none), as the layouts write them. */
    private static final class Packer {
        private final ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        private final DataOutputStream out = new DataOutputStream(bytes);

        Packer i32(int v) throws IOException {
            out.writeInt(v);
            return this;
        }

        Packer i64(long v) throws IOException {
            out.writeLong(v);
            return this;
        }

        Packer id(UUID id) throws IOException {
            return i64(id.getMostSignificantBits()).i64(id.getLeastSignificantBits());
        }

        Packer optional(byte[] b) throws IOException {
            if (b == null) {
                return i32(-1);
            }
            i32(b.length);
            out.write(b);
            return this;
        }

        byte[] bytes() {
            return bytes.toByteArray();
        }
    }
}
