package org.rockcask.bench.peers;

import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.UUID;
import jetbrains.exodus.ArrayByteIterable;
import jetbrains.exodus.ByteIterable;
import jetbrains.exodus.env.Environment;
import jetbrains.exodus.env.EnvironmentConfig;
import jetbrains.exodus.env.Environments;
import jetbrains.exodus.env.Store;
import jetbrains.exodus.env.StoreConfig;

/**
 * JetBrains Xodus (its Environments API): one store of queue entries, one of objects.
 *
 * <p>Durable commit: {@code EnvironmentConfig.setLogDurableWrite(true)}, whose javadoc says it
 * "forces file system's fsync call after each committed or flushed transaction" (off by default);
 * every write goes through {@code Environment.computeInTransaction}, which commits (flushes) the
 * transaction before it returns. Both stores are {@code StoreConfig.WITHOUT_DUPLICATES_WITH_PREFIXING}
 * (a Patricia tree): the Xodus developers recommend it over the B+tree, and only it is written in
 * the version 2 database format, which reads and writes faster (the Xodus 2.0 format notes).
 * Appends at the queue's tail use {@code Store.putRight}, documented for keys known to be greater
 * than every key in the store (no search before the insert). Log cache and GC stay at their
 * documented defaults (the cache takes 50% of the heap).
 *
 * <p>The head and tail sequence numbers of queue "q" live in memory after {@link #fillQueue}:
 * a poll reads and deletes the head key. Reads run in {@code computeInReadonlyTransaction}.
 *
 * <p>Concurrent components: Xodus transactions are optimistic, and a flush fails when another
 * transaction changed the same store since this one began ({@code computeInTransaction} then
 * runs it again); all queues share the "entries" store, so concurrent cycles would keep failing.
 * Each thread therefore commits with {@code Environment.computeInExclusiveTransaction}, which
 * Xodus documents for such writers: an exclusive transaction holds the environment's writer lock
 * from its start and cannot fail to flush. Each commit syncs on its own (Xodus has no group
 * commit). A queue's new key is not the largest in the store, so entries are put with
 * {@code Store.put}, not {@code putRight}.
 */
public final class XodusPeer implements Peer {
    private static final byte QUEUE_ID = 'q';

    private final Environment env;
    private final Store entries;
    private final Store objects;
    private long head;
    private long tail;

    public XodusPeer(Path dir) {
        env = Environments.newInstance(dir.toFile(), new EnvironmentConfig().setLogDurableWrite(true));
        entries = env.computeInTransaction(
                txn -> env.openStore("entries", StoreConfig.WITHOUT_DUPLICATES_WITH_PREFIXING, txn));
        objects = env.computeInTransaction(
                txn -> env.openStore("objects", StoreConfig.WITHOUT_DUPLICATES_WITH_PREFIXING, txn));
    }

    private static ByteIterable entryKey(long sequence) {
        return new ArrayByteIterable(ByteBuffer.allocate(9).put(QUEUE_ID).putLong(sequence).array());
    }

    private static ByteIterable objectKey(UUID id) {
        return new ArrayByteIterable(ByteBuffer.allocate(16)
                .putLong(id.getMostSignificantBits()).putLong(id.getLeastSignificantBits()).array());
    }

    @Override
    public void fillQueue(int depth, byte[] payload) {
        ByteIterable value = new ArrayByteIterable(payload);
        env.executeInTransaction(txn -> {
            for (int i = 0; i < depth; i++) {
                entries.putRight(txn, entryKey(tail + i), value);
            }
        });
        tail += depth;
    }

    @Override
    public long cycle(int polls, byte[][] payloads) {
        // The transaction may run again if its flush conflicts, so the sequence numbers move
        // only after it has committed.
        long consumed = env.computeInTransaction(txn -> {
            long bytes = 0;
            for (int i = 0; i < polls; i++) {
                ByteIterable key = entryKey(head + i);
                ByteIterable payload = entries.get(txn, key);
                if (payload == null || !entries.delete(txn, key)) {
                    throw new IllegalStateException("queue entry " + (head + i) + " is missing");
                }
                bytes += payload.getLength();
            }
            for (int i = 0; i < payloads.length; i++) {
                entries.putRight(txn, entryKey(tail + i), new ArrayByteIterable(payloads[i]));
            }
            return bytes;
        });
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

    /** One component's queue, keyed 'c' + its number + the sequence; the environment is shared. */
    private final class QueueComponent implements Component {
        private final int queue;
        private long head;
        private long tail;

        QueueComponent(int queue) {
            this.queue = queue;
        }

        private ByteIterable key(long sequence) {
            return new ArrayByteIterable(ByteBuffer.allocate(13).put((byte) 'c').putInt(queue).putLong(sequence).array());
        }

        @Override
        public void fill(int depth, byte[] payload) {
            byte[][] all = new byte[depth][];
            java.util.Arrays.fill(all, payload);
            cycle(0, all);
        }

        @Override
        public long cycle(int polls, byte[][] payloads) {
            long consumed = env.computeInExclusiveTransaction(txn -> {
                long bytes = 0;
                for (int i = 0; i < polls; i++) {
                    ByteIterable k = key(head + i);
                    ByteIterable payload = entries.get(txn, k);
                    if (payload == null || !entries.delete(txn, k)) {
                        throw new IllegalStateException("queue " + queue + " entry " + (head + i) + " is missing");
                    }
                    bytes += payload.getLength();
                }
                for (int i = 0; i < payloads.length; i++) {
                    entries.put(txn, key(tail + i), new ArrayByteIterable(payloads[i]));
                }
                return bytes;
            });
            head += polls;
            tail += payloads.length;
            return consumed;
        }
    }

    @Override
    public void enqueueAll(byte[][] payloads) {
        env.executeInTransaction(txn -> {
            for (int i = 0; i < payloads.length; i++) {
                entries.putRight(txn, entryKey(tail + i), new ArrayByteIterable(payloads[i]));
            }
        });
        tail += payloads.length;
    }

    @Override
    public void putObjects(UUID[] ids, byte[][] payloads) {
        for (int start = 0; start < ids.length; start += 10_000) {
            int from = start;
            int end = Math.min(ids.length, start + 10_000);
            env.executeInTransaction(txn -> {
                for (int i = from; i < end; i++) {
                    objects.put(txn, objectKey(ids[i]), new ArrayByteIterable(payloads[i]));
                }
            });
        }
    }

    @Override
    public long readObjects(UUID[] ids, int perTransaction) {
        long read = 0;
        for (int start = 0; start < ids.length; start += perTransaction) {
            int from = start;
            int end = Math.min(ids.length, start + perTransaction);
            read += env.computeInReadonlyTransaction(txn -> {
                long bytes = 0;
                for (int i = from; i < end; i++) {
                    ByteIterable payload = objects.get(txn, objectKey(ids[i]));
                    if (payload == null) {
                        throw new IllegalStateException("object " + ids[i] + " is missing");
                    }
                    bytes += payload.getLength();
                }
                return bytes;
            });
        }
        return read;
    }

    @Override
    public void close() {
        env.close();
    }
}
