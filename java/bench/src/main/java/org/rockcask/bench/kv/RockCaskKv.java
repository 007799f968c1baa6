package org.rockcask.bench.kv;

import java.nio.file.Path;
import java.util.Map;
import java.util.function.Supplier;
import org.rockcask.Store;
import org.rockcask.StoreOptions;
import org.rockcask.Transaction;
import org.rockcask.TxMap;

/**
 * RockCask at its defaults (64 MiB block cache, 32 MiB map cache), synced or not
 * ({@link StoreOptions#syncOnCommit}): one map, "usertable". Each operation is
 * {@code store.begin()}, {@link TxMap} calls, {@code commit()}. The read-modify-write runs in
 * {@link Store#inTransaction}, which does exactly that and runs the transaction again on
 * {@code Conflict}, as docs/MAPS.md says to write one. Reads and scans read the transaction's
 * snapshot and their commit, writing nothing, returns at once and never conflicts; blind writes
 * never conflict either: both commit directly.
 */
final class RockCaskKv implements KvStore {
    private static final String MAP = "usertable";

    private final Store store;

    RockCaskKv(Path dir, boolean synced) {
        store = Store.open(dir, StoreOptions.defaults().syncOnCommit(synced));
    }

    @Override
    public void load(long from, long to, Supplier<byte[]> values) {
        try (Transaction tx = store.begin()) {
            TxMap m = tx.map(MAP);
            for (long r = from; r < to; r++) {
                m.put(KvStore.key(r), values.get());
            }
            tx.commit();
        }
    }

    @Override
    public int read(byte[] key) {
        try (Transaction tx = store.begin()) {
            byte[] v = tx.map(MAP).get(key);
            tx.commit();
            return v == null ? -1 : v.length;
        }
    }

    @Override
    public void write(byte[] key, byte[] value) {
        try (Transaction tx = store.begin()) {
            tx.map(MAP).put(key, value);
            tx.commit();
        }
    }

    @Override
    public long scan(byte[] key, int count) {
        try (Transaction tx = store.begin()) {
            long bytes = 0;
            for (Map.Entry<byte[], byte[]> e : tx.map(MAP).scan(key, null, false, count)) {
                bytes += e.getValue().length;
            }
            tx.commit();
            return bytes;
        }
    }

    @Override
    public void readModifyWrite(byte[] key, byte[] value) {
        store.inTransaction(tx -> {
            TxMap m = tx.map(MAP);
            byte[] old = m.get(key);
            byte[] changed = value.clone();
            if (old != null) {
                // One field replaced, the others kept: a real modification of what was read.
                System.arraycopy(old, FIELD_BYTES, changed, FIELD_BYTES, Math.min(old.length, changed.length) - FIELD_BYTES);
            }
            m.put(key, changed);
            return null;
        });
    }

    @Override
    public void close() {
        store.close();
    }
}
