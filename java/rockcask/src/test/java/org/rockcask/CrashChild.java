package org.rockcask;

import java.nio.charset.StandardCharsets;
import java.nio.file.Paths;
import java.util.UUID;

/**
 * Child process of {@link CrashRecoveryTest}: from transaction number {@code start} on, each
 * transaction enqueues {@value #ITEMS} items "k:i" on "in" and moves up to {@value #MOVES}
 * items from the head of "in" to "out"; after each commit returns it prints "C k". With a third
 * argument {@code padding} &gt; 0, each transaction also writes "k:" and {@code padding} bytes over
 * the object {@link #PADDED}, so that the log grows fast while the store does not. It runs until
 * killed.
 */
public final class CrashChild {
    static final int ITEMS = 5;
    static final int MOVES = 3;
    static final UUID PADDED = new UUID(0, 1);

    public static void main(String[] args) {
        long k = Long.parseLong(args[1]);
        int padding = args.length > 2 ? Integer.parseInt(args[2]) : 0;
        try (Store store = Store.open(Paths.get(args[0]), StoreOptions.defaults())) {
            System.out.println("READY");
            System.out.flush();
            for (;; k++) {
                try (Transaction tx = store.begin()) {
                    for (int i = 0; i < ITEMS; i++) {
                        tx.enqueue("in", (k + ":" + i).getBytes(StandardCharsets.UTF_8));
                    }
                    for (Message m : tx.poll("in", MOVES)) {
                        // Alternate between moving by reference and by copy: both paths must hold.
                        if (k % 2 == 0) {
                            tx.enqueue("out", m.id());
                        } else {
                            tx.enqueue("out", m.payload());
                        }
                    }
                    if (padding > 0) {
                        tx.put(PADDED, (k + ":" + "p".repeat(padding)).getBytes(StandardCharsets.UTF_8));
                    }
                    tx.commit();
                }
                System.out.println("C " + k);
                System.out.flush();
            }
        }
    }
}
