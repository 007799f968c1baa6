package tokyocabinet;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.rockcask.internal.NativeResource;
import org.rockcask.internal.Utf8;
import org.rockcask.RockCaskException;
import tokyocabinet.internal.CasketComparator;
import tokyocabinet.internal.PackedPutdups;

/**
 * What {@link BDB} and {@link HDB} share: the open native casket, the settings made before
 * {@code open}, the per-thread error code, the embedded iterator, and the one place where a
 * native call's failure becomes an error code and a failure value.
 *
 * <p>Thread-safe. Calls on another thread while {@code close} runs either finish first or fail
 * with EINVALID; the native casket is freed once no call is inside it. Calls from inside a
 * {@link BDBCMP} comparator fail with EINVALID at once (see {@link Comparison}).
 */
final class Database {
    /**
     * The most bytes a value may hold: the most a Java array holds on every JVM. The native
     * side refuses longer values (and appends that would make one) by the same figure
     * (checked when {@link CasketNative} registers), so a database never holds a value
     * {@code get} cannot return.
     */
    static final int MAX_VALUE_SIZE = Integer.MAX_VALUE - 8;

    private static final String[] MESSAGES = {"success", "threading error", "invalid operation", "file not found", "no permission",
            "invalid meta data", "invalid record header", "open error", "close error", "trunc error", "sync error", "stat error",
            "seek error", "read error", "write error", "mmap error", "lock error", "unlink error", "rename error", "mkdir error",
            "rmdir error", "existing record", "no record found"};

    static String errmsg(int ecode) {
        if (ecode >= 0 && ecode < MESSAGES.length) {
            return MESSAGES[ecode];
        }
        return ecode == BDB.EMISC ? "miscellaneous error" : "unknown error";
    }

    /** The String overloads' encoding: the platform default charset, as in the original. */
    static byte[] bytes(String s) {
        return check(s).getBytes();
    }

    /** A required argument: null throws IllegalArgumentException, as in the original. */
    static <T> T check(T arg) {
        if (arg == null) {
            throw new IllegalArgumentException("illegal argument");
        }
        return arg;
    }

    /** Returned bytes are decoded as UTF-8 ({@code Util.otos}). */
    static String string(byte[] b) {
        return b == null ? null : new String(b, StandardCharsets.UTF_8);
    }

    static List<String> strings(List<byte[]> list) {
        if (list == null) {
            return null;
        }
        List<String> out = new ArrayList<>(list.size());
        for (byte[] b : list) {
            out.add(string(b));
        }
        return out;
    }

    /** The open casket; freed by close() or, if the owner is forgotten, by a Cleaner. */
    private static final class Handle extends NativeResource {
        final String path;
        volatile CasketException closeError;

        Handle(long db, String path) {
            super("database", db, CasketNative::free);
            this.path = path;
        }

        @Override
        protected void beforeFree(long db) {
            // Ends a running transaction (rollback) and wakes threads waiting to begin one.
            try {
                CasketNative.close(db);
            } catch (CasketException e) {
                closeError = e;
            } catch (RockCaskException e) {
                closeError = new CasketException(BDB.EMISC, e.getMessage());
            }
        }
    }

    interface Call<T> {
        T run(long db);
    }

    interface VoidCall {
        void run(long db);
    }

    private final boolean hash;
    private final Object openLock = new Object();
    private volatile Handle handle;
    private final ThreadLocal<LastError> lastError = ThreadLocal.withInitial(LastError::new);
    /** Position of the embedded iterator (iterinit/iternext); null when exhausted. */
    private volatile byte[] iterPos;
    /**
     * While a transaction runs, {@code putdup}s are gathered here (guarded by itself) and
     * written in one native call before any other call on the database, from any thread, and at
     * commit: what the native API does with enqueues. Only in a transaction, where nothing is
     * durable before the commit anyway, and only with a built-in key order (a {@link BDBCMP}
     * could refuse a key when it is written).
     */
    private final PackedPutdups gathered = new PackedPutdups();
    /** Set by a successful {@code tranbegin} of a B+ tree (a hash database has no duplicates), cleared when it ends. */
    private volatile boolean gathering;
    /**
     * Why writing gathered {@code putdup}s failed during the running transaction (guarded by
     * {@link #gathered}): each of them had returned true, so the transaction can no longer
     * commit; {@code trancommit} aborts it and fails with this.
     */
    private CasketException gatheredFailure;

    // Settings made before open.
    int cmpfunc = BDB.CMPLEXICAL;
    BDBCMP comparator;
    long cacheBytes = 24L << 20;
    long writeBufferBytes = 64L << 20;
    /** A {@link CasketNative} {@code COMPRESSION_} code. */
    int compression = CasketNative.COMPRESSION_NONE;

    Database(boolean hash) {
        this.hash = hash;
    }

    /** The calling thread's last failure on this database. */
    private static final class LastError {
        int code;
        /** Why, for the codes that cover many causes (EINVALID, EMISC); null otherwise. */
        String detail;
    }

    int ecode() {
        return lastError.get().code;
    }

    /**
     * The message of the last error code; for EINVALID and EMISC, which cover many causes,
     * followed by what failed ("invalid operation: ...") when the drop-in knows it.
     */
    String errmsg() {
        LastError e = lastError.get();
        String message = errmsg(e.code);
        return e.detail == null ? message : message + ": " + e.detail;
    }

    boolean fail(int code) {
        return fail(code, null);
    }

    boolean fail(int code, String detail) {
        LastError e = lastError.get();
        e.code = code;
        e.detail = code == BDB.EINVALID || code == BDB.EMISC ? detail : null;
        return false;
    }

    /**
     * A name (a path, a comparator's class) as the native side takes it: the UTF-8 bytes of the
     * string, made as RockCask makes every name's ({@link Utf8#name}), which for a path are what
     * the file system gets. A string with no UTF-8 form (an unpaired surrogate; its bytes would
     * name another file) fails with EINVALID saying where, as the drop-in reports every refusal:
     * null then.
     */
    private byte[] name(String s, String what) {
        byte[] utf8 = Utf8.nameOrNull(s);
        if (utf8 == null) {
            fail(BDB.EINVALID, Utf8.invalid(s, what));
        }
        return utf8;
    }

    /** Whether a value of this many bytes may be stored; if not, records why (EINVALID). */
    boolean fits(byte[] value) {
        return value.length <= MAX_VALUE_SIZE || fail(BDB.EINVALID, "a value of " + value.length
                + " bytes is larger than the " + MAX_VALUE_SIZE + " bytes a value may hold (the most a Java array holds)");
    }

    /**
     * A {@link BDBCMP} as the native side calls it. Comparisons run inside the calls of the
     * database that uses the comparator (and in RocksDB's background threads) while that
     * database is locked, so a comparator that called a database could wait for itself, or for
     * a call waiting for it. Such calls fail at once with EINVALID instead (every call of every
     * database of this package made on a thread that is comparing, {@link #refusedInsideComparison()}),
     * and the result tells the native side, which fails the call that made the comparison
     * before it writes anything.
     */
    static final class Comparison implements CasketComparator {
        /** Per thread: comparisons running (0 or 1), and whether the running one called a database. */
        private static final ThreadLocal<int[]> RUNNING = ThreadLocal.withInitial(() -> new int[2]);

        private final BDBCMP comparator;

        Comparison(BDBCMP comparator) {
            this.comparator = comparator;
        }

        /**
         * Called by the native side: the comparator's result, with
         * {@link #CALLED_A_DATABASE} set if it called a database. A comparator that throws
         * after calling a database counts the keys as equal and is reported the same way; one
         * that throws otherwise throws to the native side, where the keys count as equal (as in
         * the original binding).
         */
        @Override
        public long compareChecked(byte[] a, byte[] b) {
            int[] running = RUNNING.get();
            running[0]++;
            running[1] = 0;
            int result;
            try {
                result = comparator.compare(a, b);
            } catch (RuntimeException | Error e) {
                if (running[1] == 0) {
                    throw e;
                }
                result = 0;
            } finally {
                running[0]--;
            }
            // The result in the low 32 bits (not sign-extended), the flag above them.
            long bits = result & 0xffffffffL;
            return running[1] != 0 ? CALLED_A_DATABASE | bits : bits;
        }

        /** Whether this thread is inside a comparison; if so, notes that it called a database. */
        static boolean running() {
            int[] running = RUNNING.get();
            if (running[0] == 0) {
                return false;
            }
            running[1] = 1;
            return true;
        }
    }

    /** A call made from inside a comparison fails at once (see {@link Comparison}). */
    private boolean refusedInsideComparison() {
        return Comparison.running() && !fail(BDB.EINVALID, "called from inside a BDBCMP comparator; a comparator must not use any"
                + " database (the call that made the comparison fails too)");
    }

    /** Settings may change only while closed. */
    boolean configurable() {
        return handle == null || fail(BDB.EINVALID);
    }

    /** A positive size becomes the write buffer (1 MiB to 1 GiB); before open only. */
    boolean setxmsiz(long xmsiz) {
        if (!configurable()) {
            return false;
        }
        writeBufferBytes = xmsiz > 0 ? Math.max(1L << 20, Math.min(xmsiz, 1L << 30)) : 64L << 20;
        return true;
    }

    /** The compression {@code tune}'s options select; before open only. */
    boolean tune(int opts) {
        if (!configurable()) {
            return false;
        }
        if ((opts & (BDB.TDEFLATE | BDB.TBZIP)) != 0) {
            compression = CasketNative.COMPRESSION_ZSTD;
        } else if ((opts & BDB.TTCBS) != 0) {
            compression = CasketNative.COMPRESSION_LZ4;
        } else {
            compression = CasketNative.COMPRESSION_NONE;
        }
        return true;
    }

    /** The block cache size {@code setcache} computed; before open only. */
    boolean setcache(long bytes) {
        if (!configurable()) {
            return false;
        }
        cacheBytes = bytes;
        return true;
    }

    /** {@code op} after the gathered {@code putdup}s are written (a failure to write them is the call's). */
    <T> T call(Call<T> op, T failure) {
        return callAsIs(db -> {
            writeGathered(db);
            return op.run(db);
        }, failure);
    }

    private <T> T callAsIs(Call<T> op, T failure) {
        if (refusedInsideComparison()) {
            return failure;
        }
        Handle h = handle;
        if (h == null) {
            fail(BDB.EINVALID);
            return failure;
        }
        return h.callIfOpen(db -> {
            try {
                return op.run(db);
            } catch (CasketException e) {
                fail(e.code, e.detail);
                return failure;
            } catch (RockCaskException e) {
                // An internal failure of the native layer: reported, never thrown, as the original.
                fail(BDB.EMISC, e.getMessage());
                return failure;
            }
        }, () -> {
            fail(BDB.EINVALID);
            return failure;
        });
    }

    boolean run(VoidCall op) {
        return call(db -> {
            op.run(db);
            return Boolean.TRUE;
        }, Boolean.FALSE);
    }

    boolean open(String path, int omode) {
        check(path);
        if (refusedInsideComparison()) {
            return false;
        }
        byte[] file = name(path, "path");
        if (file == null) {
            return false;
        }
        byte[] cmpName = null;
        if (comparator != null && (cmpName = name(comparator.getClass().getName(), "comparator class name")) == null) {
            return false;
        }
        synchronized (openLock) {
            if (handle != null) {
                return fail(BDB.EINVALID);
            }
            try {
                Comparison cmp = comparator == null ? null : new Comparison(comparator);
                long[] options = new long[CasketNative.OPEN_SLOTS];
                options[CasketNative.OPEN_OMODE] = omode;
                options[CasketNative.OPEN_HASH] = hash ? 1 : 0;
                options[CasketNative.OPEN_CMPFUNC] = cmpfunc;
                options[CasketNative.OPEN_CACHE_BYTES] = cacheBytes;
                options[CasketNative.OPEN_WRITE_BUFFER_BYTES] = writeBufferBytes;
                options[CasketNative.OPEN_COMPRESSION] = compression;
                long db = CasketNative.open(file, options, cmp, cmpName);
                handle = new Handle(db, path);
                iterPos = null;
                return true;
            } catch (CasketException e) {
                return fail(e.code, e.detail);
            } catch (RockCaskException e) {
                return fail(BDB.EMISC, e.getMessage());
            }
        }
    }

    boolean close() {
        // From inside a comparison, close would wait for the call that is comparing.
        if (refusedInsideComparison()) {
            return false;
        }
        synchronized (openLock) {
            Handle h = handle;
            if (h == null) {
                return fail(BDB.EINVALID);
            }
            handle = null;
            endGathering(); // the close aborts the running transaction
            h.close();
            CasketException e = h.closeError;
            return e == null || fail(e.code, e.detail);
        }
    }

    String path() {
        Handle h = handle;
        if (h == null) {
            fail(BDB.EINVALID);
            return null;
        }
        return h.path;
    }

    boolean put(byte[] key, byte[] value, int mode) {
        check(key);
        check(value);
        return fits(value) && run(db -> CasketNative.put(db, key, value, mode));
    }

    /** {@code putdup}: gathered while a transaction runs (see {@link #gathered}), else written at once. */
    boolean putdup(byte[] key, byte[] value) {
        check(key);
        check(value);
        if (!gathering || comparator != null || !PackedPutdups.gathers(key, value) || Comparison.running()) {
            return put(key, value, CasketNative.PUT_DUP);
        }
        boolean full;
        synchronized (gathered) {
            if (!gathering) {
                return put(key, value, CasketNative.PUT_DUP);
            }
            full = gathered.add(key, value);
        }
        // Enough gathered: an empty call writes them (every call does first).
        return !full || run(db -> {});
    }

    /** Writes the gathered {@code putdup}s, if any; a failure is also kept for {@code trancommit}. */
    private void writeGathered(long db) {
        if (!gathering) {
            return;
        }
        synchronized (gathered) {
            if (gathered.isEmpty()) {
                return;
            }
            try {
                CasketNative.putdups(db, gathered.take());
            } catch (CasketException e) {
                gatheredFailure = e;
                throw e;
            } catch (RockCaskException e) {
                gatheredFailure = new CasketException(BDB.EMISC, e.getMessage());
                throw gatheredFailure;
            }
        }
    }

    /** Stops gathering (the transaction ends); returns why writing what was gathered failed, if it did. */
    private CasketException endGathering() {
        synchronized (gathered) {
            gathering = false;
            gathered.clear();
            CasketException failure = gatheredFailure;
            gatheredFailure = null;
            return failure;
        }
    }

    boolean tranbegin() {
        boolean begun = run(CasketNative::tranbegin);
        if (begun && !hash) {
            gathering = true;
        }
        return begun;
    }

    /**
     * Commits, after writing the gathered {@code putdup}s; if writing them fails (now or before),
     * the transaction is aborted instead and the commit fails with that failure's code.
     */
    boolean trancommit() {
        return callAsIs(db -> {
            CasketException failure;
            synchronized (gathered) {
                try {
                    writeGathered(db);
                } catch (CasketException e) {
                    // Kept as gatheredFailure, which endGathering returns.
                }
                failure = endGathering();
            }
            if (failure != null) {
                try {
                    CasketNative.tranabort(db);
                } catch (CasketException alreadyEnded) {
                    // A failed write may have ended the transaction already; the write's failure is the one to report.
                }
                throw failure;
            }
            CasketNative.trancommit(db);
            return Boolean.TRUE;
        }, Boolean.FALSE);
    }

    /** Aborts: the gathered {@code putdup}s are dropped with the rest of the transaction. */
    boolean tranabort() {
        return callAsIs(db -> {
            endGathering(); // only once the call is made: one refused (inside a comparator) keeps them
            CasketNative.tranabort(db);
            return Boolean.TRUE;
        }, Boolean.FALSE);
    }

    boolean out(byte[] key, boolean all) {
        check(key);
        return run(db -> CasketNative.out(db, key, all));
    }

    byte[] get(byte[] key) {
        check(key);
        return call(db -> CasketNative.get(db, key), null);
    }

    int vsiz(byte[] key) {
        check(key);
        return call(db -> CasketNative.vsiz(db, key), -1);
    }

    int addint(byte[] key, int num) {
        check(key);
        return call(db -> CasketNative.addint(db, key, num), Integer.MIN_VALUE);
    }

    double adddouble(byte[] key, double num) {
        check(key);
        return call(db -> CasketNative.adddouble(db, key, num), Double.NaN);
    }

    /** The packed list a native call returns, unpacked; null on failure. */
    List<byte[]> list(Call<byte[]> packed) {
        return call(db -> CasketNative.unpack(packed.run(db)), null);
    }

    /** A list of keys, which never fails: empty when nothing matches or the call fails. */
    List<byte[]> keys(Call<byte[]> packed) {
        List<byte[]> keys = list(packed);
        return keys == null ? new ArrayList<>() : keys;
    }

    List<byte[]> fwmkeys(byte[] prefix, int max) {
        check(prefix);
        return keys(db -> CasketNative.fwmkeys(db, prefix, max));
    }

    boolean iterinit() {
        return call(db -> {
            try {
                iterPos = CasketNative.curFirst(db);
                return Boolean.TRUE;
            } catch (CasketException e) {
                iterPos = null;
                // The B+ tree's iterator starts at its first record and fails on an empty
                // database; the hash database's just starts.
                if (hash && e.code == BDB.ENOREC) {
                    return Boolean.TRUE;
                }
                throw e;
            }
        }, Boolean.FALSE);
    }

    byte[] iternext() {
        return call(db -> {
            byte[] pos = iterPos;
            if (pos == null) {
                throw new CasketException(BDB.ENOREC, "no record found");
            }
            List<byte[]> keyAndNext = CasketNative.unpack(CasketNative.curKeyNext(db, pos));
            iterPos = keyAndNext.get(1);
            return keyAndNext.get(0);
        }, null);
    }

    long rnum() {
        return call(CasketNative::rnum, 0L);
    }

    long fsiz() {
        return call(CasketNative::fsiz, 0L);
    }

    boolean copy(String path) {
        check(path);
        // The original ran a path starting with '@' as a shell command; a database call must
        // not be a way to run commands, so it is refused.
        if (path.startsWith("@")) {
            return fail(BDB.EINVALID);
        }
        byte[] target = name(path, "path");
        if (target == null) {
            return false;
        }
        return run(db -> CasketNative.copy(db, target));
    }
}
