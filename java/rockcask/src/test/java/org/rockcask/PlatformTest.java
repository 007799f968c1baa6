package org.rockcask;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertNull;
import static org.junit.Assert.assertTrue;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.Arrays;
import java.util.Collections;
import java.util.HashSet;
import java.util.List;
import org.junit.Test;
import org.rockcask.internal.CpuFeatures;
import org.rockcask.internal.NativeLibrary;
import org.rockcask.internal.Platform;

/**
 * Which library the loader picks for a JVM's os.name, os.arch and C library, and what it checks first.
 * Not in {@code org.rockcask.internal}: the drop-in's module-path tests have these test classes on
 * their class path, where that package would then also appear, in the unnamed module.
 */
public class PlatformTest {
    /** The platforms an all-platform jar carries. */
    private static final List<String> CARRIED = Arrays.asList("linux-x86_64", "linux-aarch64", "macos-x86_64", "macos-aarch64", "windows-x86_64");

    private static void picks(String expected, String osName, String osArch, String libc) {
        String platform = Platform.name(osName, osArch, libc);
        assertEquals(osName + "/" + osArch + "/" + libc, expected, platform);
        assertTrue(platform, CARRIED.contains(platform));
    }

    private static void picksNone(String expected, String osName, String osArch, String libc) {
        String platform = Platform.name(osName, osArch, libc);
        assertEquals(osName + "/" + osArch + "/" + libc, expected, platform);
        assertFalse(platform, CARRIED.contains(platform));
        String error = NativeLibrary.noLibraryFor(platform, CARRIED);
        assertTrue(error, error.contains("no native library for platform " + expected + " ("));
        assertTrue(error, error.contains("this jar carries linux-x86_64, linux-aarch64, macos-x86_64, macos-aarch64, windows-x86_64"));
        assertTrue(error, error.contains("-Drockcask.library.path"));
    }

    @Test
    public void linuxOnGlibcByArchitecture() {
        picks("linux-x86_64", "Linux", "amd64", Platform.GLIBC);
        picks("linux-x86_64", "Linux", "x86_64", Platform.GLIBC);
        picks("linux-aarch64", "Linux", "aarch64", Platform.GLIBC);
        picks("linux-aarch64", "Linux", "arm64", Platform.GLIBC);
    }

    @Test
    public void macosAndWindowsByArchitecture() {
        picks("macos-x86_64", "Mac OS X", "x86_64", "");
        picks("macos-aarch64", "Mac OS X", "aarch64", "");
        picks("windows-x86_64", "Windows 11", "amd64", "");
        picks("windows-x86_64", "Windows Server 2022", "amd64", "");
        // Only Linux has a C library of its own in the name.
        picks("macos-aarch64", "Mac OS X", "aarch64", Platform.MUSL);
    }

    @Test
    public void muslIsAPlatformOfItsOwn() {
        picksNone("linux-musl-x86_64", "Linux", "amd64", Platform.MUSL);
        picksNone("linux-musl-aarch64", "Linux", "aarch64", Platform.MUSL);
    }

    @Test
    public void unknownOsesAndArchitecturesKeepTheirNames() {
        picksNone("linux-ppc64le", "Linux", "ppc64le", Platform.GLIBC);
        picksNone("linux-s390x", "Linux", "s390x", Platform.GLIBC);
        picksNone("linux-riscv64", "Linux", "riscv64", Platform.GLIBC);
        picksNone("linux-x86", "Linux", "i386", Platform.GLIBC);
        picksNone("windows-aarch64", "Windows 11", "aarch64", "");
        picksNone("windows-x86", "Windows 10", "x86", "");
        picksNone("freebsd-x86_64", "FreeBSD", "amd64", "");
        picksNone("sunos-sparcv9", "SunOS", "sparcv9", "");
        picksNone("unknown-unknown", "", "", "");
    }

    @Test
    public void theCLibraryIsTheOneTheProcessHasMapped() {
        assertEquals(Platform.MUSL, Platform.libcOfMappings("7f0000-7f1000 r-xp 00000000 08:01 123 /lib/ld-musl-x86_64.so.1\n"));
        assertEquals(Platform.MUSL, Platform.libcOfMappings("7f0000-7f1000 r-xp 00000000 08:01 123 /usr/lib/libc.musl-aarch64.so.1\n"));
        assertEquals(Platform.GLIBC, Platform.libcOfMappings("7f0000-7f1000 r-xp 00000000 08:01 123 /usr/lib/x86_64-linux-gnu/libc.so.6\n"));
        // This JVM runs on glibc (Debian).
        assertEquals(Platform.GLIBC, Platform.linuxLibc());
    }

    @Test
    public void aarch64FeaturesAreLookedUpInTheFeaturesLineUnderTheKernelsSpelling() {
        String cpuinfo = "processor\t: 0\nBogoMIPS\t: 243.75\nFeatures\t: fp asimd evtstrm aes pmull sha1 sha2 crc32 atomics\nCPU implementer\t: 0x41\n";
        assertEquals(Collections.emptyList(), CpuFeatures.missing("aarch64", "crc,aes,sha2", cpuinfo));
        String noCrypto = "processor\t: 0\nFeatures\t: fp asimd evtstrm crc32 cpuid\n";
        assertEquals(Arrays.asList("aes", "sha2"), CpuFeatures.missing("aarch64", "crc,aes,sha2", noCrypto));
        // rustc's aes is AES with PMULL: a CPU with AES alone lacks it.
        assertEquals(Arrays.asList("aes"), CpuFeatures.missing("aarch64", "crc,aes", "Features\t: fp asimd aes crc32\n"));
        // An x86 flags line says nothing about an aarch64 CPU.
        assertEquals(Arrays.asList("crc"), CpuFeatures.missing("aarch64", "crc", "flags\t\t: fpu sse4_2 crc32\n"));
        assertEquals(Collections.emptyList(), CpuFeatures.missing("aarch64", "", noCrypto));
    }

    @Test
    public void aarch64FeaturesAreReadFromTheAuxiliaryVectorsHwcap() {
        ByteBuffer auxv = ByteBuffer.allocate(64).order(ByteOrder.LITTLE_ENDIAN);
        auxv.putLong(6).putLong(4096); // AT_PAGESZ
        auxv.putLong(16).putLong(0b1101_1011L); // AT_HWCAP: fp asimd aes pmull sha2 crc32 (no evtstrm, no sha1)
        auxv.putLong(0).putLong(0); // AT_NULL
        assertEquals(new HashSet<>(Arrays.asList("fp", "asimd", "aes", "pmull", "sha2", "crc32")),
                CpuFeatures.aarch64HwcapFeatures(auxv.array(), ByteOrder.LITTLE_ENDIAN));
        assertEquals(Arrays.asList("sha2"), CpuFeatures.missing("aarch64", "crc,aes,sha2",
                CpuFeatures.aarch64HwcapFeatures(auxv.array(), ByteOrder.LITTLE_ENDIAN)));
        assertEquals(Collections.emptySet(), CpuFeatures.aarch64HwcapFeatures(new byte[0], ByteOrder.LITTLE_ENDIAN));
    }

    @Test
    public void withoutProcCpuinfoAnX86CpuIsJudgedByTheFlagsHotSpotSetFromIt() {
        java.util.Map<String, String[]> withBoth = new java.util.HashMap<>();
        withBoth.put("UseSSE42Intrinsics", new String[] {"true", "DEFAULT"});
        withBoth.put("UseSSE", new String[] {"4", "DEFAULT"});
        withBoth.put("UseCLMUL", new String[] {"true", "ERGONOMIC"});
        assertEquals(Collections.emptyList(), CpuFeatures.missingByHotSpotFlags("sse4.2,pclmulqdq", withBoth::get));

        java.util.Map<String, String[]> core2 = new java.util.HashMap<>(withBoth);
        core2.put("UseSSE42Intrinsics", new String[] {"false", "DEFAULT"});
        core2.put("UseCLMUL", new String[] {"false", "DEFAULT"});
        assertEquals(Arrays.asList("sse4.2", "pclmulqdq"), CpuFeatures.missingByHotSpotFlags("sse4.2,pclmulqdq", core2::get));

        // Turned off on the command line (-XX:-UseCLMUL, -XX:UseSSE=3): that says nothing about the CPU.
        java.util.Map<String, String[]> userSet = new java.util.HashMap<>(core2);
        userSet.put("UseCLMUL", new String[] {"false", "VM_CREATION"});
        userSet.put("UseSSE", new String[] {"3", "VM_CREATION"});
        assertEquals(Collections.emptyList(), CpuFeatures.missingByHotSpotFlags("sse4.2,pclmulqdq", userSet::get));
        // A JVM without the flags (not HotSpot) and features with no flag say nothing either.
        assertEquals(Collections.emptyList(), CpuFeatures.missingByHotSpotFlags("sse4.2,pclmulqdq", name -> null));
        assertEquals(Collections.emptyList(), CpuFeatures.missingByHotSpotFlags("avx512f", core2::get));
    }

    @Test
    public void hotSpotsCpuFlagsAreReadFromThisJvm() {
        org.junit.Assume.assumeTrue("HotSpot's x86 flags", NativeLibrary.platform().endsWith("-x86_64"));
        String[] clmul = CpuFeatures.hotSpotFlag("UseCLMUL");
        assertEquals("every x86-64 CPU these tests run on has PCLMULQDQ", "true", clmul[0]);
        assertEquals("DEFAULT", clmul[1]);
        assertNull(CpuFeatures.hotSpotFlag("NoSuchFlagAnywhere"));
        assertEquals(Collections.emptyList(), CpuFeatures.missingByHotSpotFlags("sse4.2,pclmulqdq", CpuFeatures::hotSpotFlag));
    }
}
