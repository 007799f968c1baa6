package org.rockcask;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.lang.reflect.Method;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import javax.tools.JavaCompiler;
import javax.tools.ToolProvider;
import org.junit.Rule;
import org.junit.Test;
import org.junit.rules.TemporaryFolder;

/** The usage example in README.md compiles against this API and does what it says. */
public class ReadmeExampleTest {
    @Rule
    public TemporaryFolder tmp = new TemporaryFolder();

    @Test
    public void theReadmeExampleCompilesAndRuns() throws Exception {
        String code = ReadmeExampleCode.read();
        assertTrue("the example is about 20-40 lines", code.split("\n").length <= 40);

        Path src = tmp.newFolder("src").toPath().resolve("ReadmeExample.java");
        Files.write(src, code.getBytes(StandardCharsets.UTF_8));
        Path classes = tmp.newFolder("classes").toPath();
        JavaCompiler javac = ToolProvider.getSystemJavaCompiler();
        ByteArrayOutputStream diagnostics = new ByteArrayOutputStream();
        int rc = javac.run(null, diagnostics, diagnostics, "-classpath", System.getProperty("java.class.path"), "-d", classes.toString(), src.toString());
        assertEquals("README example compiles: " + diagnostics, 0, rc);

        PrintStream original = System.out;
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        try (URLClassLoader loader = new URLClassLoader(new URL[] {classes.toUri().toURL()}, getClass().getClassLoader())) {
            Method main = loader.loadClass("ReadmeExample").getMethod("main", String[].class);
            System.setOut(new PrintStream(out, true, "UTF-8"));
            main.invoke(null, (Object) new String[] {tmp.getRoot().toPath().resolve("store").toString()});
        } finally {
            System.setOut(original);
        }
        assertEquals("[count.in, index.in, parse.out] count.in=1", out.toString("UTF-8").trim());
    }
}
