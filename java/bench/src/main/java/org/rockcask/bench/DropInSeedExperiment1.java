package org.rockcask.bench;

import java.io.BufferedReader;
import java.io.File;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.rockcask.Store;
import org.rockcask.StoreOptions;
import org.rockcask.Transaction;

/**
 * Seed experiment 1 through the Tokyo Cabinet API ({@link TcWorkload}), three ways in one run:
 * RockCask's drop-in (this process), the original Tokyo Cabinet Java binding 1.24 over Tokyo
 * Cabinet 1.4.48 (a child JVM with the original jar instead of the drop-in; same compiled
 * workload), and RockCask's native API doing the same work (enqueue of each UUID on one queue,
 * one synced commit). Items/s are over begin..commit; the open..close column adds opening,
 * closing and (for the drop-in) removing the stale data of the previous run at the same path.
 *
 * <p>Usage: {@code DropInSeedExperiment1 [maxN]} (default 1000000). The original binding's
 * classpath comes from the system property {@code rockcask.bench.tcClasspath}.
 */
public final class DropInSeedExperiment1 {
    public static void main(String[] args) throws Exception {
        long maxN = args.length > 0 ? Long.parseLong(args[0]) : 1_000_000;
        Path root = Dirs.benchRoot();
        DiskLimits disk = DiskLimits.measure(root);
        System.out.println("Seed experiment 1 through the Tokyo Cabinet API: N items in one transaction, OTSYNC (items/s over begin..commit)");
        System.out.println(disk);
        System.out.println(String.format("java %s, %d cores, dir %s", System.getProperty("java.version"), Runtime.getRuntime().availableProcessors(), root));

        List<Integer> ns = new ArrayList<>();
        for (long n = 1; n <= maxN; n *= 10) {
            ns.add((int) n);
        }
        Map<Integer, double[]> original = runOriginal(root, ns);

        File tcDir = root.resolve("dropin").toFile();
        tcDir.mkdirs();
        TcWorkload.measure(tcDir, 10_000, 2); // warm-up
        nativeEnqueue(root, 10_000, 2);
        System.out.println();
        System.out.println(String.format("%8s %4s | %11s %10s %11s | %11s %10s %11s | %11s %10s | %9s %9s", "N", "reps", "drop-in ms", "items/s",
                "open..close", "TC ms", "items/s", "open..close", "native ms", "items/s", "vs TC", "vs native"));
        for (int n : ns) {
            int reps = reps(n);
            double[] dropIn = TcWorkload.measure(tcDir, n, reps);
            double nativeMs = nativeEnqueue(root, n, reps);
            double[] tc = original.get(n);
            String tcCols = tc == null ? String.format("%11s %10s %11s", "-", "-", "-")
                    : String.format("%11.3f %10.0f %11.3f", tc[0], n / tc[0] * 1000, tc[1]);
            String vsTc = tc == null ? "-" : String.format("%.2fx", tc[0] / dropIn[0]);
            System.out.println(String.format("%8d %4d | %11.3f %10.0f %11.3f | %s | %11.3f %10.0f | %9s %8.2fx", n, reps, dropIn[0], n / dropIn[0] * 1000,
                    dropIn[1], tcCols, nativeMs, n / nativeMs * 1000, vsTc, nativeMs / dropIn[0]));
        }
        System.out.println("vs TC = original binding time / drop-in time; vs native = native API time / drop-in time (above 1.00x: the drop-in is faster)");
    }

    static int reps(int n) {
        return n <= 100 ? 30 : n <= 10_000 ? 8 : n <= 100_000 ? 4 : 2;
    }

    /** The same workload on the original binding, in a child JVM (both define package tokyocabinet). */
    private static Map<Integer, double[]> runOriginal(Path root, List<Integer> ns) throws IOException, InterruptedException {
        Map<Integer, double[]> out = new HashMap<>();
        String cp = System.getProperty("rockcask.bench.tcClasspath");
        if (cp == null || cp.isEmpty()) {
            System.out.println("original binding: not run (rockcask.bench.tcClasspath not set)");
            return out;
        }
        File dir = root.resolve("original").toFile();
        dir.mkdirs();
        List<String> cmd = new ArrayList<>();
        cmd.add(System.getProperty("java.home") + File.separator + "bin" + File.separator + "java");
        cmd.add("-Xmx2g");
        cmd.add("-cp");
        cmd.add(cp);
        cmd.add(TcWorkload.class.getName());
        cmd.add(dir.getPath());
        for (int n : ns) {
            cmd.add(n + ":" + reps(n));
        }
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
        try (BufferedReader r = new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8))) {
            for (String line; (line = r.readLine()) != null;) {
                if (line.startsWith("RESULT ")) {
                    String[] f = line.split(" ");
                    out.put(Integer.parseInt(f[1]), new double[] {Double.parseDouble(f[2]), Double.parseDouble(f[3])});
                } else if (!line.startsWith("SLF4J")) {
                    System.out.println("original binding: " + line);
                }
            }
        }
        if (p.waitFor() != 0) {
            System.out.println("original binding: child exited with " + p.exitValue());
        }
        return out;
    }

    /** Native API, same work: each UUID string enqueued on one queue, one synced commit. */
    private static double nativeEnqueue(Path root, int n, int reps) throws IOException {
        long total = 0;
        for (int r = 0; r < reps; r++) {
            Path dir = root.resolve("native-" + System.nanoTime());
            try (Store store = Store.open(dir, StoreOptions.defaults()); Transaction tx = store.begin()) {
                long t0 = System.nanoTime();
                for (int i = 0; i < n; i++) {
                    tx.enqueue("queue", UUID.randomUUID().toString().getBytes(StandardCharsets.US_ASCII));
                }
                tx.commit();
                total += System.nanoTime() - t0;
            }
            Dirs.delete(dir);
        }
        return total / 1e6 / reps;
    }
}
