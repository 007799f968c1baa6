package org.rockcask.codec;

/**
 * Bytes that are not a valid message of the expected type: truncated, malformed, or with a
 * length prefix beyond the input. Says which message type and at which byte offset.
 */
public final class CodecException extends IllegalArgumentException {
    private static final long serialVersionUID = 1L;

    private final String messageType;
    private final long offset;

    /** Thrown by the native codec with the message "type:offset:detail". */
    CodecException(String raw) {
        this(field(raw, 0), parseOffset(field(raw, 1)), field(raw, 2));
    }

    private CodecException(String messageType, long offset, String detail) {
        super("not a valid " + messageType + " message: " + detail + " at byte " + offset);
        this.messageType = messageType;
        this.offset = offset;
    }

    /** The protobuf message type that was expected, e.g. {@code "Integers"}. */
    public String messageType() {
        return messageType;
    }

    /** Byte offset in the input where it stopped making sense. */
    public long offset() {
        return offset;
    }

    private static String field(String raw, int index) {
        String[] parts = raw == null ? new String[0] : raw.split(":", 3);
        return index < parts.length ? parts[index] : "?";
    }

    private static long parseOffset(String s) {
        try {
            return Long.parseLong(s);
        } catch (NumberFormatException e) {
            return -1;
        }
    }
}
