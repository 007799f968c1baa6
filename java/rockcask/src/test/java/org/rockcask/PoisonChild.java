package org.rockcask;

import java.nio.charset.StandardCharsets;
import java.nio.file.Paths;

/**
 * Child process of {@link PoisonMessagesTest}: moves the items of "in" to "out" one per
 * transaction, and halts the JVM (no rollback, no close: what a crashing component does) when
 * it receives "poison". Exits 0 once "in" is empty. The delivery limit is the store's default,
 * {@code args[1]}.
 */
public final class PoisonChild {
    public static void main(String[] args) {
        StoreOptions options = StoreOptions.defaults().maxDeliveries(Integer.parseInt(args[1]));
        try (Store store = Store.open(Paths.get(args[0]), options)) {
            for (;;) {
                try (Transaction tx = store.begin()) {
                    Message m = tx.poll("in");
                    if (m == null) {
                        return;
                    }
                    if ("poison".equals(new String(m.payload(), StandardCharsets.UTF_8))) {
                        System.out.println("HALT " + m.deliveries());
                        System.out.flush();
                        Runtime.getRuntime().halt(3);
                    }
                    tx.enqueue("out", m.payload());
                    tx.commit();
                }
            }
        }
    }
}
