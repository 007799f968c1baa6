package org.rockcask.bench.peers;

import java.nio.file.Path;
import java.util.Map;
import org.rockcask.bench.Dirs;

/**
 * One (workload, peer) pair, the only work of its JVM so that no peer's heap, threads or native
 * memory weigh on another's: opens the peer's store in a fresh directory under the bench
 * directory, runs the workload, prints one {@link PeerResult} line, deletes the directory.
 * Exits with 1 when the peer failed (its error is the line).
 *
 * <p>Usage: {@code PeerRun WORKLOAD PEER SCALE [load|run DIR]}: with a phase, in {@code DIR}, which
 * is kept (the loading JVM fills it, the measuring JVM reopens it; the caller deletes it).
 */
public final class PeerRun {
    /** The row of a loaded store's reopen, as a rate so that more is better like every other row. */
    static final String REOPEN_ROW = "reopens/s of the loaded store (1 / seconds of an open, the library loaded)";

    private PeerRun() {}

    @SuppressWarnings("try") // Peer.close() may throw any exception, InterruptedException too
    public static void main(String[] args) throws Exception {
        PeerWorkload workload = PeerWorkload.byKey(args[0]);
        String name = args[1];
        double scale = Double.parseDouble(args[2]);
        String phase = args.length > 3 ? args[3] : null;
        Path dir = phase != null ? Path.of(args[4]) : Dirs.benchRoot().resolve("peer-" + workload.key + "-" + ProcessHandle.current().pid());
        PeerResult result;
        try {
            Peers.Factory factory = Peers.all().get(name);
            if (factory == null) {
                throw new IllegalArgumentException("no peer " + name);
            }
            java.nio.file.Files.createDirectories(dir);
            Map<String, Double> rows = new java.util.LinkedHashMap<>();
            if ("run".equals(phase)) {
                // The store another JVM loaded and closed, opened and closed once (which loads the
                // peer's classes and native library), then timed as the next open.
                factory.open(dir, workload).close();
            }
            long opening = System.nanoTime();
            try (Peer peer = factory.open(dir, workload)) {
                double openSeconds = (System.nanoTime() - opening) / 1e9;
                if ("load".equals(phase)) {
                    workload.load(peer, scale);
                } else {
                    if ("run".equals(phase)) {
                        rows.put(REOPEN_ROW, 1 / openSeconds);
                    }
                    rows.putAll(workload.run(peer, scale));
                }
            }
            result = PeerResult.of(rows);
        } catch (Throwable t) {
            t.printStackTrace();
            result = PeerResult.failed(t);
        } finally {
            if (phase == null) {
                Dirs.delete(dir);
            }
        }
        System.out.println(result.line());
        System.exit(result.error == null ? 0 : 1);
    }
}
