package tokyocabinet;

import java.util.List;

/**
 * Hash database: one value per key. Drop-in for the Tokyo Cabinet binding's class of the same
 * name, on the same store as {@link BDB} (a database is either kind; opening it as the other
 * fails with {@link #EMETA}). The iterator visits keys in byte order. Failure reporting,
 * locking, transactions and the path-as-a-file behaviour are those of {@link BDB}.
 */
@SuppressWarnings({"rawtypes", "unchecked"}) // the original API uses raw lists
public class HDB implements DBM {
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

    private final Database db = new Database(true);

    public HDB() {}

    public static String errmsg(int ecode) {
        return Database.errmsg(ecode);
    }

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

    /** Before {@code open} only; {@code opts} selects compression as in {@link BDB#tune}. */
    public boolean tune(long bnum, int apow, int fpow, int opts) {
        if (!db.configurable()) {
            return false;
        }
        db.tuneCompression(opts);
        return true;
    }

    /** Before {@code open} only: the block cache gets 1 KiB per cached record, at least 8 MiB. */
    public boolean setcache(int rcnum) {
        if (!db.configurable()) {
            return false;
        }
        db.cacheBytes = Math.max(8L << 20, (rcnum > 0 ? rcnum : 0) * 1024L);
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

    public boolean open(String path, int omode) {
        return db.open(path, omode);
    }

    public boolean open(String name) {
        return open(name, OREADER);
    }

    public boolean close() {
        return db.close();
    }

    public boolean put(byte[] key, byte[] value) {
        return db.put(key, value, 0);
    }

    public boolean put(String key, String value) {
        return put(Database.bytes(key), Database.bytes(value));
    }

    public boolean putkeep(byte[] key, byte[] value) {
        return db.put(key, value, 1);
    }

    public boolean putkeep(String key, String value) {
        return putkeep(Database.bytes(key), Database.bytes(value));
    }

    /** As {@link BDB#putcat(byte[], byte[])}: an append past the most a value may hold fails with {@link #EINVALID}. */
    public boolean putcat(byte[] key, byte[] value) {
        return db.put(key, value, 2);
    }

    public boolean putcat(String key, String value) {
        return putcat(Database.bytes(key), Database.bytes(value));
    }

    /** Same as {@link #put(byte[], byte[])}: every write is already asynchronous until a sync. */
    public boolean putasync(byte[] key, byte[] value) {
        return put(key, value);
    }

    public boolean putasync(String key, String value) {
        return put(key, value);
    }

    public boolean out(byte[] key) {
        return db.out(key, false);
    }

    public boolean out(String key) {
        return out(Database.bytes(key));
    }

    public byte[] get(byte[] key) {
        return db.get(key);
    }

    public String get(String key) {
        return Database.string(get(Database.bytes(key)));
    }

    public int vsiz(byte[] key) {
        return db.vsiz(key);
    }

    public int vsiz(String key) {
        return vsiz(Database.bytes(key));
    }

    /** Starts the iterator (true also on an empty database, as the original). */
    public boolean iterinit() {
        return db.iterinit();
    }

    public byte[] iternext() {
        return db.iternext();
    }

    public String iternext2() {
        return Database.string(iternext());
    }

    public List fwmkeys(byte[] prefix, int max) {
        return db.fwmkeys(prefix, max);
    }

    public List fwmkeys(String prefix, int max) {
        return Database.strings(fwmkeys(Database.bytes(prefix), max));
    }

    public int addint(byte[] key, int num) {
        return db.addint(key, num);
    }

    public int addint(String key, int num) {
        return addint(Database.bytes(key), num);
    }

    public double adddouble(byte[] key, double num) {
        return db.adddouble(key, num);
    }

    public double adddouble(String key, double num) {
        return adddouble(Database.bytes(key), num);
    }

    public boolean sync() {
        return db.run(CasketNative::sync);
    }

    /** Compacts the database. The tuning arguments are accepted and ignored. */
    public boolean optimize(long bnum, int apow, int fpow, int opts) {
        return db.run(CasketNative::optimize);
    }

    public boolean optimize() {
        return optimize(-1, -1, -1, 0xff);
    }

    public boolean vanish() {
        return db.run(CasketNative::vanish);
    }

    /** As {@link BDB#copy(String)}: a path starting with '@' is refused. */
    public boolean copy(String path) {
        return db.copy(path);
    }

    public boolean tranbegin() {
        return db.run(CasketNative::tranbegin);
    }

    public boolean trancommit() {
        return db.run(CasketNative::trancommit);
    }

    public boolean tranabort() {
        return db.run(CasketNative::tranabort);
    }

    public String path() {
        return db.path();
    }

    public long rnum() {
        return db.rnum();
    }

    /**
     * The size of the database's contents: 256 bytes plus, for every record, 16 bytes and the
     * lengths of its key and value. Like the original's file size it grows as records are added
     * or lengthened, and {@link #tranabort()} puts it back where it was at {@link #tranbegin()};
     * unlike it, it also shrinks as records are removed.
     * It is not the space on disk (RocksDB's logs and compactions make that move on their own):
     * that is the marker file plus the directory {@code <path>.rockcask}.
     */
    public long fsiz() {
        return db.fsiz();
    }
}
