package org.rockcask;

import java.nio.file.Paths;

/** Child JVM for exclusivity tests: holds a store open until its standard input ends. */
public final class LockHolderChild {
    private LockHolderChild() {}

    public static void main(String[] args) throws Exception {
        try (Store store = Store.open(Paths.get(args[0]), StoreOptions.defaults())) {
            System.out.println(store.queueSize("q") == 0 ? "OPEN" : "OPEN but not empty");
            System.out.flush();
            while (System.in.read() >= 0) {
                // wait for the parent to close our stdin
            }
        }
    }
}
