package org.rockcask.bench.graph;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;

/**
 * How a vertex is keyed in a key-value store, and so the order in which a store keeps the
 * vertices (every store here orders keys as unsigned bytes):
 *
 * <ul>
 * <li>{@link #LABEL}: the label in UTF-8 ("V123456"): the order of the labels' text, unrelated
 * to where the vertices are;</li>
 * <li>{@link #MORTON}: the Morton code of the coordinates in metres ({@link Morton}), 8 bytes
 * big-endian, then the label (which makes the key unique): the unsigned byte order of these keys
 * is the order of the codes, so neighbours in the plane are mostly neighbours in the store.</li>
 * </ul>
 *
 * <p>An edge holds its destination's key in the store's own order, so that the walk reads the
 * next vertex with the key as it is: with Morton keys, the destination's code and label.
 * Both orders end in the label, whose digits are the vertex's number (its index in the walk's
 * arrays): {@link #vertexId} reads them back.
 */
public enum KeyOrder {
    LABEL(0) {
        @Override
        byte[] key(RoadGraph graph, int v) {
            return label(graph.labelId[v]);
        }
    },
    MORTON(Long.BYTES) {
        @Override
        byte[] key(RoadGraph graph, int v) {
            byte[] label = label(graph.labelId[v]);
            return ByteBuffer.allocate(Long.BYTES + label.length).putLong(Morton.code(graph.x[v], graph.y[v])).put(label).array();
        }
    };

    private static final byte LABEL_PREFIX = 'V';

    /** Where the label starts in a key. */
    private final int labelOffset;

    KeyOrder(int labelOffset) {
        this.labelOffset = labelOffset;
    }

    abstract byte[] key(RoadGraph graph, int v);

    static byte[] label(int labelId) {
        return ("V" + labelId).getBytes(StandardCharsets.UTF_8);
    }

    /** The vertex number in the label of the key held in {@code buf} at {@code offset}, {@code length} bytes long. */
    public int vertexId(ByteBuffer buf, int offset, int length) {
        int at = offset + labelOffset;
        if (length < labelOffset + 2 || buf.get(at) != LABEL_PREFIX) {
            throw new IllegalArgumentException("not a " + this + " key: " + length + " bytes without a label 'V<number>' at byte " + labelOffset);
        }
        int id = 0;
        for (int i = at + 1; i < offset + length; i++) {
            int digit = buf.get(i) - '0';
            if (digit < 0 || digit > 9) {
                throw new IllegalArgumentException("not a " + this + " key: a label with a non-digit at byte " + (i - offset));
            }
            id = id * 10 + digit;
        }
        return id;
    }

    public int vertexId(byte[] key) {
        return vertexId(ByteBuffer.wrap(key), 0, key.length);
    }

    static KeyOrder byName(String name) {
        for (KeyOrder o : values()) {
            if (o.name().equalsIgnoreCase(name)) {
                return o;
            }
        }
        throw new IllegalArgumentException("no key order " + name + " (label, morton)");
    }
}
