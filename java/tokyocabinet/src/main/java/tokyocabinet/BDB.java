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
public class BDB implements DBM {
    public static final int ESUCCESS = 0;
    public static final int ETHREAD = 1;
    public static final int EINVALID = 2;
    public static final int ENOFILE = 3;
    public static final int ENOPERM = 4;
    public static final int EMETA = 5;
    public static final int ERHEAD = 6;
    public static final int EOPEN = 7;
    public static final int ECLOSE = 8;
    public static final int ETRUNC = 9;
    public static final int ESYNC = 10;
    public static final int ESTAT = 11;
    public static final int ESEEK = 12;
    public static final int EREAD = 13;
    public static final int EWRITE = 14;
    public static final int EMMAP = 15;
    public static final int ELOCK = 16;
    public static final int EUNLINK = 17;
    public static final int ERENAME = 18;
    public static final int EMKDIR = 19;
    public static final int ERMDIR = 20;
    public static final int EKEEP = 21;
    public static final int ENOREC = 22;
    public static final int EMISC = 9999;
    public static final int CMPLEXICAL = 0;
    public static final int CMPDECIMAL = 1;
    public static final int CMPINT32 = 2;
    public static final int CMPINT64 = 3;
    public static final int TLARGE = 1 << 0;
    public static final int TDEFLATE = 1 << 1;
    public static final int TBZIP = 1 << 2;
    public static final int TTCBS = 1 << 3;
    public static final int OREADER = 1 << 0;
    public static final int OWRITER = 1 << 1;
    public static final int OCREAT = 1 << 2;
    public static final int OTRUNC = 1 << 3;
    public static final int ONOLCK = 1 << 4;
    public static final int OLCKNB = 1 << 5;
    public static final int OTSYNC = 1 << 6;

    final Database db = new Database(false);

    public BDB() {}

    /** The message of an error code. */
    public static String errmsg(int ecode) {
        return Database.errmsg(ecode);
    }

    /** The last error code of the calling thread on this database (success does not reset it). */
    public int ecode() {
        return db.ecode();
    }

    /**
     * The message of {@link #ecode()}; after an {@link #EINVALID} or {@link #EMISC} failure it
     * goes on to say what failed ("invalid operation: ...") when that is known.
     */
    public String errmsg() {
        return db.errmsg();
    }

    /**
     * Orders keys with a Java comparator; before {@code open} only. The comparator's class name
     * is recorded in the database, which then opens only with a comparator of that class. A
     * comparator that throws counts the two keys as equal. A comparator must not call any
     * database: such a call fails with {@link #EINVALID}, and so does the call of this database
     * that was comparing, without writing anything (see {@link BDBCMP}).
     */
    public boolean setcomparator(BDBCMP cmp) {
        if (cmp == null) {
            throw Database.illegalArgument();
        }
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
        if (!db.configurable()) {
            return false;
        }
        db.tuneCompression(opts);
        return true;
    }

    /** Before {@code open} only: the block cache gets 16 KiB per leaf and non-leaf page. */
    public boolean setcache(int lcnum, int ncnum) {
        if (!db.configurable()) {
            return false;
        }
        db.cacheBytes = ((lcnum > 0 ? lcnum : 1024) + (long) (ncnum > 0 ? ncnum : 512)) * 16 * 1024;
        return true;
    }

    /** Before {@code open} only: a positive size becomes the write buffer (1 MiB to 1 GiB). */
    public boolean setxmsiz(long xmsiz) {
        return db.setxmsiz(xmsiz);
    }

    /** Before {@code open} only. Accepted; RocksDB compacts in the background by itself. */
    public boolean setdfunit(int dfunit) {
        return db.configurable();
    }

    /**
     * Opens (and with {@link #OCREAT} creates) the database at {@code path}. {@link #OWRITER}
     * locks it against every other process, {@link #OREADER} against writers;
     * {@link #OLCKNB} fails at once ({@link #ELOCK}) instead of waiting, {@link #ONOLCK} takes no
     * lock. {@link #OTSYNC} syncs every transaction commit to the device.
     */
    public boolean open(String path, int omode) {
        return db.open(path, omode);
    }

    public boolean open(String name) {
        return open(name, OREADER);
    }

    /** Writes everything and releases the database; a running transaction is aborted. */
    public boolean close() {
        return db.close();
    }

    /** Replaces the first value of the key (other duplicates stay), or adds the record. */
    public boolean put(byte[] key, byte[] value) {
        return db.put(key, value, 0);
    }

    public boolean put(String key, String value) {
        return put(Database.bytes(key), Database.bytes(value));
    }

    /** Adds the record only if the key is absent; otherwise false with {@link #EKEEP}. */
    public boolean putkeep(byte[] key, byte[] value) {
        return db.put(key, value, 1);
    }

    public boolean putkeep(String key, String value) {
        return putkeep(Database.bytes(key), Database.bytes(value));
    }

    /**
     * Appends to the first value of the key, or adds the record. A value may hold at most
     * {@code Integer.MAX_VALUE - 8} bytes (the most a Java array holds): an append past that
     * fails with {@link #EINVALID} and leaves the value as it was.
     */
    public boolean putcat(byte[] key, byte[] value) {
        return db.put(key, value, 2);
    }

    public boolean putcat(String key, String value) {
        return putcat(Database.bytes(key), Database.bytes(value));
    }

    /** Adds a value after the key's existing values. */
    public boolean putdup(byte[] key, byte[] value) {
        return db.put(key, value, 3);
    }

    public boolean putdup(String key, String value) {
        return putdup(Database.bytes(key), Database.bytes(value));
    }

    /** {@code putdup} of each {@code byte[]} element; other elements are skipped. */
    public boolean putlist(byte[] key, List values) {
        Database.check(key);
        if (values == null) {
            throw Database.illegalArgument();
        }
        for (Object v : values) {
            if (v instanceof byte[] && !putdup(key, (byte[]) v)) {
                return false;
            }
        }
        return true;
    }

    /** {@code putdup} of each element, which must be a String. */
    public boolean putlist(String key, List values) {
        if (values == null) {
            throw Database.illegalArgument();
        }
        List<byte[]> encoded = new ArrayList<>(values.size());
        for (Object v : values) {
            encoded.add(((String) v).getBytes());
        }
        return putlist(Database.bytes(key), encoded);
    }

    /** Removes the first value of the key; false with {@link #ENOREC} if there is none. */
    public boolean out(byte[] key) {
        return db.out(key, false);
    }

    public boolean out(String key) {
        return out(Database.bytes(key));
    }

    /** Removes every value of the key; false with {@link #ENOREC} if there is none. */
    public boolean outlist(byte[] key) {
        return db.out(key, true);
    }

    public boolean outlist(String key) {
        return outlist(Database.bytes(key));
    }

    /** The first value of the key, or null ({@link #ENOREC}). */
    public byte[] get(byte[] key) {
        return db.get(key);
    }

    public String get(String key) {
        return Database.string(get(Database.bytes(key)));
    }

    /** Every value of the key in insertion order ({@code byte[]} elements), or null. */
    public List getlist(byte[] key) {
        Database.check(key);
        return db.call(d -> CasketNative.unpack(CasketNative.getlist(d, key)), null);
    }

    public List getlist(String key) {
        return Database.strings(getlist(Database.bytes(key)));
    }

    /** The number of values of the key (0 if none). The original binding returned 0 or 1. */
    public int vnum(byte[] key) {
        Database.check(key);
        return db.call(d -> CasketNative.vnum(d, key), 0);
    }

    public int vnum(String key) {
        return vnum(Database.bytes(key));
    }

    /** The size of the key's first value, or -1 ({@link #ENOREC}). */
    public int vsiz(byte[] key) {
        return db.vsiz(key);
    }

    public int vsiz(String key) {
        return vsiz(Database.bytes(key));
    }

    /** Starts the embedded iterator at the first record; false on an empty database. */
    public boolean iterinit() {
        return db.iterinit();
    }

    /** The key of the next record (each duplicate value is a record), or null at the end. */
    public byte[] iternext() {
        return db.iternext();
    }

    public String iternext2() {
        return Database.string(iternext());
    }

    /**
     * Distinct keys between {@code bkey} and {@code ekey} (null: unbounded) in key order, at
     * most {@code max} (negative: no limit). Never fails: an empty list if nothing matches.
     */
    public List range(byte[] bkey, boolean binc, byte[] ekey, boolean einc, int max) {
        List keys = db.call(d -> CasketNative.unpack(CasketNative.range(d, bkey, binc, ekey, einc, max)), null);
        return keys == null ? new ArrayList() : keys;
    }

    public List range(String bkey, boolean binc, String ekey, boolean einc, int max) {
        // As the original: the bounds are encoded directly, so a null bound throws here.
        return Database.strings(range(bkey.getBytes(), binc, ekey.getBytes(), einc, max));
    }

    /** Distinct keys starting with {@code prefix}, in key order, at most {@code max}. */
    public List fwmkeys(byte[] prefix, int max) {
        return db.fwmkeys(prefix, max);
    }

    public List fwmkeys(String prefix, int max) {
        return Database.strings(fwmkeys(Database.bytes(prefix), max));
    }

    /**
     * Adds to the 4-byte native-order integer value (stores {@code num} if absent) and returns
     * the sum; {@code Integer.MIN_VALUE} with {@link #EKEEP} if the value is not 4 bytes.
     */
    public int addint(byte[] key, int num) {
        return db.addint(key, num);
    }

    public int addint(String key, int num) {
        return addint(Database.bytes(key), num);
    }

    /** As {@link #addint(byte[], int)} for an 8-byte native-order double; NaN on failure. */
    public double adddouble(byte[] key, double num) {
        return db.adddouble(key, num);
    }

    public double adddouble(String key, double num) {
        return adddouble(Database.bytes(key), num);
    }

    /** Writes everything and syncs it to the device. */
    public boolean sync() {
        return db.run(CasketNative::sync);
    }

    /** Compacts the database. The tuning arguments are accepted and ignored. */
    public boolean optimize(int lmemb, int nmemb, long bnum, int apow, int fpow, int opts) {
        return db.run(CasketNative::optimize);
    }

    public boolean optimize() {
        return optimize(-1, -1, -1, -1, -1, 0xff);
    }

    /** Removes every record. */
    public boolean vanish() {
        return db.run(CasketNative::vanish);
    }

    /**
     * Copies the database to {@code path} (which then opens as a database). A path starting
     * with '@' is refused with {@link #EINVALID}: the original ran it as a shell command.
     */
    public boolean copy(String path) {
        return db.copy(path);
    }

    /**
     * Starts a transaction; waits while another thread's transaction runs. Every operation on
     * this database until {@link #trancommit()} or {@link #tranabort()} is part of it.
     */
    public boolean tranbegin() {
        return db.run(CasketNative::tranbegin);
    }

    /** Makes the transaction durable (synced with {@link #OTSYNC}). */
    public boolean trancommit() {
        return db.run(CasketNative::trancommit);
    }

    /** Restores the database to its state at {@link #tranbegin()}. */
    public boolean tranabort() {
        return db.run(CasketNative::tranabort);
    }

    /** The path given to {@code open}, or null if not open. */
    public String path() {
        return db.path();
    }

    /** The number of records, counting each duplicate value. */
    public long rnum() {
        return db.rnum();
    }

    /**
     * The size of the database's contents: 256 bytes plus, for every record (each duplicate
     * value counted), 16 bytes and the lengths of its key and value. Like the original's file
     * size it grows as records are added or lengthened, and {@link #tranabort()} puts it back
     * where it was at {@link #tranbegin()}; unlike it, it also shrinks as records are removed.
     * It is not the space on disk (RocksDB's logs and compactions make that move on their own):
     * that is the marker file plus the directory {@code <path>.rockcask}.
     */
    public long fsiz() {
        return db.fsiz();
    }
}
