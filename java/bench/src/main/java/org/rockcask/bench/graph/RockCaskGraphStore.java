package org.rockcask.bench.graph;

import java.nio.file.Path;
import org.rockcask.MapReader;
import org.rockcask.Store;
import org.rockcask.StoreOptions;
import org.rockcask.Transaction;

/**
 * RockCask, each vertex's edge list in map {@value #MAP} under its key. Two settings:
 * {@link StoreOptions#defaults()} (a 64 MiB block cache, the size the RocksJava contender gets
 * too, bloom filters, no block compression in the maps family, a 32 MiB map cache), and the
 * same with a map cache sized to hold the whole graph (its keys and values plus 100 bytes per
 * vertex, the charge docs/MAPS.md gives), as MapDB's best setting sizes its cache.
 *
 * <p>Load: transactions of {@value #PER_TRANSACTION} puts, the last commit synced. Reads: a
 * {@link MapReader} into a reused direct buffer, reads of the committed data outside any
 * transaction (a walk writes nothing, so there is nothing for a commit to check).
 */
final class RockCaskGraphStore implements GraphStore {
    private static final String MAP = "graph";
    private static final int PER_TRANSACTION = 10_000;

    /** The map cache's charge per entry beyond its key and value, the map id included (docs/MAPS.md). */
    private static final long CACHE_BYTES_PER_ENTRY = 96 + 4;

    private final Path dir;
    private final boolean cacheSizedToGraph;
    private Store store;
    private KeyOrder order;
    private long graphBytes;

    private RockCaskGraphStore(Path dir, boolean cacheSizedToGraph) {
        this.dir = dir.resolve("store");
        this.cacheSizedToGraph = cacheSizedToGraph;
        store = Store.open(this.dir, StoreOptions.defaults());
    }

    static RockCaskGraphStore atDefaults(Path dir) {
        return new RockCaskGraphStore(dir, false);
    }

    static RockCaskGraphStore withGraphSizedCache(Path dir) {
        return new RockCaskGraphStore(dir, true);
    }

    /** The options of the walks' open. */
    private StoreOptions readingOptions() {
        if (!cacheSizedToGraph) {
            return StoreOptions.defaults();
        }
        // Shards fill unevenly, and the doorkeepers take a 64th: a tenth more than the sum.
        return StoreOptions.defaults().mapCacheBytes(graphBytes + graphBytes / 10);
    }

    @Override
    public void load(GraphSource source) {
        order = source.order();
        int[] vertices = source.verticesInKeyOrder();
        for (int start = 0; start < vertices.length; start += PER_TRANSACTION) {
            try (Transaction tx = store.begin()) {
                for (int i = start; i < Math.min(vertices.length, start + PER_TRANSACTION); i++) {
                    byte[] key = source.key(vertices[i]);
                    byte[] value = source.value(vertices[i]);
                    graphBytes += key.length + value.length + CACHE_BYTES_PER_ENTRY;
                    tx.map(MAP).put(key, value);
                }
                tx.commit();
            }
        }
    }

    @Override
    public void reopen() {
        store.close();
        store = Store.open(dir, readingOptions());
    }

    @Override
    public VertexReader openReader() {
        MapReader map = store.mapReader(MAP);
        return VertexReader.ofDirectBuffers(order, map::get, () -> {});
    }

    @Override
    public void close() {
        store.close();
    }
}
