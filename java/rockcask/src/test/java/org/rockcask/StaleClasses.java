package org.rockcask;

import static org.junit.Assert.assertTrue;

import java.io.IOException;
import java.io.InputStream;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.HashSet;
import java.util.Set;
import javax.tools.JavaCompiler;
import javax.tools.ToolProvider;
import org.junit.rules.TemporaryFolder;

/**
 * Stale copies of classes, compiled at test time and loaded in a class loader of their own
 * beside the real ones: how a jar that disagrees with the native library is shown to fail when
 * its native class registers (here and in the drop-in's tests).
 */
public final class StaleClasses {
    private StaleClasses() {}

    /** Compiles {@code source}, the class {@code name}, against this test's class path; returns where the class file went. */
    public static Path compile(TemporaryFolder tmp, String name, String source) throws IOException {
        Path src = tmp.newFolder().toPath();
        Path out = tmp.newFolder().toPath();
        Path file = src.resolve(name.substring(name.lastIndexOf('.') + 1) + ".java");
        Files.write(file, source.getBytes(StandardCharsets.UTF_8));
        JavaCompiler javac = ToolProvider.getSystemJavaCompiler();
        int rc = javac.run(null, null, null, "-cp", System.getProperty("java.class.path"), "-d", out.toString(), file.toString());
        assertTrue("javac failed on " + source, rc == 0);
        return out;
    }

    /** Copies the class file of the real {@code c} into {@code classes}. */
    public static void copyClassFile(Class<?> c, Path classes) throws IOException {
        String resource = c.getName().replace('.', '/') + ".class";
        Path target = classes.resolve(resource);
        Files.createDirectories(target.getParent());
        try (InputStream in = c.getClassLoader().getResourceAsStream(resource)) {
            Files.copy(in, target);
        }
    }

    /** Defines {@code names} from {@code classes} itself; everything else comes from this class's loader. */
    public static ClassLoader childFirst(Path classes, String... names) throws IOException {
        Set<String> own = new HashSet<>(Arrays.asList(names));
        return new URLClassLoader(new URL[] {classes.toUri().toURL()}, StaleClasses.class.getClassLoader()) {
            @Override
            protected Class<?> loadClass(String name, boolean resolve) throws ClassNotFoundException {
                synchronized (getClassLoadingLock(name)) {
                    if (own.contains(name)) {
                        Class<?> c = findLoadedClass(name);
                        return c != null ? c : findClass(name);
                    }
                    return super.loadClass(name, resolve);
                }
            }
        };
    }
}
