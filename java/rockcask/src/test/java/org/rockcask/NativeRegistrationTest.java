package org.rockcask;

import static org.junit.Assert.assertThrows;
import static org.junit.Assert.assertTrue;

import static org.rockcask.StaleClasses.childFirst;
import static org.rockcask.StaleClasses.copyClassFile;

import java.io.IOException;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.nio.file.Path;
import java.util.Arrays;
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
        // A jar of before StoreOptions crossed as a long[] record, beside today's library.
        UnsatisfiedLinkError e = assertThrows(UnsatisfiedLinkError.class, () -> load("org.rockcask.StoreNative",
                "package org.rockcask; final class StoreNative {"
                        + " static { org.rockcask.internal.NativeLibrary.register(StoreNative.class); }"
                        + " static native long open(byte[] path, byte[] options); }"));
        assertTrue(e.getMessage(), e.getMessage().contains("org.rockcask.StoreNative"));
        assertTrue(e.getMessage(), e.getMessage().contains("open([B[J[B)J"));
    }

    @Test
    public void aNativeTheLibraryLacksFailsAtRegistrationNamingIt() throws Exception {
        // Every native of the real class, and one more.
        StringBuilder natives = new StringBuilder();
        for (Method m : TransactionNative.class.getDeclaredMethods()) {
            if (Modifier.isNative(m.getModifiers())) {
                natives.append(" static native ").append(m.getReturnType().getCanonicalName()).append(' ').append(m.getName()).append('(');
                Class<?>[] types = m.getParameterTypes();
                for (int i = 0; i < types.length; i++) {
                    natives.append(i == 0 ? "" : ", ").append(types[i].getCanonicalName()).append(" p").append(i);
                }
                natives.append(");");
            }
        }
        UnsatisfiedLinkError e = assertThrows(UnsatisfiedLinkError.class, () -> load("org.rockcask.TransactionNative",
                "package org.rockcask; final class TransactionNative {"
                        + " static { org.rockcask.internal.NativeLibrary.register(TransactionNative.class); }" + natives
                        + " static native void commitTwice(long tx); }"));
        assertTrue(e.getMessage(), e.getMessage().contains("does not have: commitTwice"));
    }

    @Test
    public void aClassWithoutATableIsRefused() throws Exception {
        UnsatisfiedLinkError e = assertThrows(UnsatisfiedLinkError.class, () -> load("org.rockcask.UnknownNative",
                "package org.rockcask; final class UnknownNative {"
                        + " static { org.rockcask.internal.NativeLibrary.register(UnknownNative.class); }"
                        + " static native void go(); }"));
        assertTrue(e.getMessage(), e.getMessage().contains("no native methods are declared for class org.rockcask.UnknownNative"));
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

    @Test
    public void aMapLimitThatDiffersFromTheLibrarysFailsAtRegistrationNamingBothValues() throws Exception {
        // The real MapNative, beside a TxMap whose key limit is not the library's.
        Path classes = compile("org.rockcask.TxMap", "package org.rockcask; public final class TxMap {"
                + " public static final int MAX_KEY_BYTES = 32 << 10; }");
        copyClassFile(MapNative.class, classes);
        UnsatisfiedLinkError e = assertThrows(UnsatisfiedLinkError.class,
                () -> Class.forName(MapNative.class.getName(), true, childFirst(classes, "org.rockcask.TxMap", MapNative.class.getName())));
        assertTrue(e.getMessage(), e.getMessage().contains("org/rockcask/TxMap.MAX_KEY_BYTES is 32768 in Java but 65536 in the native library"));
    }

    /** The real classes register: each native class of this jar initializes. */
    @Test
    public void everyNativeClassOfTheJarRegisters() throws Exception {
        for (Class<?> c : Arrays.asList(StoreNative.class, TransactionNative.class, SnapshotNative.class, MapNative.class, MetricsNative.class,
                Class.forName("org.rockcask.codec.CodecNative", false, NativeRegistrationTest.class.getClassLoader()))) {
            Class.forName(c.getName(), true, c.getClassLoader());
        }
    }

    /** Natives take handles on trust: only RockCask's own classes may reach them. */
    @Test
    public void noNativeClassOrMethodIsPublic() throws Exception {
        for (Class<?> c : Arrays.asList(StoreNative.class, TransactionNative.class, SnapshotNative.class, MapNative.class, MetricsNative.class,
                Class.forName("org.rockcask.codec.CodecNative", false, NativeRegistrationTest.class.getClassLoader()))) {
            assertTrue(c.getName(), !Modifier.isPublic(c.getModifiers()));
            for (Method m : c.getDeclaredMethods()) {
                assertTrue(c.getName() + "." + m.getName(), !Modifier.isPublic(m.getModifiers()) && !Modifier.isProtected(m.getModifiers()));
            }
        }
    }

    private void load(String name, String source) throws Exception {
        Path classes = compile(name, source);
        Class.forName(name, true, childFirst(classes, name));
    }

    private Path compile(String name, String source) throws IOException {
        return StaleClasses.compile(tmp, name, source);
    }
}
