package org.rockcask;

import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import org.junit.Assume;
import org.junit.rules.ExternalResource;

/**
 * A test's small file system, to fill up: an 8 MiB tmpfs mounted on a new temporary directory
 * by {@link #mount()}, unmounted and removed after the test. Mounting needs root; where it cannot be
 * mounted the test is skipped. Used by the drop-in's tests too.
 */
public final class SmallFileSystem extends ExternalResource {
    private File dir;
    private boolean mounted;

    /** The mounted directory, or the test is skipped. */
    public File mount() throws Exception {
        dir = Files.createTempDirectory("small-fs").toFile();
        mounted = run("mount", "-t", "tmpfs", "-o", "size=8m", "tmpfs", dir.getPath());
        Assume.assumeTrue("mounting a tmpfs needs root", mounted);
        return dir;
    }

    @Override
    protected void after() {
        try {
            if (mounted && !run("umount", dir.getPath())) {
                run("umount", "-l", dir.getPath()); // still busy: detach it now, free it when unused
            }
        } catch (Exception e) {
            throw new AssertionError("unmounting " + dir, e);
        }
        if (dir != null && !dir.delete()) {
            dir.deleteOnExit();
        }
    }

    private static boolean run(String... command) throws Exception {
        Process p;
        try {
            p = new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(ProcessBuilder.Redirect.DISCARD).start();
        } catch (IOException noSuchCommand) {
            return false;
        }
        return p.waitFor() == 0;
    }
}
