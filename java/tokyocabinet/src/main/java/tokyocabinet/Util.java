package tokyocabinet;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.ObjectInputStream;
import java.io.ObjectOutputStream;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import org.rockcask.internal.NativeLibrary;

/**
 * Static helpers of the Tokyo Cabinet Java API: number and string conversion, Java
 * serialization, native-order packing and a few process functions.
 *
 * <p>Pure Java; it does not load the native library. A {@code null} where a String or byte array
 * is required throws {@link IllegalArgumentException} with the message {@code "illegal argument"}.
 * Parameters of type {@code Object} accept {@code null}.
 */
public class Util {
    private static final String UNKNOWN_VERSION = "RockCask (unknown version)";

    /** Read once on first use; a race only repeats the same read. */
    private static volatile String version;

    private Util() {
        throw new UnsupportedOperationException("tokyocabinet.Util has only static methods");
    }

    /**
     * Names the implementation behind this API.
     *
     * @return {@code "RockCask "} followed by the version of the RockCask jar on the class path,
     *     or {@code "RockCask (unknown version)"} if that cannot be read. The original returned
     *     the Tokyo Cabinet version (such as {@code "1.4.48"}); there is none here.
     */
    public static String version() {
        String v = version;
        if (v == null) {
            v = readVersion();
            version = v;
        }
        return v;
    }

    private static String readVersion() {
        // Read by RockCask's own loader: the file sits in a package of the module org.rockcask,
        // which a named module (the drop-in on the module path) cannot read resources from.
        try {
            String v = NativeLibrary.javaVersion();
            return v == null || v.trim().isEmpty() || v.equals("?") ? UNKNOWN_VERSION : "RockCask " + v.trim();
        } catch (LinkageError | RuntimeException e) { // the file missing, unreadable or malformed
            return UNKNOWN_VERSION;
        }
    }

    /**
     * Reads a decimal int, as the original does: characters up to and including a space are
     * skipped wherever they appear, any {@code '-'} makes the result negative, and the first
     * other non-digit character ends the number. So {@code " -12ab"} gives -12, {@code "1 2"}
     * gives 12, {@code "+5"} and {@code ""} give 0. Overflow wraps around like int arithmetic.
     *
     * @throws IllegalArgumentException if {@code str} is null
     */
    public static int atoi(String str) {
        return (int) atol(str); // wrapping the long result equals wrapping at every step
    }

    /**
     * Reads a decimal long by the rules of {@link #atoi(String)}.
     *
     * @throws IllegalArgumentException if {@code str} is null
     */
    public static long atol(String str) {
        Database.check(str);
        long num = 0;
        boolean negative = false;
        for (int i = 0; i < str.length(); i++) {
            char c = str.charAt(i);
            if (c <= ' ') {
                continue;
            }
            if (c == '-') {
                negative = true;
            } else if (c >= '0' && c <= '9') {
                num = num * 10 + (c - '0');
            } else {
                break;
            }
        }
        return negative ? -num : num;
    }

    /**
     * Formats a number in decimal, filled up to {@code cols} characters with {@code padding} on
     * the left. A minus sign counts as a column and comes before the padding:
     * {@code itoa(1, 8, '0')} is {@code "00000001"}, {@code itoa(-5, 4, '0')} is {@code "-005"}.
     * Longer numbers are not cut. Unlike the original, zero always yields the digit {@code "0"}.
     */
    public static String itoa(long num, int cols, char padding) {
        String digits = Long.toString(num);
        boolean negative = num < 0;
        if (negative) {
            digits = digits.substring(1);
        }
        StringBuilder sb = new StringBuilder(Math.max(cols, digits.length() + 1));
        if (negative) {
            sb.append('-');
        }
        for (int n = sb.length() + digits.length(); n < cols; n++) {
            sb.append(padding);
        }
        return sb.append(digits).toString();
    }

    /**
     * Converts an object to a string: a {@code byte[]} is decoded as UTF-8 (invalid sequences
     * become U+FFFD), anything else uses {@code toString()}.
     *
     * @return the string, or {@code ""} for {@code null} or when {@code toString()} throws
     */
    public static String otos(Object obj) {
        try {
            if (obj == null) {
                return "";
            }
            if (obj instanceof byte[]) {
                return Database.string((byte[]) obj);
            }
            String s = obj.toString();
            return s == null ? "" : s;
        } catch (RuntimeException e) {
            return "";
        }
    }

    /** Returns the current time in seconds since the Unix epoch, with a fraction. */
    public static double time() {
        return System.currentTimeMillis() / 1000.0;
    }

    /**
     * Serializes an object with Java serialization. {@code null} is serialized too.
     *
     * @return the bytes, or {@code null} if the object (or anything it refers to) cannot be
     *     serialized
     */
    public static byte[] serialize(Object obj) {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        try (ObjectOutputStream out = new ObjectOutputStream(bytes)) {
            out.writeObject(obj);
        } catch (IOException | RuntimeException e) {
            return null;
        }
        return bytes.toByteArray();
    }

    /**
     * Rebuilds an object written by {@link #serialize(Object)}. Only use it on trusted data: Java
     * deserialization can run code of any serializable class on the class path.
     *
     * @return the object, or {@code null} if the bytes are not a serialized object or a class is
     *     missing (and for a serialized {@code null})
     * @throws IllegalArgumentException if {@code serial} is null
     */
    public static Object deserialize(byte[] serial) {
        Database.check(serial);
        try (ObjectInputStream in = new ObjectInputStream(new ByteArrayInputStream(serial))) {
            return in.readObject();
        } catch (IOException | ClassNotFoundException | RuntimeException e) {
            return null;
        }
    }

    /** Returns the 4 bytes of {@code num} in the platform's native byte order. */
    public static byte[] packint(int num) {
        return nativeOrder(new byte[Integer.BYTES]).putInt(num).array();
    }

    /**
     * Reads an int packed by {@link #packint(int)}.
     *
     * @return the int, or 0 if {@code serial} is not exactly 4 bytes long (as in the original)
     * @throws IllegalArgumentException if {@code serial} is null
     */
    public static int unpackint(byte[] serial) {
        return Database.check(serial).length == Integer.BYTES ? nativeOrder(serial).getInt() : 0;
    }

    /** Returns the 8 bytes of {@code num} in the platform's native byte order. */
    public static byte[] packdouble(double num) {
        return nativeOrder(new byte[Double.BYTES]).putDouble(num).array();
    }

    /**
     * Reads a double packed by {@link #packdouble(double)}.
     *
     * @return the double, or 0.0 if {@code serial} is not exactly 8 bytes long (as in the original)
     * @throws IllegalArgumentException if {@code serial} is null
     */
    public static double unpackdouble(byte[] serial) {
        return Database.check(serial).length == Double.BYTES ? nativeOrder(serial).getDouble() : 0.0;
    }

    /** The bytes as a buffer in the platform's native byte order, as the original packs numbers. */
    private static ByteBuffer nativeOrder(byte[] bytes) {
        return ByteBuffer.wrap(bytes).order(ByteOrder.nativeOrder());
    }

    /**
     * Runs a command line with {@code /bin/sh -c} and waits for it. The command shares this
     * process's standard input, output and error, as with C {@code system()}.
     *
     * @return the exit code of the shell (128 + N if it was killed by signal N), or -1 if it could
     *     not be started. The original returned the raw C {@code system()} status instead, which
     *     on Linux is the exit code times 256; both are 0 exactly on success.
     * @throws IllegalArgumentException if {@code cmd} is null
     */
    public static int system(String cmd) {
        Database.check(cmd);
        Process p;
        try {
            p = new ProcessBuilder("/bin/sh", "-c", cmd).inheritIO().start();
        } catch (IOException | RuntimeException e) {
            return -1;
        }
        // Like C system(), wait for the command even if interrupted, then restore the interrupt.
        boolean interrupted = false;
        try {
            while (true) {
                try {
                    return p.waitFor();
                } catch (InterruptedException e) {
                    interrupted = true;
                }
            }
        } finally {
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        }
    }

    /**
     * Would change the working directory, which a running JVM cannot do: its file APIs resolve
     * relative paths against {@code user.dir}, fixed at startup. So this always fails.
     *
     * @return -1 (the original returned 0 on success and -1 on failure)
     * @throws IllegalArgumentException if {@code path} is null
     */
    public static int chdir(String path) {
        Database.check(path);
        return -1;
    }

    /** Returns the working directory of this JVM (the {@code user.dir} property). */
    public static String getcwd() {
        return System.getProperty("user.dir");
    }

    /** Returns the ID of this process. */
    public static int getpid() {
        return (int) ProcessHandle.current().pid();
    }

    /**
     * Would set an environment variable, which Java cannot do for its own process. So this
     * always fails and {@link #getenv(String)} keeps returning the old value.
     *
     * @return -1 (the original returned 0 on success and -1 on failure)
     * @throws IllegalArgumentException if {@code name} or {@code value} is null
     */
    public static int putenv(String name, String value) {
        Database.check(name);
        Database.check(value);
        return -1;
    }

    /**
     * Reads an environment variable of this process.
     *
     * @return the value, or {@code null} if the variable is not set
     * @throws IllegalArgumentException if {@code name} is null
     */
    public static String getenv(String name) {
        Database.check(name);
        return System.getenv(name);
    }
}
