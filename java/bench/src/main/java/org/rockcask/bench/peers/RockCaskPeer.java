package org.rockcask.bench.peers;

import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.ThreadLocalRandom;
import org.rockcask.Message;
import org.rockcask.Store;
import org.rockcask.StoreOptions;
import org.rockcask.Transaction;

/**
 * RockCask at its defaults ({@link StoreOptions#defaults()}: sync on commit, so each
 * {@link Transaction#commit()} returns after RocksDB's write-ahead log is synced) but for an
 * object cache that holds the random reads' objects in that workload ({@link #optionsFor}), in
 * one of its two forms:
 * <ul>
 *   <li>enqueue: {@code tx.enqueue("q", bytes)}, the queue owning the object it creates, which
 *       is deleted when its entry is consumed;</li>
 *   <li>put+id: {@code tx.put(id, bytes)} under a random id, then {@code tx.enqueue("q", id)}, as
 *       a flow that names its objects does; such an object lives until deleted, so a cycle
 *       deletes each object it consumes, leaving the store as small as the other form's.</li>
 * </ul>
 * The queue's head is found by RockCask itself (it keeps it per queue), not by this class.
 * "RockCask inline" is the enqueue form with {@link StoreOptions#inlinePayloadBytes} at
 * {@link #INLINE_PAYLOAD_BYTES}: each payload kept in its queue entry, one record per item.
 *
 * <p>Concurrent components: each thread begins and commits its own transactions on the one
 * {@link Store} (thread-safe); commits from several threads share one synced write of RocksDB's
 * log (RockCask's group commit, {@link Transaction#commit()}), with nothing to configure.
 */
final class RockCaskPeer implements Peer {
    private static final String QUEUE = "q";
    /** Inline payloads of up to 1 KiB: every payload of the queue and seed workloads. */
    static final int INLINE_PAYLOAD_BYTES = 1024;
    /**
     * The peer benchmark's options: the defaults, and for the random reads an object cache of
     * {@link PeerWorkload#VALUE_CACHE_BYTES} (off by default, as it costs queue work a mark per
     * consumed object).
     */
    static StoreOptions optionsFor(PeerWorkload workload) {
        StoreOptions defaults = StoreOptions.defaults();
        return workload == PeerWorkload.READS ? defaults.objectCacheBytes(PeerWorkload.VALUE_CACHE_BYTES) : defaults;
    }

    private final Store store;
    private final boolean putById;

    RockCaskPeer(Path dir, boolean putById) {
        this(dir, putById, StoreOptions.defaults());
    }

    /** With other options than the defaults (to compare variants of RockCask itself). */
    RockCaskPeer(Path dir, boolean putById, StoreOptions options) {
        this.store = Store.open(dir, options);
        this.putById = putById;
    }

    @Override
    public void fillQueue(int depth, byte[] payload) {
        try (Transaction tx = store.begin()) {
            for (int i = 0; i < depth; i++) {
                append(tx, QUEUE, payload);
            }
            tx.commit();
        }
    }

    @Override
    public long cycle(int polls, byte[][] payloads) {
        return cycle(QUEUE, polls, payloads);
    }

    @Override
    public List<Component> components(int first, int count) {
        List<Component> out = new java.util.ArrayList<>();
        for (int i = first; i < first + count; i++) {
            String queue = "c" + i;
            out.add(new Component() {
                @Override
                public void fill(int depth, byte[] payload) {
                    try (Transaction tx = store.begin()) {
                        for (int n = 0; n < depth; n++) {
                            append(tx, queue, payload);
                        }
                        tx.commit();
                    }
                }

                @Override
                public long cycle(int polls, byte[][] payloads) {
                    return RockCaskPeer.this.cycle(queue, polls, payloads);
                }
            });
        }
        return out;
    }

    private long cycle(String queue, int polls, byte[][] payloads) {
        long bytes = 0;
        try (Transaction tx = store.begin()) {
            List<Message> got = tx.poll(queue, polls);
            for (Message m : got) {
                bytes += m.payload().length;
                if (putById) {
                    tx.delete(m.id());
                }
            }
            for (byte[] p : payloads) {
                append(tx, queue, p);
            }
            tx.commit();
        }
        return bytes;
    }

    @Override
    public void enqueueAll(byte[][] payloads) {
        try (Transaction tx = store.begin()) {
            for (byte[] p : payloads) {
                append(tx, QUEUE, p);
            }
            tx.commit();
        }
    }

    private void append(Transaction tx, String queue, byte[] payload) {
        if (putById) {
            ThreadLocalRandom r = ThreadLocalRandom.current();
            UUID id = new UUID(r.nextLong(), r.nextLong());
            tx.put(id, payload);
            tx.enqueue(queue, id);
        } else {
            tx.enqueue(queue, payload);
        }
    }

    @Override
    public void putObjects(UUID[] ids, byte[][] payloads) throws Exception {
        Batches.sum(ids.length, PUT_BATCH, (from, to) -> {
            try (Transaction tx = store.begin()) {
                for (int i = from; i < to; i++) {
                    tx.put(ids[i], payloads[i]);
                }
                tx.commit();
            }
            return 0;
        });
    }

    @Override
    public long readObjects(UUID[] ids, int perTransaction) throws Exception {
        return Batches.sum(ids.length, perTransaction, (from, to) -> {
            long bytes = 0;
            // A read-only transaction: closed without commit.
            try (Transaction tx = store.begin()) {
                for (int i = from; i < to; i++) {
                    bytes += tx.get(ids[i]).length;
                }
            }
            return bytes;
        });
    }

    @Override
    public long readObjectsBatched(UUID[] ids, int perTransaction) throws Exception {
        return Batches.sum(ids.length, perTransaction, (from, to) -> {
            long bytes = 0;
            try (Transaction tx = store.begin()) {
                for (byte[] payload : tx.getAll(Arrays.asList(ids).subList(from, to))) {
                    bytes += payload.length;
                }
            }
            return bytes;
        });
    }

    @Override
    public void close() {
        store.close();
    }
}
