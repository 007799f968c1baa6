package org.rockcask.internal;

import static org.junit.Assert.assertThrows;
import static org.junit.Assert.assertTrue;

import java.io.IOException;
import java.io.InputStream;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
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
import org.junit.Rule;
import org.junit.Test;
import org.junit.rules.TemporaryFolder;

/**
 * A jar whose native declarations or constants disagree with the library fails when the class
 * registers, naming what differs, never at a call. Each case compiles a stale copy of a class
 * and loads it in a class loader of its own, beside the real one.
 */
public class NativeRegistrationTest {
    @Rule
    public TemporaryFolder tmp = new TemporaryFolder();

    @Test
    public void aNativeDeclaredWithOtherParameterTypesFailsAtRegistrationNamingIt() throws Exception {
        UnsatisfiedLinkError e = assertThrows(UnsatisfiedLinkError.class, () -> load("org.rockcask.internal.StoreNative",
                "package org.rockcask.internal; public final class StoreNative {"
                        + " static { NativeLibrary.register(StoreNative.class); }"
                        + " public static native long open(byte[] path, long[] options); }"));
        assertTrue(e.getMessage(), e.getMessage().contains("org.rockcask.internal.StoreNative"));
        assertTrue(e.getMessage(), e.getMessage().contains("open([B[B)J"));
    }

    @Test
    public void aNativeTheLibraryLacksFailsAtRegistrationNamingIt() throws Exception {
        // Every native of the real class, and one more.
        StringBuilder natives = new StringBuilder();
        for (Method m : TransactionNative.class.getDeclaredMethods()) {
            if (Modifier.isNative(m.getModifiers())) {
                natives.append(" public static native ").append(m.getReturnType().getCanonicalName()).append(' ').append(m.getName()).append('(');
                Class<?>[] types = m.getParameterTypes();
                for (int i = 0; i < types.length; i++) {
                    natives.append(i == 0 ? "" : ", ").append(types[i].getCanonicalName()).append(" p").append(i);
                }
                natives.append(");");
            }
        }
        UnsatisfiedLinkError e = assertThrows(UnsatisfiedLinkError.class, () -> load("org.rockcask.internal.TransactionNative",
                "package org.rockcask.internal; public final class TransactionNative {"
                        + " static { NativeLibrary.register(TransactionNative.class); }" + natives
                        + " public static native void commitTwice(long tx); }"));
        assertTrue(e.getMessage(), e.getMessage().contains("does not have: commitTwice"));
    }

    @Test
    public void aClassWithoutATableIsRefused() throws Exception {
        UnsatisfiedLinkError e = assertThrows(UnsatisfiedLinkError.class, () -> load("org.rockcask.internal.UnknownNative",
                "package org.rockcask.internal; public final class UnknownNative {"
                        + " static { NativeLibrary.register(UnknownNative.class); }"
                        + " public static native void go(); }"));
        assertTrue(e.getMessage(), e.getMessage().contains("no native methods are declared for class org.rockcask.internal.UnknownNative"));
    }

    @Test
    public void aConstantThatDiffersFromTheLibrarysFailsAtRegistrationNamingBothValues() throws Exception {
        // The real StoreNative, beside a Wire whose payload limit is not the library's.
        Path classes = compile("org.rockcask.Wire", "package org.rockcask; final class Wire {"
                + " static final int MAX_QUEUE_NAME_BYTES = 1024; static final int MAX_PAYLOAD_BYTES = 1 << 29; }");
        copyClassFile(StoreNative.class, classes);
        UnsatisfiedLinkError e = assertThrows(UnsatisfiedLinkError.class,
                () -> Class.forName(StoreNative.class.getName(), true, childFirst(classes, "org.rockcask.Wire", StoreNative.class.getName())));
        assertTrue(e.getMessage(), e.getMessage().contains("org/rockcask/Wire.MAX_PAYLOAD_BYTES is 536870912 in Java but 1073741824 in the native library"));
    }

    /** The real classes register: each native class of this jar initializes. */
    @Test
    public void everyNativeClassOfTheJarRegisters() throws Exception {
        for (Class<?> c : Arrays.asList(StoreNative.class, TransactionNative.class, SnapshotNative.class)) {
            Class.forName(c.getName(), true, c.getClassLoader());
        }
    }

    private void load(String name, String source) throws Exception {
        Path classes = compile(name, source);
        Class.forName(name, true, childFirst(classes, name));
    }

    private Path compile(String name, String source) throws IOException {
        Path src = tmp.newFolder().toPath();
        Path out = tmp.newFolder().toPath();
        Path file = src.resolve(name.substring(name.lastIndexOf('.') + 1) + ".java");
        Files.write(file, source.getBytes(StandardCharsets.UTF_8));
        JavaCompiler javac = ToolProvider.getSystemJavaCompiler();
        int rc = javac.run(null, null, null, "-cp", System.getProperty("java.class.path"), "-d", out.toString(), file.toString());
        assertTrue("javac failed on " + source, rc == 0);
        return out;
    }

    private static void copyClassFile(Class<?> c, Path classes) throws IOException {
        String resource = c.getName().replace('.', '/') + ".class";
        Path target = classes.resolve(resource);
        Files.createDirectories(target.getParent());
        try (InputStream in = c.getClassLoader().getResourceAsStream(resource)) {
            Files.copy(in, target);
        }
    }

    /** Defines {@code names} from {@code classes} itself; everything else comes from this test's loader. */
    private static ClassLoader childFirst(Path classes, String... names) throws IOException {
        Set<String> own = new HashSet<>(Arrays.asList(names));
        return new URLClassLoader(new URL[] {classes.toUri().toURL()}, NativeRegistrationTest.class.getClassLoader()) {
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
