package org.rockcask.bench.graph;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;

/** Every contender of the graph experiment by the name the table prints, in the table's order; the baseline first. */
public final class GraphStores {
    /** The in-memory object graph: every other contender's time is compared with its. */
    static final String BASELINE = "in-memory";

    private static final Map<String, GraphStore.Factory> ALL = new LinkedHashMap<>();

    static {
        ALL.put(BASELINE, dir -> new InMemoryGraphStore());
        ALL.put("MapDB", MapDbGraphStore::new);
        ALL.put("LMDB", LmdbGraphStore::new);
        ALL.put("RocksJava", RocksJavaGraphStore::new);
        ALL.put("RockCask", RockCaskGraphStore::withGraphSizedCache);
        ALL.put("RockCask-defaults", RockCaskGraphStore::atDefaults);
    }

    private GraphStores() {}

    public static Map<String, GraphStore.Factory> all() {
        return Collections.unmodifiableMap(ALL);
    }

    static GraphStore.Factory factory(String name) {
        GraphStore.Factory f = ALL.get(name);
        if (f == null) {
            throw new IllegalArgumentException("no graph contender " + name + " (" + ALL.keySet() + ")");
        }
        return f;
    }
}
