package org.rockcask;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertNotNull;
import static org.junit.Assert.assertTrue;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.junit.Rule;
import org.junit.Test;
import org.junit.rules.TemporaryFolder;

/**
 * The library the jar ships can sit in one JVM beside another RocksDB JNI library (RocksJava,
 * Flink's frocksdbjni): it exports nothing but its JNI entry points, so no RocksDB or Rust symbol
 * can bind to the other library's, and it takes the C++ runtime from the system, as they do.
 */
public class LibraryExportsTest {
    @Rule
    public TemporaryFolder tmp = new TemporaryFolder();

    private Path shippedLibrary() throws IOException {
        String resource = System.getProperty("rockcask.test.packedLibrary");
        assertNotNull("the build names the packed library", resource);
        Path copy = tmp.getRoot().toPath().resolve("librockcask.so");
        try (InputStream in = LibraryExportsTest.class.getResourceAsStream(resource)) {
            assertNotNull("the jar carries " + resource, in);
            Files.copy(in, copy, StandardCopyOption.REPLACE_EXISTING);
        }
        return copy;
    }

    private static List<String> run(String... command) throws Exception {
        Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
        List<String> lines = new ArrayList<>();
        try (BufferedReader r = new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8))) {
            for (String line; (line = r.readLine()) != null; ) {
                lines.add(line);
            }
        }
        assertEquals(String.join(" ", command) + ": " + lines, 0, p.waitFor());
        return lines;
    }

    @Test
    public void theShippedLibraryExportsOnlyJavaEntryPoints() throws Exception {
        List<String> defined = run("nm", "-D", "--defined-only", shippedLibrary().toString());
        List<String> symbols = new ArrayList<>();
        for (String line : defined) {
            String[] fields = line.trim().split("\\s+");
            symbols.add(fields[fields.length - 1]);
        }
        assertFalse("nm listed the library's symbols", symbols.isEmpty());
        for (String symbol : symbols) {
            assertTrue("exported symbol " + symbol + " is not a JNI entry point; all: " + symbols, symbol.startsWith("Java_"));
        }
    }

    @Test
    public void theShippedLibraryLinksTheCppRuntimeDynamically() throws Exception {
        List<String> dynamic = run("readelf", "-d", shippedLibrary().toString());
        boolean needsLibstdcxx = false;
        for (String line : dynamic) {
            needsLibstdcxx |= line.contains("(NEEDED)") && line.contains("libstdc++.so");
        }
        assertTrue("libstdc++ is a NEEDED library, not linked in: " + Arrays.toString(dynamic.toArray()), needsLibstdcxx);
    }

    /** The ELF machine (readelf -h) each Linux platform's library must be built for. */
    private static final java.util.Map<String, String> ELF_MACHINE = new java.util.HashMap<>();
    static {
        ELF_MACHINE.put("linux-x86_64", "Advanced Micro Devices X86-64");
        ELF_MACHINE.put("linux-aarch64", "AArch64");
    }

    /**
     * The shared libraries a Linux library may need: the C library, its dynamic linker, and the
     * C++ and GCC runtimes every glibc distribution's C++ programs share (as RocksJava's do).
     */
    private static final List<String> LINUX_NEEDED = Arrays.asList("libc.so.6", "libm.so.6", "libdl.so.2", "libpthread.so.0", "librt.so.1",
            "libgcc_s.so.1", "libstdc++.so.6", "ld-linux-x86-64.so.2", "ld-linux-aarch64.so.1");

    private Path packedLibrary(String platform) throws IOException {
        String resource = org.rockcask.internal.NativeLibrary.packedResource(platform);
        Path copy = tmp.newFolder(platform).toPath().resolve(resource.substring(resource.lastIndexOf('/') + 1));
        try (InputStream in = LibraryExportsTest.class.getResourceAsStream(resource)) {
            assertNotNull("the jar carries " + resource, in);
            Files.copy(in, copy, StandardCopyOption.REPLACE_EXISTING);
        }
        return copy;
    }

    /** Every library the jar packs, read from its headers: the machine, what it exports, what it needs. */
    @Test
    public void everyPackedLibraryIsBuiltForItsPlatformExportsOnlyJniEntryPointsAndNeedsOnlyTheSystemsLibraries() throws Exception {
        List<String> platforms = org.rockcask.internal.NativeLibrary.packedPlatforms();
        assertEquals(Arrays.asList(System.getProperty("rockcask.test.packedPlatforms").split(",")), platforms);
        for (String platform : platforms) {
            assertTrue("a header check for " + platform, ELF_MACHINE.containsKey(platform));
            Path library = packedLibrary(platform);
            String machine = null;
            String type = null;
            for (String line : run("readelf", "-h", library.toString())) {
                String[] field = line.trim().split(":\\s*", 2);
                if (field.length == 2 && field[0].equals("Machine")) {
                    machine = field[1].trim();
                } else if (field.length == 2 && field[0].equals("Type")) {
                    type = field[1].trim();
                }
            }
            assertEquals(platform + " machine", ELF_MACHINE.get(platform), machine);
            assertTrue(platform + " type " + type, type != null && type.startsWith("DYN"));
            // The dynamic symbol table's defined, global symbols: what another library could bind to.
            List<String> exported = new ArrayList<>();
            for (String line : run("readelf", "--dyn-syms", "-W", library.toString())) {
                String[] f = line.trim().split("\\s+");
                // Num: Value Size Type Bind Vis Ndx Name
                if (f.length >= 8 && f[0].endsWith(":") && !f[6].equals("UND") && (f[4].equals("GLOBAL") || f[4].equals("WEAK"))) {
                    exported.add(f[7]);
                }
            }
            assertFalse(platform + ": readelf listed the exported symbols", exported.isEmpty());
            for (String symbol : exported) {
                assertTrue(platform + ": exported symbol " + symbol + " is not a JNI entry point; all: " + exported,
                        symbol.startsWith("Java_") || symbol.equals("JNI_OnLoad"));
            }
            List<String> needed = new ArrayList<>();
            for (String line : run("readelf", "-d", library.toString())) {
                if (line.contains("(NEEDED)")) {
                    needed.add(line.substring(line.indexOf('[') + 1, line.indexOf(']')));
                }
            }
            assertTrue(platform + " needs libc: " + needed, needed.contains("libc.so.6"));
            for (String lib : needed) {
                assertTrue(platform + " needs " + lib + ", not a system library; all: " + needed, LINUX_NEEDED.contains(lib));
            }
        }
    }
}
