package tokyocabinet;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * Child process of the locking, crash and comparator tests. {@code main(mode, path, ...)}:
 * <ul>
 *   <li>{@code hold path}: opens the casket as a writer, writes {@value #HELD} records, prints
 *       READY, then keeps it open until a line "quit" (or end of input) on stdin; closes, prints
 *       CLOSED.
 *   <li>{@code crash-reads path}: commits {@link #committedState}, then in a transaction
 *       overwrites, removes and adds many records with a read between the writes (so they are
 *       written early, with undo records), prints IN-TX and waits to be killed.
 *   <li>{@code crash-putdup path}: commits {@link #committedState}, then in a transaction adds
 *       {@value #BIG_VALUES} values of 1 MiB to one key with putdup only (more than is gathered in
 *       memory), prints IN-TX and waits to be killed.
 *   <li>{@code putcat-limit path}: in a BDB at {@code path.tcb} and an HDB at {@code path.tch},
 *       stores a 10-byte value, appends an array that would take it one byte past
 *       {@link Database#MAX_VALUE_SIZE} (needs a heap of about 2.1 GiB), and prints for each
 *       "kind putcat=... ecode=... vsiz=... get=..." and "kind errmsg=...", then DONE.
 *   <li>{@code reverse-cmp path}: with a Java comparator, writes records, optimizes (compaction
 *       on RocksDB's own threads calls the comparator), closes, prints DONE and returns from main:
 *       the JVM must then exit by itself.
 * </ul>
 */
public final class CasketChild {
    static final int HELD = 10;
    static final int COMMITTED = 200;
    static final int BIG_VALUES = 80;

    private CasketChild() {}

    /** Reverse byte order; a named class, so the comparator is the same one in every JVM. */
    public static final class Reverse implements BDBCMP {
        @Override
        public int compare(byte[] a, byte[] b) {
            return -Arrays.compare(a, b);
        }
    }

    /** The records the crash children commit before their transaction. */
    static void committedState(BDB db) {
        check(db, db.tranbegin());
        for (int i = 0; i < COMMITTED; i++) {
            check(db, db.put(String.format("c%05d", i), "v" + i));
        }
        for (int i = 0; i < 3; i++) {
            check(db, db.putdup("q", "q" + i));
        }
        check(db, db.trancommit());
    }

    public static void main(String[] args) throws Exception {
        String mode = args[0];
        String path = args[1];
        BDB db = new BDB();
        switch (mode) {
            case "hold": {
                check(db, db.open(path, BDB.OWRITER | BDB.OCREAT));
                for (int i = 0; i < HELD; i++) {
                    check(db, db.put("held" + i, "yes"));
                }
                check(db, db.sync());
                say("READY");
                BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
                for (String line = in.readLine(); line != null && !line.equals("quit"); line = in.readLine()) {
                    // keep holding
                }
                check(db, db.close());
                say("CLOSED");
                return;
            }
            case "crash-reads": {
                check(db, db.open(path, BDB.OWRITER | BDB.OCREAT | BDB.OTSYNC));
                committedState(db);
                check(db, db.tranbegin());
                for (int i = 0; i < COMMITTED; i += 2) {
                    check(db, db.put(String.format("c%05d", i), "changed"));
                    check(db, db.get(String.format("c%05d", i + 1)) != null);
                }
                for (int i = 1; i < COMMITTED; i += 10) {
                    check(db, db.out(String.format("c%05d", i)));
                }
                check(db, db.out("q"));
                check(db, db.putdup("q", "in-tx"));
                for (int i = 0; i < 3000; i++) {
                    check(db, db.put(String.format("n%05d", i), "new" + i));
                    check(db, db.get(String.format("n%05d", i)) != null);
                }
                check(db, db.vanish());
                check(db, db.put("after-vanish", "x"));
                check(db, db.get("after-vanish") != null);
                say("IN-TX");
                Thread.sleep(Long.MAX_VALUE);
                return;
            }
            case "crash-putdup": {
                check(db, db.open(path, BDB.OWRITER | BDB.OCREAT | BDB.OTSYNC));
                committedState(db);
                check(db, db.tranbegin());
                byte[] big = new byte[1 << 20];
                for (int i = 0; i < BIG_VALUES; i++) {
                    Arrays.fill(big, (byte) i);
                    check(db, db.putdup("q".getBytes(StandardCharsets.UTF_8), big));
                }
                say("IN-TX");
                Thread.sleep(Long.MAX_VALUE);
                return;
            }
            case "putcat-limit": {
                byte[] past = new byte[Database.MAX_VALUE_SIZE - 9];
                byte[] key = "k".getBytes(StandardCharsets.UTF_8);
                check(db, db.open(path + ".tcb", BDB.OWRITER | BDB.OCREAT));
                check(db, db.put(key, "0123456789".getBytes(StandardCharsets.UTF_8)));
                boolean appended = db.putcat(key, past);
                say("bdb putcat=" + appended + " ecode=" + db.ecode() + " vsiz=" + db.vsiz(key) + " get=" + new String(db.get(key), StandardCharsets.UTF_8));
                say("bdb errmsg=" + db.errmsg());
                check(db, db.close());
                HDB h = new HDB();
                check(db, h.open(path + ".tch", HDB.OWRITER | HDB.OCREAT));
                check(db, h.put(key, "0123456789".getBytes(StandardCharsets.UTF_8)));
                appended = h.putcat(key, past);
                say("hdb putcat=" + appended + " ecode=" + h.ecode() + " vsiz=" + h.vsiz(key) + " get=" + new String(h.get(key), StandardCharsets.UTF_8));
                say("hdb errmsg=" + h.errmsg());
                check(db, h.close());
                say("DONE");
                return;
            }
            case "reverse-cmp": {
                check(db, db.setcomparator(new Reverse()));
                check(db, db.open(path, BDB.OWRITER | BDB.OCREAT));
                for (int i = 0; i < 20000; i++) {
                    check(db, db.put(String.format("k%06d", i), "v" + i));
                    if (i % 5000 == 4999) {
                        check(db, db.optimize());
                    }
                }
                check(db, db.optimize());
                check(db, db.close());
                say("DONE");
                return;
            }
            case "throwing-cmp": {
                check(db, db.setcomparator(new BDBComparatorTest.Throwing()));
                check(db, db.open(path, BDB.OWRITER | BDB.OCREAT));
                // From deep in a stack, as in an application: what the exception carries grows
                // with the stack.
                deep(200, () -> {
                    for (int i = 0; i < 300; i++) {
                        check(db, db.put("k" + i, "v" + i));
                        check(db, db.get("k" + i) != null);
                    }
                });
                check(db, db.close());
                say("DONE");
                return;
            }
            default:
                throw new IllegalArgumentException(mode);
        }
    }

    private static void deep(int depth, Runnable work) {
        if (depth > 0) {
            deep(depth - 1, work);
        } else {
            work.run();
        }
    }

    private static void check(BDB db, boolean ok) {
        if (!ok) {
            System.out.println("FAILED: " + db.ecode() + " " + db.errmsg());
            System.out.flush();
            System.exit(3);
        }
    }

    private static void say(String line) {
        System.out.println(line);
        System.out.flush();
    }
}
