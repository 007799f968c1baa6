package tokyocabinet;

import java.util.ArrayList;
import java.util.List;

/**
 * B+ tree database: ordered keys, each with one or more values (duplicates, kept in insertion
 * order). Drop-in for the Tokyo Cabinet binding's class of the same name, stored in RocksDB.
 *
 * <p>A database lives at a path like a file: the path holds a small marker and the data is in
 * the directory {@code <path>.rockcask} beside it. Deleting the path (for example with
 * {@code File.delete()}) after {@code close()} makes the next {@code open(path, OWRITER | OCREAT)}
 * start empty.
 *
 * <p>Failures never throw: methods return {@code false}, {@code null}, {@code -1},
 * {@code Integer.MIN_VALUE} or {@code NaN}, and {@link #ecode()} (per thread) tells why. A
 * {@code null} argument throws {@link IllegalArgumentException}. Thread-safe; a transaction
 * ({@link #tranbegin()}) takes the whole database until it ends, and calls from other threads
 * meanwhile are part of it, as in the original.
 */
@SuppressWarnings({"rawtypes", "unchecked"}) // the original API uses raw lists
public class BDB extends AbstractDB implements DBM {
    // The constants are declared on each class, as in the original: code compiled against it
    // inlines them, and reflection from other packages reads them only from a public class.
    /** Error code: "success". */
    public static final int ESUCCESS = 0;
    /** Error code: "threading error". */
    public static final int ETHREAD = 1;
    /** Error code: "invalid operation". */
    public static final int EINVALID = 2;
    /** Error code: "file not found". */
    public static final int ENOFILE = 3;
    /** Error code: "no permission". */
    public static final int ENOPERM = 4;
    /** Error code: "invalid meta data". */
    public static final int EMETA = 5;
    /** Error code: "invalid record header". */
    public static final int ERHEAD = 6;
    /** Error code: "open error". */
    public static final int EOPEN = 7;
    /** Error code: "close error". */
    public static final int ECLOSE = 8;
    /** Error code: "trunc error". */
    public static final int ETRUNC = 9;
    /** Error code: "sync error". */
    public static final int ESYNC = 10;
    /** Error code: "stat error". */
    public static final int ESTAT = 11;
    /** Error code: "seek error". */
    public static final int ESEEK = 12;
    /** Error code: "read error". */
    public static final int EREAD = 13;
    /** Error code: "write error". */
    public static final int EWRITE = 14;
    /** Error code: "mmap error". */
    public static final int EMMAP = 15;
    /** Error code: "lock error". */
    public static final int ELOCK = 16;
    /** Error code: "unlink error". */
    public static final int EUNLINK = 17;
    /** Error code: "rename error". */
    public static final int ERENAME = 18;
    /** Error code: "mkdir error". */
    public static final int EMKDIR = 19;
    /** Error code: "rmdir error". */
    public static final int ERMDIR = 20;
    /** Error code: "existing record". */
    public static final int EKEEP = 21;
    /** Error code: "no record found". */
    public static final int ENOREC = 22;
    /** Error code: "miscellaneous error" (in the drop-in: an internal failure of the native layer). */
    public static final int EMISC = 9999;
    /** Comparison for {@link #setcmpfunc}: keys as unsigned bytes, lexically (the default). */
    public static final int CMPLEXICAL = 0;
    /** Comparison for {@link #setcmpfunc}: keys as decimal strings of real numbers. */
    public static final int CMPDECIMAL = 1;
    /** Comparison for {@link #setcmpfunc}: keys as 4-byte native-order ints. */
    public static final int CMPINT32 = 2;
    /** Comparison for {@link #setcmpfunc}: keys as 8-byte native-order longs. */
    public static final int CMPINT64 = 3;
    /** Tuning option: large database (accepted, no effect: there is no size limit). */
    public static final int TLARGE = 1 << 0;
    /** Tuning option: compress with Deflate (here: zstd). */
    public static final int TDEFLATE = 1 << 1;
    /** Tuning option: compress with BZIP2 (here: zstd). */
    public static final int TBZIP = 1 << 2;
    /** Tuning option: compress with TCBS (here: lz4). */
    public static final int TTCBS = 1 << 3;
    /** Open mode: reader (shares the database with other readers). */
    public static final int OREADER = 1 << 0;
    /** Open mode: writer (excludes every other process). */
    public static final int OWRITER = 1 << 1;
    /** Open mode with {@link #OWRITER}: create the database if it does not exist. */
    public static final int OCREAT = 1 << 2;
    /** Open mode with {@link #OWRITER}: start with an empty database. */
    public static final int OTRUNC = 1 << 3;
    /** Open mode: take no lock against other processes. */
    public static final int ONOLCK = 1 << 4;
    /** Open mode: fail at once with {@link #ELOCK} instead of waiting for the lock. */
    public static final int OLCKNB = 1 << 5;
    /** Open mode with {@link #OWRITER}: sync every transaction commit to the device. */
    public static final int OTSYNC = 1 << 6;

    /** A closed database; {@link #open(String, int)} opens it. */
    public BDB() {
        super(false);
    }

    /** The message of an error code (as the original's, and "unknown error" for others). */
    public static String errmsg(int ecode) {
        return Database.errmsg(ecode);
    }

    /**
     * Orders keys with a Java comparator; before {@code open} only. The comparator's class name
     * is recorded in the database, which then opens only with a comparator of that class (the
     * original recorded nothing). A comparator that throws counts the two keys as equal. A
     * comparator must not call any database: such a call fails with {@link #EINVALID}, and so
     * does the call of this database that was comparing, without writing anything (see
     * {@link BDBCMP}).
     */
    public boolean setcomparator(BDBCMP cmp) {
        Database.check(cmp);
        if (!db.configurable()) {
            return false;
        }
        db.comparator = cmp;
        return true;
    }

    /**
     * Orders keys with a built-in comparison ({@link #CMPLEXICAL}, {@link #CMPDECIMAL},
     * {@link #CMPINT32}, {@link #CMPINT64}); before {@code open} only. Recorded in the database:
     * opening it later with another comparison fails with {@link #EMETA}.
     */
    public boolean setcmpfunc(int cmp) {
        if (cmp < CMPLEXICAL || cmp > CMPINT64) {
            return db.fail(EINVALID);
        }
        if (!db.configurable()) {
            return false;
        }
        db.cmpfunc = cmp;
        db.comparator = null;
        return true;
    }

    /**
     * Before {@code open} only. Page and bucket sizes have no RocksDB meaning and are accepted as
     * they are; {@code opts} selects compression: {@link #TDEFLATE} or {@link #TBZIP} zstd,
     * {@link #TTCBS} lz4.
     */
    public boolean tune(int lmemb, int nmemb, long bnum, int apow, int fpow, int opts) {
        return db.tune(opts);
    }

    /**
     * Before {@code open} only: the block cache gets 16 KiB per leaf and non-leaf page (1024 and
     * 512 pages when not positive), where the original sized its page caches.
     */
    public boolean setcache(int lcnum, int ncnum) {
        return db.setcache(((lcnum > 0 ? lcnum : 1024) + (long) (ncnum > 0 ? ncnum : 512)) * 16 * 1024);
    }

    /** Adds a value after the key's existing values. */
    public boolean putdup(byte[] key, byte[] value) {
        return db.putdup(key, value);
    }

    /** {@link #putdup(byte[], byte[])} with String key and value. */
    public boolean putdup(String key, String value) {
        return putdup(Database.bytes(key), Database.bytes(value));
    }

    /**
     * {@code putdup} of each {@code byte[]} element; other elements are skipped, as documented
     * (the original crashed on them).
     */
    public boolean putlist(byte[] key, List values) {
        Database.check(key);
        Database.check(values);
        for (Object v : values) {
            if (v instanceof byte[] && !putdup(key, (byte[]) v)) {
                return false;
            }
        }
        return true;
    }

    /** {@code putdup} of each element, which must be a String (ClassCastException otherwise). */
    public boolean putlist(String key, List values) {
        Database.check(values);
        List<byte[]> encoded = new ArrayList<>(values.size());
        for (Object v : values) {
            encoded.add(((String) v).getBytes());
        }
        return putlist(Database.bytes(key), encoded);
    }

    /** Removes every value of the key; false with {@link #ENOREC} if there is none. */
    public boolean outlist(byte[] key) {
        return db.out(key, true);
    }

    /** {@link #outlist(byte[])} with a String key. */
    public boolean outlist(String key) {
        return outlist(Database.bytes(key));
    }

    /**
     * Every value of the key in insertion order ({@code byte[]} elements), or null
     * ({@link #ENOREC}; {@link #EINVALID} when the values total more than 1.5 GiB,
     * {@code org.rockcask.Store.MAX_RESULT_BYTES}, what one call returns: read them with a
     * cursor).
     */
    public List getlist(byte[] key) {
        Database.check(key);
        return db.list(d -> CasketNative.getlist(d, key));
    }

    /** {@link #getlist(byte[])} with a String key; the values are decoded as UTF-8. */
    public List getlist(String key) {
        return Database.strings(getlist(Database.bytes(key)));
    }

    /** The number of values of the key (0 if none). The original binding returned 0 or 1. */
    public int vnum(byte[] key) {
        Database.check(key);
        return db.call(d -> CasketNative.vnum(d, key), 0);
    }

    /** {@link #vnum(byte[])} with a String key. */
    public int vnum(String key) {
        return vnum(Database.bytes(key));
    }

    /**
     * Distinct keys between {@code bkey} and {@code ekey} (null: unbounded, where the original
     * crashed) in key order, at most {@code max} (negative: no limit), and fewer when they exceed
     * 1.5 GiB ({@code org.rockcask.Store.MAX_RESULT_BYTES}, what one call returns). Never fails:
     * an empty list if nothing matches.
     */
    public List range(byte[] bkey, boolean binc, byte[] ekey, boolean einc, int max) {
        return db.keys(d -> CasketNative.range(d, bkey, binc, ekey, einc, max));
    }

    /**
     * {@link #range(byte[], boolean, byte[], boolean, int)} with String bounds; the keys are
     * decoded as UTF-8. A null bound throws {@link NullPointerException}, as in the original.
     */
    public List range(String bkey, boolean binc, String ekey, boolean einc, int max) {
        // As the original: the bounds are encoded directly, so a null bound throws here.
        return Database.strings(range(bkey.getBytes(), binc, ekey.getBytes(), einc, max));
    }

    /** Compacts the database. The tuning arguments are accepted and ignored. */
    public boolean optimize(int lmemb, int nmemb, long bnum, int apow, int fpow, int opts) {
        return db.run(CasketNative::optimize);
    }

    /** {@link #optimize(int, int, long, int, int, int)} keeping the current settings. */
    public boolean optimize() {
        return optimize(-1, -1, -1, -1, -1, 0xff);
    }
}
