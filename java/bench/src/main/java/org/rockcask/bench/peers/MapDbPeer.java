package org.rockcask.bench.peers;

import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.UUID;
import java.util.function.IntFunction;
import java.util.stream.IntStream;
import org.mapdb.BTreeMap;
import org.mapdb.DB;
import org.mapdb.DBMaker;
import org.mapdb.Serializer;

/**
 * MapDB 3: one file store with transactions, a BTreeMap of queue entries and a BTreeMap of
 * objects, both with byte-array keys in unsigned order ({@code Serializer.BYTE_ARRAY}).
 *
 * <p>Durable commit: {@code DBMaker.transactionEnable()} puts a write-ahead log in front of the
 * store; {@code DB.commit()} writes the commit mark to the log and syncs it, then copies the
 * changes into the store file, syncs that too and drops the log (MapDB 3.1 {@code StoreWAL} and
 * {@code WriteAheadLog}; only {@code fileSyncDisable()}, not used here, would skip the syncs).
 * The file is memory-mapped ({@code fileMmapEnableIfSupported()}, "much faster storage option"
 * in the {@code DBMaker} javadoc). The MapDB book recommends BTreeMap for small keys and, for
 * values large beside their keys, storing them outside the tree's nodes
 * ({@code valuesOutsideNodesEnable()}) so that a get does not deserialize a whole leaf of
 * values: the objects (256 bytes under 16-byte ids) are stored so, the 64-byte queue payloads in
 * the nodes. MapDB has one global transaction and no read transactions: reads see the last
 * commit.
 *
 * <p>The head and tail sequence numbers of queue "q" live in memory after {@link #fillQueue}:
 * a poll removes the head key ({@code remove} returns the payload consumed).
 *
 * <p>Concurrent components: MapDB 3 has one global transaction per {@code DB} ({@code commit}
 * and {@code rollback} apply to every change made since, from any thread), so each component's
 * whole transaction (its changes and the commit) holds one fair lock: one transaction at a time,
 * each synced on its own.
 */
public final class MapDbPeer implements Peer {
    private static final byte QUEUE_ID = 'q';
    private static final int OBJECTS_PER_TRANSACTION = 10_000;

    private final DB db;
    private final BTreeMap<byte[], byte[]> entries;
    private final BTreeMap<byte[], byte[]> objects;
    private long head;
    private long tail;

    public MapDbPeer(Path dir) {
        db = DBMaker.fileDB(dir.resolve("peer.mapdb").toFile())
                .fileMmapEnableIfSupported()
                .transactionEnable()
                .make();
        entries = db.treeMap("entries", Serializer.BYTE_ARRAY, Serializer.BYTE_ARRAY).createOrOpen();
        objects = db.treeMap("objects", Serializer.BYTE_ARRAY, Serializer.BYTE_ARRAY)
                .valuesOutsideNodesEnable()
                .createOrOpen();
        db.commit();
    }

    private static byte[] entryKey(long sequence) {
        return ByteBuffer.allocate(9).put(QUEUE_ID).putLong(sequence).array();
    }

    private static byte[] objectKey(UUID id) {
        return ByteBuffer.allocate(16).putLong(id.getMostSignificantBits()).putLong(id.getLeastSignificantBits()).array();
    }

    /** Commits, or rolls the global transaction back so that a failure leaves nothing half done. */
    private void commitOrRollback(Runnable writes) {
        try {
            writes.run();
            db.commit();
        } catch (RuntimeException | Error e) {
            db.rollback();
            throw e;
        }
    }

    /** One transaction appending {@code count} entries at the queue's tail, the i-th holding {@code payload.apply(i)}. */
    private void append(int count, IntFunction<byte[]> payload) {
        commitOrRollback(() -> {
            for (int i = 0; i < count; i++) {
                entries.put(entryKey(tail + i), payload.apply(i));
            }
        });
        tail += count;
    }

    @Override
    public void fillQueue(int depth, byte[] payload) {
        append(depth, i -> payload);
    }

    @Override
    public long cycle(int polls, byte[][] payloads) {
        long[] consumed = {0};
        commitOrRollback(() -> {
            for (int i = 0; i < polls; i++) {
                byte[] payload = entries.remove(entryKey(head + i));
                if (payload == null) {
                    throw new IllegalStateException("queue entry " + (head + i) + " is missing");
                }
                consumed[0] += payload.length;
            }
            for (int i = 0; i < payloads.length; i++) {
                entries.put(entryKey(tail + i), payloads[i]);
            }
        });
        head += polls;
        tail += payloads.length;
        return consumed[0];
    }

    @Override
    public java.util.List<Component> components(int first, int count) {
        java.util.List<Component> out = new java.util.ArrayList<>();
        for (int i = first; i < first + count; i++) {
            out.add(new QueueComponent(i));
        }
        return out;
    }

    /** One transaction at a time across the components: the store's commit is global. */
    private final java.util.concurrent.locks.ReentrantLock oneTransaction = new java.util.concurrent.locks.ReentrantLock(true);

    /** One component's queue, keyed 'c' + its number + the sequence. */
    private final class QueueComponent implements Component {
        private final int queue;
        private long head;
        private long tail;

        QueueComponent(int queue) {
            this.queue = queue;
        }

        private byte[] key(long sequence) {
            return ByteBuffer.allocate(13).put((byte) 'c').putInt(queue).putLong(sequence).array();
        }

        @Override
        public void fill(int depth, byte[] payload) {
            byte[][] all = new byte[depth][];
            java.util.Arrays.fill(all, payload);
            cycle(0, all);
        }

        @Override
        public long cycle(int polls, byte[][] payloads) {
            long[] consumed = {0};
            oneTransaction.lock();
            try {
                commitOrRollback(() -> {
                    for (int i = 0; i < polls; i++) {
                        byte[] payload = entries.remove(key(head + i));
                        if (payload == null) {
                            throw new IllegalStateException("queue " + queue + " entry " + (head + i) + " is missing");
                        }
                        consumed[0] += payload.length;
                    }
                    for (int i = 0; i < payloads.length; i++) {
                        entries.put(key(tail + i), payloads[i]);
                    }
                });
            } finally {
                oneTransaction.unlock();
            }
            head += polls;
            tail += payloads.length;
            return consumed[0];
        }
    }

    @Override
    public void enqueueAll(byte[][] payloads) {
        append(payloads.length, i -> payloads[i]);
    }

    @Override
    public void putObjects(UUID[] ids, byte[][] payloads) {
        for (int start = 0; start < ids.length; start += OBJECTS_PER_TRANSACTION) {
            IntStream batch = IntStream.range(start, Math.min(ids.length, start + OBJECTS_PER_TRANSACTION));
            commitOrRollback(() -> batch.forEach(i -> objects.put(objectKey(ids[i]), payloads[i])));
        }
    }

    @Override
    public long readObjects(UUID[] ids, int perTransaction) {
        long read = 0;
        for (UUID id : ids) {
            byte[] payload = objects.get(objectKey(id));
            if (payload == null) {
                throw new IllegalStateException("object " + id + " is missing");
            }
            read += payload.length;
        }
        return read;
    }

    @Override
    public void close() {
        db.close();
    }
}
