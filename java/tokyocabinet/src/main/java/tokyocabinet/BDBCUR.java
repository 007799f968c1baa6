package tokyocabinet;

import java.util.List;

/**
 * Cursor of a {@link BDB}: walks every record (each duplicate value separately) in key order.
 * Usable after {@link #first()}, {@link #last()} or {@link #jump(byte[])}.
 *
 * <p>The cursor remembers the record it points at. If that record is removed (by this cursor's
 * database from any thread, or by a transaction abort), reading or writing at the cursor fails
 * with {@code ENOREC} and moving continues from where the record was; it never reads freed
 * memory. Not for sharing between threads (as in the original); failures set the database's
 * {@code ecode()}.
 */
public class BDBCUR {
    /** Put mode: replace the value at the cursor. */
    public static final int CPCURRENT = 0;
    /** Put mode: add a value of the same key before the one at the cursor. */
    public static final int CPBEFORE = 1;
    /** Put mode: add a value of the same key after the one at the cursor. */
    public static final int CPAFTER = 2;

    private final BDB bdb;
    /** The record the cursor points at; null before positioning or after falling off the end. */
    private byte[] pos;

    /** A cursor on {@code bdb}, not yet on a record. */
    public BDBCUR(BDB bdb) {
        this.bdb = Database.check(bdb);
    }

    private boolean move(Database.Call<byte[]> op) {
        byte[] next = bdb.db.call(op, null);
        pos = next;
        return next != null;
    }

    private byte[] position(long db) {
        byte[] p = pos;
        if (p == null) {
            throw new CasketException(BDB.ENOREC, "the cursor is not on a record");
        }
        return p;
    }

    /** To the first record; false on an empty database. */
    public boolean first() {
        return move(CasketNative::curFirst);
    }

    /** To the last record; false on an empty database. */
    public boolean last() {
        return move(CasketNative::curLast);
    }

    /** To the first record whose key is at or after {@code key}; false if there is none. */
    public boolean jump(byte[] key) {
        Database.check(key);
        return move(db -> CasketNative.curJump(db, key));
    }

    /** {@link #jump(byte[])} with a String key. */
    public boolean jump(String key) {
        return jump(Database.bytes(key));
    }

    /** To the previous record; false at the first. */
    public boolean prev() {
        return move(db -> CasketNative.curPrev(db, position(db)));
    }

    /** To the next record; false at the last. */
    public boolean next() {
        return move(db -> CasketNative.curNext(db, position(db)));
    }

    /**
     * {@link #CPCURRENT} replaces the value at the cursor; {@link #CPBEFORE} and {@link #CPAFTER}
     * add a value of the same key before or after it, and the cursor moves to the new value.
     * False ({@code ENOREC}) if the cursor is not on a record; another mode fails with
     * {@code EINVALID}.
     */
    public boolean put(byte[] value, int cpmode) {
        Database.check(value);
        if (cpmode < CPCURRENT || cpmode > CPAFTER) {
            return bdb.db.fail(BDB.EINVALID);
        }
        if (!bdb.db.fits(value)) {
            return false;
        }
        byte[] next = bdb.db.call(db -> CasketNative.curPut(db, position(db), value, cpmode), null);
        if (next == null) {
            return false;
        }
        pos = next;
        return true;
    }

    /** {@link #put(byte[], int)} with a String value. */
    public boolean put(String value, int cpmode) {
        return put(Database.bytes(value), cpmode);
    }

    /** Removes the record at the cursor; the cursor moves to the next record. */
    public boolean out() {
        List<byte[]> next = bdb.db.list(db -> CasketNative.curOut(db, position(db)));
        if (next == null) {
            return false;
        }
        pos = next.get(0);
        return true;
    }

    /** The key at the cursor, or null ({@code ENOREC}). */
    public byte[] key() {
        return bdb.db.call(db -> CasketNative.curKey(db, position(db)), null);
    }

    /** {@link #key()} decoded as UTF-8. */
    public String key2() {
        return Database.string(key());
    }

    /** The value at the cursor, or null ({@code ENOREC}). */
    public byte[] val() {
        return bdb.db.call(db -> CasketNative.curVal(db, position(db)), null);
    }

    /** {@link #val()} decoded as UTF-8. */
    public String val2() {
        return Database.string(val());
    }
}
