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
 * which cannot remove a loaded library's file, one copy per library version is kept in the
 * temporary directory and shared ({@code extractShared}). The system
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
                System.load(extractShared(in, file).toString());
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
     * Windows: the packed library copied to {@code <temp>/rockcask-<version>-<SHA-256 prefix>/<file>}
     * and shared by every JVM that loads the same library. Windows cannot delete a loaded
     * library's file, not even when the JVM exits (it is still loaded then), so a file per JVM
     * would be left behind by every run; this way one copy per library version stays. An existing
     * copy is used only when its content hashes the same; a new one is written beside it and moved
     * into place, so JVMs extracting at once never load a half-written file. The temp directory
     * is the user's own ({@code %TEMP%}).
     */
    private static Path extractShared(InputStream in, String file) throws IOException {
        byte[] library = readAll(in);
        String digest = sha256(library);
        Path dir = Paths.get(System.getProperty("java.io.tmpdir")).resolve("rockcask-" + javaVersion() + "-" + digest.substring(0, 16));
        Path target = dir.resolve(file);
        if (Files.isRegularFile(target) && digest.equals(sha256(Files.readAllBytes(target)))) {
            return target;
        }
        Files.createDirectories(dir);
        Path partial = Files.createTempFile(dir, file, ".partial");
        try {
            Files.write(partial, library);
            try {
                Files.move(partial, target, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
            } catch (IOException e) {
                // Another JVM's copy is in place and loaded (Windows refuses to replace it): use it
                // if it is whole.
                if (!(Files.isRegularFile(target) && digest.equals(sha256(Files.readAllBytes(target))))) {
                    throw e;
                }
            }
        } finally {
            Files.deleteIfExists(partial);
        }
        return target;
    }

    private static byte[] readAll(InputStream in) throws IOException {
        java.io.ByteArrayOutputStream out = new java.io.ByteArrayOutputStream(1 << 24);
        byte[] buffer = new byte[1 << 16];
        for (int n; (n = in.read(buffer)) > 0; ) {
            out.write(buffer, 0, n);
        }
        return out.toByteArray();
    }

    private static String sha256(byte[] bytes) {
        try {
            byte[] hash = java.security.MessageDigest.getInstance("SHA-256").digest(bytes);
            StringBuilder hex = new StringBuilder();
            for (byte b : hash) {
                hex.append(String.format("%02x", b));
            }
            return hex.toString();
        } catch (java.security.NoSuchAlgorithmException e) {
            throw new IllegalStateException("every JDK has SHA-256", e);
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
