package org.rockcask.bench.graph;

import java.nio.ByteBuffer;
import java.nio.file.Path;
import org.lmdbjava.Dbi;
import org.lmdbjava.DbiFlags;
import org.lmdbjava.Env;
import org.lmdbjava.PutFlags;
import org.lmdbjava.Txn;

/**
 * LMDB through lmdbjava: one named database, keys in LMDB's default order (memcmp: unsigned
 * bytes), in an environment with a {@value #MAP_GIB} GiB map (address space, not disk; the
 * padded graph takes about 1 GiB).
 *
 * <p>Load: the vertices in key order, put with {@code MDB_APPEND} (the documentation of
 * {@code mdb_put}: for keys that arrive sorted, it fills pages without splitting them), one write
 * transaction per {@value #VERTICES_PER_TRANSACTION} vertices. The environment keeps LMDB's
 * durable defaults (no {@code MDB_NOSYNC}, {@code MDB_NOMETASYNC} or {@code MDB_WRITEMAP}): each
 * of those few commits syncs, so a load that returns is on disk, and the unsynced flags would
 * save next to nothing.
 *
 * <p>Reads: one read-only transaction per tree; a get returns a buffer into the memory map,
 * which {@link EdgeListReader} reads where it lies, copying nothing but the keys the walk keeps.
 */
final class LmdbGraphStore implements GraphStore {
    private static final int MAP_GIB = 16;
    private static final int VERTICES_PER_TRANSACTION = 100_000;
    private static final String DATABASE = "graph";
    /** LMDB's largest key by default. */
    private static final int MAX_KEY_BYTES = 511;

    private final Path dir;
    private Env<ByteBuffer> env;
    private Dbi<ByteBuffer> dbi;
    private KeyOrder order;
    private final ByteBuffer key = ByteBuffer.allocateDirect(MAX_KEY_BYTES);
    private ByteBuffer value = ByteBuffer.allocateDirect(4096);

    LmdbGraphStore(Path dir) {
        this.dir = dir;
        open();
    }

    private void open() {
        env = Env.create().setMapSize((long) MAP_GIB << 30).setMaxDbs(1).open(dir.toFile());
        dbi = env.openDbi(DATABASE, DbiFlags.MDB_CREATE);
    }

    @Override
    public void load(GraphSource source) {
        order = source.order();
        int[] vertices = source.verticesInKeyOrder();
        for (int from = 0; from < vertices.length; from += VERTICES_PER_TRANSACTION) {
            try (Txn<ByteBuffer> txn = env.txnWrite()) {
                for (int i = from; i < Math.min(vertices.length, from + VERTICES_PER_TRANSACTION); i++) {
                    dbi.put(txn, key(source.key(vertices[i])), value(source.value(vertices[i])), PutFlags.MDB_APPEND);
                }
                txn.commit();
            }
        }
    }

    @Override
    public void reopen() {
        closeEnv();
        open();
    }

    @Override
    public VertexReader openReader() {
        Txn<ByteBuffer> txn = env.txnRead();
        EdgeListReader reader = new EdgeListReader(order);
        return new VertexReader() {
            @Override
            public EdgeCursor edges(byte[] k) {
                ByteBuffer found = dbi.get(txn, key(k));
                if (found == null) {
                    throw VertexReader.missing(k);
                }
                return reader.reset(found);
            }

            @Override
            public void close() {
                txn.close();
            }
        };
    }

    private ByteBuffer key(byte[] k) {
        key.clear();
        key.put(k).flip();
        return key;
    }

    private ByteBuffer value(byte[] v) {
        if (value.capacity() < v.length) {
            value = ByteBuffer.allocateDirect(Math.max(v.length, 2 * value.capacity()));
        }
        value.clear();
        value.put(v).flip();
        return value;
    }

    private void closeEnv() {
        dbi.close();
        env.close();
    }

    @Override
    public void close() {
        closeEnv();
    }
}
