package org.rockcask;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertNotNull;
import static org.junit.Assert.assertTrue;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.Rule;
import org.junit.Test;
import org.junit.rules.TemporaryFolder;

/**
 * The library the jar ships can sit in one JVM beside another RocksDB JNI library (RocksJava,
 * Flink's frocksdbjni): it exports nothing but its JNI entry points, so no RocksDB or Rust symbol
 * can bind to the other library's, and needs nothing but the system's libraries. Read from the
 * libraries' own headers ({@link NativeLibraryHeaders}: ELF and Mach-O), on every platform's JVM.
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

    /**
     * Whether another image could bind to {@code symbol} without harm: the JNI entry points, and on
     * Mach-O the two symbols Zig's linker synthesizes for the image itself and exports (ld64 keeps
     * them to the image): its own Mach-O header, which no code of another library refers to.
     */
    private static boolean jniEntryPoint(String format, String symbol) {
        return symbol.startsWith("Java_") || symbol.equals("JNI_OnLoad")
                || (format.startsWith("Mach-O") && (symbol.equals("_mh_dylib_header") || symbol.equals("__dso_handle")));
    }

    @Test
    public void theShippedLibraryExportsOnlyJavaEntryPoints() throws Exception {
        NativeLibraryHeaders headers = NativeLibraryHeaders.read(shippedLibrary());
        assertFalse("the library exports its JNI entry points", headers.exported.isEmpty());
        for (String symbol : headers.exported) {
            assertTrue("exported symbol " + symbol + " is not a JNI entry point; all: " + headers.exported, jniEntryPoint(headers.format, symbol));
        }
    }

    /** A JVM does not need libstdc++ (HotSpot links its own in), so a machine may lack it: the library carries its own. */
    @Test
    public void theShippedLibraryCarriesItsCppRuntime() throws Exception {
        List<String> needed = NativeLibraryHeaders.read(shippedLibrary()).needed;
        assertFalse("libstdc++ is linked in, not needed from the system: " + needed, needed.contains("libstdc++.so.6"));
    }

    /** The format and machine each platform's library must be built for. */
    private static final Map<String, String> FORMAT = new HashMap<>();
    private static final Map<String, String> MACHINE = new HashMap<>();
    static {
        FORMAT.put("linux-x86_64", "ELF shared object");
        MACHINE.put("linux-x86_64", "x86_64");
        FORMAT.put("linux-aarch64", "ELF shared object");
        MACHINE.put("linux-aarch64", "aarch64");
        FORMAT.put("macos-aarch64", "Mach-O dylib");
        MACHINE.put("macos-aarch64", "aarch64");
        FORMAT.put("macos-x86_64", "Mach-O dylib");
        MACHINE.put("macos-x86_64", "x86_64");
        FORMAT.put("windows-x86_64", "PE DLL");
        MACHINE.put("windows-x86_64", "x86_64");
    }

    /**
     * The shared libraries a Linux library may need: the C library, its dynamic linker, and the
     * GCC runtime, which glibc itself depends on (Debian's libc6 and RHEL's glibc require it).
     * Not libstdc++: the C++ runtime is linked in (.cargo/config.toml).
     */
    private static final List<String> LINUX_NEEDED = Arrays.asList("libc.so.6", "libm.so.6", "libdl.so.2", "libpthread.so.0", "librt.so.1",
            "libgcc_s.so.1", "ld-linux-x86-64.so.2", "ld-linux-aarch64.so.1");

    /**
     * The libraries a macOS library may need: the ones every Mac has in /usr/lib (libSystem, the
     * system's libc++, and libiconv with libcharset, which Rust's standard library links). The
     * C++ runtime is linked in from Zig's libc++, so libc++.1.dylib is allowed but not needed.
     */
    private static final List<String> MACOS_NEEDED = Arrays.asList("/usr/lib/libSystem.B.dylib", "/usr/lib/libc++.1.dylib",
            "/usr/lib/libiconv.2.dylib", "/usr/lib/libcharset.1.dylib");

    /**
     * The DLLs a Windows library may import: those of Windows 10 and later (the oldest Windows
     * Rust's standard library supports), the Universal C Runtime's API sets among them. Not
     * libstdc++-6.dll, libgcc_s_seh-1.dll or libwinpthread-1.dll, which no Windows machine has:
     * the C++ runtime is linked in. PE import names are matched without regard to case, as
     * Windows's loader does.
     */
    private static final List<String> WINDOWS_NEEDED = Arrays.asList("kernel32.dll", "ntdll.dll", "ws2_32.dll", "userenv.dll",
            "bcryptprimitives.dll", "rpcrt4.dll", "shlwapi.dll", "advapi32.dll", "api-ms-win-core-synch-l1-2-0.dll");

    private static boolean systemLibrary(String platform, String lib) {
        if (platform.startsWith("macos-")) {
            return MACOS_NEEDED.contains(lib);
        }
        if (platform.startsWith("windows-")) {
            String name = lib.toLowerCase(java.util.Locale.ROOT);
            return WINDOWS_NEEDED.contains(name) || (name.startsWith("api-ms-win-crt-") && name.endsWith("-l1-1-0.dll"));
        }
        return LINUX_NEEDED.contains(lib);
    }

    /** The C library every library of the platform must import. */
    private static String cLibrary(String platform) {
        if (platform.startsWith("macos-")) {
            return "/usr/lib/libSystem.B.dylib";
        }
        return platform.startsWith("windows-") ? "api-ms-win-crt-runtime-l1-1-0.dll" : "libc.so.6";
    }

    /** The oldest macOS the macOS libraries load on, as README's platform table states. */
    private static final String MACOS_MINIMUM = "11.0.0";

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
            assertTrue("a header check for " + platform, FORMAT.containsKey(platform));
            NativeLibraryHeaders headers = NativeLibraryHeaders.read(packedLibrary(platform));
            assertEquals(platform + " format", FORMAT.get(platform), headers.format);
            assertEquals(platform + " machine", MACHINE.get(platform), headers.machine);
            assertTrue(platform + " exports the JNI entry points: " + headers.exported,
                    headers.exported.stream().anyMatch(s -> s.startsWith("Java_")));
            for (String symbol : headers.exported) {
                assertTrue(platform + ": exported symbol " + symbol + " is not a JNI entry point; " + headers.exported.size() + " exported",
                        jniEntryPoint(headers.format, symbol));
            }
            boolean macos = platform.startsWith("macos-");
            assertTrue(platform + " needs the C library: " + headers.needed,
                    headers.needed.stream().anyMatch(lib -> lib.equalsIgnoreCase(cLibrary(platform))));
            for (String lib : headers.needed) {
                assertTrue(platform + " needs " + lib + ", not a system library; all: " + headers.needed,
                        systemLibrary(platform, lib));
            }
            assertEquals(platform + " minimum macOS", macos ? MACOS_MINIMUM : null, headers.minimumOs);
            // Not the path it was built at (which says nothing to a Mac and names the build machine).
            assertEquals(platform + " install name", macos ? "@rpath/librockcask.dylib" : null, headers.installName);
        }
    }
}
