package tokyocabinet;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertTrue;
import static org.junit.Assert.fail;

import java.io.BufferedInputStream;
import java.io.BufferedReader;
import java.io.DataInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.lang.reflect.Array;
import java.lang.reflect.Constructor;
import java.lang.reflect.Executable;
import java.lang.reflect.Field;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import org.junit.Test;

/**
 * Checks that our classes have every public member of the original Tokyo Cabinet Java binding,
 * as listed in {@code tokyocabinet/api-signatures.txt} (its header describes the format).
 *
 * <p>Classes are looked up by name and never initialized, so this needs neither the native
 * library nor compile-time references to the database classes. Constant values are read from
 * the class files, which also proves they are compile-time constants (usable in switch labels).
 */
public class ApiSignatureTest {
    private static final String LIST = "/tokyocabinet/api-signatures.txt";
    static final Set<String> ORIGINAL_CLASSES = new TreeSet<>(Arrays.asList(
            "tokyocabinet.BDB", "tokyocabinet.BDBCUR", "tokyocabinet.BDBCMP", "tokyocabinet.DBM",
            "tokyocabinet.HDB", "tokyocabinet.Util"));
    /** Modifiers the list speaks about; others (native, synchronized, ...) are free. */
    private static final int CHECKED = Modifier.PUBLIC | Modifier.PROTECTED | Modifier.PRIVATE
            | Modifier.STATIC | Modifier.FINAL | Modifier.ABSTRACT;
    private static final Map<String, Class<?>> PRIMITIVES = new HashMap<>();

    static {
        for (Class<?> c : new Class<?>[] {boolean.class, byte.class, char.class, short.class, int.class,
                long.class, float.class, double.class, void.class}) {
            PRIMITIVES.put(c.getName(), c);
        }
    }

    private final Map<String, Class<?>> loaded = new HashMap<>();
    private final Map<Class<?>, Map<String, Object>> constantsByClass = new HashMap<>();

    /** Where listed classes are looked up: ours, or (in OriginalBindingTest) the original jar's. */
    private final ClassLoader loader;

    public ApiSignatureTest() {
        this(ApiSignatureTest.class.getClassLoader());
    }

    ApiSignatureTest(ClassLoader loader) {
        this.loader = loader;
    }

    @Test
    public void everyMemberOfTheOriginalApiExistsWithTheSameSignature() throws IOException {
        List<String> problems = problems();
        if (!problems.isEmpty()) {
            fail(problems.size() + " problem(s) among the listed members of the original API:\n  " + String.join("\n  ", problems));
        }
    }

    /** Every listed member missing or different in the classes of {@link #loader}. */
    List<String> problems() throws IOException {
        List<String> lines = readList();
        List<String> problems = new ArrayList<>();
        for (int i = 0; i < lines.size(); i++) {
            String line = lines.get(i).trim();
            if (line.isEmpty() || line.startsWith("#")) {
                continue;
            }
            String problem;
            try {
                problem = check(line);
            } catch (MissingClass e) {
                problem = "missing: class " + e.getMessage() + " not found";
            } catch (IllegalArgumentException e) {
                problem = "api-signatures.txt line " + (i + 1) + " is malformed (" + e.getMessage() + ")";
            } catch (LinkageError e) {
                problem = "cannot be inspected: " + e;
            }
            if (problem != null) {
                problems.add(line + "\n      -> " + problem);
            }
        }
        return problems;
    }

    @Test
    public void signatureListDescribesAllSixOriginalClasses() throws IOException {
        Set<String> typeLines = new TreeSet<>();
        Set<String> owners = new TreeSet<>();
        int members = 0;
        for (String line : readList()) {
            String[] t = line.trim().split("\\s+");
            if (line.trim().isEmpty() || t[0].startsWith("#")) {
                continue;
            }
            members++;
            owners.add(t[1]);
            if (t[0].equals("type")) {
                typeLines.add(t[1]);
            }
        }
        assertEquals(ORIGINAL_CLASSES, typeLines);
        assertEquals(ORIGINAL_CLASSES, owners);
        // 6 types, 77 constants, 3 constructors, 151 methods: guards against a truncated file.
        assertEquals(237, members);
    }

    // ---- checks, each returning null when fine or a description of the difference ----

    private String check(String line) {
        String[] t = line.split(" ");
        if (t.length < 3) {
            throw new IllegalArgumentException("too few words");
        }
        String kind = t[0];
        int i = 2;
        int wanted = 0;
        while (i < t.length && modifierBit(t[i]) != 0) {
            wanted |= modifierBit(t[i++]);
        }
        String[] rest = Arrays.copyOfRange(t, i, t.length);
        switch (kind) {
            case "type":
                return checkType(resolve(t[1]), wanted, rest);
            case "field":
                return checkField(resolve(t[1]), wanted, rest);
            case "constructor":
                return checkConstructor(resolve(t[1]), wanted, rest);
            case "method":
                return checkMethod(resolve(t[1]), wanted, rest);
            default:
                throw new IllegalArgumentException("unknown kind " + kind);
        }
    }

    private String checkType(Class<?> owner, int wanted, String[] rest) {
        if (rest.length != 1 && !(rest.length == 3 && rest[1].equals("implements"))) {
            throw new IllegalArgumentException("expected class|interface [implements A,B]");
        }
        List<String> problems = new ArrayList<>();
        boolean wantInterface = kindIsInterface(rest[0]);
        if (owner.isInterface() != wantInterface) {
            problems.add("is " + (owner.isInterface() ? "an interface" : "a class") + ", expected " + rest[0]);
        }
        int ignore = owner.isInterface() ? Modifier.ABSTRACT : 0;
        addIfNotNull(problems, compareModifiers(owner.getModifiers(), wanted, ignore));
        if (rest.length == 3) {
            for (String name : rest[2].split(",")) {
                Class<?> iface = resolve(name);
                if (!(iface.isInterface() && iface.isAssignableFrom(owner))) {
                    problems.add("does not implement " + name);
                }
            }
        }
        return problems.isEmpty() ? null : String.join("; ", problems);
    }

    private String checkField(Class<?> owner, int wanted, String[] rest) {
        if (rest.length != 4 || !rest[2].equals("=")) {
            throw new IllegalArgumentException("expected <type> <NAME> = <value>");
        }
        Class<?> type = resolve(rest[0]);
        String name = rest[1];
        int value = Integer.parseInt(rest[3]);
        Field f;
        try {
            f = owner.getField(name);
        } catch (NoSuchFieldException e) {
            try {
                Field hidden = owner.getDeclaredField(name);
                return "exists but is " + describe(hidden.getModifiers());
            } catch (NoSuchFieldException e2) {
                return "missing";
            }
        }
        List<String> problems = new ArrayList<>();
        if (f.getType() != type) {
            problems.add("has type " + f.getType().getTypeName());
        }
        addIfNotNull(problems, compareModifiers(f.getModifiers(), wanted, 0));
        Object actual = constants(f.getDeclaringClass()).get(name);
        if (actual == null) {
            problems.add("is not a compile-time constant");
        } else if (!actual.equals(value)) {
            problems.add("has value " + actual);
        }
        return problems.isEmpty() ? null : String.join("; ", problems);
    }

    private String checkConstructor(Class<?> owner, int wanted, String[] rest) {
        if (rest.length != 1 || !rest[0].startsWith("(") || !rest[0].endsWith(")")) {
            throw new IllegalArgumentException("expected (<parameter types>)");
        }
        Class<?>[] params = parameters(rest[0].substring(1, rest[0].length() - 1));
        Constructor<?> c;
        try {
            c = owner.getConstructor(params);
        } catch (NoSuchMethodException e) {
            try {
                return "exists but is " + describe(owner.getDeclaredConstructor(params).getModifiers());
            } catch (NoSuchMethodException e2) {
                return "missing; public constructors are " + Arrays.toString(owner.getConstructors());
            }
        }
        return compareModifiers(c.getModifiers(), wanted, 0);
    }

    private String checkMethod(Class<?> owner, int wanted, String[] rest) {
        int open = rest.length == 2 ? rest[1].indexOf('(') : -1;
        if (open <= 0 || !rest[1].endsWith(")")) {
            throw new IllegalArgumentException("expected <return type> <name>(<parameter types>)");
        }
        Class<?> returnType = resolve(rest[0]);
        String name = rest[1].substring(0, open);
        Class<?>[] params = parameters(rest[1].substring(open + 1, rest[1].length() - 1));
        Method m;
        try {
            m = owner.getMethod(name, params);
        } catch (NoSuchMethodException e) {
            try {
                return "exists but is " + describe(owner.getDeclaredMethod(name, params).getModifiers());
            } catch (NoSuchMethodException e2) {
                return "missing" + overloads(owner, name);
            }
        }
        List<String> problems = new ArrayList<>();
        if (m.getReturnType() != returnType) {
            problems.add("returns " + m.getReturnType().getTypeName());
        }
        int ignore = m.getDeclaringClass().isInterface() ? Modifier.ABSTRACT : 0;
        addIfNotNull(problems, compareModifiers(m.getModifiers(), wanted, ignore));
        return problems.isEmpty() ? null : String.join("; ", problems);
    }

    // ---- helpers ----

    static List<String> readList() throws IOException {
        InputStream in = ApiSignatureTest.class.getResourceAsStream(LIST);
        assertTrue(LIST + " is not on the class path", in != null);
        List<String> lines = new ArrayList<>();
        try (BufferedReader r = new BufferedReader(new InputStreamReader(in, StandardCharsets.UTF_8))) {
            for (String line; (line = r.readLine()) != null; ) {
                lines.add(line);
            }
        }
        return lines;
    }

    private static boolean kindIsInterface(String word) {
        if (!word.equals("class") && !word.equals("interface")) {
            throw new IllegalArgumentException("expected class or interface, got " + word);
        }
        return word.equals("interface");
    }

    private static int modifierBit(String word) {
        switch (word) {
            case "public": return Modifier.PUBLIC;
            case "protected": return Modifier.PROTECTED;
            case "private": return Modifier.PRIVATE;
            case "static": return Modifier.STATIC;
            case "final": return Modifier.FINAL;
            case "abstract": return Modifier.ABSTRACT;
            default: return 0;
        }
    }

    private static String compareModifiers(int actual, int wanted, int ignore) {
        int mask = CHECKED & ~ignore;
        if ((actual & mask) == (wanted & mask)) {
            return null;
        }
        return "is " + describe(actual & mask) + ", expected " + describe(wanted & mask);
    }

    private static String describe(int modifiers) {
        String s = Modifier.toString(modifiers & CHECKED);
        return s.isEmpty() ? "package-private" : s;
    }

    private static void addIfNotNull(List<String> list, String s) {
        if (s != null) {
            list.add(s);
        }
    }

    private static String overloads(Class<?> owner, String name) {
        List<String> found = new ArrayList<>();
        for (Method m : owner.getMethods()) {
            if (m.getName().equals(name)) {
                found.add(signature(m));
            }
        }
        return found.isEmpty() ? "" : "; public overloads are " + found;
    }

    private static String signature(Executable e) {
        List<String> types = new ArrayList<>();
        for (Class<?> p : e.getParameterTypes()) {
            types.add(p.getTypeName());
        }
        return e.getName() + "(" + String.join(",", types) + ")";
    }

    private Class<?> resolve(String type) {
        if (type.endsWith("[]")) {
            return Array.newInstance(resolve(type.substring(0, type.length() - 2)), 0).getClass();
        }
        Class<?> primitive = PRIMITIVES.get(type);
        if (primitive != null) {
            return primitive;
        }
        if (!type.contains(".")) {
            throw new IllegalArgumentException("class name not fully qualified: " + type);
        }
        Class<?> c = loaded.get(type);
        if (c == null) {
            try {
                // Not initialized: static initializers (native library loading) do not run.
                c = Class.forName(type, false, loader);
            } catch (ClassNotFoundException e) {
                throw new MissingClass(type);
            }
            loaded.put(type, c);
        }
        return c;
    }

    private Class<?>[] parameters(String list) {
        if (list.isEmpty()) {
            return new Class<?>[0];
        }
        String[] names = list.split(",", -1);
        Class<?>[] types = new Class<?>[names.length];
        for (int i = 0; i < names.length; i++) {
            types[i] = resolve(names[i]);
        }
        return types;
    }

    private Map<String, Object> constants(Class<?> c) {
        return constantsByClass.computeIfAbsent(c, k -> {
            try {
                return readConstantValues(k);
            } catch (IOException e) {
                throw new AssertionError("cannot read the class file of " + k.getName(), e);
            }
        });
    }

    /**
     * Returns the ConstantValue attribute of each field in the class file (JVMS 4.7.2): javac
     * writes one exactly for static final fields initialized with a constant expression.
     */
    private static Map<String, Object> readConstantValues(Class<?> c) throws IOException {
        String resource = "/" + c.getName().replace('.', '/') + ".class";
        InputStream raw = c.getResourceAsStream(resource);
        if (raw == null) {
            throw new IOException(resource + " not found");
        }
        Map<String, Object> values = new HashMap<>();
        try (DataInputStream in = new DataInputStream(new BufferedInputStream(raw))) {
            if (in.readInt() != 0xCAFEBABE) {
                throw new IOException("bad magic");
            }
            in.readUnsignedShort(); // minor version
            in.readUnsignedShort(); // major version
            Object[] pool = new Object[in.readUnsignedShort()];
            for (int i = 1; i < pool.length; i++) {
                int tag = in.readUnsignedByte();
                switch (tag) {
                    case 1: pool[i] = in.readUTF(); break; // modified UTF-8, like the class file
                    case 3: pool[i] = in.readInt(); break;
                    case 4: pool[i] = in.readFloat(); break;
                    case 5: pool[i++] = in.readLong(); break; // longs and doubles take two slots
                    case 6: pool[i++] = in.readDouble(); break;
                    case 7: case 8: case 16: case 19: case 20: skip(in, 2); break;
                    case 15: skip(in, 3); break;
                    case 9: case 10: case 11: case 12: case 17: case 18: skip(in, 4); break;
                    default: throw new IOException("unknown constant pool tag " + tag);
                }
            }
            skip(in, 6); // access flags, this class, super class
            skip(in, 2 * in.readUnsignedShort()); // interfaces
            int fields = in.readUnsignedShort();
            for (int f = 0; f < fields; f++) {
                skip(in, 2); // access flags
                String name = (String) pool[in.readUnsignedShort()];
                skip(in, 2); // descriptor
                int attributes = in.readUnsignedShort();
                for (int a = 0; a < attributes; a++) {
                    String attribute = (String) pool[in.readUnsignedShort()];
                    int length = in.readInt();
                    if (attribute.equals("ConstantValue")) {
                        values.put(name, pool[in.readUnsignedShort()]);
                    } else {
                        skip(in, length);
                    }
                }
            }
        }
        return values;
    }

    private static void skip(DataInputStream in, int n) throws IOException {
        in.readFully(new byte[n]);
    }

    /** A class named in the list, as owner or in a signature, does not exist. */
    private static final class MissingClass extends RuntimeException {
        private static final long serialVersionUID = 1L;

        MissingClass(String name) {
            super(name, null, false, false);
        }
    }
}
