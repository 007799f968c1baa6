package org.rockcask;

import static org.junit.Assert.assertEquals;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import javax.xml.parsers.DocumentBuilderFactory;
import org.junit.Test;
import org.rockcask.internal.NativeLibrary;
import org.w3c.dom.NodeList;

/** java/examples/maven-consumer stays in step with this checkout: its version and the README's example. */
public class MavenConsumerExampleTest {
    private static final Path CONSUMER = Paths.get(System.getProperty("rockcask.mavenConsumer", "../examples/maven-consumer"));

    @Test
    public void itsDefaultRockCaskVersionIsThisBuildsVersion() throws Exception {
        NodeList versions = DocumentBuilderFactory.newInstance().newDocumentBuilder()
                .parse(CONSUMER.resolve("pom.xml").toFile()).getElementsByTagName("rockcask.version");
        assertEquals("pom.xml defines rockcask.version once", 1, versions.getLength());
        assertEquals("the rockcask.version of " + CONSUMER.resolve("pom.xml"), NativeLibrary.javaVersion(), versions.item(0).getTextContent().trim());
    }

    @Test
    public void itRunsTheReadmeExampleAsTheReadmeWritesIt() throws Exception {
        Path copy = CONSUMER.resolve("src/main/java/ReadmeExample.java");
        assertEquals(copy + " is README.md's example", ReadmeExampleCode.read().trim(),
                new String(Files.readAllBytes(copy), StandardCharsets.UTF_8).trim());
    }
}
