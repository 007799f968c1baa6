package tokyocabinet;

/**
 * A custom key order for a B+ tree database, installed with {@code BDB.setcomparator}.
 *
 * <p>The order must be a consistent total order and must not change while a database that was
 * written with it is in use: records are stored in this order, and a different order later makes
 * lookups miss. The comparator may be called from any thread that uses the database, so it must
 * be thread-safe, and it should not throw (a comparator that throws counts the two keys as equal,
 * as in the original binding).
 *
 * <p>It must not call any database of this package (this one or another): it runs while the
 * database that uses it is locked. Such a call fails at once with {@code EINVALID} ({@code
 * errmsg()} says why), and the call of the database that was comparing fails too, with
 * {@code EINVALID} and without writing anything.
 */
public interface BDBCMP {
    /**
     * Compares two keys.
     *
     * @return a positive number if {@code a} sorts after {@code b}, a negative number if it sorts
     *     before, 0 if the keys are equal
     */
    int compare(byte[] a, byte[] b);
}
