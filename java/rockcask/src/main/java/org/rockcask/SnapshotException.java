package org.rockcask;

/**
 * A snapshot that cannot be read or trusted: truncated, damaged, of a newer format, or not a
 * snapshot at all. Status {@code BadSnapshot}; says where: the byte offset and, when the damage
 * lies in a frame, the frame's number (counted from 0). The frame named is the one whose bytes
 * are damaged, and {@link Store#verifySnapshot} and the imports report the same offset and frame
 * for the same file. Nothing was left behind: an import that fails removes the store it was
 * creating.
 */
public final class SnapshotException extends RockCaskException {
    private static final long serialVersionUID = 1L;

    private final long offset;
    private final long frame;

    /** Built by the native layer: the message is {@code "BadSnapshot: detail"}; frame -1 for none. */
    SnapshotException(long offset, long frame, String detail) {
        super(Status.BadSnapshot, detail);
        this.offset = offset;
        this.frame = frame;
    }

    /**
     * Byte offset in the file of the damaged part (0 for the file header, a frame's first byte
     * for a frame whose checksum fails) or of the field refused; never after the damaged byte.
     */
    public long offset() {
        return offset;
    }

    /**
     * The frame holding the damage (records frames counted from 0, the trailer after the last),
     * or -1 when it is outside any frame (the file header, the final checksum or end marker).
     */
    public long frame() {
        return frame;
    }
}
