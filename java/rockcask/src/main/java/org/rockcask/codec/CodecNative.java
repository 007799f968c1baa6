package org.rockcask.codec;

import java.nio.ByteBuffer;
import org.rockcask.internal.NativeLibrary;

/**
 * The codec's native calls (declared in {@code rust/jni/src/codec.rs}, registered when this
 * class initializes, after the library has checked the message type codes of {@link Codec},
 * the flat layout numbers of {@link Flat} and the compression codes). See {@link Flat} for the
 * buffer layout. Package-private, beside its only callers.
 */
final class CodecNative {
    static {
        NativeLibrary.register(CodecNative.class);
    }

    private CodecNative() {}

    /** Encodes the flat content in {@code input[0, len)} as message type {@code type}. */
    static native byte[] encode(int type, ByteBuffer input, int len);

    /**
     * Decodes {@code message} into {@code output} (flat form); returns the bytes written, or,
     * if {@code output} is too small, minus the bytes needed (nothing written).
     */
    static native int decode(int type, byte[] message, ByteBuffer output);

    /** {@code payload} as a codec byte and the (compressed, if smaller) body. */
    static native byte[] compress(int codec, byte[] payload);

    static native byte[] decompress(byte[] stored);
}
