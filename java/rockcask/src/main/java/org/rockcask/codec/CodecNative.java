package org.rockcask.codec;

import java.nio.ByteBuffer;
import org.rockcask.internal.NativeLibrary;

/** The codec's native entry points (see {@link Flat} for the buffer layout). */
final class CodecNative {
    static {
        NativeLibrary.load();
    }

    private CodecNative() {}

    /** Encodes the flat content in {@code input[0, len)} as message type {@code type}. */
    static native byte[] encode(int type, ByteBuffer input, int len);

    /** Decodes {@code message} into {@code output} (flat form); returns the bytes written. */
    static native int decode(int type, byte[] message, ByteBuffer output);

    /** {@code payload} as a codec byte and the (compressed, if smaller) body. */
    static native byte[] compress(int codec, byte[] payload);

    static native byte[] decompress(byte[] stored);
}
