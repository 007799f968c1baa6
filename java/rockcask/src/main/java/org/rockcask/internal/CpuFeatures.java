package org.rockcask.internal;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;

/**
 * The CPU features the packed native library was built to use (the build records them from
 * {@code .cargo/config.toml} in {@code native-library.properties}), checked against the running
 * CPU before the library is loaded: code using an instruction the CPU lacks would stop the JVM
 * with SIGILL, so such a CPU gets an {@link UnsatisfiedLinkError} naming what it lacks instead.
 *
 * <p>Internal: not API.
 */
public final class CpuFeatures {
    /** Where Linux lists the CPU's features (the {@code flags} line on x86). */
    static final Path CPUINFO = Paths.get("/proc/cpuinfo");

    private CpuFeatures() {}

    /**
     * The features of {@code required} (comma-separated, as rustc names them: {@code sse4.2},
     * {@code pclmulqdq}) that the first {@code flags} line of {@code cpuinfo} does not list.
     */
    public static List<String> missing(String required, String cpuinfo) {
        Set<String> flags = new HashSet<>();
        for (String line : cpuinfo.split("\n")) {
            int colon = line.indexOf(':');
            if (colon > 0 && line.substring(0, colon).trim().equals("flags")) {
                flags.addAll(Arrays.asList(line.substring(colon + 1).trim().split("\\s+")));
                break;
            }
        }
        List<String> missing = new ArrayList<>();
        for (String feature : required.split(",")) {
            String f = feature.trim();
            // rustc's sse4.2 is the kernel's sse4_2; pclmulqdq is spelled alike.
            if (!f.isEmpty() && !flags.contains(f.toLowerCase(Locale.ROOT).replace('.', '_'))) {
                missing.add(f);
            }
        }
        return missing;
    }

    /**
     * Throws UnsatisfiedLinkError if this CPU lacks any of {@code required} (for the library
     * described by {@code library}). Where the CPU's features cannot be read (no
     * {@code /proc/cpuinfo}), nothing is checked: the features required are those of every
     * x86-64 CPU made since 2010.
     */
    static void check(String required, String library) {
        if (required.trim().isEmpty()) {
            return;
        }
        String cpuinfo;
        try {
            cpuinfo = new String(Files.readAllBytes(CPUINFO), StandardCharsets.UTF_8);
        } catch (IOException e) {
            // Absent or unreadable: nothing to check against.
            return;
        }
        List<String> missing = missing(required, cpuinfo);
        if (!missing.isEmpty()) {
            throw new UnsatisfiedLinkError("RockCask's native library (" + library + ") is built for CPUs with " + required.replace(",", ", ")
                    + "; this CPU lacks " + String.join(", ", missing) + " (by " + CPUINFO + "), so it is not loaded. Build the library for this CPU"
                    + " (without those features in .cargo/config.toml) and point -D" + NativeLibrary.PATH_PROPERTY + " at it.");
        }
    }
}
