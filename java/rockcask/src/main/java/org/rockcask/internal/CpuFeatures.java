package org.rockcask.internal;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * The CPU features a packed native library was built to use (the build records them per platform
 * from {@code .cargo/config.toml} in {@code native-library.properties}), checked against the
 * running CPU before the library is loaded: code using an instruction the CPU lacks would stop the
 * JVM with SIGILL, so such a CPU gets an {@link UnsatisfiedLinkError} naming what it lacks instead.
 *
 * <p>The features are named as rustc names them and looked up as Linux names them: on x86-64 in
 * the {@code flags} line of {@code /proc/cpuinfo} ({@code sse4.2} is {@code sse4_2}); on aarch64 in
 * its {@code Features} line ({@code crc} is {@code crc32}; rustc's {@code aes} includes PMULL, so
 * it needs {@code aes} and {@code pmull}; {@code sha2} needs {@code sha1} and {@code sha2}), or,
 * where {@code /proc/cpuinfo} has no such line (an emulator showing the host's), in the
 * {@code AT_HWCAP} bits of {@code /proc/self/auxv}, which the kernel derives that line from.
 *
 * <p>Internal: not API.
 */
public final class CpuFeatures {
    /** Where Linux lists the CPU's features. */
    static final Path CPUINFO = Paths.get("/proc/cpuinfo");
    /** The process's auxiliary vector: pairs of native words, type then value. */
    static final Path AUXV = Paths.get("/proc/self/auxv");
    /** The auxiliary vector entry holding the CPU's feature bits. */
    private static final long AT_HWCAP = 16;
    /** The aarch64 kernel's names of the AT_HWCAP bits 0 to 7 (arch/arm64/include/uapi/asm/hwcap.h). */
    private static final List<String> AARCH64_HWCAP_NAMES = Arrays.asList("fp", "asimd", "evtstrm", "aes", "pmull", "sha1", "sha2", "crc32");

    private CpuFeatures() {}

    /**
     * The features of {@code required} (comma-separated, as rustc names them for {@code arch}:
     * {@code sse4.2}, {@code pclmulqdq}; {@code crc}, {@code aes}) that the first feature line of
     * {@code cpuinfo} for {@code arch} ({@code flags} on x86-64, {@code Features} on aarch64) does
     * not list.
     */
    public static List<String> missing(String arch, String required, String cpuinfo) {
        return missing(arch, required, cpuinfoFeatures(arch, cpuinfo));
    }

    /** The features of {@code required} (rustc's names for {@code arch}) that {@code cpuFeatures} (Linux's names) lacks. */
    public static List<String> missing(String arch, String required, Set<String> cpuFeatures) {
        List<String> missing = new ArrayList<>();
        for (String feature : required.split(",")) {
            String f = feature.trim();
            if (!f.isEmpty() && !cpuFeatures.containsAll(linuxNames(arch, f))) {
                missing.add(f);
            }
        }
        return missing;
    }

    /** What Linux calls the CPU features rustc's {@code feature} for {@code arch} stands for. */
    static List<String> linuxNames(String arch, String feature) {
        String f = feature.toLowerCase(Locale.ROOT);
        if (arch.equals("aarch64")) {
            switch (f) {
                case "crc":
                    return Collections.singletonList("crc32");
                case "aes":
                    return Arrays.asList("aes", "pmull");
                case "sha2":
                    return Arrays.asList("sha1", "sha2");
                default:
                    return Collections.singletonList(f);
            }
        }
        return Collections.singletonList(f.replace('.', '_'));
    }

    /** The features the first feature line of {@code cpuinfo} for {@code arch} lists (none if it has no such line). */
    public static Set<String> cpuinfoFeatures(String arch, String cpuinfo) {
        String key = arch.equals("aarch64") ? "Features" : "flags";
        Set<String> features = new HashSet<>();
        for (String line : cpuinfo.split("\n")) {
            int colon = line.indexOf(':');
            if (colon > 0 && line.substring(0, colon).trim().equals(key)) {
                features.addAll(Arrays.asList(line.substring(colon + 1).trim().split("\\s+")));
                break;
            }
        }
        return features;
    }

    /** The aarch64 features the {@code AT_HWCAP} entry of an auxiliary vector ({@code auxv}, in {@code order}) lists. */
    public static Set<String> aarch64HwcapFeatures(byte[] auxv, ByteOrder order) {
        ByteBuffer words = ByteBuffer.wrap(auxv).order(order);
        Set<String> features = new HashSet<>();
        while (words.remaining() >= 16) {
            long type = words.getLong();
            long value = words.getLong();
            if (type == AT_HWCAP) {
                for (int bit = 0; bit < AARCH64_HWCAP_NAMES.size(); bit++) {
                    if ((value & (1L << bit)) != 0) {
                        features.add(AARCH64_HWCAP_NAMES.get(bit));
                    }
                }
                break;
            }
        }
        return features;
    }

    /**
     * Throws UnsatisfiedLinkError if this CPU ({@code arch}: x86_64 or aarch64) lacks any of
     * {@code required} (for the library described by {@code library}). The CPU's features are read
     * from {@code /proc/cpuinfo} (Linux); where there is none (Windows, macOS), on x86-64, from
     * the flags HotSpot set from the CPU itself ({@link #missingByHotSpotFlags}). Where neither
     * says (an aarch64 Mac, a JVM without HotSpot's diagnostic bean), nothing is checked: the
     * features required are those of every x86-64 CPU made since 2010 and every ARMv8 server or
     * Apple CPU.
     */
    static void check(String arch, String required, String library) {
        if (required.trim().isEmpty()) {
            return;
        }
        String cpuinfo;
        try {
            cpuinfo = new String(Files.readAllBytes(CPUINFO), StandardCharsets.UTF_8);
        } catch (IOException e) {
            if (arch.equals("x86_64")) {
                refuseIfMissing(required, missingByHotSpotFlags(required, CpuFeatures::hotSpotFlag), library, "HotSpot's CPU flags");
            }
            return;
        }
        Set<String> features = cpuinfoFeatures(arch, cpuinfo);
        String source = CPUINFO.toString();
        if (features.isEmpty() && arch.equals("aarch64")) {
            try {
                features = aarch64HwcapFeatures(Files.readAllBytes(AUXV), ByteOrder.nativeOrder());
                source = AUXV + " AT_HWCAP";
            } catch (IOException e) {
                // Then nothing says the CPU has them: refused below, naming cpuinfo.
            }
        }
        refuseIfMissing(required, missing(arch, required, features), library, source);
    }

    /**
     * The HotSpot flags that show whether an x86-64 CPU has a feature (rustc's name): HotSpot
     * turns the first on by itself where the CPU has the feature and off where it lacks it; the
     * others are flags whose setting on the command line would turn the first off too.
     */
    private static final Map<String, List<String>> HOTSPOT_X86_FLAGS = Map.of(
            "sse4.2", List.of("UseSSE42Intrinsics", "UseSSE"),
            "pclmulqdq", List.of("UseCLMUL"));

    /** Where a flag's value came from when HotSpot chose it itself (not the command line, a file or the environment). */
    private static final Set<String> SET_BY_HOTSPOT = Set.of("DEFAULT", "ERGONOMIC");

    /**
     * The x86-64 features of {@code required} that HotSpot's flags show this CPU lacks: the
     * feature's flag is off although HotSpot set it and its related flags itself. A flag that
     * {@code flag} cannot read ({@code null}; it gives {value, origin}), a feature with no such
     * flag, or flags set by the user say nothing, and the feature is not counted missing.
     */
    public static List<String> missingByHotSpotFlags(String required, java.util.function.Function<String, String[]> flag) {
        List<String> missing = new ArrayList<>();
        for (String feature : required.split(",")) {
            String f = feature.trim().toLowerCase(Locale.ROOT);
            List<String> names = HOTSPOT_X86_FLAGS.get(f);
            if (names == null) {
                continue;
            }
            boolean known = true;
            for (String name : names) {
                String[] valueAndOrigin = flag.apply(name);
                known &= valueAndOrigin != null && SET_BY_HOTSPOT.contains(valueAndOrigin[1]);
            }
            if (known && "false".equals(flag.apply(names.get(0))[0])) {
                missing.add(feature.trim());
            }
        }
        return missing;
    }

    /** A HotSpot flag's {value, origin} from its diagnostic bean, or null where this JVM has none (not HotSpot, or jdk.management not loaded). */
    public static String[] hotSpotFlag(String name) {
        try {
            javax.management.openmbean.CompositeData option = (javax.management.openmbean.CompositeData) java.lang.management.ManagementFactory.getPlatformMBeanServer().invoke(
                    new javax.management.ObjectName("com.sun.management:type=HotSpotDiagnostic"), "getVMOption", new Object[] {name}, new String[] {String.class.getName()});
            return new String[] {String.valueOf(option.get("value")), String.valueOf(option.get("origin"))};
        } catch (Exception e) {
            return null;
        }
    }

    private static void refuseIfMissing(String required, List<String> missing, String library, String source) {
        if (!missing.isEmpty()) {
            throw new UnsatisfiedLinkError("RockCask's native library (" + library + ") is built for CPUs with " + required.replace(",", ", ")
                    + "; this CPU lacks " + String.join(", ", missing) + " (by " + source + "), so it is not loaded. Build the library for this CPU"
                    + " (without those features in .cargo/config.toml) and point -D" + NativeLibrary.PATH_PROPERTY + " at it.");
        }
    }
}
