package org.rockcask.internal;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.Locale;

/**
 * Names the platform a native library is built for, {@code <os>-<arch>} as the jar lays its
 * libraries out ({@code linux-x86_64}, {@code linux-aarch64}, {@code macos-aarch64},
 * {@code windows-x86_64}), from the JVM's {@code os.name} and {@code os.arch} and, on Linux, the C
 * library the JVM runs on: a musl JVM (Alpine) is {@code linux-musl-<arch>}, a platform of its own,
 * since a library linked against glibc cannot load there. An OS or architecture not known here
 * keeps its own name, so the loader's error names what it saw.
 *
 * <p>Internal: not API.
 */
public final class Platform {
    /** The C library of a glibc Linux (the default of {@code linux-<arch>}). */
    public static final String GLIBC = "glibc";
    /** The C library of Alpine and other musl-based Linux distributions. */
    public static final String MUSL = "musl";

    private Platform() {}

    /** The platform of the running JVM. */
    public static String current() {
        String os = System.getProperty("os.name", "");
        return name(os, System.getProperty("os.arch", ""), os(os).equals("linux") ? linuxLibc() : "");
    }

    /**
     * The platform of a JVM with these {@code os.name} and {@code os.arch} on the C library
     * {@code libc} ({@link #GLIBC} or {@link #MUSL}; looked at on Linux only).
     */
    public static String name(String osName, String osArch, String libc) {
        String os = os(osName);
        String arch = arch(osArch);
        if (os.equals("linux") && MUSL.equals(libc)) {
            return "linux-musl-" + arch;
        }
        return os + "-" + arch;
    }

    private static String os(String osName) {
        String os = osName.toLowerCase(Locale.ROOT);
        if (os.startsWith("linux")) {
            return "linux";
        }
        if (os.startsWith("mac") || os.startsWith("darwin")) {
            return "macos";
        }
        if (os.startsWith("windows")) {
            return "windows";
        }
        String other = os.replaceAll("[^a-z0-9]", "");
        return other.isEmpty() ? "unknown" : other;
    }

    private static String arch(String osArch) {
        String arch = osArch.toLowerCase(Locale.ROOT);
        switch (arch) {
            case "amd64":
            case "x86_64":
            case "x64":
                return "x86_64";
            case "aarch64":
            case "arm64":
                return "aarch64";
            case "x86":
            case "i386":
            case "i486":
            case "i586":
            case "i686":
                return "x86";
            default:
                String other = arch.replaceAll("[^a-z0-9_]", "");
                return other.isEmpty() ? "unknown" : other;
        }
    }

    /**
     * The C library this Linux JVM runs on: musl if the process has musl's dynamic linker mapped
     * (what Alpine's JVMs run on, with or without a glibc compatibility layer), else glibc. Where
     * the process's mappings cannot be read, the presence of musl's dynamic linker decides.
     */
    public static String linuxLibc() {
        try {
            String maps = new String(Files.readAllBytes(Paths.get("/proc/self/maps")), StandardCharsets.UTF_8);
            return libcOfMappings(maps);
        } catch (IOException | RuntimeException e) {
            // Not readable here: look for musl's dynamic linker instead.
        }
        try (DirectoryStream<Path> linkers = Files.newDirectoryStream(Paths.get("/lib"), "ld-musl-*")) {
            return linkers.iterator().hasNext() ? MUSL : GLIBC;
        } catch (IOException | RuntimeException e) {
            return GLIBC;
        }
    }

    /** The C library named by a process's {@code /proc/self/maps}. */
    public static String libcOfMappings(String maps) {
        return maps.contains("/ld-musl-") || maps.contains("/libc.musl-") ? MUSL : GLIBC;
    }
}
