package org.rockcask.bench.kv;

import java.nio.charset.StandardCharsets;
import java.util.Random;
import java.util.function.Supplier;

/**
 * One store under the key-value benchmark: every call is one transaction of its own, committed
 * (synced or not, as the store was opened), as a service would write it. Records are one value
 * of {@link #RECORD_BYTES} (YCSB's 10 fields of 100 bytes, written whole) under "user" + a hash
 * of the record's number. Thread-safe.
 */
// "try": close() may throw any exception, as the stores' own close methods do.
@SuppressWarnings("try")
interface KvStore extends AutoCloseable {
    int FIELDS = 10;
    int FIELD_BYTES = 100;
    int RECORD_BYTES = FIELDS * FIELD_BYTES;
    /** The block cache every RocksDB-based store gets: RockCask's default. */
    long BLOCK_CACHE_BYTES = 64L << 20;

    static byte[] key(long record) {
        return ("user" + ScrambledZipfian.fnv64(record)).getBytes(StandardCharsets.US_ASCII);
    }

    /**
     * A record as YCSB's generator makes its fields: {@link #RECORD_BYTES} printable characters
     * drawn at random (6 bits each), a new one for every record loaded and every write. Values
     * all alike would let block compression (RocksJava's LZ4) shrink the data several times
     * over, which no real workload's values allow.
     */
    static byte[] randomRecord(Random random) {
        byte[] v = new byte[RECORD_BYTES];
        for (int i = 0; i < v.length;) {
            long bits = random.nextLong();
            for (int j = 0; j < 10 && i < v.length; j++, bits >>>= 6) {
                v[i++] = (byte) (' ' + (bits & 63));
            }
        }
        return v;
    }

    /** Loading: records {@code from} to {@code to - 1} in one transaction, each with the next of {@code values}. */
    void load(long from, long to, Supplier<byte[]> values) throws Exception;

    /** Reads a record; its length (-1: absent). */
    int read(byte[] key) throws Exception;

    /** Writes a record whole (insert or update). */
    void write(byte[] key, byte[] value) throws Exception;

    /** Reads up to {@code count} records from {@code key} on, in key order; the bytes read. */
    long scan(byte[] key, int count) throws Exception;

    /** Reads a record and writes it back changed, in one transaction that loses no concurrent update. */
    void readModifyWrite(byte[] key, byte[] value) throws Exception;

    @Override
    void close() throws Exception;
}
