package org.rockcask.bench.peers;

import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.UUID;
import org.h2.mvstore.MVMap;
import org.h2.mvstore.MVStore;
import org.h2.mvstore.type.ByteArrayDataType;

/**
 * H2's MVStore (its key-value engine, not SQL): one map of queue entries, one of objects, both
 * with byte-array keys in unsigned order.
 *
 * <p>Durable commit: {@code MVStore.commit()} writes every change since the last commit as one
 * chunk (a new version of all maps, so the transaction is atomic), then {@code MVStore.sync()}
 * forces the file ({@code FileChannel.force(true)}). The MVStore documentation
 * (h2database.com/html/mvstore.html, "Log Structured Storage" and "Transactions") describes commit as the
 * unit that is stored and the TransactionStore as the layer for concurrent open transactions;
 * with one writer the store's own commit is the transaction, so the TransactionStore's undo log
 * is left out. Auto-commit is disabled ({@code autoCommitDisabled()}: no background writer) and
 * the auto-commit buffer is 0 KB ({@code autoCommitBufferSize(0)}): the MVStore javadoc says
 * changes are otherwise stored whenever that much is unsaved, which would write half a
 * transaction. Without the background writer, free space is reused only as whole chunks fall
 * out of use; nothing compacts the file while the benchmark runs.
 *
 * <p>Pages split above 4 KB ({@code pageSplitSize(4096)}; the javadoc gives 16 KB as the default
 * for files and 4 KB for in-memory stores): the store copies every page a commit touches, and
 * 10,000 objects under random ids touch most leaves of the map, so a commit writes most of the
 * map again through one heap buffer; with 16 KB pages that buffer soon outgrows a small heap
 * (a few hundred thousand objects overflowed 256 MB), and every random get decodes a 16 KB page.
 * Even with 4 KB pages the buffer grows with the map: loading 10^6 objects this way may not fit
 * -Xmx128m beside the caller's own arrays. The page cache stays at its default 16 MB;
 * compression stays off.
 *
 * <p>The head and tail sequence numbers of queue "q" live in memory after {@link #fillQueue}:
 * a poll removes the head key ({@code remove} returns the payload consumed). Reads take a
 * read-only view of the last version per read transaction ({@code MVMap.openVersion}), the
 * MVStore's snapshot.
 *
 * <p>Concurrent components: an MVStore commit stores every map's changes since the last one,
 * whoever made them, so the store's own commit cannot keep two threads' transactions apart
 * (the MVStore documentation leaves concurrent transactions to the TransactionStore, whose
 * commits still end in this one commit). Each component's whole transaction (its changes, the
 * commit and the sync) therefore holds one fair lock: one transaction at a time, each synced on
 * its own.
 */
public final class H2MvStorePeer implements Peer {
    private static final byte QUEUE_ID = 'q';
    private static final int SPLIT_PAGES_ABOVE_BYTES = 4096;

    private final MVStore store;
    private final MVMap<byte[], byte[]> entries;
    private final MVMap<byte[], byte[]> objects;
    private long head;
    private long tail;

    public H2MvStorePeer(Path dir) {
        store = new MVStore.Builder()
                .fileName(dir.resolve("peer.mv.db").toString())
                .autoCommitDisabled()
                .autoCommitBufferSize(0)
                .pageSplitSize(SPLIT_PAGES_ABOVE_BYTES)
                .open();
        entries = store.openMap("entries", byteArrayMap());
        objects = store.openMap("objects", byteArrayMap());
    }

    private static MVMap.Builder<byte[], byte[]> byteArrayMap() {
        return new MVMap.Builder<byte[], byte[]>()
                .keyType(ByteArrayDataType.INSTANCE)
                .valueType(ByteArrayDataType.INSTANCE);
    }

    private static byte[] entryKey(long sequence) {
        return ByteBuffer.allocate(9).put(QUEUE_ID).putLong(sequence).array();
    }

    private static byte[] objectKey(UUID id) {
        return ByteBuffer.allocate(16).putLong(id.getMostSignificantBits()).putLong(id.getLeastSignificantBits()).array();
    }

    private void commitSynced() {
        store.commit();
        store.sync();
    }

    @Override
    public void fillQueue(int depth, byte[] payload) {
        for (int i = 0; i < depth; i++) {
            entries.put(entryKey(tail + i), payload);
        }
        commitSynced();
        tail += depth;
    }

    @Override
    public long cycle(int polls, byte[][] payloads) {
        long consumed = 0;
        for (int i = 0; i < polls; i++) {
            byte[] payload = entries.remove(entryKey(head + i));
            if (payload == null) {
                throw new IllegalStateException("queue entry " + (head + i) + " is missing");
            }
            consumed += payload.length;
        }
        for (int i = 0; i < payloads.length; i++) {
            entries.put(entryKey(tail + i), payloads[i]);
        }
        commitSynced();
        head += polls;
        tail += payloads.length;
        return consumed;
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
                commitSynced();
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
        for (int i = 0; i < payloads.length; i++) {
            entries.put(entryKey(tail + i), payloads[i]);
        }
        commitSynced();
        tail += payloads.length;
    }

    @Override
    public void putObjects(UUID[] ids, byte[][] payloads) {
        for (int i = 0; i < ids.length; i++) {
            objects.put(objectKey(ids[i]), payloads[i]);
            if ((i + 1) % 10_000 == 0 || i + 1 == ids.length) {
                commitSynced();
            }
        }
    }

    @Override
    public long readObjects(UUID[] ids, int perTransaction) {
        long read = 0;
        for (int start = 0; start < ids.length; start += perTransaction) {
            MVMap<byte[], byte[]> snapshot = objects.openVersion(store.getCurrentVersion());
            int end = Math.min(ids.length, start + perTransaction);
            for (int i = start; i < end; i++) {
                byte[] payload = snapshot.get(objectKey(ids[i]));
                if (payload == null) {
                    throw new IllegalStateException("object " + ids[i] + " is missing");
                }
                read += payload.length;
            }
        }
        return read;
    }

    @Override
    public void close() {
        store.close();
    }
}
