package org.rockcask.bench.kv;

import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/** One durability's table of the key-value benchmark: a row per (workload, threads), columns per store. */
final class KvTable {
    private KvTable() {}

    /** {@code results}: workload -> store -> threads -> {ops/s, read p50, read p99, update p50, update p99}. */
    static String format(String durability, Map<KvWorkload, Map<String, Map<Integer, double[]>>> results, List<String> stores) {
        List<String[]> lines = new ArrayList<>();
        List<String> header = new ArrayList<>();
        header.add(durability);
        header.add("T");
        for (String s : stores) {
            header.add(s + " ops/s");
        }
        for (String s : stores) {
            if (!s.equals("rockcask")) {
                header.add("rockcask / " + s);
            }
        }
        for (String s : stores) {
            header.add(s + " read p50/p99");
        }
        for (String s : stores) {
            header.add(s + " update p50/p99");
        }
        lines.add(header.toArray(new String[0]));
        results.forEach((w, byStore) -> {
            Set<Integer> threadCounts = new LinkedHashSet<>();
            byStore.values().forEach(m -> threadCounts.addAll(m.keySet()));
            for (int t : threadCounts) {
                List<String> cells = new ArrayList<>();
                cells.add(w + ": " + w.title);
                cells.add(Integer.toString(t));
                for (String s : stores) {
                    double[] f = figures(byStore, s, t);
                    cells.add(f == null ? "failed" : String.format("%,.0f", f[0]));
                }
                double[] own = figures(byStore, "rockcask", t);
                for (String s : stores) {
                    if (!s.equals("rockcask")) {
                        double[] f = figures(byStore, s, t);
                        cells.add(own == null || f == null ? "-" : String.format("%.2fx", own[0] / f[0]));
                    }
                }
                for (int i : new int[] {1, 3}) {
                    for (String s : stores) {
                        double[] f = figures(byStore, s, t);
                        cells.add(f == null || f[i] < 0 ? "-" : String.format("%.0f/%.0f", f[i], f[i + 1]));
                    }
                }
                lines.add(cells.toArray(new String[0]));
            }
        });
        int[] widths = new int[header.size()];
        for (String[] l : lines) {
            for (int i = 0; i < l.length; i++) {
                widths[i] = Math.max(widths[i], l[i].length());
            }
        }
        StringBuilder b = new StringBuilder();
        for (String[] l : lines) {
            for (int i = 0; i < l.length; i++) {
                b.append(i == 0 ? "" : " | ").append(i < 2 ? String.format("%-" + widths[i] + "s", l[i]) : String.format("%" + widths[i] + "s", l[i]));
            }
            b.append('\n');
        }
        return b.toString();
    }

    private static double[] figures(Map<String, Map<Integer, double[]>> byStore, String store, int threads) {
        Map<Integer, double[]> m = byStore.get(store);
        return m == null ? null : m.get(threads);
    }
}
