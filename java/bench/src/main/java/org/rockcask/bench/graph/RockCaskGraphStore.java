package org.rockcask.bench.graph;

import java.nio.file.Path;
import org.rockcask.Store;
import org.rockcask.StoreOptions;
import org.rockcask.Transaction;

/**
 * RockCask at its defaults ({@link StoreOptions#defaults()}: a 64 MiB block cache, the size the
 * RocksJava contender gets too, bloom filters, no block compression in the maps family), each
 * vertex's edge list in map {@value #MAP} under its key.
 *
 * <p>Load: transactions of {@value #PER_TRANSACTION} puts, the last commit synced. Reads:
 * {@link Store#mapGet}, a read of the committed data outside any transaction (a walk writes
 * nothing, so there is nothing for a commit to check).
 */
final class RockCaskGraphStore implements GraphStore {
    private static final String MAP = "graph";
    private static final int PER_TRANSACTION = 10_000;

    private final Path dir;
    private Store store;
    private KeyOrder order;

    RockCaskGraphStore(Path dir) {
        this.dir = dir.resolve("store");
        store = Store.open(this.dir, StoreOptions.defaults());
    }

    @Override
    public void load(GraphSource source) {
        order = source.order();
        int[] vertices = source.verticesInKeyOrder();
        for (int start = 0; start < vertices.length; start += PER_TRANSACTION) {
            try (Transaction tx = store.begin()) {
                for (int i = start; i < Math.min(vertices.length, start + PER_TRANSACTION); i++) {
                    tx.map(MAP).put(source.key(vertices[i]), source.value(vertices[i]));
                }
                tx.commit();
            }
        }
    }

    @Override
    public void reopen() {
        store.close();
        store = Store.open(dir, StoreOptions.defaults());
    }

    @Override
    public VertexReader openReader() {
        return VertexReader.ofArrays(order, key -> store.mapGet(MAP, key));
    }

    @Override
    public void close() {
        store.close();
    }
}
