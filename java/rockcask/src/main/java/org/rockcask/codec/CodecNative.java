package org.rockcask.internal;

import java.nio.ByteBuffer;

/**
 * The codec's native calls (declared in {@code rust/jni/src/codec.rs}, registered when this
 * class initializes, after the library has checked the message type codes of
 * {@code org.rockcask.codec.Codec}, the flat layout numbers of {@code org.rockcask.codec.Flat}
 * and the compression codes). See {@code org.rockcask.codec.Flat} for the buffer layout.
 */
public final class CodecNative {
    static {
        NativeLibrary.register(CodecNative.class);
    }

    private CodecNative() {}

    /** Encodes the flat content in {@code input[0, len)} as message type {@code type}. */
    public static native byte[] encode(int type, ByteBuffer input, int len);

    /**
     * Decodes {@code message} into {@code output} (flat form); returns the bytes written, or,
     * if {@code output} is too small, minus the bytes needed (nothing written).
     */
    public static native int decode(int type, byte[] message, ByteBuffer output);

    /** {@code payload} as a codec byte and the (compressed, if smaller) body. */
    public static native byte[] compress(int codec, byte[] payload);

    public static native byte[] decompress(byte[] stored);
}
