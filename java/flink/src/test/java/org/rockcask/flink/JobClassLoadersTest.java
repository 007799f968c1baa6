package org.rockcask.flink;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertNotSame;
import static org.junit.Assert.assertThrows;
import static org.junit.Assert.assertTrue;

import java.io.File;
import java.lang.reflect.InvocationTargetException;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.List;
import org.junit.Rule;
import org.junit.Test;
import org.junit.rules.TemporaryFolder;

/**
 * Flink loads each job's classes in a class loader of its own. With the RockCask jars in a job
 * jar (not parent-first, against the docs' advice), each loader has its own copy of the library
 * and its own {@link RockCaskStores}: the second must not open a store the first holds, since two
 * RocksDB instances on one directory destroy it.
 */
public class JobClassLoadersTest {
    @Rule
    public TemporaryFolder tmp = new TemporaryFolder();

    /** The test classpath (RockCask, rockcask-flink, Flink) under a fresh loader, as a job's own. */
    private static URLClassLoader jobLoader() throws Exception {
        List<URL> urls = new ArrayList<>();
        for (String entry : System.getProperty("java.class.path").split(File.pathSeparator)) {
            urls.add(Paths.get(entry).toUri().toURL());
        }
        return new URLClassLoader(urls.toArray(new URL[0]), ClassLoader.getPlatformClassLoader());
    }

    /** Acquires the store in {@code dir} through {@code loader}'s own registry; returns the lease. */
    private static AutoCloseable acquireThrough(ClassLoader loader, Path dir) throws Exception {
        Class<?> specs = loader.loadClass(RockCaskStoreSpec.class.getName());
        Class<?> stores = loader.loadClass(RockCaskStores.class.getName());
        assertNotSame(RockCaskStores.class, stores);
        Object spec = specs.getMethod("at", String.class).invoke(null, dir.toString());
        return (AutoCloseable) stores.getMethod("acquire", specs).invoke(null, spec);
    }

    private static String statusOf(Throwable e) throws Exception {
        return e.getClass().getMethod("status").invoke(e).toString();
    }

    @Test
    public void aSecondJobLoaderCannotOpenAStoreTheFirstHolds() throws Exception {
        Path dir = tmp.newFolder().toPath().resolve("store");
        try (URLClassLoader first = jobLoader(); URLClassLoader second = jobLoader()) {
            AutoCloseable held = acquireThrough(first, dir);
            try {
                InvocationTargetException e = assertThrows(InvocationTargetException.class, () -> acquireThrough(second, dir));
                assertEquals(e.getCause().toString(), "Locked", statusOf(e.getCause()));
                assertTrue(e.getCause().getMessage(), e.getCause().getMessage().contains("this very process, through another copy of the RockCask native library (another class loader"));
                // Nor can this loader's registry, the one parent-first loading would give every job.
                RuntimeException here = assertThrows(RuntimeException.class, () -> RockCaskStores.acquire(RockCaskStoreSpec.at(dir.toString())));
                assertEquals(here.toString(), "Locked", statusOf(here));
            } finally {
                held.close();
            }
            // Released by the first, the store opens through the second.
            acquireThrough(second, dir).close();
        }
    }
}
