package tokyocabinet;

import java.util.List;

/**
 * The members {@link BDB} and {@link HDB} have in common, each a delegation to their
 * {@link Database}. Package-private, so the public API stays the original's: the public methods
 * are reached through {@code BDB} and {@code HDB} (javac gives those classes bridge methods, so
 * reflection from other packages can call them too). The constants and the static
 * {@code errmsg(int)} are declared on each subclass instead: reflection cannot read a static
 * member of a package-private class from another package.
 *
 * <p>The error codes named below ({@code EINVALID}, {@code ENOREC}, ...) and the open modes are
 * the constants of {@code BDB} and {@code HDB}, which have the same values.
 */
@SuppressWarnings({"rawtypes", "unchecked"}) // the original API uses raw lists
abstract class AbstractDB {
    final Database db;

    AbstractDB(boolean hash) {
        db = new Database(hash);
    }

    /** The last error code of the calling thread on this database (success does not reset it). */
    public int ecode() {
        return db.ecode();
    }

    /**
     * The message of {@link #ecode()}; after an {@code EINVALID} or {@code EMISC} failure it goes
     * on to say what failed ("invalid operation: ...") when that is known, where the original
     * gave the code's message only.
     */
    public String errmsg() {
        return db.errmsg();
    }

    /**
     * Before {@code open} only: a positive size becomes the write buffer (1 MiB to 1 GiB); the
     * original set the size of extra mapped memory.
     */
    public boolean setxmsiz(long xmsiz) {
        return db.setxmsiz(xmsiz);
    }

    /**
     * Before {@code open} only. Accepted and without effect: RocksDB compacts in the background
     * by itself, where the original set a defragmentation step.
     */
    public boolean setdfunit(int dfunit) {
        return db.configurable();
    }

    /**
     * Opens (and with {@code OCREAT} creates) the database at {@code path}. {@code OWRITER}
     * locks it against every other process, {@code OREADER} against writers; {@code OLCKNB}
     * fails at once ({@code ELOCK}) instead of waiting, {@code ONOLCK} takes no lock.
     * {@code OTSYNC} syncs every transaction commit to the device. Unlike the original, a second
     * object opening the same database in this process fails with {@code ELOCK}, and the data is
     * in the directory {@code <path>.rockcask} beside a marker file at the path.
     */
    public boolean open(String path, int omode) {
        return db.open(path, omode);
    }

    /** {@link #open(String, int)} as a reader ({@code OREADER}). */
    public boolean open(String name) {
        return open(name, BDB.OREADER);
    }

    /** Writes everything and releases the database; a running transaction is aborted. */
    public boolean close() {
        return db.close();
    }

    /**
     * Stores the record, replacing the value if the key exists (in a {@link BDB}, only the
     * key's first value: its other duplicates stay).
     */
    public boolean put(byte[] key, byte[] value) {
        return db.put(key, value, CasketNative.PUT_OVER);
    }

    /** {@link #put(byte[], byte[])} with String key and value. */
    public boolean put(String key, String value) {
        return put(Database.bytes(key), Database.bytes(value));
    }

    /** Adds the record only if the key is absent; otherwise false with {@code EKEEP}. */
    public boolean putkeep(byte[] key, byte[] value) {
        return db.put(key, value, CasketNative.PUT_KEEP);
    }

    /** {@link #putkeep(byte[], byte[])} with String key and value. */
    public boolean putkeep(String key, String value) {
        return putkeep(Database.bytes(key), Database.bytes(value));
    }

    /**
     * Appends to the (first) value of the key, or adds the record. A value may hold at most
     * {@code Integer.MAX_VALUE - 8} bytes (the most a Java array holds): an append past that
     * fails with {@code EINVALID} and leaves the value as it was.
     */
    public boolean putcat(byte[] key, byte[] value) {
        return db.put(key, value, CasketNative.PUT_CAT);
    }

    /** {@link #putcat(byte[], byte[])} with String key and value. */
    public boolean putcat(String key, String value) {
        return putcat(Database.bytes(key), Database.bytes(value));
    }

    /**
     * Removes the record (in a {@link BDB}, the key's first value; the next one takes its place);
     * false with {@code ENOREC} if there is none.
     */
    public boolean out(byte[] key) {
        return db.out(key, false);
    }

    /** {@link #out(byte[])} with a String key. */
    public boolean out(String key) {
        return out(Database.bytes(key));
    }

    /** The (first) value of the key, or null ({@code ENOREC}). */
    public byte[] get(byte[] key) {
        return db.get(key);
    }

    /** {@link #get(byte[])} with a String key; the value is decoded as UTF-8. */
    public String get(String key) {
        return Database.string(get(Database.bytes(key)));
    }

    /** The size of the key's (first) value, or -1 ({@code ENOREC}). */
    public int vsiz(byte[] key) {
        return db.vsiz(key);
    }

    /** {@link #vsiz(byte[])} with a String key. */
    public int vsiz(String key) {
        return vsiz(Database.bytes(key));
    }

    /**
     * Starts the embedded iterator at the first record. On an empty database a {@link BDB}
     * returns false ({@code ENOREC}) and an {@link HDB} true, as in the original.
     */
    public boolean iterinit() {
        return db.iterinit();
    }

    /**
     * The key of the next record, in key order, or null at the end. A {@link BDB} visits each
     * duplicate value, so a key repeats; the original {@link HDB} went in hash order.
     */
    public byte[] iternext() {
        return db.iternext();
    }

    /** {@link #iternext()} with the key decoded as UTF-8. */
    public String iternext2() {
        return Database.string(iternext());
    }

    /**
     * Distinct keys starting with {@code prefix}, in key order, at most {@code max} (negative:
     * no limit) {@code byte[]} elements, and fewer when they exceed 1.5 GiB
     * ({@code org.rockcask.Store.MAX_RESULT_BYTES}, what one call returns). Never fails: an empty
     * list if nothing matches.
     */
    public List fwmkeys(byte[] prefix, int max) {
        return db.fwmkeys(prefix, max);
    }

    /** {@link #fwmkeys(byte[], int)} with a String prefix; the keys are decoded as UTF-8. */
    public List fwmkeys(String prefix, int max) {
        return Database.strings(fwmkeys(Database.bytes(prefix), max));
    }

    /**
     * Adds to the 4-byte native-order integer value (stores {@code num} if absent) and returns
     * the sum; {@code Integer.MIN_VALUE} with {@code EKEEP} if the value is not 4 bytes. A
     * {@code num} of 0 reads without writing.
     */
    public int addint(byte[] key, int num) {
        return db.addint(key, num);
    }

    /** {@link #addint(byte[], int)} with a String key. */
    public int addint(String key, int num) {
        return addint(Database.bytes(key), num);
    }

    /** As {@link #addint(byte[], int)} for an 8-byte native-order double; NaN on failure. */
    public double adddouble(byte[] key, double num) {
        return db.adddouble(key, num);
    }

    /** {@link #adddouble(byte[], double)} with a String key. */
    public double adddouble(String key, double num) {
        return adddouble(Database.bytes(key), num);
    }

    /** Writes everything and syncs it to the device. */
    public boolean sync() {
        return db.run(CasketNative::sync);
    }

    /** Removes every record. */
    public boolean vanish() {
        return db.run(CasketNative::vanish);
    }

    /**
     * Copies the database to {@code path} (which then opens as a database). A path starting
     * with '@' is refused with {@code EINVALID}: the original ran it as a shell command.
     */
    public boolean copy(String path) {
        return db.copy(path);
    }

    /**
     * Starts a transaction; waits while another thread's transaction runs. Every operation on
     * this database until {@link #trancommit()} or {@link #tranabort()} is part of it. Unlike
     * the original, which waited for itself forever, a second {@code tranbegin} on the same
     * thread fails with {@code EINVALID}.
     */
    public boolean tranbegin() {
        return db.tranbegin();
    }

    /** Makes the transaction durable (synced to the device with {@code OTSYNC}). */
    public boolean trancommit() {
        return db.trancommit();
    }

    /** Restores the database to its state at {@link #tranbegin()}. */
    public boolean tranabort() {
        return db.tranabort();
    }

    /** The path given to {@code open}, or null ({@code EINVALID}) if not open. */
    public String path() {
        return db.path();
    }

    /** The number of records (in a {@link BDB}, counting each duplicate value); 0 if not open. */
    public long rnum() {
        return db.rnum();
    }

    /**
     * The size of the database's contents: 256 bytes plus, for every record (each duplicate
     * value counted), 16 bytes and the lengths of its key and value; 0 if not open. Like the
     * original's file size it grows as records are added or lengthened, and {@link #tranabort()}
     * puts it back where it was at {@link #tranbegin()}; unlike it, it also shrinks as records
     * are removed. It is not the space on disk (RocksDB's logs and compactions make that move on
     * their own): that is the marker file plus the directory {@code <path>.rockcask}.
     */
    public long fsiz() {
        return db.fsiz();
    }
}
