package org.rockcask.bench.peers;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.UUID;
import org.rockcask.bench.RocksJavaPeer;
import org.rocksdb.ColumnFamilyHandle;
import org.rocksdb.ReadOptions;
import org.rocksdb.RocksDB;
import org.rocksdb.RocksIterator;
import org.rocksdb.Snapshot;
import org.rocksdb.WriteBatch;
import org.rocksdb.WriteOptions;

/**
 * RocksJava (org.rocksdb) directly, with RockCask's own database and column family options
 * ({@link RocksJavaPeer}: 128 MiB of write buffers, bloom filters of 10 bits per key, LZ4), the
 * payload in the queue entry (column family "entries") and objects under their id ("objects").
 *
 * <p>Durable commit: one {@link WriteBatch} per transaction, written with
 * {@code WriteOptions.setSync(true)}, so the write-ahead log is synced before it returns; WAL
 * flushes stay automatic ({@code manual_wal_flush} off, the default). For many small synced
 * writes the RocksDB wiki's "WAL Performance" page recommends {@code recycle_log_file_num}: a
 * recycled log file is already allocated, so a sync need not also write the file's metadata
 * (one I/O instead of two); set here to 4 (RockCask keeps 2), with RockCask's cap of 16 MiB on
 * the logs' total size so that logs are flushed and reused within the run. A row cache of {@link PeerWorkload#VALUE_CACHE_BYTES}
 * answers point reads of values read before (RocksDB's "Row Cache" for point lookups).
 *
 * <p>The queue's head and tail sequence numbers are kept in memory after {@link #fillQueue}; a
 * poll seeks to the head key (so it never scans the tombstones of consumed entries) and reads
 * forward. Reads: a snapshot per read transaction, one get per id, or (batched) one
 * {@code multiGetAsList} of the transaction's ids.
 *
 * <p>Concurrent components: each thread writes its own {@link WriteBatch} with the same synced
 * {@link WriteOptions} to the one {@link RocksDB} (thread-safe). RocksDB's write path groups
 * concurrent writers: one leader writes and syncs the log for the whole group (the wiki's "Write
 * Batch" / group commit, on by default).
 */
final class RocksJavaStorePeer implements Peer {
    private final RocksJavaPeer rocks;
    private final org.rocksdb.Cache rowCache;
    private final RocksDB db;
    private final ColumnFamilyHandle entries;
    private final ColumnFamilyHandle objects;
    private final WriteOptions sync;
    private long head;
    private long tail;

    RocksJavaStorePeer(Path dir) throws Exception {
        org.rocksdb.RocksDB.loadLibrary(); // before the first RocksJava object
        rowCache = new org.rocksdb.LRUCache(PeerWorkload.VALUE_CACHE_BYTES);
        rocks = new RocksJavaPeer(dir, RocksJavaPeer.dbOptions().setRecycleLogFileNum(4).setManualWalFlush(false).setRowCache(rowCache));
        db = rocks.db();
        entries = rocks.entries();
        objects = rocks.objects();
        sync = rocks.sync();
    }

    @Override
    public void fillQueue(int depth, byte[] payload) throws Exception {
        byte[][] all = new byte[depth][];
        java.util.Arrays.fill(all, payload);
        enqueueAll(all);
    }

    @Override
    public long cycle(int polls, byte[][] payloads) throws Exception {
        long bytes = 0;
        try (WriteBatch batch = new WriteBatch()) {
            int got = 0;
            if (polls > 0) {
                try (RocksIterator it = db.newIterator(entries)) {
                    for (it.seek(Keys.entry(head)); it.isValid() && got < polls && head + got < tail; it.next(), got++) {
                        bytes += it.value().length;
                        batch.delete(entries, it.key());
                    }
                    it.status();
                }
            }
            for (byte[] p : payloads) {
                batch.put(entries, Keys.entry(tail++), p);
            }
            db.write(sync, batch);
            head += got;
        }
        return bytes;
    }

    @Override
    public void enqueueAll(byte[][] payloads) throws Exception {
        cycle(0, payloads);
    }

    @Override
    public List<Component> components(int first, int count) {
        List<Component> out = new ArrayList<>();
        for (int i = first; i < first + count; i++) {
            // Queue 0 is the single-queue workloads' (Keys.QUEUE_ID): components start at 1.
            out.add(new QueueComponent(i + 1));
        }
        return out;
    }

    /** One component's queue: its own head and tail, its own batches; the database is shared. */
    private final class QueueComponent implements Component {
        private final int queue;
        private long head;
        private long tail;

        QueueComponent(int queue) {
            this.queue = queue;
        }

        @Override
        public void fill(int depth, byte[] payload) throws Exception {
            byte[][] all = new byte[depth][];
            java.util.Arrays.fill(all, payload);
            cycle(0, all);
        }

        @Override
        public long cycle(int polls, byte[][] payloads) throws Exception {
            long bytes = 0;
            try (WriteBatch batch = new WriteBatch()) {
                int got = 0;
                if (polls > 0) {
                    try (RocksIterator it = db.newIterator(entries)) {
                        for (it.seek(Keys.entry(queue, head)); it.isValid() && got < polls && head + got < tail; it.next(), got++) {
                            bytes += it.value().length;
                            batch.delete(entries, it.key());
                        }
                        it.status();
                    }
                }
                for (byte[] p : payloads) {
                    batch.put(entries, Keys.entry(queue, tail++), p);
                }
                db.write(sync, batch);
                head += got;
            }
            return bytes;
        }
    }

    @Override
    public void putObjects(UUID[] ids, byte[][] payloads) throws Exception {
        Batches.sum(ids.length, PUT_BATCH, (from, to) -> {
            try (WriteBatch batch = new WriteBatch()) {
                for (int i = from; i < to; i++) {
                    batch.put(objects, Keys.object(ids[i]), payloads[i]);
                }
                db.write(sync, batch);
            }
            return 0;
        });
    }

    @Override
    public long readObjects(UUID[] ids, int perTransaction) throws Exception {
        return Batches.sum(ids.length, perTransaction, (from, to) -> inSnapshot(read -> {
            long bytes = 0;
            for (int i = from; i < to; i++) {
                bytes += db.get(objects, read, Keys.object(ids[i])).length;
            }
            return bytes;
        }));
    }

    @Override
    public long readObjectsBatched(UUID[] ids, int perTransaction) throws Exception {
        return Batches.sum(ids.length, perTransaction, (from, to) -> {
            List<ColumnFamilyHandle> families = Collections.nCopies(to - from, objects);
            List<byte[]> keys = new ArrayList<>(to - from);
            for (int i = from; i < to; i++) {
                keys.add(Keys.object(ids[i]));
            }
            return inSnapshot(read -> {
                long bytes = 0;
                for (byte[] value : db.multiGetAsList(read, families, keys)) {
                    bytes += value.length;
                }
                return bytes;
            });
        });
    }

    /** What a read transaction does: its reads, under one snapshot. */
    private interface SnapshotRead {
        long run(ReadOptions read) throws Exception;
    }

    private long inSnapshot(SnapshotRead reads) throws Exception {
        Snapshot snapshot = db.getSnapshot();
        try (ReadOptions read = new ReadOptions().setSnapshot(snapshot)) {
            return reads.run(read);
        } finally {
            db.releaseSnapshot(snapshot);
        }
    }

    @Override
    public void close() {
        rocks.close();
        rowCache.close();
    }
}
