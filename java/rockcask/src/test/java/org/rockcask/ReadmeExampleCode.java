package org.rockcask;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Paths;

/** The Java code of README.md's usage example: what is between its example markers. */
final class ReadmeExampleCode {
    private ReadmeExampleCode() {
    }

    static String read() throws IOException {
        String readme = new String(Files.readAllBytes(Paths.get(System.getProperty("rockcask.readme", "../../README.md"))), StandardCharsets.UTF_8);
        int start = readme.indexOf("<!-- example:start");
        int end = readme.indexOf("<!-- example:end -->");
        if (start < 0 || end < start) {
            throw new AssertionError("README.md has no <!-- example:start --> ... <!-- example:end --> block");
        }
        String block = readme.substring(start, end);
        return block.substring(block.indexOf("```java") + "```java".length(), block.lastIndexOf("```"));
    }
}
