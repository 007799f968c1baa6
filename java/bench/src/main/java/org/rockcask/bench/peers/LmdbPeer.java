package org.rockcask.bench.peers;

import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.UUID;
import org.lmdbjava.Dbi;
import org.lmdbjava.DbiFlags;
import org.lmdbjava.Env;
import org.lmdbjava.PutFlags;
import org.lmdbjava.Txn;

/**
 * LMDB through lmdbjava: two named databases, "entries" (queue id + big-endian sequence ->
 * payload) and "objects" (16-byte id -> payload), in an environment with a 4 GiB map (the
 * largest store here takes well under 1 GiB; the map is address space, not disk).
 *
 * <p>Durable commit: the environment is opened without {@code MDB_NOSYNC}, {@code MDB_NOMETASYNC}
 * and {@code MDB_WRITEMAP}, so {@code mdb_txn_commit} syncs the data and the meta page before it
 * returns (LMDB's documentation of {@code mdb_env_open}); one write transaction per transaction
 * of the workload. Entries are appended with {@code MDB_APPEND}, which the documentation of
 * {@code mdb_put} gives for keys that arrive in order. Reads: one read-only transaction per
 * 1,000 gets, each payload copied out of the map (a flow hands it on after the transaction).
 *
 * <p>The queue's head and tail sequence numbers are kept in memory after {@link #fillQueue}, so a
 * poll gets and deletes the head keys directly.
 *
 * <p>Concurrent components: LMDB has a single writer ("one active write transaction at a time",
 * the documentation of {@code mdb_txn_begin}, serialized by the environment's writer mutex), so
 * each thread opens its own write transaction with {@code Env.txnWrite()}, which waits for the
 * one before it; each transaction syncs on its own commit (LMDB has no group commit). Each
 * component has its own key and value buffers. Its entries are put without {@code MDB_APPEND}:
 * several queues' keys interleave, so a queue's new key is not the largest in the database.
 */
final class LmdbPeer implements Peer {
    private static final long MAP_BYTES = 4L << 30;

    private final Env<ByteBuffer> env;
    private final Dbi<ByteBuffer> entries;
    private final Dbi<ByteBuffer> objects;
    private final ByteBuffer key = ByteBuffer.allocateDirect(16);
    private ByteBuffer value = ByteBuffer.allocateDirect(256);
    private long head;
    private long tail;

    LmdbPeer(Path dir) {
        env = Env.create().setMapSize(MAP_BYTES).setMaxDbs(2).open(dir.toFile());
        entries = env.openDbi("entries", DbiFlags.MDB_CREATE);
        objects = env.openDbi("objects", DbiFlags.MDB_CREATE);
    }

    @Override
    public void fillQueue(int depth, byte[] payload) {
        byte[][] all = new byte[depth][];
        java.util.Arrays.fill(all, payload);
        enqueueAll(all);
    }

    @Override
    public long cycle(int polls, byte[][] payloads) {
        long bytes = 0;
        try (Txn<ByteBuffer> txn = env.txnWrite()) {
            int got = 0;
            for (; got < polls && head + got < tail; got++) {
                entryKey(head + got);
                bytes += copy(entries.get(txn, key)).length;
                entries.delete(txn, key);
            }
            for (byte[] p : payloads) {
                entries.put(txn, entryKey(tail), value(p), PutFlags.MDB_APPEND);
                tail++;
            }
            txn.commit();
            head += got;
        }
        return bytes;
    }

    @Override
    public void enqueueAll(byte[][] payloads) {
        cycle(0, payloads);
    }

    @Override
    public java.util.List<Component> components(int first, int count) {
        java.util.List<Component> out = new java.util.ArrayList<>();
        for (int i = first; i < first + count; i++) {
            // Queue 0 is the single-queue workloads' (Keys.QUEUE_ID): components start at 1.
            out.add(new QueueComponent(i + 1));
        }
        return out;
    }

    /** One component's queue: its head, tail and buffers; the environment is shared. */
    private final class QueueComponent implements Component {
        private final int queue;
        private final ByteBuffer entryKey = ByteBuffer.allocateDirect(12);
        private final ByteBuffer entryValue = ByteBuffer.allocateDirect(1024);
        private long head;
        private long tail;

        QueueComponent(int queue) {
            this.queue = queue;
        }

        @Override
        public void fill(int depth, byte[] payload) {
            byte[][] all = new byte[depth][];
            java.util.Arrays.fill(all, payload);
            cycle(0, all);
        }

        @Override
        public long cycle(int polls, byte[][] payloads) {
            long bytes = 0;
            try (Txn<ByteBuffer> txn = env.txnWrite()) {
                int got = 0;
                for (; got < polls && head + got < tail; got++) {
                    key(head + got);
                    bytes += copy(entries.get(txn, entryKey)).length;
                    entries.delete(txn, entryKey);
                }
                for (byte[] p : payloads) {
                    key(tail);
                    entryValue.clear();
                    entryValue.put(p).flip();
                    entries.put(txn, entryKey, entryValue);
                    tail++;
                }
                txn.commit();
                head += got;
            }
            return bytes;
        }

        private void key(long seq) {
            entryKey.clear();
            entryKey.put(Keys.entry(queue, seq)).flip();
        }
    }

    @Override
    public void putObjects(UUID[] ids, byte[][] payloads) throws Exception {
        Batches.sum(ids.length, PUT_BATCH, (from, to) -> {
            try (Txn<ByteBuffer> txn = env.txnWrite()) {
                for (int i = from; i < to; i++) {
                    objects.put(txn, objectKey(ids[i]), value(payloads[i]));
                }
                txn.commit();
            }
            return 0;
        });
    }

    @Override
    public long readObjects(UUID[] ids, int perTransaction) throws Exception {
        return Batches.sum(ids.length, perTransaction, (from, to) -> {
            long bytes = 0;
            try (Txn<ByteBuffer> txn = env.txnRead()) {
                for (int i = from; i < to; i++) {
                    bytes += copy(objects.get(txn, objectKey(ids[i]))).length;
                }
            }
            return bytes;
        });
    }

    /** The value's bytes, out of the map (valid only inside its transaction). */
    private static byte[] copy(ByteBuffer v) {
        byte[] bytes = new byte[v.remaining()];
        v.get(bytes);
        return bytes;
    }

    private ByteBuffer entryKey(long seq) {
        key.clear();
        key.put(Keys.entry(seq)).flip();
        return key;
    }

    private ByteBuffer objectKey(UUID id) {
        key.clear();
        key.putLong(id.getMostSignificantBits()).putLong(id.getLeastSignificantBits()).flip();
        return key;
    }

    private ByteBuffer value(byte[] payload) {
        if (value.capacity() < payload.length) {
            value = ByteBuffer.allocateDirect(Math.max(payload.length, 2 * value.capacity()));
        }
        value.clear();
        value.put(payload).flip();
        return value;
    }

    @Override
    public void close() {
        entries.close();
        objects.close();
        env.close();
    }
}
