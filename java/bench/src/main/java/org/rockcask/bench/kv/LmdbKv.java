package org.rockcask.bench.kv;

import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.Iterator;
import java.util.function.Supplier;
import org.lmdbjava.CursorIterable;
import org.lmdbjava.Dbi;
import org.lmdbjava.DbiFlags;
import org.lmdbjava.Env;
import org.lmdbjava.EnvFlags;
import org.lmdbjava.KeyRange;
import org.lmdbjava.Txn;

/**
 * LMDB through lmdbjava: one database, a map of 16 GiB (address space, not disk). Synced: the
 * environment's defaults, so every write transaction's commit syncs (the documentation of
 * {@code mdb_env_open}); unsynced: {@code MDB_NOSYNC}, which leaves syncing to the OS (a process
 * crash loses nothing, a power cut may). Reads and scans run in read-only transactions (a
 * snapshot each, no lock); writes and the read-modify-write in write transactions, one at a
 * time (LMDB's single writer), so no update is lost.
 */
final class LmdbKv implements KvStore {
    private static final long MAP_BYTES = 16L << 30;

    private final Env<ByteBuffer> env;
    private final Dbi<ByteBuffer> db;
    private final ThreadLocal<ByteBuffer> keys = ThreadLocal.withInitial(() -> ByteBuffer.allocateDirect(64));
    private final ThreadLocal<ByteBuffer> values = ThreadLocal.withInitial(() -> ByteBuffer.allocateDirect(RECORD_BYTES));

    LmdbKv(Path dir, boolean synced) {
        Env.Builder<ByteBuffer> builder = Env.create().setMapSize(MAP_BYTES).setMaxDbs(1).setMaxReaders(256);
        env = synced ? builder.open(dir.toFile()) : builder.open(dir.toFile(), EnvFlags.MDB_NOSYNC);
        db = env.openDbi("usertable", DbiFlags.MDB_CREATE);
    }

    private ByteBuffer key(byte[] k) {
        ByteBuffer b = keys.get();
        b.clear();
        b.put(k).flip();
        return b;
    }

    private ByteBuffer value(byte[] v) {
        ByteBuffer b = values.get();
        b.clear();
        b.put(v).flip();
        return b;
    }

    @Override
    public void load(long from, long to, Supplier<byte[]> records) {
        try (Txn<ByteBuffer> txn = env.txnWrite()) {
            for (long r = from; r < to; r++) {
                db.put(txn, key(KvStore.key(r)), value(records.get()));
            }
            txn.commit();
        }
    }

    @Override
    public int read(byte[] key) {
        try (Txn<ByteBuffer> txn = env.txnRead()) {
            ByteBuffer v = db.get(txn, key(key));
            if (v == null) {
                return -1;
            }
            // Copied out, as a caller that uses the value after the transaction must.
            byte[] out = new byte[v.remaining()];
            v.get(out);
            return out.length;
        }
    }

    @Override
    public void write(byte[] key, byte[] value) {
        try (Txn<ByteBuffer> txn = env.txnWrite()) {
            db.put(txn, key(key), value(value));
            txn.commit();
        }
    }

    @Override
    public long scan(byte[] key, int count) {
        long bytes = 0;
        try (Txn<ByteBuffer> txn = env.txnRead(); CursorIterable<ByteBuffer> c = db.iterate(txn, KeyRange.atLeast(key(key)))) {
            Iterator<CursorIterable.KeyVal<ByteBuffer>> it = c.iterator();
            for (int n = 0; n < count && it.hasNext(); n++) {
                ByteBuffer v = it.next().val();
                byte[] out = new byte[v.remaining()];
                v.get(out);
                bytes += out.length;
            }
        }
        return bytes;
    }

    @Override
    public void readModifyWrite(byte[] key, byte[] value) {
        try (Txn<ByteBuffer> txn = env.txnWrite()) {
            ByteBuffer old = db.get(txn, key(key));
            byte[] changed = value.clone();
            if (old != null) {
                old.position(FIELD_BYTES);
                old.get(changed, FIELD_BYTES, Math.min(old.remaining(), changed.length - FIELD_BYTES));
            }
            db.put(txn, key(key), value(changed));
            txn.commit();
        }
    }

    @Override
    public void close() {
        db.close();
        env.close();
    }
}
