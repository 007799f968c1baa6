package org.rockcask.bench;

import java.io.File;
import java.util.UUID;
import tokyocabinet.BDB;

/**
 * Seed experiment 1 written against the Tokyo Cabinet Java API, as the original experiment was:
 * open with OWRITER|OCREAT|OTSYNC, tranbegin, N times { a random UUID string; putdup(QUEUE_KEY,
 * uuid); putdup(uuid bytes, uuid bytes) }, trancommit, close, delete the file.
 *
 * <p>Refers only to {@code tokyocabinet.*}, so the same compiled class runs on RockCask's drop-in
 * and on the original binding (whichever jar is on the classpath).
 */
final class TcWorkload {
    static final String QUEUE_KEY = "queue";

    /** Nanoseconds of one run: [begin..commit, open..close]. */
    static long[] run(File path, int n) {
        long t0 = System.nanoTime();
        BDB bdb = new BDB();
        check(bdb, bdb.open(path.getPath(), BDB.OWRITER | BDB.OCREAT | BDB.OTSYNC), "open");
        long t1 = System.nanoTime();
        check(bdb, bdb.tranbegin(), "tranbegin");
        for (int i = 0; i < n; i++) {
            String uuid = UUID.randomUUID().toString();
            bdb.putdup(QUEUE_KEY, uuid);
            byte[] b = uuid.getBytes();
            bdb.putdup(b, b);
        }
        check(bdb, bdb.trancommit(), "trancommit");
        long t2 = System.nanoTime();
        if (bdb.rnum() != 2L * n) {
            throw new IllegalStateException("rnum " + bdb.rnum() + " after " + n + " items");
        }
        check(bdb, bdb.close(), "close");
        long t3 = System.nanoTime();
        if (!path.delete()) {
            throw new IllegalStateException("could not delete " + path);
        }
        return new long[] {t2 - t1, t3 - t0};
    }

    private static void check(BDB bdb, boolean ok, String what) {
        if (!ok) {
            throw new IllegalStateException(what + " failed: " + bdb.errmsg());
        }
    }

    /** Mean [begin..commit ms, open..close ms] over {@code reps} runs on fresh files in {@code dir}. */
    static double[] measure(File dir, int n, int reps) {
        long commit = 0;
        long total = 0;
        for (int r = 0; r < reps; r++) {
            long[] t = run(new File(dir, "seed1-" + System.nanoTime() + ".tcb"), n);
            commit += t[0];
            total += t[1];
        }
        return new double[] {commit / 1e6 / reps, total / 1e6 / reps};
    }

    /**
     * Child-process entry: {@code TcWorkload dir n:reps ...}; prints one line per N,
     * "N commitMs totalMs", after a warm-up.
     */
    public static void main(String[] args) {
        File dir = new File(args[0]);
        measure(dir, 10_000, 2);
        for (int i = 1; i < args.length; i++) {
            String[] nr = args[i].split(":");
            int n = Integer.parseInt(nr[0]);
            double[] ms = measure(dir, n, Integer.parseInt(nr[1]));
            System.out.println("RESULT " + n + " " + ms[0] + " " + ms[1]);
        }
    }
}
