package org.rockcask;

import java.nio.file.Paths;

/**
 * Child process of {@link MapCrashTest}: each transaction moves one item from "in" to "out" and
 * adds 1 to counter "moved" of map "counts", then prints "C"; it runs until "in" is empty or
 * it is killed.
 */
public final class MapCrashChild {
    public static void main(String[] args) {
        try (Store store = Store.open(Paths.get(args[0]), StoreOptions.defaults())) {
            System.out.println("READY");
            System.out.flush();
            for (;;) {
                try (Transaction tx = store.begin()) {
                    Message m = tx.poll("in");
                    if (m == null) {
                        return;
                    }
                    tx.enqueue("out", m.payload());
                    tx.map("counts").add("moved", 1);
                    tx.commit();
                }
                System.out.println("C");
                System.out.flush();
            }
        }
    }
}
