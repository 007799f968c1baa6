package example;

import java.io.File;
import java.util.UUID;
import tokyocabinet.BDB;

/**
 * Written the way flow frameworks used Tokyo Cabinet as a node's store: named queues as keys
 * with duplicates (putdup enqueues at the tail, get + out dequeue from the head), payloads under
 * their UUID, each step in a transaction, the file deleted between runs.
 *
 * <p>Usage: {@code QueueFlow [items]} (default 100000). Prints "CHECK OK" when every item went
 * through both stages exactly once and in order.
 */
public final class QueueFlow {
    public static void main(String[] args) {
        int items = args.length > 0 ? Integer.parseInt(args[0]) : 100_000;
        File file = new File("queue-flow.tcb");
        for (int run = 1; run <= 2; run++) {
            file.delete();
            BDB db = new BDB();
            check(db, db.open(file.getPath(), BDB.OWRITER | BDB.OCREAT | BDB.OTSYNC), "open");
            check(db, db.rnum() == 0, "a deleted file reopens empty");
            long t0 = System.nanoTime();
            produce(db, items);
            long t1 = System.nanoTime();
            int moved = transform(db);
            long t2 = System.nanoTime();
            int consumed = consume(db, items);
            long t3 = System.nanoTime();
            check(db, moved == items && consumed == items && db.rnum() == 0, "every item moved and consumed once");
            check(db, db.close(), "close");
            System.out.printf("run %d: %d items; produce %.0f items/s, transform %.0f items/s, consume %.0f items/s%n", run, items,
                    items / ((t1 - t0) / 1e9), items / ((t2 - t1) / 1e9), items / ((t3 - t2) / 1e9));
        }
        file.delete();
        System.out.println("CHECK OK");
    }

    /** One transaction: every item's payload under its UUID, and the UUID on queue "parse.in". */
    static void produce(BDB db, int items) {
        check(db, db.tranbegin(), "tranbegin");
        for (int i = 0; i < items; i++) {
            String id = UUID.randomUUID().toString();
            db.put(id, "item " + i);
            db.putdup("parse.in", id);
        }
        check(db, db.trancommit(), "trancommit");
    }

    /** Moves items from "parse.in" to "index.in", 100 per transaction. */
    static int transform(BDB db) {
        int moved = 0;
        for (;;) {
            check(db, db.tranbegin(), "tranbegin");
            int n = 0;
            String id;
            while (n < 100 && (id = db.get("parse.in")) != null) {
                db.out("parse.in");
                db.putdup("index.in", id);
                n++;
            }
            check(db, db.trancommit(), "trancommit");
            moved += n;
            if (n < 100) {
                return moved;
            }
        }
    }

    /** Takes items from "index.in" in order and removes their payloads. */
    static int consume(BDB db, int items) {
        int consumed = 0;
        check(db, db.tranbegin(), "tranbegin");
        String id;
        while ((id = db.get("index.in")) != null) {
            String payload = db.get(id);
            check(db, ("item " + consumed).equals(payload), "item " + consumed + " in order, got " + payload);
            db.out("index.in");
            db.out(id);
            consumed++;
        }
        check(db, db.trancommit(), "trancommit");
        return consumed;
    }

    static void check(BDB db, boolean ok, String what) {
        if (!ok) {
            throw new IllegalStateException(what + " failed: " + db.errmsg());
        }
    }
}
