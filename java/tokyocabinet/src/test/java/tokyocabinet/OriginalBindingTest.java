package tokyocabinet;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertNotNull;
import static org.junit.Assert.assertTrue;
import static org.junit.Assert.fail;

import java.io.ByteArrayOutputStream;
import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.lang.reflect.Constructor;
import java.lang.reflect.Executable;
import java.lang.reflect.Field;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import javax.tools.JavaCompiler;
import javax.tools.ToolProvider;
import org.junit.Rule;
import org.junit.Test;
import org.junit.rules.TemporaryFolder;

/**
 * The drop-in against the original Tokyo Cabinet Java binding itself (1.24 over Tokyo Cabinet
 * 1.4.48, from Maven Central with its native library): the signature list matches the original
 * jar in both directions, and a program compiled against the original jar runs unchanged on the
 * drop-in with the same output as on the original.
 */
public class OriginalBindingTest {
    @Rule
    public TemporaryFolder tmp = new TemporaryFolder();

    private static String classpath(String property) {
        String cp = System.getProperty(property);
        assertNotNull("system property " + property + " (set by the Gradle build)", cp);
        return cp;
    }

    private static URLClassLoader originalLoader() throws IOException {
        List<URL> urls = new ArrayList<>();
        for (String entry : classpath("tokyocabinet.original.classpath").split(File.pathSeparator)) {
            urls.add(new File(entry).toURI().toURL());
        }
        return new URLClassLoader(urls.toArray(new URL[0]), ClassLoader.getPlatformClassLoader());
    }

    @Test
    public void everyListedMemberExistsInTheOriginalJarWithTheSameSignature() throws IOException {
        try (URLClassLoader original = originalLoader()) {
            List<String> problems = new ApiSignatureTest(original).problems();
            assertTrue("the signature list does not describe the original jar:\n  " + String.join("\n  ", problems), problems.isEmpty());
        }
    }

    @Test
    public void everyPublicMemberOfTheOriginalJarIsListed() throws Exception {
        Set<String> listed = new TreeSet<>();
        for (String line : ApiSignatureTest.readList()) {
            String[] t = line.trim().split("\\s+");
            if (line.trim().isEmpty() || t[0].startsWith("#") || t[0].equals("type")) {
                continue;
            }
            String last = t[t.length - 1];
            String name = t[0].equals("field") ? t[t.length - 3] : t[0].equals("constructor") ? "<init>" + last : last;
            listed.add(t[1] + " " + name);
        }
        Set<String> missing = new TreeSet<>();
        try (URLClassLoader original = originalLoader()) {
            for (String className : ApiSignatureTest.ORIGINAL_CLASSES) {
                Class<?> c = Class.forName(className, false, original);
                for (Field f : c.getDeclaredFields()) {
                    if (Modifier.isPublic(f.getModifiers()) && !listed.contains(className + " " + f.getName())) {
                        missing.add(className + " field " + f.getName());
                    }
                }
                List<Executable> executables = new ArrayList<>(Arrays.asList(c.getDeclaredMethods()));
                executables.addAll(Arrays.asList(c.getDeclaredConstructors()));
                for (Executable e : executables) {
                    if (!Modifier.isPublic(e.getModifiers())) {
                        continue;
                    }
                    String name = (e instanceof Constructor ? "<init>" : e.getName()) + params(e);
                    if (e instanceof Method && e.getName().equals("finalize")) {
                        continue;
                    }
                    if (!listed.contains(className + " " + name)) {
                        missing.add(className + " " + name);
                    }
                }
            }
        }
        assertTrue("public members of the original jar not in the signature list: " + missing, missing.isEmpty());
    }

    private static String params(Executable e) {
        List<String> types = new ArrayList<>();
        for (Class<?> p : e.getParameterTypes()) {
            types.add(p.getTypeName());
        }
        return "(" + String.join(",", types) + ")";
    }

    @Test
    public void aProgramCompiledAgainstTheOriginalJarRunsOnTheDropInWithTheSameResults() throws Exception {
        Path src = tmp.newFolder("src").toPath().resolve("CompatTour.java");
        try (InputStream in = OriginalBindingTest.class.getResourceAsStream("/compat/CompatTour.java")) {
            Files.copy(in, src);
        }
        File classes = tmp.newFolder("classes");
        JavaCompiler javac = ToolProvider.getSystemJavaCompiler();
        ByteArrayOutputStream diagnostics = new ByteArrayOutputStream();
        int rc = javac.run(null, diagnostics, diagnostics, "-nowarn", "-cp", classpath("tokyocabinet.original.classpath"), "-d",
                classes.getPath(), src.toString());
        assertEquals("compiling against the original jar:\n" + diagnostics, 0, rc);

        List<String> original = run(classes + File.pathSeparator + classpath("tokyocabinet.original.classpath"), tmp.newFolder("original"));
        List<String> dropIn = run(classes + File.pathSeparator + classpath("tokyocabinet.dropin.classpath"), tmp.newFolder("dropin"));
        assertTrue("the tour printed too little on the original: " + original, original.size() > 150);
        List<String> differences = new ArrayList<>();
        for (int i = 0; i < Math.max(original.size(), dropIn.size()); i++) {
            String o = i < original.size() ? original.get(i) : "(nothing)";
            String d = i < dropIn.size() ? dropIn.get(i) : "(nothing)";
            if (o.startsWith("differs ")) {
                continue;
            }
            if (!o.equals(d)) {
                differences.add("original: " + o + "\n    drop-in:  " + d);
            }
        }
        assertTrue(differences.size() + " line(s) differ:\n  " + String.join("\n  ", differences), differences.isEmpty());
        // The documented differences, each side as expected.
        assertTrue(original.contains("differs vnum q: 1") && dropIn.contains("differs vnum q: 3"));
        assertTrue(original.contains("differs copy @true: true") && dropIn.contains("differs copy @true: false [ecode 2]"));
    }

    private static List<String> run(String classpath, File dir) throws IOException, InterruptedException {
        String java = System.getProperty("rockcask.test.java", System.getProperty("java.home") + "/bin/java");
        Process p = new ProcessBuilder(java, "-Xmx256m", "--enable-native-access=ALL-UNNAMED", "-cp", classpath, "CompatTour", dir.getPath()).redirectErrorStream(true).start();
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        try (InputStream in = p.getInputStream()) {
            in.transferTo(out);
        }
        if (!p.waitFor(120, TimeUnit.SECONDS)) {
            p.destroyForcibly();
            fail("CompatTour did not finish");
        }
        List<String> lines = new ArrayList<>();
        for (String line : out.toString(StandardCharsets.UTF_8.name()).split("\n")) {
            if (!line.startsWith("SLF4J")) {
                lines.add(line);
            }
        }
        assertEquals("CompatTour exit status; output:\n" + String.join("\n", lines), 0, p.exitValue());
        return lines;
    }
}
