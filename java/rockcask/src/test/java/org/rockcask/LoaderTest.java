package org.rockcask;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertNotEquals;
import static org.junit.Assert.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.File;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.Rule;
import org.junit.Test;
import org.junit.rules.TemporaryFolder;
import org.rockcask.internal.NativeLibrary;
import org.rockcask.testsupport.ChildJvm;

/** The self-loading jar: platform detection, override property, version check — each in a fresh JVM. */
public class LoaderTest {
    @Rule
    public TemporaryFolder tmp = new TemporaryFolder();

    /** Opens a store and prints "OK", or prints the loading error. */
    public static final class Probe {
        public static void main(String[] args) {
            try {
                Store.open(java.nio.file.Paths.get(args[0]), StoreOptions.defaults()).close();
                System.out.println("OK");
            } catch (Throwable t) {
                Throwable root = t;
                while (root.getCause() != null) {
                    root = root.getCause();
                }
                System.out.println("FAILED " + root);
            }
        }
    }

    private String runProbe(List<String> jvmArgs, String classpathPrefix) throws Exception {
        ProcessBuilder pb = ChildJvm.builder(jvmArgs, Probe.class, tmp.newFolder().toPath().resolve("s").toString());
        if (classpathPrefix != null) {
            List<String> cmd = new ArrayList<>(pb.command());
            int cp = cmd.indexOf("-cp") + 1;
            cmd.set(cp, classpathPrefix + File.pathSeparator + cmd.get(cp));
            pb.command(cmd);
        }
        Process p = pb.redirectErrorStream(true).start();
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        try (InputStream in = p.getInputStream()) {
            in.transferTo(out);
        }
        assertTrue(p.waitFor(60, TimeUnit.SECONDS));
        return out.toString(StandardCharsets.UTF_8.name()).trim();
    }

    @Test
    public void thePackedLibraryLoadsOnThisPlatform() throws Exception {
        assertEquals("OK", runProbe(Arrays.asList("-Xcheck:jni"), null));
        assertTrue(NativeLibrary.platform(), NativeLibrary.packedPlatforms().contains(NativeLibrary.platform()));
    }

    @Test
    public void theBuildPacksTheLibraryWhereTheLoaderLooks() {
        List<String> loaderLooksAt = new ArrayList<>();
        for (String platform : NativeLibrary.packedPlatforms()) {
            loaderLooksAt.add(NativeLibrary.packedResource(platform));
        }
        assertEquals(Arrays.asList(System.getProperty("rockcask.test.packedPlatforms").split(",")), NativeLibrary.packedPlatforms());
        assertEquals(System.getProperty("rockcask.test.packedLibrary"), loaderLooksAt.get(NativeLibrary.packedPlatforms().indexOf("linux-x86_64")));
        for (String resource : loaderLooksAt) {
            assertTrue(resource, LoaderTest.class.getResource(resource) != null);
        }
    }

    @Test
    public void anUnsupportedPlatformGetsOneClearError() throws Exception {
        String out = runProbe(Arrays.asList("-Dos.arch=sparc64"), null);
        String platform = NativeLibrary.platform();
        String sparc = platform.substring(0, platform.lastIndexOf('-')) + "-sparc64";
        assertTrue(out, out.contains("UnsatisfiedLinkError") && out.contains("no native library for platform " + sparc)
                && out.contains("this jar carries " + String.join(", ", NativeLibrary.packedPlatforms())) && out.contains("-D" + NativeLibrary.PATH_PROPERTY));
    }

    @Test
    public void anotherOsGetsOneClearErrorNamingWhatItSaw() throws Exception {
        String out = runProbe(Arrays.asList("-Dos.name=FreeBSD", "-Dos.arch=amd64"), null);
        assertTrue(out, out.contains("UnsatisfiedLinkError") && out.contains("no native library for platform freebsd-x86_64 (os.name=FreeBSD, os.arch=amd64)")
                && out.contains("this jar carries " + String.join(", ", NativeLibrary.packedPlatforms())) && out.contains("-D" + NativeLibrary.PATH_PROPERTY));
    }

    @Test
    public void theOverridePropertyMustNameAFile() throws Exception {
        String out = runProbe(Arrays.asList("-D" + NativeLibrary.PATH_PROPERTY + "=/nonexistent/librockcask.so"), null);
        assertTrue(out, out.contains("UnsatisfiedLinkError") && out.contains("/nonexistent/librockcask.so"));
    }

    @Test
    public void theOverridePropertyLoadsTheNamedLibrary() throws Exception {
        Path lib = tmp.newFolder().toPath().resolve("librockcask-copy.so");
        try (InputStream in = LoaderTest.class.getResourceAsStream(NativeLibrary.packedResource(NativeLibrary.platform()))) {
            Files.copy(in, lib);
        }
        assertEquals("OK", runProbe(Arrays.asList("-D" + NativeLibrary.PATH_PROPERTY + "=" + lib), null));
    }

    @Test
    public void aJavaNativeVersionMismatchIsRefusedNamingBoth() throws Exception {
        Path shadow = tmp.newFolder().toPath();
        Path props = shadow.resolve("org/rockcask/rockcask-version.properties");
        Files.createDirectories(props.getParent());
        Files.write(props, "version=0.0.0-other\n".getBytes(StandardCharsets.UTF_8));
        String out = runProbe(new ArrayList<>(), shadow.toString());
        String nativeVersion = NativeLibrary.javaVersion();
        assertNotEquals("0.0.0-other", nativeVersion);
        assertTrue(out, out.contains("UnsatisfiedLinkError") && out.contains("version " + nativeVersion) && out.contains("0.0.0-other"));
    }

    /** What the build recorded about the packed library (platforms, file, CPU features). */
    private static java.util.Properties packedLibraryProperties() throws Exception {
        java.util.Properties packed = new java.util.Properties();
        try (InputStream in = NativeLibrary.class.getResourceAsStream("/org/rockcask/native-library.properties")) {
            packed.load(in);
        }
        return packed;
    }

    @Test
    public void aCpuLackingAFeatureTheLibraryIsBuiltForIsRefusedNamingItBeforeTheLibraryLoads() throws Exception {
        Path shadow = tmp.newFolder().toPath();
        Path props = shadow.resolve("org/rockcask/native-library.properties");
        Files.createDirectories(props.getParent());
        java.util.Properties packed = packedLibraryProperties();
        String key = "cpu_features." + NativeLibrary.platform();
        packed.setProperty(key, packed.getProperty(key) + ",no-such-feature");
        try (java.io.OutputStream out = Files.newOutputStream(props)) {
            packed.store(out, null);
        }
        String out = runProbe(new ArrayList<>(), shadow.toString());
        assertTrue(out, out.contains("UnsatisfiedLinkError") && out.contains("this CPU lacks no-such-feature (by " + (NativeLibrary.platform().endsWith("-x86_64") ? java.nio.file.Paths.get("/proc/cpuinfo") + ")" : "/proc/"))
                && out.contains(NativeLibrary.PATH_PROPERTY));
    }

    @Test
    public void theJarRecordsTheCpuFeaturesTheLibraryIsBuiltForAndThisCpuHasThem() throws Exception {
        java.util.Properties packed = packedLibraryProperties();
        String required = packed.getProperty("cpu_features.linux-x86_64");
        assertEquals(System.getProperty("rockcask.test.cpuFeatures"), required);
        assertTrue(required, required.contains("sse4.2"));
        String cpuinfo = new String(Files.readAllBytes(java.nio.file.Paths.get("/proc/cpuinfo")), StandardCharsets.UTF_8);
        if (NativeLibrary.platform().equals("linux-x86_64")) {
            assertEquals(new ArrayList<String>(), org.rockcask.internal.CpuFeatures.missing("x86_64", required, cpuinfo));
        }
        if (NativeLibrary.packedPlatforms().contains("linux-aarch64")) {
            // Hardware CRC32C in RocksDB on arm64 needs crc and PMULL (rustc's aes).
            String aarch64 = packed.getProperty("cpu_features.linux-aarch64");
            assertTrue(aarch64, Arrays.asList(aarch64.split(",")).containsAll(Arrays.asList("crc", "aes")));
        }
    }

    @Test
    public void cpuFeaturesAreLookedUpInTheFlagsLineUnderTheKernelsSpelling() {
        String cpuinfo = "processor\t: 0\nmodel name\t: Some CPU with flags in its name\nflags\t\t: fpu sse4_1 sse4_2 popcnt\nbugs\t\t: pclmulqdq\n";
        assertEquals(Arrays.asList("pclmulqdq"), org.rockcask.internal.CpuFeatures.missing("x86_64", "sse4.2,pclmulqdq", cpuinfo));
        assertEquals(new ArrayList<String>(), org.rockcask.internal.CpuFeatures.missing("x86_64", "sse4.1, sse4.2", cpuinfo));
        assertEquals(new ArrayList<String>(), org.rockcask.internal.CpuFeatures.missing("x86_64", "", cpuinfo));
        assertEquals(Arrays.asList("sse4.2"), org.rockcask.internal.CpuFeatures.missing("x86_64", "sse4.2", "processor\t: 0\n"));
    }

    @Test
    public void extractionLeavesNoLibraryFileInTheTempDirectoryButTheRunningJvmsCopyOnWindows() throws Exception {
        Path tmpDir = tmp.newFolder("java-tmp").toPath();
        for (int run = 1; run <= 3; run++) {
            String out = runProbe(Arrays.asList("-Djava.io.tmpdir=" + tmpDir), null);
            assertTrue(out, out.startsWith("OK"));
            List<String> left = new ArrayList<>();
            try (java.util.stream.Stream<Path> files = Files.walk(tmpDir)) {
                files.filter(Files::isRegularFile).forEach(f -> left.add(tmpDir.relativize(f).toString().replace('\\', '/')));
            }
            if (NativeLibrary.platform().startsWith("windows-")) {
                // A loaded library's file cannot be removed there: each run leaves its own copy,
                // and removes those of the runs before it (their JVMs have ended).
                assertEquals("after run " + run + ": " + left, 1, left.size());
                assertTrue(left.get(0), left.get(0).matches("rockcask-" + java.util.regex.Pattern.quote(NativeLibrary.javaVersion()) + "/rockcask-[0-9]+-[0-9]+\\.dll"));
            } else {
                assertEquals("after run " + run + ": " + left, new ArrayList<String>(), left);
            }
        }
    }
}
