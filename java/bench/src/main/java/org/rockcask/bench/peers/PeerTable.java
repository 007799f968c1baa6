package org.rockcask.bench.peers;

import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * One workload's table: a row per size or variant, a column per peer, each cell the rate and its
 * ratio to the baseline's (above 1.00x: the peer is faster): RockCask, or when it did not run the
 * first RockCask variant that did ({@link #baseline}). A failed peer's cell holds its error,
 * shortened; the whole error follows the table.
 */
final class PeerTable {
    static final String BASELINE = "RockCask";
    private static final int ERROR_CELL_CHARS = 40;

    private PeerTable() {}

    /** The column the others are compared with, among {@code peers}; null when no RockCask ran. */
    static String baseline(Iterable<String> peers) {
        String first = null;
        for (String peer : peers) {
            if (peer.equals(BASELINE)) {
                return peer;
            }
            if (first == null && peer.startsWith(BASELINE)) {
                first = peer;
            }
        }
        return first;
    }

    /** {@code results}: peer name -> result, in column order. */
    static String format(PeerWorkload workload, Map<String, PeerResult> results) {
        Set<String> labels = new LinkedHashSet<>();
        results.values().forEach(r -> labels.addAll(r.rows.keySet()));
        String baselineName = baseline(results.keySet());
        PeerResult baseline = baselineName == null ? null : results.get(baselineName);

        List<String[]> lines = new ArrayList<>();
        List<String> header = new ArrayList<>();
        header.add(workload.unit);
        header.addAll(results.keySet());
        lines.add(header.toArray(new String[0]));
        for (String label : labels) {
            List<String> cells = new ArrayList<>();
            cells.add(label);
            results.forEach((peer, r) -> cells.add(cell(peer.equals(baselineName), r, baseline, label)));
            lines.add(cells.toArray(new String[0]));
        }
        if (labels.isEmpty()) {
            List<String> cells = new ArrayList<>();
            cells.add("-");
            results.forEach((peer, r) -> cells.add(cell(peer.equals(baselineName), r, baseline, "-")));
            lines.add(cells.toArray(new String[0]));
        }

        int[] widths = new int[header.size()];
        for (String[] line : lines) {
            for (int i = 0; i < line.length; i++) {
                widths[i] = Math.max(widths[i], line[i].length());
            }
        }
        StringBuilder b = new StringBuilder(workload.title).append('\n');
        for (String[] line : lines) {
            for (int i = 0; i < line.length; i++) {
                b.append(i == 0 ? String.format("%-" + widths[i] + "s", line[i]) : String.format(" | %" + widths[i] + "s", line[i]));
            }
            b.append('\n');
        }
        results.forEach((peer, r) -> {
            if (r.error != null && r.error.length() > ERROR_CELL_CHARS) {
                b.append(peer).append(": ").append(r.error).append('\n');
            }
        });
        return b.toString();
    }

    private static String cell(boolean isBaseline, PeerResult r, PeerResult baseline, String label) {
        if (r.error != null) {
            return r.error.length() > ERROR_CELL_CHARS ? r.error.substring(0, ERROR_CELL_CHARS - 3) + "..." : r.error;
        }
        Double rate = r.rows.get(label);
        if (rate == null) {
            return "-";
        }
        String value = String.format("%,.0f", rate);
        Double base = baseline == null ? null : baseline.rows.get(label);
        if (isBaseline || base == null) {
            return value;
        }
        return String.format("%s (%.2fx)", value, rate / base);
    }
}
