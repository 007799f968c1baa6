package org.rockcask.codec;

/**
 * Bytes that are not a valid message of the expected type: truncated, malformed, or with a
 * length prefix beyond the input. Says which message type and at which byte offset.
 */
public final class CodecException extends IllegalArgumentException {
    private static final long serialVersionUID = 1L;

    private final String messageType;
    private final long offset;

    /** Built by the native codec. */
    CodecException(String messageType, long offset, String detail) {
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
}
