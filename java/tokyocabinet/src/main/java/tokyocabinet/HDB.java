package tokyocabinet;


/**
 * Hash database: one value per key. Drop-in for the Tokyo Cabinet binding's class of the same
 * name, on the same store as {@link BDB} (a database is either kind; opening it as the other
 * fails with {@link #EMETA}). The iterator visits keys in byte order. Failure reporting,
 * locking, transactions and the path-as-a-file behaviour are those of {@link BDB}.
 */
public class HDB extends AbstractDB implements DBM {
    // The constants are declared on each class, as in the original: code compiled against it
    // inlines them, and reflection from other packages reads them only from a public class.
    // They take BDB's values, which are the same.
    /** As {@link BDB#ESUCCESS}. */
    public static final int ESUCCESS = BDB.ESUCCESS;
    /** As {@link BDB#ETHREAD}. */
    public static final int ETHREAD = BDB.ETHREAD;
    /** As {@link BDB#EINVALID}. */
    public static final int EINVALID = BDB.EINVALID;
    /** As {@link BDB#ENOFILE}. */
    public static final int ENOFILE = BDB.ENOFILE;
    /** As {@link BDB#ENOPERM}. */
    public static final int ENOPERM = BDB.ENOPERM;
    /** As {@link BDB#EMETA}. */
    public static final int EMETA = BDB.EMETA;
    /** As {@link BDB#ERHEAD}. */
    public static final int ERHEAD = BDB.ERHEAD;
    /** As {@link BDB#EOPEN}. */
    public static final int EOPEN = BDB.EOPEN;
    /** As {@link BDB#ECLOSE}. */
    public static final int ECLOSE = BDB.ECLOSE;
    /** As {@link BDB#ETRUNC}. */
    public static final int ETRUNC = BDB.ETRUNC;
    /** As {@link BDB#ESYNC}. */
    public static final int ESYNC = BDB.ESYNC;
    /** As {@link BDB#ESTAT}. */
    public static final int ESTAT = BDB.ESTAT;
    /** As {@link BDB#ESEEK}. */
    public static final int ESEEK = BDB.ESEEK;
    /** As {@link BDB#EREAD}. */
    public static final int EREAD = BDB.EREAD;
    /** As {@link BDB#EWRITE}. */
    public static final int EWRITE = BDB.EWRITE;
    /** As {@link BDB#EMMAP}. */
    public static final int EMMAP = BDB.EMMAP;
    /** As {@link BDB#ELOCK}. */
    public static final int ELOCK = BDB.ELOCK;
    /** As {@link BDB#EUNLINK}. */
    public static final int EUNLINK = BDB.EUNLINK;
    /** As {@link BDB#ERENAME}. */
    public static final int ERENAME = BDB.ERENAME;
    /** As {@link BDB#EMKDIR}. */
    public static final int EMKDIR = BDB.EMKDIR;
    /** As {@link BDB#ERMDIR}. */
    public static final int ERMDIR = BDB.ERMDIR;
    /** As {@link BDB#EKEEP}. */
    public static final int EKEEP = BDB.EKEEP;
    /** As {@link BDB#ENOREC}. */
    public static final int ENOREC = BDB.ENOREC;
    /** As {@link BDB#EMISC}. */
    public static final int EMISC = BDB.EMISC;
    /** As {@link BDB#TLARGE}. */
    public static final int TLARGE = BDB.TLARGE;
    /** As {@link BDB#TDEFLATE}. */
    public static final int TDEFLATE = BDB.TDEFLATE;
    /** As {@link BDB#TBZIP}. */
    public static final int TBZIP = BDB.TBZIP;
    /** As {@link BDB#TTCBS}. */
    public static final int TTCBS = BDB.TTCBS;
    /** As {@link BDB#OREADER}. */
    public static final int OREADER = BDB.OREADER;
    /** As {@link BDB#OWRITER}. */
    public static final int OWRITER = BDB.OWRITER;
    /** As {@link BDB#OCREAT}. */
    public static final int OCREAT = BDB.OCREAT;
    /** As {@link BDB#OTRUNC}. */
    public static final int OTRUNC = BDB.OTRUNC;
    /** As {@link BDB#ONOLCK}. */
    public static final int ONOLCK = BDB.ONOLCK;
    /** As {@link BDB#OLCKNB}. */
    public static final int OLCKNB = BDB.OLCKNB;
    /** As {@link BDB#OTSYNC}. */
    public static final int OTSYNC = BDB.OTSYNC;

    /** A closed database; {@link #open(String, int)} opens it. */
    public HDB() {
        super(true);
    }

    /** The message of an error code (as the original's, and "unknown error" for others). */
    public static String errmsg(int ecode) {
        return Database.errmsg(ecode);
    }

    /**
     * Before {@code open} only. Bucket and alignment sizes have no RocksDB meaning and are
     * accepted as they are; {@code opts} selects compression as in {@link BDB#tune}.
     */
    public boolean tune(long bnum, int apow, int fpow, int opts) {
        return db.tune(opts);
    }

    /**
     * Before {@code open} only: the block cache gets 1 KiB per cached record, at least 8 MiB,
     * where the original sized its record cache.
     */
    public boolean setcache(int rcnum) {
        return db.setcache(Math.max(8L << 20, (rcnum > 0 ? rcnum : 0) * 1024L));
    }

    /** Same as {@link #put(byte[], byte[])}: every write is already asynchronous until a sync. */
    public boolean putasync(byte[] key, byte[] value) {
        return put(key, value);
    }

    /** Same as {@link #put(String, String)}. */
    public boolean putasync(String key, String value) {
        return put(key, value);
    }

    /** Compacts the database. The tuning arguments are accepted and ignored. */
    public boolean optimize(long bnum, int apow, int fpow, int opts) {
        return db.run(CasketNative::optimize);
    }

    /** {@link #optimize(long, int, int, int)} keeping the current settings. */
    public boolean optimize() {
        return optimize(-1, -1, -1, 0xff);
    }
}
