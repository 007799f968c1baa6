package org.rockcask.bench.graph;

import java.nio.ByteBuffer;

/**
 * Reads a value in {@link EdgeListLayout} where it lies (a heap array, or a direct buffer into a
 * store's memory map), without copying it: only a destination key the walk keeps is copied out.
 * Reusable: {@link #reset} points it at the next value.
 */
public final class EdgeListReader implements EdgeCursor {
    private final KeyOrder order;
    private ByteBuffer value;
    private int position;
    private int remaining;
    private int distance;
    private int keyOffset;
    private int keyLength;
    private int payloadLength;

    public EdgeListReader(KeyOrder order) {
        this.order = order;
    }

    /** Reads {@code value} from its position to its limit; the buffer's own position is left alone. */
    public EdgeListReader reset(ByteBuffer value) {
        this.value = value;
        position = value.position();
        byte version = value.get(position++);
        if (version != EdgeListLayout.VERSION) {
            throw new IllegalStateException("edge list of layout version " + version + ", this reader knows version " + EdgeListLayout.VERSION);
        }
        remaining = varint();
        return this;
    }

    @Override
    public boolean next() {
        if (remaining == 0) {
            return false;
        }
        remaining--;
        distance = value.getInt(position);
        position += Integer.BYTES;
        keyLength = varint();
        keyOffset = position;
        position += keyLength;
        payloadLength = varint();
        position += payloadLength;
        if (position > value.limit()) {
            throw new IllegalStateException("edge list cut short: an edge ends at byte " + position + " of " + value.limit());
        }
        return true;
    }

    @Override
    public int distance() {
        return distance;
    }

    @Override
    public int destinationId() {
        return order.vertexId(value, keyOffset, keyLength);
    }

    @Override
    public byte[] destinationKey() {
        byte[] key = new byte[keyLength];
        for (int i = 0; i < keyLength; i++) {
            key[i] = value.get(keyOffset + i);
        }
        return key;
    }

    /** The current edge's payload length (the walk skips the payload). */
    int payloadLength() {
        return payloadLength;
    }

    /** Where the value's bytes read so far end: at the limit once every edge is read. */
    int position() {
        return position;
    }

    private int varint() {
        int v = 0;
        for (int shift = 0;; shift += 7) {
            byte b = value.get(position++);
            v |= (b & 0x7F) << shift;
            if (b >= 0) {
                return v;
            }
        }
    }
}
