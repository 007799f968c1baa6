package org.rockcask.flink.sink;

import java.io.Serializable;

/** How many records or bytes the writer stages in one RockCask transaction, at most. */
final class SinkSettings implements Serializable {
    private static final long serialVersionUID = 1L;

    public static final int MAX_BATCH_RECORDS = 1 << 20;
    public static final long MIN_BATCH_BYTES = 1L << 10;
    public static final long MAX_BATCH_BYTES = 1L << 30;

    private final int batchRecords;
    private final long batchBytes;

    /**
     * @throws IllegalArgumentException when {@code batchRecords} is not 1 to
     *     {@value #MAX_BATCH_RECORDS} or {@code batchBytes} not {@value #MIN_BATCH_BYTES} to
     *     {@value #MAX_BATCH_BYTES}
     */
    SinkSettings(int batchRecords, long batchBytes) {
        if (batchRecords < 1 || batchRecords > MAX_BATCH_RECORDS) {
            throw new IllegalArgumentException("staging batch records must be 1 to " + MAX_BATCH_RECORDS + ": " + batchRecords);
        }
        if (batchBytes < MIN_BATCH_BYTES || batchBytes > MAX_BATCH_BYTES) {
            throw new IllegalArgumentException("staging batch bytes must be " + MIN_BATCH_BYTES + " to " + MAX_BATCH_BYTES + ": " + batchBytes);
        }
        this.batchRecords = batchRecords;
        this.batchBytes = batchBytes;
    }

    public int batchRecords() {
        return batchRecords;
    }

    public long batchBytes() {
        return batchBytes;
    }
}
