package org.rockcask;

/**
 * How a store compresses payloads ({@link StoreOptions#compression}). Each stored value
 * records its codec, so a store written with one setting reads with any other.
 */
public enum Compression {
    NONE(Wire.COMPRESSION_NONE), LZ4(Wire.COMPRESSION_LZ4), ZSTD(Wire.COMPRESSION_ZSTD), SNAPPY(Wire.COMPRESSION_SNAPPY);

    final int code;

    Compression(int code) {
        this.code = code;
    }

    /**
     * The code recorded with each stored value (and leading the form
     * {@link org.rockcask.codec.Codec#compress} makes); it never changes for a codec.
     */
    public int code() {
        return code;
    }

    /** The codec recorded as {@code code}. */
    static Compression ofCode(long code) {
        for (Compression c : values()) {
            if (c.code == code) {
                return c;
            }
        }
        throw new IllegalArgumentException("unknown compression code " + code);
    }
}
