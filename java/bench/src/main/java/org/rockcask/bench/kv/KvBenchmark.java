package org.rockcask.bench.kv;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.rockcask.bench.ChildJvm;
import org.rockcask.bench.DiskLimits;
import org.rockcask.bench.Dirs;

/**
 * The key-value benchmark, in the shape of YCSB's core workloads: each (durability, workload,
 * store) in a child JVM of its own ({@link KvRun}), back to back, then one table per durability
 * between the disk limits measured before and after the run: throughput with RockCask's ratio to
 * RocksJava and to LMDB, and read and update latencies (p50/p99, µs).
 *
 * <p>Arguments, all optional: {@code records=N} (default 100,000), {@code operations=N} per
 * workload and thread count (default 100,000), {@code threads=1,4}, {@code workloads=a,b,c,e,f},
 * {@code stores=rockcask,rocksjava,lmdb}, {@code durability=synced,unsynced}.
 */
public final class KvBenchmark {
    private static final List<String> STORES = Arrays.asList("rockcask", "rocksjava", "lmdb");
    private static final String HEAP = "2g";

    private KvBenchmark() {}

    public static void main(String[] args) throws Exception {
        long records = 100_000;
        int operations = 100_000;
        String threads = "1,4";
        List<KvWorkload> workloads = new ArrayList<>(Arrays.asList(KvWorkload.values()));
        List<String> stores = STORES;
        List<String> durabilities = Arrays.asList("synced", "unsynced");
        for (String arg : args) {
            String[] kv = arg.split("=", 2);
            if (kv.length != 2) {
                throw new IllegalArgumentException("unknown argument " + arg + " (" + USAGE + ")");
            }
            switch (kv[0]) {
                case "records":
                    records = Long.parseLong(kv[1]);
                    break;
                case "operations":
                    operations = Integer.parseInt(kv[1]);
                    break;
                case "threads":
                    threads = kv[1];
                    for (String t : threads.split(",")) {
                        if (Integer.parseInt(t) < 1) {
                            throw new IllegalArgumentException("threads=" + threads + ": each at least 1");
                        }
                    }
                    break;
                case "workloads":
                    workloads.clear();
                    for (String w : kv[1].split(",")) {
                        workloads.add(KvWorkload.byName(w));
                    }
                    break;
                case "stores":
                    stores = Arrays.asList(kv[1].toLowerCase(Locale.ROOT).split(","));
                    for (String s : stores) {
                        if (!STORES.contains(s)) {
                            throw new IllegalArgumentException("no store " + s + " (" + STORES + ")");
                        }
                    }
                    break;
                case "durability":
                    durabilities = Arrays.asList(kv[1].split(","));
                    for (String d : durabilities) {
                        if (!d.equals("synced") && !d.equals("unsynced")) {
                            throw new IllegalArgumentException("durability=" + kv[1] + ": synced, unsynced or both");
                        }
                    }
                    break;
                default:
                    throw new IllegalArgumentException("unknown argument " + arg + " (" + USAGE + ")");
            }
        }
        Path root = Dirs.benchRoot();
        System.out.println(String.format("Key-value benchmark: %,d records of %d bytes, %,d operations per workload and thread count, threads %s;"
                + " java %s, %d cores, dir %s", records, KvStore.RECORD_BYTES, operations, threads, System.getProperty("java.version"),
                Runtime.getRuntime().availableProcessors(), root));
        String diskBefore = DiskLimits.measure(root).toString();
        System.out.println("before: " + diskBefore);
        // durability -> workload -> store -> threads -> figures
        Map<String, Map<KvWorkload, Map<String, Map<Integer, double[]>>>> results = new LinkedHashMap<>();
        Map<String, String> errors = new LinkedHashMap<>();
        long start = System.nanoTime();
        for (String durability : durabilities) {
            for (KvWorkload w : workloads) {
                for (String store : stores) {
                    System.out.println(String.format("%s / %s / %s (elapsed %.0f s)", durability, w, store, (System.nanoTime() - start) / 1e9));
                    List<String> cmd = ChildJvm.command(HEAP, root, KvRun.class.getName(),
                            Arrays.asList(store, durability, w.name(), Long.toString(records), Integer.toString(operations), threads));
                    ChildJvm.Outcome out = ChildJvm.run(cmd, l -> l.startsWith(KvRun.RESULT), 0);
                    String line = out.resultLine == null ? null : out.resultLine.substring(KvRun.RESULT.length());
                    if (line == null || line.startsWith("error")) {
                        String error = line == null ? out.failure() : line;
                        errors.put(durability + " " + w + " " + store, error);
                        System.out.println("        failed: " + error);
                        continue;
                    }
                    System.out.println("        " + line);
                    Map<Integer, double[]> byThreads = new LinkedHashMap<>();
                    for (String part : line.split(";")) {
                        String[] f = part.split(":");
                        double[] figures = new double[5];
                        for (int i = 0; i < 5; i++) {
                            figures[i] = Double.parseDouble(f[i + 1]);
                        }
                        byThreads.put(Integer.parseInt(f[0]), figures);
                    }
                    results.computeIfAbsent(durability, d -> new LinkedHashMap<>()).computeIfAbsent(w, x -> new LinkedHashMap<>()).put(store, byThreads);
                }
            }
        }
        String diskAfter = DiskLimits.measure(root).toString();
        System.out.println();
        System.out.println(String.format("Key-value benchmark, %.0f s: operations/s (RockCask's ratio to RocksJava, to LMDB; above 1.00x RockCask is"
                + " faster); read and update latency p50/p99 in µs", (System.nanoTime() - start) / 1e9));
        System.out.println("before: " + diskBefore);
        System.out.println("after:  " + diskAfter);
        List<String> columns = stores;
        results.forEach((durability, byWorkload) -> {
            System.out.println();
            System.out.print(KvTable.format(durability, byWorkload, columns));
        });
        errors.forEach((what, error) -> System.out.println(what + ": " + error));
    }

    private static final String USAGE = "records=N, operations=N, threads=1,4, workloads=a,b,c,e,f, stores=rockcask,rocksjava,lmdb, durability=synced,unsynced";
}
