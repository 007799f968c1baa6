package org.rockcask;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertTrue;

import java.io.ByteArrayInputStream;
import java.io.DataInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.lang.module.ModuleDescriptor;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileSystem;
import java.nio.file.FileSystems;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.Deque;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import javax.tools.JavaCompiler;
import javax.tools.ToolProvider;
import org.junit.Rule;
import org.junit.Test;
import org.junit.rules.TemporaryFolder;

/**
 * What the jar's packages may use of each other, and what its module lets others use, read from
 * the compiled classes rather than the sources: a class's constant pool names every class it
 * uses, those written out in full without an import too. The packages form no cycle, the
 * internals (the loader and the guard) use no other package of the jar, and the module exports
 * the API packages to everyone and the internals only to the drop-in. The reader is shown to
 * find a cycle in classes compiled for that purpose.
 */
public class PackageLayoutTest {
    /** The packages that are API: exported to everyone and documented. */
    private static final Set<String> API = new TreeSet<>(Arrays.asList("org.rockcask", "org.rockcask.codec", "org.rockcask.management"));
    private static final String INTERNAL = "org.rockcask.internal";
    private static final String DROP_IN = "org.rockcask.tokyocabinet";

    @Rule
    public TemporaryFolder tmp = new TemporaryFolder();

    /** Where this build's main classes are: the directory (or jar) {@code Store} was loaded from. */
    private static Path mainClasses() throws Exception {
        return Paths.get(Store.class.getProtectionDomain().getCodeSource().getLocation().toURI());
    }

    @Test
    public void theJarsPackagesFormNoCycle() throws Exception {
        Map<String, Map<String, String>> uses = packageUses(mainClasses());
        assertTrue("read the packages of " + mainClasses() + ": " + uses.keySet(), uses.keySet().containsAll(API));
        assertEquals("a package cycle: " + describe(cycle(uses), uses), Collections.emptyList(), cycle(uses));
    }

    @Test
    public void theInternalsUseNoOtherPackageOfTheJar() throws Exception {
        Map<String, Map<String, String>> uses = packageUses(mainClasses());
        assertTrue("read " + INTERNAL + " from " + mainClasses(), uses.containsKey(INTERNAL));
        assertEquals(INTERNAL + " holds only the loader and the guard, which use nothing above them",
                Collections.emptyMap(), uses.get(INTERNAL));
    }

    @Test
    public void theModuleExportsTheApiToEveryoneAndTheInternalsOnlyToTheDropIn() throws Exception {
        ModuleDescriptor module = moduleDescriptor(mainClasses());
        assertEquals("org.rockcask", module.name());
        assertFalse("a declared module, not an automatic one", module.isAutomatic());
        Set<String> toEveryone = new TreeSet<>();
        Map<String, Set<String>> qualified = new TreeMap<>();
        for (ModuleDescriptor.Exports e : module.exports()) {
            if (e.isQualified()) {
                qualified.put(e.source(), new TreeSet<>(e.targets()));
            } else {
                toEveryone.add(e.source());
            }
        }
        assertFalse(INTERNAL + " is exported to everyone", toEveryone.contains(INTERNAL));
        assertEquals("the packages exported to everyone", API, toEveryone);
        assertEquals("the packages exported to named modules only", Collections.singletonMap(INTERNAL, Collections.singleton(DROP_IN)), qualified);
        assertTrue("the JMX beans' module is read", module.requires().stream().anyMatch(r -> r.name().equals("java.management")));
        assertEquals("nothing is opened to deep reflection", Collections.emptySet(), module.opens());
    }

    /** The cycle reader itself: two packages that use each other, one of them only through a generic signature. */
    @Test
    public void aCycleIsFoundAndNamedWithTheClassesThatMakeIt() throws Exception {
        Path sources = tmp.newFolder("src").toPath();
        Path classes = tmp.newFolder("classes").toPath();
        write(sources.resolve("a/A.java"), "package a; public class A { java.util.List<b.B> items; }");
        write(sources.resolve("b/B.java"), "package b; public class B { Object make() { return new a.A(); } }");
        write(sources.resolve("c/C.java"), "package c; public class C { b.B b = new b.B(); }");
        JavaCompiler javac = ToolProvider.getSystemJavaCompiler();
        assertEquals(0, javac.run(null, null, null, "-d", classes.toString(), sources.resolve("a/A.java").toString(),
                sources.resolve("b/B.java").toString(), sources.resolve("c/C.java").toString()));

        Map<String, Map<String, String>> uses = packageUses(classes);
        assertEquals(Collections.singletonMap("b", "c.C uses b.B"), uses.get("c"));
        assertEquals(Arrays.asList("a", "b", "a"), cycle(uses));
        assertEquals("a -> b (a.A uses b.B) -> a (b.B uses a.A)", describe(cycle(uses), uses));
    }

    private static void write(Path file, String text) throws IOException {
        Files.createDirectories(file.getParent());
        Files.write(file, text.getBytes(StandardCharsets.UTF_8));
    }

    /** The class files under {@code root} (a directory, or a jar), by their path inside it. */
    private static Map<String, byte[]> classFiles(Path root) throws IOException {
        if (Files.isDirectory(root)) {
            return classFilesUnder(root);
        }
        try (FileSystem jar = FileSystems.newFileSystem(URI.create("jar:" + root.toUri()), Collections.emptyMap())) {
            return classFilesUnder(jar.getPath("/"));
        }
    }

    private static Map<String, byte[]> classFilesUnder(Path root) throws IOException {
        Map<String, byte[]> files = new TreeMap<>();
        try (Stream<Path> walk = Files.walk(root)) {
            for (Path p : walk.filter(f -> f.toString().endsWith(".class")).collect(Collectors.toList())) {
                files.put(root.relativize(p).toString().replace('\\', '/'), Files.readAllBytes(p));
            }
        }
        return files;
    }

    private static ModuleDescriptor moduleDescriptor(Path root) throws IOException {
        byte[] descriptor = classFiles(root).get("module-info.class");
        assertTrue(root + " has a module-info.class", descriptor != null);
        try (InputStream in = new ByteArrayInputStream(descriptor)) {
            return ModuleDescriptor.read(in);
        }
    }

    /**
     * For each package of the classes under {@code root}: the other packages among them that its
     * classes use, each with one use as an example ({@code "p.A uses q.B"}).
     */
    static Map<String, Map<String, String>> packageUses(Path root) throws IOException {
        Map<String, byte[]> files = classFiles(root);
        files.remove("module-info.class");
        Set<String> packages = new TreeSet<>();
        for (String path : files.keySet()) {
            packages.add(packageOf(path.substring(0, path.length() - ".class".length())));
        }
        Map<String, Map<String, String>> uses = new TreeMap<>();
        for (String pkg : packages) {
            uses.put(pkg, new TreeMap<>());
        }
        for (Map.Entry<String, byte[]> file : files.entrySet()) {
            String user = file.getKey().substring(0, file.getKey().length() - ".class".length());
            String from = packageOf(user);
            for (String used : new TreeSet<>(classesUsed(file.getValue()))) {
                String to = packageOf(used);
                if (!to.equals(from) && packages.contains(to)) {
                    uses.get(from).putIfAbsent(to, binaryName(user) + " uses " + binaryName(used));
                }
            }
        }
        return uses;
    }

    private static String packageOf(String internalName) {
        int slash = internalName.lastIndexOf('/');
        return slash < 0 ? "" : internalName.substring(0, slash).replace('/', '.');
    }

    private static String binaryName(String internalName) {
        return internalName.replace('/', '.');
    }

    /** A type in a descriptor or a generic signature: {@code Lpkg/Name;} or {@code Lpkg/Name<...>;}. */
    private static final Pattern DESCRIBED_TYPE = Pattern.compile("L([A-Za-z_$][\\w$]*(?:/[A-Za-z_$][\\w$]*)+)[;<.]");

    /**
     * The classes (internal names) a class file's constant pool names: its class entries, and the
     * types in its descriptors and signatures (every UTF-8 entry that is not a string literal).
     */
    static Set<String> classesUsed(byte[] classFile) throws IOException {
        DataInputStream in = new DataInputStream(new ByteArrayInputStream(classFile));
        if (in.readInt() != 0xCAFEBABE) {
            throw new IOException("not a class file");
        }
        in.readUnsignedShort(); // minor version
        in.readUnsignedShort(); // major version
        int count = in.readUnsignedShort();
        String[] utf8 = new String[count];
        List<Integer> classNames = new ArrayList<>();
        Set<Integer> literals = new HashSet<>();
        for (int i = 1; i < count; i++) {
            int tag = in.readUnsignedByte();
            switch (tag) {
                case 1: // Utf8, in the class file's modified UTF-8, as readUTF reads it
                    utf8[i] = in.readUTF();
                    break;
                case 7: // Class
                    classNames.add(in.readUnsignedShort());
                    break;
                case 8: // String
                    literals.add(in.readUnsignedShort());
                    break;
                case 16: // MethodType
                case 19: // Module
                case 20: // Package
                    in.readUnsignedShort();
                    break;
                case 15: // MethodHandle
                    in.readUnsignedByte();
                    in.readUnsignedShort();
                    break;
                case 3: // Integer
                case 4: // Float
                case 9: // Fieldref
                case 10: // Methodref
                case 11: // InterfaceMethodref
                case 12: // NameAndType
                case 17: // Dynamic
                case 18: // InvokeDynamic
                    in.readInt();
                    break;
                case 5: // Long
                case 6: // Double: two entries
                    in.readLong();
                    i++;
                    break;
                default:
                    throw new IOException("constant pool entry " + i + " has the unknown tag " + tag);
            }
        }
        Set<String> used = new HashSet<>();
        for (int index : classNames) {
            String name = utf8[index];
            if (name.startsWith("[")) {
                addDescribedTypes(name, used);
            } else {
                used.add(name);
            }
        }
        for (int i = 1; i < count; i++) {
            if (utf8[i] != null && !literals.contains(i)) {
                addDescribedTypes(utf8[i], used);
            }
        }
        return used;
    }

    private static void addDescribedTypes(String text, Set<String> into) {
        Matcher m = DESCRIBED_TYPE.matcher(text);
        while (m.find()) {
            into.add(m.group(1));
        }
    }

    /** A cycle of packages, its first package repeated at its end; empty when there is none. */
    static List<String> cycle(Map<String, Map<String, String>> uses) {
        for (String start : uses.keySet()) {
            Map<String, String> reachedFrom = new HashMap<>();
            Deque<String> queue = new ArrayDeque<>(Collections.singleton(start));
            while (!queue.isEmpty()) {
                String pkg = queue.poll();
                for (String next : uses.getOrDefault(pkg, Collections.emptyMap()).keySet()) {
                    if (next.equals(start)) {
                        LinkedList<String> path = new LinkedList<>(Collections.singleton(start));
                        for (String p = pkg; p != null; p = reachedFrom.get(p)) {
                            path.addFirst(p);
                        }
                        return path;
                    }
                    if (!reachedFrom.containsKey(next) && !next.equals(start)) {
                        reachedFrom.put(next, pkg);
                        queue.add(next);
                    }
                }
            }
        }
        return Collections.emptyList();
    }

    /** {@code a -> b (a.A uses b.B) -> a (b.B uses a.A)}. */
    static String describe(List<String> cycle, Map<String, Map<String, String>> uses) {
        if (cycle.isEmpty()) {
            return "none";
        }
        StringBuilder s = new StringBuilder(cycle.get(0));
        for (int i = 1; i < cycle.size(); i++) {
            s.append(" -> ").append(cycle.get(i)).append(" (").append(uses.get(cycle.get(i - 1)).get(cycle.get(i))).append(')');
        }
        return s.toString();
    }
}
