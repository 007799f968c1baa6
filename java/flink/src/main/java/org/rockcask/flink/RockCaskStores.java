package org.rockcask.flink;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.HashMap;
import java.util.Map;
import org.apache.flink.annotation.PublicEvolving;
import org.rockcask.Store;

/**
 * The RockCask stores open in this JVM, shared by every source, sink and test that names them.
 *
 * <p>A directory can be open once per process, yet a TaskManager runs many subtasks (and a test
 * its job and its checks) against it: each {@link #acquire}s a {@link Lease}, and the store is
 * closed when the last lease closes. Stores are keyed by the directory's real path, so every
 * spelling of one directory (a symlink, {@code ..}) shares one store. For one registry per
 * TaskManager, this class must be loaded parent-first: add {@code org.rockcask.} to
 * {@code classloader.parent-first-patterns.additional}.
 */
@PublicEvolving
public final class RockCaskStores {
    private static final Map<Path, Shared> OPEN = new HashMap<>();

    private RockCaskStores() {}

    /**
     * Opens the store {@code spec} names (creating its directory when missing), or shares the one
     * already open.
     *
     * @throws IllegalStateException when the store is already open with other options (naming
     *     both)
     * @throws UncheckedIOException when the directory cannot be created or resolved
     */
    public static Lease acquire(RockCaskStoreSpec spec) {
        return acquire(spec, true);
    }

    /**
     * {@link #acquire} of a store that must exist already: what a commit of records staged
     * earlier opens, so that a moved or missing store fails loudly instead of being created
     * empty (where the staged records would seem committed).
     *
     * @throws IllegalStateException when the directory does not exist
     * @throws org.rockcask.RockCaskException with status {@code NotAStore} when it holds no store
     */
    public static Lease acquireExisting(RockCaskStoreSpec spec) {
        return acquire(spec, false);
    }

    private static Lease acquire(RockCaskStoreSpec spec, boolean create) {
        Path dir = realDirectory(spec.path(), create);
        synchronized (OPEN) {
            Shared shared = OPEN.get(dir);
            if (shared == null) {
                shared = new Shared(dir, spec, Store.open(dir, spec.toOptions().createIfMissing(create)));
                OPEN.put(dir, shared);
            } else if (!shared.spec.sameOptionsAs(spec)) {
                throw new IllegalStateException("RockCask store " + dir + " is open in this JVM as " + shared.spec
                        + " and cannot be shared with different options: " + spec);
            }
            shared.leases++;
            return new Lease(shared);
        }
    }

    private static Path realDirectory(String path, boolean create) {
        Path dir = Paths.get(path);
        if (!create && !Files.isDirectory(dir)) {
            throw new IllegalStateException("RockCask store directory " + path + " does not exist");
        }
        try {
            if (create) {
                Files.createDirectories(dir);
            }
            return dir.toRealPath();
        } catch (IOException e) {
            throw new UncheckedIOException("cannot create or resolve the RockCask store directory " + path, e);
        }
    }

    private static void release(Shared shared) {
        synchronized (OPEN) {
            shared.leases--;
            if (shared.leases == 0) {
                // Closed under the lock: an acquire racing this one opens the directory afresh
                // only once the lock of the old store is gone.
                OPEN.remove(shared.dir);
                shared.store.close();
            }
        }
    }

    /** One open store and how many leases hold it. Guarded by {@link #OPEN}. */
    private static final class Shared {
        final Path dir;
        final RockCaskStoreSpec spec;
        final Store store;
        int leases;

        Shared(Path dir, RockCaskStoreSpec spec, Store store) {
            this.dir = dir;
            this.spec = spec;
            this.store = store;
        }
    }

    /** A hold on a shared store. Closing it more than once is harmless. */
    @PublicEvolving
    public static final class Lease implements AutoCloseable {
        private final Shared shared;
        private boolean closed;

        private Lease(Shared shared) {
            this.shared = shared;
        }

        /**
         * The shared store: do not close it, close the lease.
         *
         * @throws IllegalStateException after this lease was closed
         */
        public synchronized Store store() {
            if (closed) {
                throw new IllegalStateException("lease on the RockCask store " + shared.dir + " is closed");
            }
            return shared.store;
        }

        @Override
        public void close() {
            synchronized (this) {
                if (closed) {
                    return;
                }
                closed = true;
            }
            release(shared);
        }
    }
}
