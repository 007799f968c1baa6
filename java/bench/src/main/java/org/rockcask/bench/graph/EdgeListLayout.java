package org.rockcask.bench.graph;

import java.nio.ByteBuffer;

/**
 * The bytes of a vertex's value in every key-value store of the experiment, layout version
 * {@value #VERSION}:
 *
 * <pre>
 *   u8      layout version (1)
 *   varint  number of edges
 *   per edge:
 *     i32     distance in metres, big-endian
 *     varint  length of the destination's key
 *     bytes   the destination's key, in the store's key order ({@link KeyOrder})
 *     varint  length of the payload (0 in the small variant)
 *     bytes   the payload
 * </pre>
 *
 * A varint is unsigned LEB128: 7 bits a byte, lowest first, the high bit set on every byte but
 * the last. A reader that finds another version refuses the value rather than misread it.
 */
final class EdgeListLayout {
    static final byte VERSION = 1;

    private EdgeListLayout() {}

    /** The bytes one edge takes. */
    static int edgeBytes(int keyLength, int payloadLength) {
        return Integer.BYTES + varintBytes(keyLength) + keyLength + varintBytes(payloadLength) + payloadLength;
    }

    static byte[] encode(int[] distances, byte[][] keys, byte[][] payloads) {
        int size = 1 + varintBytes(distances.length);
        for (int i = 0; i < distances.length; i++) {
            size += edgeBytes(keys[i].length, payloads[i].length);
        }
        ByteBuffer out = ByteBuffer.allocate(size).put(VERSION);
        putVarint(out, distances.length);
        for (int i = 0; i < distances.length; i++) {
            out.putInt(distances[i]);
            putVarint(out, keys[i].length);
            out.put(keys[i]);
            putVarint(out, payloads[i].length);
            out.put(payloads[i]);
        }
        return out.array();
    }

    static int varintBytes(int v) {
        int bytes = 1;
        while ((v >>>= 7) != 0) {
            bytes++;
        }
        return bytes;
    }

    static void putVarint(ByteBuffer out, int v) {
        while ((v & ~0x7F) != 0) {
            out.put((byte) ((v & 0x7F) | 0x80));
            v >>>= 7;
        }
        out.put((byte) v);
    }
}
