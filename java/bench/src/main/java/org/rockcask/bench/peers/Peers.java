package org.rockcask.bench.peers;

import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;

/** Every peer by the name the benchmark prints, in the table's column order (RockCask first). */
public final class Peers {
    /** Opens a peer's store in an empty directory. */
    public interface Factory {
        Peer open(Path dir) throws Exception;
    }

    private static final Map<String, Factory> ALL = new LinkedHashMap<>();

    static {
        ALL.put("RockCask", dir -> new RockCaskPeer(dir, false, RockCaskPeer.OPTIONS));
        ALL.put("RockCask put+id", dir -> new RockCaskPeer(dir, true, RockCaskPeer.OPTIONS));
        ALL.put("RocksJava", RocksJavaStorePeer::new);
        ALL.put("LMDB", LmdbPeer::new);
        ALL.put("SQLite", SqlitePeer::new);
        ALL.put("H2 MVStore", H2MvStorePeer::new);
        ALL.put("Xodus", XodusPeer::new);
        ALL.put("BDB JE", BdbJePeer::new);
        ALL.put("MapDB", MapDbPeer::new);
    }

    private Peers() {}

    public static Map<String, Factory> all() {
        return java.util.Collections.unmodifiableMap(ALL);
    }
}
