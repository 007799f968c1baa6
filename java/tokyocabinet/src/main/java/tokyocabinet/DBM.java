package tokyocabinet;

import java.util.List;

/**
 * The operations every key-value database of this package offers ({@code BDB} and {@code HDB}).
 *
 * <p>Keys and values are byte arrays. Each {@code String} overload encodes its arguments with
 * {@link String#getBytes()} (the platform default charset) and decodes returned bytes as UTF-8,
 * like the original Tokyo Cabinet binding. Failures are reported by the return value; the
 * implementing class tells why through its {@code ecode()}. A {@code null} argument throws
 * {@link IllegalArgumentException}.
 */
@SuppressWarnings("rawtypes") // the original API returns raw lists; callers depend on that
public interface DBM {
    /**
     * Stores a record, replacing the value if the key exists.
     *
     * @return whether the record was stored
     */
    boolean put(byte[] key, byte[] value);

    /** {@link #put(byte[], byte[])} with String key and value. */
    boolean put(String key, String value);

    /**
     * Stores a record only if the key is not present yet.
     *
     * @return whether the record was stored; false if the key already existed
     */
    boolean putkeep(byte[] key, byte[] value);

    /** {@link #putkeep(byte[], byte[])} with String key and value. */
    boolean putkeep(String key, String value);

    /**
     * Removes a record.
     *
     * @return whether a record was removed; false if there was none
     */
    boolean out(byte[] key);

    /** {@link #out(byte[])} with a String key. */
    boolean out(String key);

    /**
     * Looks up a record.
     *
     * @return the value, or {@code null} if there is no record for the key
     */
    byte[] get(byte[] key);

    /**
     * {@link #get(byte[])} with a String key.
     *
     * @return the value decoded as UTF-8, or {@code null} if there is no record for the key
     */
    String get(String key);

    /**
     * Starts (or restarts) the iteration over the keys of all records.
     *
     * @return whether the iterator could be positioned
     */
    boolean iterinit();

    /**
     * Returns the next key of the iteration started by {@link #iterinit()}.
     *
     * @return the key, or {@code null} when the iteration is finished
     */
    byte[] iternext();

    /**
     * {@link #iternext()} decoding the key as UTF-8.
     *
     * @return the key, or {@code null} when the iteration is finished
     */
    String iternext2();

    /**
     * Returns the distinct keys that start with {@code prefix}.
     *
     * @param max the most keys to return; negative means no limit
     * @return a list of {@code byte[]} keys, possibly empty; never {@code null}
     */
    List fwmkeys(byte[] prefix, int max);

    /**
     * {@link #fwmkeys(byte[], int)} with a String prefix.
     *
     * @return a list of {@code String} keys decoded as UTF-8, possibly empty; never {@code null}
     */
    List fwmkeys(String prefix, int max);

    /**
     * Adds {@code num} to the value of a record read as a 4-byte native-order int, storing
     * {@code num} if there is no record.
     *
     * @return the new value, or {@link Integer#MIN_VALUE} if the stored value is not 4 bytes
     *     long or the update failed
     */
    int addint(byte[] key, int num);

    /** {@link #addint(byte[], int)} with a String key. */
    int addint(String key, int num);

    /**
     * Adds {@code num} to the value of a record read as an 8-byte native-order double, storing
     * {@code num} if there is no record.
     *
     * @return the new value, or {@link Double#NaN} if the stored value is not 8 bytes long or
     *     the update failed
     */
    double adddouble(byte[] key, double num);

    /** {@link #adddouble(byte[], double)} with a String key. */
    double adddouble(String key, double num);

    /**
     * Returns the number of records.
     *
     * @return the count, or 0 if no database is open
     */
    long rnum();

    /**
     * Returns the size of the database in bytes: in this package, the size of its contents
     * (256 bytes plus, per record, 16 bytes and the lengths of its key and value), which an
     * aborted transaction leaves as it was; see {@link BDB#fsiz()}.
     *
     * @return the size, or 0 if no database is open
     */
    long fsiz();
}
