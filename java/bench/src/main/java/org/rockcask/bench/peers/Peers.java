package org.rockcask.bench.peers;

import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;

/** Every peer by the name the benchmark prints, in the table's column order (RockCask first). */
public final class Peers {
    /** Opens a peer's store in an empty directory (or the one its loading JVM filled) for a workload. */
    public interface Factory {
        Peer open(Path dir, PeerWorkload workload) throws Exception;
    }

    private static final Map<String, Factory> ALL = new LinkedHashMap<>();

    static {
        ALL.put("RockCask", (dir, workload) -> new RockCaskPeer(dir, false, RockCaskPeer.optionsFor(workload)));
        ALL.put("RockCask put+id", (dir, workload) -> new RockCaskPeer(dir, true, RockCaskPeer.optionsFor(workload)));
        ALL.put("RockCask inline", (dir, workload) -> new RockCaskPeer(dir, false, RockCaskPeer.optionsFor(workload).inlinePayloadBytes(RockCaskPeer.INLINE_PAYLOAD_BYTES)));
        ALL.put("RocksJava", (dir, workload) -> new RocksJavaStorePeer(dir));
        ALL.put("LMDB", (dir, workload) -> new LmdbPeer(dir));
        ALL.put("SQLite", (dir, workload) -> new SqlitePeer(dir));
        ALL.put("H2 MVStore", (dir, workload) -> new H2MvStorePeer(dir));
        ALL.put("Xodus", (dir, workload) -> new XodusPeer(dir));
        ALL.put("BDB JE", (dir, workload) -> new BdbJePeer(dir));
        ALL.put("MapDB", (dir, workload) -> new MapDbPeer(dir));
    }

    private Peers() {}

    public static Map<String, Factory> all() {
        return java.util.Collections.unmodifiableMap(ALL);
    }
}
