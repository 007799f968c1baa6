package org.rockcask;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertNotSame;
import static org.junit.Assert.assertThrows;
import static org.junit.Assert.assertTrue;

import java.io.BufferedReader;
import java.io.File;
import java.io.InputStreamReader;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.Rule;
import org.junit.Test;
import org.junit.rules.TemporaryFolder;
import org.rockcask.internal.NativeLibrary;
import org.rockcask.testsupport.ChildJvm;

/**
 * A store directory has at most one open handle, whatever path spells it, whichever class
 * loader (each loads its own copy of the native library, as Flink's per-job loaders do) or
 * process asks. Two handles on one directory destroy the store.
 */
public class StoreExclusivityTest {
    @Rule
    public TemporaryFolder tmp = new TemporaryFolder();

    private static RockCaskException assertLocked(Path dir, StoreOptions options) {
        RockCaskException e = assertThrows(RockCaskException.class, () -> Store.open(dir, options).close());
        assertEquals(e.getMessage(), RockCaskException.Status.Locked, e.status());
        return e;
    }

    private static void commitOne(Store store, String queue) {
        try (Transaction tx = store.begin()) {
            tx.enqueue(queue, new byte[] {1});
            tx.commit();
        }
    }

    @Test
    public void aSymlinkToAnOpenStoreIsRefusedWithLockedNamingThisProcess() throws Exception {
        Path dir = tmp.newFolder().toPath().resolve("s");
        Path link = tmp.getRoot().toPath().resolve("link");
        try (Store store = Store.open(dir, StoreOptions.defaults())) {
            Files.createSymbolicLink(link, dir);
            org.junit.Assume.assumeTrue("this system follows symbolic links (Wine does not)", Files.isDirectory(link));
            RockCaskException e = assertLocked(link, StoreOptions.defaults());
            assertTrue(e.getMessage(), e.getMessage().contains("pid " + ProcessHandle.current().pid() + " "));
            assertTrue(e.getMessage(), e.getMessage().contains("rockcask.lock"));
            commitOne(store, "q");
        }
        try (Store again = Store.open(link, StoreOptions.defaults())) {
            assertEquals(1, again.queueSize("q"));
        }
    }

    @Test
    public void otherSpellingsOfAnOpenStoresPathAreRefused() throws Exception {
        Path root = tmp.newFolder().toPath();
        Files.createDirectory(root.resolve("x"));
        Path dir = root.resolve("s");
        try (Store store = Store.open(dir, StoreOptions.defaults())) {
            assertLocked(root.resolve("x").resolve("..").resolve("s"), StoreOptions.defaults());
            if (NativeLibrary.platform().startsWith("linux-")) {
                assertLocked(Paths.get("/proc/self/root" + dir.toAbsolutePath()), StoreOptions.defaults());
            }
            Path workingDirectory = Paths.get("").toAbsolutePath();
            // Windows: a relative path exists only on the working directory's drive.
            if (workingDirectory.getRoot().equals(dir.toAbsolutePath().getRoot())) {
                assertLocked(workingDirectory.relativize(dir.toAbsolutePath()), StoreOptions.defaults());
            }
            commitOne(store, "q");
        }
        try (Store again = Store.open(dir, StoreOptions.defaults())) {
            assertEquals("the refused opens did not harm the store", 1, again.queueSize("q"));
        }
    }

    @Test
    public void aBindMountOfAnOpenStoreIsRefusedWhereThisMachineAllowsMounts() throws Exception {
        Path dir = tmp.newFolder().toPath().resolve("s");
        Path mountPoint = tmp.newFolder("mnt").toPath();
        org.junit.Assume.assumeTrue("bind mounts are Linux's", NativeLibrary.platform().startsWith("linux-"));
        try (Store store = Store.open(dir, StoreOptions.defaults())) {
            org.junit.Assume.assumeTrue("bind mounts need root here", run("mount", "--bind", dir.toString(), mountPoint.toString()) == 0);
            try {
                assertLocked(mountPoint, StoreOptions.defaults());
                assertEquals("the holder is unharmed", 0, store.queueSize("q"));
            } finally {
                run("umount", mountPoint.toString());
            }
        }
    }

    private static int run(String... command) throws Exception {
        Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
        p.getInputStream().readAllBytes();
        return p.waitFor(30, TimeUnit.SECONDS) ? p.exitValue() : -1;
    }

    @Test
    public void readOnlyOpensWorkBesideAWriterButASecondWriterDoesNot() throws Exception {
        Path dir = tmp.newFolder().toPath().resolve("s");
        Path link = tmp.getRoot().toPath().resolve("ro-link");
        StoreOptions readOnly = StoreOptions.defaults().readOnly(true);
        try (Store writer = Store.open(dir, StoreOptions.defaults())) {
            commitOne(writer, "q");
            Files.createSymbolicLink(link, dir);
            // Where symbolic links are not followed (Wine), the second reader spells the path as is.
            Path other = Files.isDirectory(link) ? link : dir;
            try (Store r1 = Store.open(dir, readOnly); Store r2 = Store.open(other, readOnly)) {
                assertEquals(1, r1.queueSize("q"));
                assertEquals(1, r2.queueSize("q"));
                assertLocked(other, StoreOptions.defaults());
            }
            commitOne(writer, "q");
        }
        try (Store again = Store.open(dir, readOnly)) {
            assertEquals(2, again.queueSize("q"));
        }
    }

    /** The test classpath (the built classes, resources and native library) under a fresh loader. */
    private static URLClassLoader secondLoader() throws Exception {
        List<URL> urls = new ArrayList<>();
        for (String entry : System.getProperty("java.class.path").split(File.pathSeparator)) {
            urls.add(Paths.get(entry).toUri().toURL());
        }
        return new URLClassLoader(urls.toArray(new URL[0]), ClassLoader.getPlatformClassLoader());
    }

    /** Opens `dir` as a store through `loader`'s own copy of RockCask; returns the store. */
    private static AutoCloseable openThrough(ClassLoader loader, Path dir) throws Exception {
        Class<?> options = loader.loadClass("org.rockcask.StoreOptions");
        Class<?> store = loader.loadClass("org.rockcask.Store");
        assertNotSame(Store.class, store);
        Method open = store.getMethod("open", Path.class, options);
        return (AutoCloseable) open.invoke(null, dir, options.getMethod("defaults").invoke(null));
    }

    private static String statusOf(Throwable e) throws Exception {
        return e.getClass().getMethod("status").invoke(e).toString();
    }

    @Test
    public void aSecondClassLoaderCannotOpenAStoreThisOneHasOpen() throws Exception {
        Path dir = tmp.newFolder().toPath().resolve("s");
        try (URLClassLoader loader = secondLoader(); Store store = Store.open(dir, StoreOptions.defaults())) {
            InvocationTargetException e = assertThrows(InvocationTargetException.class, () -> openThrough(loader, dir));
            assertEquals(e.getCause().toString(), "Locked", statusOf(e.getCause()));
            assertTrue(e.getCause().getMessage(), e.getCause().getMessage().contains("this very process, through another copy of the RockCask native library (another class loader"));
            commitOne(store, "q");
        }
        try (Store again = Store.open(dir, StoreOptions.defaults())) {
            assertEquals(1, again.queueSize("q"));
        }
    }

    @Test
    public void thisClassLoaderCannotOpenAStoreASecondLoaderHasOpen() throws Exception {
        Path dir = tmp.newFolder().toPath().resolve("s");
        try (URLClassLoader loader = secondLoader()) {
            AutoCloseable other = openThrough(loader, dir);
            try {
                assertLocked(dir, StoreOptions.defaults());
            } finally {
                other.close();
            }
            // Closed in the other loader: free for this one.
            Store.open(dir, StoreOptions.defaults()).close();
        }
    }

    @Test
    public void aStoreOpenInAnotherProcessIsRefusedNamingThatProcess() throws Exception {
        Path dir = tmp.newFolder().toPath().resolve("s");
        Process child = ChildJvm.builder(new ArrayList<>(), LockHolderChild.class, dir.toString()).redirectErrorStream(true).start();
        try (BufferedReader out = new BufferedReader(new InputStreamReader(child.getInputStream(), StandardCharsets.UTF_8))) {
            String line = out.readLine();
            assertEquals("child output", "OPEN", line);
            RockCaskException e = assertLocked(dir, StoreOptions.defaults());
            assertTrue(e.getMessage(), e.getMessage().contains("pid " + child.pid() + " "));
            assertLocked(dir.resolve("."), StoreOptions.defaults().createIfMissing(false));
        } finally {
            child.getOutputStream().close(); // the child closes its store when its stdin ends
            assertTrue(child.waitFor(60, TimeUnit.SECONDS));
        }
        assertEquals(0, child.exitValue());
        Store.open(dir, StoreOptions.defaults()).close();
    }
}
