package org.rockcask;

/**
 * How a store compresses payloads ({@link StoreOptions#compression}). Each stored value
 * records its codec, so a store written with one setting reads with any other.
 */
/* The declaration order is the code recorded with each stored value: do not reorder. */
public enum Compression {
    NONE(0), LZ4(1), ZSTD(2), SNAPPY(3);

    final int code;

    Compression(int code) {
        this.code = code;
    }
}
