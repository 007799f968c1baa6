package org.rockcask.internal;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.FileSystems;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Locale;
import java.util.Properties;

/**
 * Loads RockCask's native library once per class loader.
 *
 * <p>By default the library packed in this jar for the running platform ({@link Platform}: OS,
 * architecture and, on Linux, C library) is copied to a private
 * temporary file (random name, owner-only permissions), loaded, and the file removed, once the
 * CPU is known to have the features the library was built for ({@link CpuFeatures}). On Windows,
 * which cannot remove a loaded library's file, the copy stays until a later load finds its JVM
 * ended and removes it ({@code extractForThisLoader}). The system
 * property {@value #PATH_PROPERTY} names a library file to load instead (as it is: its build
 * decided what it needs).
 *
 * <p>Internal: public only for RockCask's own packages and the {@code tokyocabinet} drop-in; not API.
 */
public final class NativeLibrary {
    /** System property naming a native library file to load instead of the packed one. */
    public static final String PATH_PROPERTY = "rockcask.library.path";
    /**
     * Where the build packed the libraries: {@code platforms} (comma-separated), and per platform
     * the library's file name ({@code file.<platform>}) and the CPU features it is built to use
     * ({@code cpu_features.<platform>}).
     */
    private static final String PACKING_RESOURCE = "/org/rockcask/native-library.properties";
    private static boolean loaded;

    private NativeLibrary() {}

    /** Loads the library if this class loader has not yet; throws UnsatisfiedLinkError if it cannot. */
    public static synchronized void load() {
        if (loaded) {
            return;
        }
        String override = System.getProperty(PATH_PROPERTY);
        String from;
        if (override != null && !override.isEmpty()) {
            Path p = Paths.get(override).toAbsolutePath();
            if (!Files.isRegularFile(p)) {
                throw new UnsatisfiedLinkError("-D" + PATH_PROPERTY + "=" + override + " does not name a file");
            }
            System.load(p.toString());
            from = p.toString();
        } else {
            from = loadPacked();
        }
        checkVersion(from);
        loaded = true;
    }

    /** The platform of this JVM, as the jar names the platforms it carries ({@link Platform}). */
    public static String platform() {
        return Platform.current();
    }

    /** The platforms this jar carries a library for. */
    public static java.util.List<String> packedPlatforms() {
        return java.util.Arrays.asList(packing("platforms").split(","));
    }

    /** The jar resource holding the library for {@code platform}. */
    public static String packedResource(String platform) {
        return "/org/rockcask/native/" + platform + "/" + packing("file." + platform);
    }

    private static String packing(String key) {
        return resourceProperties(PACKING_RESOURCE).getProperty(key, "");
    }

    /** Why this jar has no library for {@code platform}, and what to do instead. */
    public static String noLibraryFor(String platform, java.util.List<String> carried) {
        return "RockCask has no native library for platform " + platform + " (os.name=" + System.getProperty("os.name")
                + ", os.arch=" + System.getProperty("os.arch") + (platform.startsWith("linux-") ? ", libc=" + Platform.linuxLibc() : "")
                + "); this jar carries " + String.join(", ", carried) + ". Build one (README, \"Platforms\") and point -D"
                + PATH_PROPERTY + " at it.";
    }

    private static String loadPacked() {
        String platform = platform();
        if (!packedPlatforms().contains(platform)) {
            // Before anything is extracted: a library for another platform or C library would fail
            // in the dynamic linker, or worse.
            throw new UnsatisfiedLinkError(noLibraryFor(platform, packedPlatforms()));
        }
        String resource = packedResource(platform);
        try (InputStream in = NativeLibrary.class.getResourceAsStream(resource)) {
            if (in == null) {
                throw new UnsatisfiedLinkError(resource + " is missing from the RockCask jar, whose native-library.properties lists " + platform);
            }
            // Before the library's code can run: it may use instructions this CPU lacks.
            CpuFeatures.check(platform.substring(platform.lastIndexOf('-') + 1), packing("cpu_features." + platform), "jar resource " + resource);
            String file = packing("file." + platform);
            if (platform.startsWith("windows-")) {
                System.load(extractForThisLoader(in, file).toString());
                return "jar resource " + resource;
            }
            String suffix = file.contains(".") ? file.substring(file.lastIndexOf('.')) : "";
            Path tmp = FileSystems.getDefault().supportedFileAttributeViews().contains("posix")
                    ? Files.createTempFile("librockcask-", suffix, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------")))
                    : Files.createTempFile("librockcask-", suffix);
            try {
                Files.copy(in, tmp, StandardCopyOption.REPLACE_EXISTING);
                System.load(tmp.toString());
            } finally {
                // Once loaded the mapping stays valid; nothing is left behind in the temp directory.
                Files.deleteIfExists(tmp);
            }
            return "jar resource " + resource;
        } catch (IOException e) {
            UnsatisfiedLinkError error = new UnsatisfiedLinkError("cannot extract RockCask native library " + resource + ": " + e);
            error.initCause(e);
            throw error;
        }
    }

    /**
     * Windows: the packed library copied to {@code <temp>/rockcask-<version>/rockcask-<pid>-<random>.dll}.
     * Windows cannot delete a loaded library's file, not even when the JVM exits (it is still
     * loaded then), and a second class loader cannot load a file another loader has loaded; so
     * each load gets its own copy, named after the JVM that made it, and each load first removes
     * the copies of JVMs that have ended. What stays in the temp directory is one copy per
     * class loader of each running JVM. A copy of a JVM still running is never touched: it may be
     * half written. The temp directory is the user's own ({@code %TEMP%}).
     */
    private static Path extractForThisLoader(InputStream in, String file) throws IOException {
        Path dir = Paths.get(System.getProperty("java.io.tmpdir")).resolve("rockcask-" + javaVersion());
        Files.createDirectories(dir);
        String suffix = file.contains(".") ? file.substring(file.lastIndexOf('.')) : "";
        removeCopiesOfEndedJvms(dir, suffix);
        Path copy = Files.createTempFile(dir, "rockcask-" + ProcessHandle.current().pid() + "-", suffix);
        Files.copy(in, copy, StandardCopyOption.REPLACE_EXISTING);
        return copy;
    }

    private static void removeCopiesOfEndedJvms(Path dir, String suffix) throws IOException {
        java.util.regex.Pattern copyName = java.util.regex.Pattern.compile("rockcask-([0-9]{1,18})-[0-9]+" + java.util.regex.Pattern.quote(suffix));
        try (java.nio.file.DirectoryStream<Path> copies = Files.newDirectoryStream(dir)) {
            for (Path copy : copies) {
                java.util.regex.Matcher m = copyName.matcher(copy.getFileName().toString());
                if (!m.matches() || ProcessHandle.of(Long.parseLong(m.group(1))).isPresent()) {
                    continue;
                }
                try {
                    Files.deleteIfExists(copy);
                } catch (IOException stillLoaded) {
                    // A new process with the same pid has it loaded: the next load removes it.
                }
            }
        }
    }

    /** The version the native library was built as (its crate version). */
    private static native String nativeVersion();

    /**
     * Registers the native methods the library declares for {@code nativeClass} (and checks the
     * constants that class's calls depend on); returns their names, one per line.
     */
    private static native String registerNatives(Class<?> nativeClass);

    /**
     * Loads the library and binds the native methods of {@code nativeClass} from its table in
     * the library; called by each such class when it initializes. A declaration that differs
     * from the table (name, parameter or result types), a native method the table lacks, or a
     * constant that differs, fails here with an {@link UnsatisfiedLinkError} saying which, so a
     * jar and a library that disagree never make a call.
     */
    public static void register(Class<?> nativeClass) {
        load();
        String registered;
        try {
            registered = registerNatives(nativeClass);
        } catch (Exception e) {
            UnsatisfiedLinkError error = new UnsatisfiedLinkError("cannot bind the native methods of " + nativeClass.getName() + ": " + e.getMessage());
            error.initCause(e);
            throw error;
        }
        java.util.Set<String> bound = new java.util.HashSet<>(java.util.Arrays.asList(registered.split("\n")));
        java.util.List<String> unbound = new java.util.ArrayList<>();
        for (java.lang.reflect.Method m : nativeClass.getDeclaredMethods()) {
            if (java.lang.reflect.Modifier.isNative(m.getModifiers()) && !bound.contains(m.getName())) {
                unbound.add(m.getName());
            }
        }
        if (!unbound.isEmpty()) {
            throw new UnsatisfiedLinkError(nativeClass.getName() + " declares native methods the library does not have: " + String.join(", ", unbound)
                    + " (the library has: " + String.join(", ", bound) + ")");
        }
    }

    private static void checkVersion(String from) {
        String expected = javaVersion();
        String found = nativeVersion();
        if (!expected.equals(found)) {
            throw new UnsatisfiedLinkError("RockCask native library version " + found + " (loaded from " + from
                    + ") does not match the Java API version " + expected + "; use the jar and library of one release");
        }
    }

    /** The version this jar was built as (written into the jar by the build). */
    public static String javaVersion() {
        return resourceProperties("/org/rockcask/rockcask-version.properties").getProperty("version", "?");
    }

    /** A properties file the build writes into the jar. */
    private static Properties resourceProperties(String resource) {
        Properties p = new Properties();
        try (InputStream in = NativeLibrary.class.getResourceAsStream(resource)) {
            if (in == null) {
                throw new UnsatisfiedLinkError(resource + " is missing from the RockCask jar");
            }
            p.load(in);
        } catch (IOException e) {
            throw new UnsatisfiedLinkError("cannot read " + resource + ": " + e);
        }
        return p;
    }
}
