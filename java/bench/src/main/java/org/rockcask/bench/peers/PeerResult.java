package org.rockcask.bench.peers;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.rockcask.bench.Median;

/**
 * What one (workload, peer) child reports, as one line on its standard output: its rows (label
 * -> rate) or its error. Fields are tab-separated: labels hold spaces and '=', never tabs.
 */
final class PeerResult {
    private static final String RESULT = "PEER-RESULT";
    private static final String ERROR = "PEER-ERROR";

    /** Label -> rate, in row order; empty when the peer failed. */
    final Map<String, Double> rows;
    /** Null when the peer succeeded. */
    final String error;

    private PeerResult(Map<String, Double> rows, String error) {
        this.rows = rows;
        this.error = error;
    }

    static PeerResult of(Map<String, Double> rows) {
        return new PeerResult(rows, null);
    }

    static PeerResult failed(String error) {
        return new PeerResult(new LinkedHashMap<>(), error.replaceAll("\\s+", " ").trim());
    }

    static PeerResult failed(Throwable t) {
        Throwable root = t;
        while (root.getCause() != null && root.getCause() != root) {
            root = root.getCause();
        }
        return failed(root.getClass().getSimpleName() + (root.getMessage() == null ? "" : ": " + root.getMessage()));
    }

    /**
     * One result for the same pair run several times: each row's median over the runs, or the
     * first run's error if any failed (a peer that fails once is not reported as working).
     */
    static PeerResult median(List<PeerResult> runs) {
        for (PeerResult r : runs) {
            if (r.error != null) {
                return runs.size() == 1 ? r : failed("in " + runs.size() + " rounds: " + r.error);
            }
        }
        Map<String, List<Double>> byLabel = new LinkedHashMap<>();
        runs.forEach(r -> r.rows.forEach((label, rate) -> byLabel.computeIfAbsent(label, l -> new ArrayList<>()).add(rate)));
        Map<String, Double> rows = new LinkedHashMap<>();
        byLabel.forEach((label, rates) -> rows.put(label, Median.of(rates)));
        return of(rows);
    }

    String line() {
        if (error != null) {
            return ERROR + "\t" + error;
        }
        StringBuilder b = new StringBuilder(RESULT);
        rows.forEach((label, rate) -> b.append('\t').append(label).append('\t').append(rate));
        return b.toString();
    }

    /** The result a line reports, or null when the line is other output of the child. */
    static PeerResult parse(String line) {
        String[] f = line.split("\t");
        if (f[0].equals(ERROR)) {
            return failed(f.length > 1 ? f[1] : "unknown error");
        }
        if (!f[0].equals(RESULT)) {
            return null;
        }
        Map<String, Double> rows = new LinkedHashMap<>();
        for (int i = 1; i + 1 < f.length; i += 2) {
            rows.put(f[i], Double.parseDouble(f[i + 1]));
        }
        return of(rows);
    }
}
