package tokyocabinet;

import static org.junit.Assert.assertArrayEquals;
import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertNotNull;
import static org.junit.Assert.assertNull;
import static org.junit.Assert.assertTrue;
import static org.junit.Assert.fail;
import static org.junit.Assume.assumeTrue;

import java.io.File;
import java.io.InputStream;
import java.lang.reflect.Constructor;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Modifier;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.Rule;
import org.junit.Test;
import org.junit.rules.TemporaryFolder;
import org.rockcask.internal.NativeLibrary;

public class UtilTest {
    @Rule
    public final TemporaryFolder tmp = new TemporaryFolder();

    // ---- version ----

    @Test
    public void versionNamesRockCask() {
        assertTrue(Util.version(), Util.version().startsWith("RockCask "));
    }

    @Test
    public void versionReportsTheVersionFromTheRockCaskPropertiesResource() throws Exception {
        assertEquals("RockCask 9.8.7-test", versionSeenWith("version=9.8.7-test\n"));
    }

    @Test
    public void versionFallsBackWhenThePropertiesResourceIsMissing() throws Exception {
        assertEquals("RockCask (unknown version)", versionSeenWith(null));
    }

    @Test
    public void versionFallsBackWhenThePropertiesResourceHasNoVersion() throws Exception {
        assertEquals("RockCask (unknown version)", versionSeenWith("name=rockcask\n"));
    }

    /** Runs Util.version() from private copies of Util and the loader that see only the given resource. */
    private String versionSeenWith(String properties) throws Exception {
        Path root = tmp.newFolder().toPath();
        List<Class<?>> classes = new ArrayList<>(Arrays.asList(Util.class.getDeclaredClasses()));
        classes.add(Util.class);
        // Util reads the version through RockCask's loader, which reads the resource.
        classes.addAll(Arrays.asList(NativeLibrary.class.getDeclaredClasses()));
        classes.add(NativeLibrary.class);
        for (Class<?> c : classes) {
            String name = c.getName().replace('.', '/') + ".class";
            Path target = root.resolve(name);
            Files.createDirectories(target.getParent());
            try (InputStream in = Util.class.getResourceAsStream("/" + name)) {
                Files.copy(in, target);
            }
        }
        if (properties != null) {
            Path file = root.resolve("org/rockcask/rockcask-version.properties");
            Files.createDirectories(file.getParent());
            Files.write(file, properties.getBytes(StandardCharsets.ISO_8859_1));
        }
        // Parent null: only the JDK is visible, not the test class path with the real resource.
        try (URLClassLoader loader = new URLClassLoader(new URL[] {root.toUri().toURL()}, null)) {
            Class<?> isolated = loader.loadClass(Util.class.getName());
            assertTrue(isolated != Util.class);
            return (String) isolated.getMethod("version").invoke(null);
        }
    }

    // ---- atoi / atol ----

    @Test
    public void atoiSkipsLeadingBlanksAcceptsMinusAndStopsAtTheFirstNonDigit() {
        assertEquals(-12, Util.atoi(" -12ab"));
        assertEquals(42, Util.atoi("42"));
        assertEquals(7, Util.atoi("\t\n 7x9"));
        assertEquals(0, Util.atoi("abc"));
        assertEquals(0, Util.atoi(""));
        assertEquals(0, Util.atoi("+5"));
    }

    @Test
    public void atoiSkipsBlanksBetweenDigitsLikeTheOriginal() {
        assertEquals(12, Util.atoi("1 2"));
        assertEquals(-34, Util.atoi("3-4"));
    }

    @Test
    public void atoiWrapsAroundOnOverflowLikeIntArithmetic() {
        assertEquals(Integer.MIN_VALUE, Util.atoi("2147483648"));
        assertEquals(1, Util.atoi("4294967297"));
    }

    @Test
    public void atolReadsNumbersBeyondTheIntRange() {
        assertEquals(-9_000_000_000L, Util.atol(" -9000000000x"));
        assertEquals(Long.MAX_VALUE, Util.atol("9223372036854775807"));
    }

    @Test
    public void atoiAndAtolRejectNull() {
        assertIllegalArgument(() -> Util.atoi(null));
        assertIllegalArgument(() -> Util.atol(null));
    }

    // ---- itoa ----

    @Test
    public void itoaPadsOnTheLeftToTheRequestedColumns() {
        assertEquals("00000001", Util.itoa(1, 8, '0'));
        assertEquals("   42", Util.itoa(42, 5, ' '));
        assertEquals("42", Util.itoa(42, 0, '0'));
        assertEquals("42", Util.itoa(42, -3, '0'));
    }

    @Test
    public void itoaNeverCutsLongNumbers() {
        assertEquals("12345", Util.itoa(12345, 2, '0'));
    }

    @Test
    public void itoaPutsTheMinusSignFirstAndCountsItAsAColumn() {
        assertEquals("-005", Util.itoa(-5, 4, '0'));
        assertEquals("-5", Util.itoa(-5, 1, '0'));
    }

    @Test
    public void itoaWritesZeroAsADigit() {
        assertEquals("0", Util.itoa(0, 0, '0'));
        assertEquals("  0", Util.itoa(0, 3, ' '));
    }

    @Test
    public void itoaHandlesTheExtremesOfLong() {
        assertEquals(Long.toString(Long.MIN_VALUE), Util.itoa(Long.MIN_VALUE, 0, '0'));
        assertEquals(Long.toString(Long.MAX_VALUE), Util.itoa(Long.MAX_VALUE, 0, '0'));
    }

    // ---- otos ----

    @Test
    public void otosDecodesByteArraysAsUtf8() {
        assertEquals("h\u00e9llo \u20ac", Util.otos("h\u00e9llo \u20ac".getBytes(StandardCharsets.UTF_8)));
        assertEquals("\ufffd", Util.otos(new byte[] {(byte) 0xff}));
    }

    @Test
    public void otosUsesToStringForOtherObjects() {
        assertEquals("5", Util.otos(5));
        assertEquals("[a, b]", Util.otos(Arrays.asList("a", "b")));
    }

    @Test
    public void otosReturnsEmptyStringForNullAndForFailingToString() {
        assertEquals("", Util.otos(null));
        assertEquals("", Util.otos(new Object() {
            @Override
            public String toString() {
                throw new IllegalStateException("broken");
            }
        }));
    }

    // ---- time ----

    @Test
    public void timeReturnsSecondsSinceTheEpoch() {
        double before = System.currentTimeMillis() / 1000.0;
        double t = Util.time();
        double after = System.currentTimeMillis() / 1000.0;
        assertTrue(before + " <= " + t, before <= t);
        assertTrue(t + " <= " + after, t <= after);
    }

    // ---- serialize / deserialize ----

    @Test
    public void serializeAndDeserializeRoundTripAnObjectGraph() {
        Map<String, List<Integer>> original = new HashMap<>();
        original.put("a", new ArrayList<>(Arrays.asList(1, 2, 3)));
        original.put("b", new ArrayList<>());
        byte[] bytes = Util.serialize(original);
        assertNotNull(bytes);
        assertEquals(original, Util.deserialize(bytes));
    }

    @Test
    public void serializeOfNullRoundTripsToNull() {
        byte[] bytes = Util.serialize(null);
        assertNotNull(bytes);
        assertNull(Util.deserialize(bytes));
    }

    @Test
    public void serializeReturnsNullForAnObjectThatIsNotSerializable() {
        assertNull(Util.serialize(new Object()));
        assertNull(Util.serialize(Arrays.asList("ok", new Object())));
    }

    @Test
    public void deserializeReturnsNullForGarbage() {
        assertNull(Util.deserialize(new byte[0]));
        assertNull(Util.deserialize(new byte[] {1, 2, 3}));
        byte[] truncated = Util.serialize("a string long enough to cut");
        assertNull(Util.deserialize(Arrays.copyOf(truncated, truncated.length - 5)));
    }

    @Test
    public void deserializeRejectsNull() {
        assertIllegalArgument(() -> Util.deserialize(null));
    }

    // ---- packint / unpackint / packdouble / unpackdouble ----

    @Test
    public void packintWritesFourBytesInNativeByteOrder() {
        byte[] bigEndian = {0x01, 0x02, 0x03, 0x04};
        assertArrayEquals(nativeOrder(bigEndian), Util.packint(0x01020304));
    }

    @Test
    public void unpackintReversesPackint() {
        for (int n : new int[] {0, 1, -1, 0x01020304, Integer.MIN_VALUE, Integer.MAX_VALUE}) {
            assertEquals(n, Util.unpackint(Util.packint(n)));
        }
        assertEquals(0x01020304, Util.unpackint(nativeOrder(new byte[] {0x01, 0x02, 0x03, 0x04})));
    }

    @Test
    public void unpackintReturnsZeroForAnArrayThatIsNotFourBytes() {
        assertEquals(0, Util.unpackint(new byte[0]));
        assertEquals(0, Util.unpackint(new byte[] {1, 1, 1}));
        assertEquals(0, Util.unpackint(new byte[] {1, 1, 1, 1, 1}));
    }

    @Test
    public void packdoubleWritesEightBytesInNativeByteOrder() {
        long bits = Double.doubleToRawLongBits(1.5);
        byte[] bigEndian = new byte[8];
        for (int i = 0; i < 8; i++) {
            bigEndian[i] = (byte) (bits >>> (56 - 8 * i));
        }
        assertArrayEquals(nativeOrder(bigEndian), Util.packdouble(1.5));
    }

    @Test
    public void unpackdoubleReversesPackdouble() {
        for (double d : new double[] {0.0, -0.0, 1.5, -1e300, Double.MIN_VALUE, Double.POSITIVE_INFINITY,
                Double.NaN}) {
            assertEquals(Double.doubleToRawLongBits(d), Double.doubleToRawLongBits(Util.unpackdouble(Util.packdouble(d))));
        }
    }

    @Test
    public void unpackdoubleReturnsZeroForAnArrayThatIsNotEightBytes() {
        assertEquals(0.0, Util.unpackdouble(new byte[4]), 0.0);
        assertEquals(0.0, Util.unpackdouble(new byte[] {1, 1, 1, 1, 1, 1, 1, 1, 1}), 0.0);
    }

    @Test
    public void unpackRejectsNull() {
        assertIllegalArgument(() -> Util.unpackint(null));
        assertIllegalArgument(() -> Util.unpackdouble(null));
    }

    private static byte[] nativeOrder(byte[] bigEndian) {
        byte[] b = bigEndian.clone();
        if (ByteOrder.nativeOrder() == ByteOrder.LITTLE_ENDIAN) {
            for (int i = 0, j = b.length - 1; i < j; i++, j--) {
                byte x = b[i];
                b[i] = b[j];
                b[j] = x;
            }
        }
        return b;
    }

    // ---- process functions ----

    @Test
    public void systemReturnsTheExitCodeOfTheShell() {
        assumeTrue(new File("/bin/sh").canExecute());
        assertEquals(0, Util.system("true"));
        assertEquals(3, Util.system("exit 3"));
    }

    @Test
    public void systemRunsTheCommandLineThroughTheShell() throws Exception {
        assumeTrue(new File("/bin/sh").canExecute());
        File out = new File(tmp.getRoot(), "out.txt");
        assertEquals(0, Util.system("x=expanded; echo \"$x\" > '" + out.getPath() + "'"));
        assertEquals("expanded\n", new String(Files.readAllBytes(out.toPath()), StandardCharsets.UTF_8));
    }

    @Test
    public void systemRejectsNull() {
        assertIllegalArgument(() -> Util.system(null));
    }

    @Test
    public void chdirFailsAndLeavesTheWorkingDirectoryUnchanged() {
        String before = Util.getcwd();
        assertEquals(-1, Util.chdir(tmp.getRoot().getPath()));
        assertEquals(before, Util.getcwd());
        assertIllegalArgument(() -> Util.chdir(null));
    }

    @Test
    public void getcwdReturnsTheUserDirProperty() {
        assertEquals(System.getProperty("user.dir"), Util.getcwd());
    }

    @Test
    public void getpidReturnsTheIdOfThisProcess() {
        assertEquals(ProcessHandle.current().pid(), Util.getpid());
    }

    @Test
    public void putenvFailsAndLeavesTheEnvironmentUnchanged() {
        String name = "ROCKCASK_UTIL_TEST_UNSET_VARIABLE";
        assumeTrue(System.getenv(name) == null);
        assertEquals(-1, Util.putenv(name, "x"));
        assertNull(Util.getenv(name));
        assertIllegalArgument(() -> Util.putenv(null, "x"));
        assertIllegalArgument(() -> Util.putenv(name, null));
    }

    @Test
    public void getenvReadsTheEnvironmentOfThisProcess() {
        for (Map.Entry<String, String> e : System.getenv().entrySet()) {
            assertEquals(e.getValue(), Util.getenv(e.getKey()));
        }
        assertNull(Util.getenv("ROCKCASK_UTIL_TEST_UNSET_VARIABLE"));
        assertIllegalArgument(() -> Util.getenv(null));
    }

    // ---- class shape ----

    @Test
    public void utilCannotBeInstantiated() throws Exception {
        assertEquals(0, Util.class.getConstructors().length);
        Constructor<Util> c = Util.class.getDeclaredConstructor();
        assertTrue(Modifier.isPrivate(c.getModifiers()));
        c.setAccessible(true);
        try {
            c.newInstance();
            fail("the private constructor returned");
        } catch (InvocationTargetException e) {
            assertTrue(String.valueOf(e.getCause()), e.getCause() instanceof UnsupportedOperationException);
        }
    }

    private static void assertIllegalArgument(Runnable call) {
        try {
            call.run();
            fail("no IllegalArgumentException");
        } catch (IllegalArgumentException e) {
            assertEquals("illegal argument", e.getMessage());
        }
    }
}
