package org.rockcask;

/**
 * How a store compresses payloads ({@link StoreOptions#compression}). Each stored value
 * records its codec, so a store written with one setting reads with any other.
 */
public enum Compression {
    NONE(0), LZ4(1), ZSTD(2), SNAPPY(3);

    final int code;

    Compression(int code) {
        this.code = code;
    }
}
