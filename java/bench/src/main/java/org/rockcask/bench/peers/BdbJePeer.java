package org.rockcask.bench.peers;

import com.sleepycat.je.Cursor;
import com.sleepycat.je.Database;
import com.sleepycat.je.DatabaseConfig;
import com.sleepycat.je.DatabaseEntry;
import com.sleepycat.je.Durability;
import com.sleepycat.je.Environment;
import com.sleepycat.je.EnvironmentConfig;
import com.sleepycat.je.LockMode;
import com.sleepycat.je.OperationStatus;
import com.sleepycat.je.Transaction;
import com.sleepycat.je.TransactionConfig;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.UUID;

/**
 * Oracle Berkeley DB Java Edition: a transactional environment with one database of queue
 * entries and one of objects.
 *
 * <p>Durable commit: the environment's default durability is {@code Durability.COMMIT_SYNC},
 * which the {@code Durability.SyncPolicy.SYNC} javadoc defines as "write and synchronously flush
 * the log on transaction commit"; every write is in a {@code Transaction} committed with it.
 * Both databases use key prefixing ({@code DatabaseConfig.setKeyPrefixing}, whose javadoc calls
 * it "strongly recommended"), which suits the queue's keys (all start with the queue's id).
 * The main cache takes 30% of the heap instead of the default 60%
 * ({@code EnvironmentConfig.setCachePercent}) and an off-heap cache of 512 MB
 * ({@code EnvironmentConfig.setOffHeapCacheSize}) holds what does not fit: the
 * {@code MAX_OFF_HEAP_MEMORY} javadoc says using it "instead of" the file system cache "is
 * normally recommended", and suggests a smaller main cache beside it to spare the Java GC.
 * With the default 60%, loading 10^6 objects under -Xmx128m ran out of heap once the caller's
 * 10^6 ids were counted; with 30% it fits, and the off-heap cache has room for all 10^6 objects
 * of 256 bytes.
 *
 * <p>The head and tail sequence numbers of queue "q" live in memory after {@link #fillQueue}:
 * a poll positions a cursor on the head key ({@code getSearchKey}) and walks on with
 * {@code getNext}, deleting each entry under the cursor. Reads run in read-committed
 * transactions ({@code TransactionConfig.setReadCommitted}), which release each read lock at
 * once instead of holding 1,000 until the end.
 *
 * <p>Concurrent components: the {@code Environment} and its databases are thread-safe; each
 * thread runs its own {@code Transaction}, locking only its own queue's records. Commits with
 * {@code COMMIT_SYNC} from several threads are grouped: JE's log manager lets one thread fsync
 * the log for every commit waiting at that moment (its "group commit" of fsyncs), with nothing
 * to configure.
 */
public final class BdbJePeer implements Peer {
    private static final byte QUEUE_ID = 'q';
    private static final int MAIN_CACHE_PERCENT_OF_HEAP = 30;
    private static final long OFF_HEAP_CACHE_BYTES = 512L << 20;

    private final Environment env;
    private final Database entries;
    private final Database objects;
    private final TransactionConfig readConfig = new TransactionConfig().setReadCommitted(true);
    private long head;
    private long tail;

    public BdbJePeer(Path dir) {
        EnvironmentConfig config = new EnvironmentConfig().setAllowCreate(true).setTransactional(true);
        config.setDurability(Durability.COMMIT_SYNC);
        config.setCachePercent(MAIN_CACHE_PERCENT_OF_HEAP);
        config.setOffHeapCacheSize(OFF_HEAP_CACHE_BYTES);
        env = new Environment(dir.toFile(), config);
        DatabaseConfig dbConfig = new DatabaseConfig().setAllowCreate(true).setTransactional(true).setKeyPrefixing(true);
        entries = env.openDatabase(null, "entries", dbConfig);
        objects = env.openDatabase(null, "objects", dbConfig);
    }

    private static DatabaseEntry entryKey(long sequence) {
        return new DatabaseEntry(ByteBuffer.allocate(9).put(QUEUE_ID).putLong(sequence).array());
    }

    private static DatabaseEntry objectKey(UUID id) {
        return new DatabaseEntry(ByteBuffer.allocate(16)
                .putLong(id.getMostSignificantBits()).putLong(id.getLeastSignificantBits()).array());
    }

    /** Appends the payloads at the queue's tail inside {@code txn}; the caller moves the tail once committed. */
    private void append(Transaction txn, byte[][] payloads) {
        for (int i = 0; i < payloads.length; i++) {
            entries.put(txn, entryKey(tail + i), new DatabaseEntry(payloads[i]));
        }
    }

    @Override
    public void fillQueue(int depth, byte[] payload) {
        byte[][] payloads = new byte[depth][];
        java.util.Arrays.fill(payloads, payload);
        enqueueAll(payloads);
    }

    @Override
    public long cycle(int polls, byte[][] payloads) {
        Transaction txn = env.beginTransaction(null, null);
        try {
            long consumed = 0;
            try (Cursor cursor = entries.openCursor(txn, null)) {
                DatabaseEntry key = entryKey(head);
                DatabaseEntry data = new DatabaseEntry();
                OperationStatus status = cursor.getSearchKey(key, data, LockMode.RMW);
                for (int i = 0; i < polls; i++) {
                    if (status != OperationStatus.SUCCESS || !key.equals(entryKey(head + i))) {
                        throw new IllegalStateException("queue entry " + (head + i) + " is missing");
                    }
                    consumed += data.getSize();
                    cursor.delete();
                    if (i + 1 < polls) {
                        status = cursor.getNext(key, data, LockMode.RMW);
                    }
                }
            }
            append(txn, payloads);
            txn.commit();
            txn = null;
            head += polls;
            tail += payloads.length;
            return consumed;
        } finally {
            if (txn != null) {
                txn.abort();
            }
        }
    }

    @Override
    public java.util.List<Component> components(int first, int count) {
        java.util.List<Component> out = new java.util.ArrayList<>();
        for (int i = first; i < first + count; i++) {
            out.add(new QueueComponent(i));
        }
        return out;
    }

    /** One component's queue, keyed 'c' + its number + the sequence; the environment is shared. */
    private final class QueueComponent implements Component {
        private final int queue;
        private long head;
        private long tail;

        QueueComponent(int queue) {
            this.queue = queue;
        }

        private DatabaseEntry key(long sequence) {
            return new DatabaseEntry(ByteBuffer.allocate(13).put((byte) 'c').putInt(queue).putLong(sequence).array());
        }

        @Override
        public void fill(int depth, byte[] payload) {
            byte[][] all = new byte[depth][];
            java.util.Arrays.fill(all, payload);
            cycle(0, all);
        }

        @Override
        public long cycle(int polls, byte[][] payloads) {
            Transaction txn = env.beginTransaction(null, null);
            try {
                long consumed = 0;
                DatabaseEntry data = new DatabaseEntry();
                for (int i = 0; i < polls; i++) {
                    DatabaseEntry k = key(head + i);
                    if (entries.get(txn, k, data, LockMode.RMW) != OperationStatus.SUCCESS || entries.delete(txn, k) != OperationStatus.SUCCESS) {
                        throw new IllegalStateException("queue " + queue + " entry " + (head + i) + " is missing");
                    }
                    consumed += data.getSize();
                }
                for (int i = 0; i < payloads.length; i++) {
                    entries.put(txn, key(tail + i), new DatabaseEntry(payloads[i]));
                }
                txn.commit();
                txn = null;
                head += polls;
                tail += payloads.length;
                return consumed;
            } finally {
                if (txn != null) {
                    txn.abort();
                }
            }
        }
    }

    @Override
    public void enqueueAll(byte[][] payloads) {
        Transaction txn = env.beginTransaction(null, null);
        try {
            append(txn, payloads);
            txn.commit();
            txn = null;
            tail += payloads.length;
        } finally {
            if (txn != null) {
                txn.abort();
            }
        }
    }

    @Override
    public void putObjects(UUID[] ids, byte[][] payloads) {
        for (int start = 0; start < ids.length; start += 10_000) {
            Transaction txn = env.beginTransaction(null, null);
            try {
                for (int i = start; i < Math.min(ids.length, start + 10_000); i++) {
                    objects.put(txn, objectKey(ids[i]), new DatabaseEntry(payloads[i]));
                }
                txn.commit();
                txn = null;
            } finally {
                if (txn != null) {
                    txn.abort();
                }
            }
        }
    }

    @Override
    public long readObjects(UUID[] ids, int perTransaction) {
        long read = 0;
        DatabaseEntry data = new DatabaseEntry();
        for (int start = 0; start < ids.length; start += perTransaction) {
            Transaction txn = env.beginTransaction(null, readConfig);
            try {
                for (int i = start; i < Math.min(ids.length, start + perTransaction); i++) {
                    if (objects.get(txn, objectKey(ids[i]), data, LockMode.DEFAULT) != OperationStatus.SUCCESS) {
                        throw new IllegalStateException("object " + ids[i] + " is missing");
                    }
                    read += data.getSize();
                }
                txn.commit();
                txn = null;
            } finally {
                if (txn != null) {
                    txn.abort();
                }
            }
        }
        return read;
    }

    @Override
    public void close() {
        objects.close();
        entries.close();
        env.close();
    }
}
