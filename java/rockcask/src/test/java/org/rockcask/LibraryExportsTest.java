package org.rockcask;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertNotNull;
import static org.junit.Assert.assertTrue;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.junit.Rule;
import org.junit.Test;
import org.junit.rules.TemporaryFolder;

/**
 * The library the jar ships can sit in one JVM beside another RocksDB JNI library (RocksJava,
 * Flink's frocksdbjni): it exports nothing but its JNI entry points, so no RocksDB or Rust symbol
 * can bind to the other library's, and it takes the C++ runtime from the system, as they do.
 */
public class LibraryExportsTest {
    @Rule
    public TemporaryFolder tmp = new TemporaryFolder();

    private Path shippedLibrary() throws IOException {
        String resource = System.getProperty("rockcask.test.packedLibrary");
        assertNotNull("the build names the packed library", resource);
        Path copy = tmp.getRoot().toPath().resolve("librockcask.so");
        try (InputStream in = LibraryExportsTest.class.getResourceAsStream(resource)) {
            assertNotNull("the jar carries " + resource, in);
            Files.copy(in, copy, StandardCopyOption.REPLACE_EXISTING);
        }
        return copy;
    }

    private static List<String> run(String... command) throws Exception {
        Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
        List<String> lines = new ArrayList<>();
        try (BufferedReader r = new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8))) {
            for (String line; (line = r.readLine()) != null; ) {
                lines.add(line);
            }
        }
        assertEquals(String.join(" ", command) + ": " + lines, 0, p.waitFor());
        return lines;
    }

    @Test
    public void theShippedLibraryExportsOnlyJavaEntryPoints() throws Exception {
        List<String> defined = run("nm", "-D", "--defined-only", shippedLibrary().toString());
        List<String> symbols = new ArrayList<>();
        for (String line : defined) {
            String[] fields = line.trim().split("\\s+");
            symbols.add(fields[fields.length - 1]);
        }
        assertFalse("nm listed the library's symbols", symbols.isEmpty());
        for (String symbol : symbols) {
            assertTrue("exported symbol " + symbol + " is not a JNI entry point; all: " + symbols, symbol.startsWith("Java_"));
        }
    }

    @Test
    public void theShippedLibraryLinksTheCppRuntimeDynamically() throws Exception {
        List<String> dynamic = run("readelf", "-d", shippedLibrary().toString());
        boolean needsLibstdcxx = false;
        for (String line : dynamic) {
            needsLibstdcxx |= line.contains("(NEEDED)") && line.contains("libstdc++.so");
        }
        assertTrue("libstdc++ is a NEEDED library, not linked in: " + Arrays.toString(dynamic.toArray()), needsLibstdcxx);
    }
}
