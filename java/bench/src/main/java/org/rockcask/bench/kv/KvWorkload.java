package org.rockcask.bench.kv;

import java.util.Locale;

/**
 * The YCSB core workloads this benchmark runs, by YCSB's letters: the share of each operation.
 * Reads and scans count as reads; updates, inserts and read-modify-writes as updates.
 */
enum KvWorkload {
    A("50% reads, 50% updates", 0.5, 0.5, 0, 0, 0),
    B("95% reads, 5% updates", 0.95, 0.05, 0, 0, 0),
    C("reads only", 1, 0, 0, 0, 0),
    E("95% scans of 1 to 100 records, 5% inserts", 0, 0, 0.95, 0.05, 0),
    F("50% reads, 50% read-modify-writes", 0.5, 0, 0, 0, 0.5);

    /** The longest scan of workload E (its length is uniform in 1..this). */
    static final int MAX_SCAN = 100;

    final String title;
    final double read;
    final double update;
    final double scan;
    final double insert;
    final double readModifyWrite;

    KvWorkload(String title, double read, double update, double scan, double insert, double readModifyWrite) {
        this.title = title;
        this.read = read;
        this.update = update;
        this.scan = scan;
        this.insert = insert;
        this.readModifyWrite = readModifyWrite;
    }

    static KvWorkload byName(String name) {
        try {
            return valueOf(name.toUpperCase(Locale.ROOT));
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("no workload " + name + " (a, b, c, e, f)");
        }
    }
}
