package org.rockcask;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import org.junit.After;
import org.junit.Before;
import org.junit.Rule;
import org.junit.rules.TemporaryFolder;

/**
 * Base of the tests that work on one store, opened unsynced in a temporary directory before
 * each test and closed after it (a test may replace {@link #store} by reopening {@link #dir}).
 */
public abstract class WithOpenStore {
    @Rule
    public TemporaryFolder tmp = new TemporaryFolder();

    protected Path dir;
    protected Store store;

    @Before
    public void openStore() {
        dir = tmp.getRoot().toPath().resolve("store");
        store = Store.open(dir, StoreOptions.defaults().syncOnCommit(false));
    }

    @After
    public void closeStore() {
        if (store != null) {
            store.close();
        }
    }

    protected static byte[] b(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }
}
