package org.rockcask.bench.graph;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * The experiment's table: a row per child JVM. The ratio is the row's median tree time over the
 * baseline's (the first baseline row that succeeded): 10.0x means ten times as long. The checksum
 * column compares the row's trees with the reference computed by the parent from the generated
 * graph. A failed row shows its error instead of numbers.
 */
final class GraphTable {
    private static final String[] HEADER = {"contender", "keys", "heap", "load s", "tree 1 s", "median 2-8 s", "x baseline", "heap MB walk/load",
        "RSS/HWM MB", "disk MB", "read counters", "checksum"};

    private GraphTable() {}

    static String format(Map<GraphPlan.Row, GraphRunResult> results, TreeChecksum reference) {
        Double baseline = null;
        for (Map.Entry<GraphPlan.Row, GraphRunResult> e : results.entrySet()) {
            if (baseline == null && e.getKey().isBaseline() && e.getValue().error() == null) {
                baseline = e.getValue().number("median");
            }
        }
        List<String[]> lines = new ArrayList<>();
        lines.add(HEADER);
        List<String> errors = new ArrayList<>();
        for (Map.Entry<GraphPlan.Row, GraphRunResult> e : results.entrySet()) {
            GraphPlan.Row row = e.getKey();
            GraphRunResult r = e.getValue();
            String keys = row.isBaseline() ? "-" : row.order.name().toLowerCase(java.util.Locale.ROOT);
            if (r.error() != null) {
                lines.add(new String[] {row.contender, keys, row.heap, "failed: " + shortened(r.error()), "", "", "", "", "", "", "", ""});
                errors.add(row + ": " + r.error());
                continue;
            }
            double median = r.number("median");
            lines.add(new String[] {row.contender, keys, row.heap, String.format("%.1f", r.number("load")), String.format("%.2f", r.number("first")),
                String.format("%.2f", median), baseline == null ? "-" : String.format("%.1fx", median / baseline),
                r.text("walkHeap") + " / " + r.text("loadHeap"), r.text("rss") + " / " + r.text("hwm"), r.text("disk"),
                r.text("counters").isEmpty() ? "-" : r.text("counters"),
                TreeChecksum.parse(r.text("checksum")).equals(reference) ? "OK" : "WRONG " + r.text("checksum")});
        }
        int[] widths = new int[HEADER.length];
        for (String[] line : lines) {
            for (int i = 0; i < line.length; i++) {
                widths[i] = Math.max(widths[i], line[i].length());
            }
        }
        StringBuilder b = new StringBuilder();
        for (String[] line : lines) {
            for (int i = 0; i < line.length; i++) {
                b.append(i == 0 ? String.format("%-" + widths[i] + "s", line[i]) : String.format(" | %" + widths[i] + "s", line[i]));
            }
            b.append('\n');
        }
        errors.forEach(err -> b.append(err).append('\n'));
        return b.toString();
    }

    private static String shortened(String error) {
        return error.length() > 60 ? error.substring(0, 57) + "..." : error;
    }
}
