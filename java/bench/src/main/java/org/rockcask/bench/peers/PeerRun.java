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
 * <p>Usage: {@code PeerRun WORKLOAD PEER SCALE}.
 */
public final class PeerRun {
    private PeerRun() {}

    public static void main(String[] args) throws Exception {
        PeerWorkload workload = PeerWorkload.byKey(args[0]);
        String name = args[1];
        double scale = Double.parseDouble(args[2]);
        Path dir = Dirs.benchRoot().resolve("peer-" + workload.key + "-" + ProcessHandle.current().pid());
        PeerResult result;
        try {
            Peers.Factory factory = Peers.all().get(name);
            if (factory == null) {
                throw new IllegalArgumentException("no peer " + name);
            }
            java.nio.file.Files.createDirectories(dir);
            try (Peer peer = factory.open(dir)) {
                Map<String, Double> rows = workload.run(peer, scale);
                result = PeerResult.of(rows);
            }
        } catch (Throwable t) {
            t.printStackTrace();
            result = PeerResult.failed(t);
        } finally {
            Dirs.delete(dir);
        }
        System.out.println(result.line());
        System.exit(result.error == null ? 0 : 1);
    }
}
