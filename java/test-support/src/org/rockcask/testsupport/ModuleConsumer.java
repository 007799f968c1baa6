package org.rockcask.testsupport;

import java.io.ByteArrayOutputStream;
import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import javax.tools.JavaCompiler;
import javax.tools.ToolProvider;

/**
 * A named module written by a test, compiled against published jars on the module path and run
 * in a JVM of its own with them: how an application that is itself a module uses RockCask. The
 * tests that use it show what such an application can reach, and that it runs.
 */
public final class ModuleConsumer {
    /** The jars' module path (File.pathSeparator-separated). */
    private final String jars;
    private final Path workDir;
    private final Path sources;
    private final Path classes;

    /** {@code jars}: the module path (File.pathSeparator-separated), as the build passes it. */
    public ModuleConsumer(String jars, Path workDir) throws IOException {
        this.jars = jars;
        this.workDir = workDir;
        this.sources = Files.createDirectories(workDir.resolve("src"));
        this.classes = Files.createDirectories(workDir.resolve("classes"));
    }

    /** Writes the source file {@code relative} (under the module's source root). */
    public ModuleConsumer source(String relative, String text) throws IOException {
        Path file = sources.resolve(relative);
        Files.createDirectories(file.getParent());
        Files.write(file, text.getBytes(StandardCharsets.UTF_8));
        return this;
    }

    /** Compiles the sources written so far (the module-info.java among them), with javac's messages. */
    public Compiled compile() throws IOException {
        // An explicit class path (the empty output directory): javac run in this JVM would
        // otherwise take this JVM's class path, where the jars' packages are in the unnamed
        // module too, and which copy of a package it then names in its messages varies.
        List<String> args = new ArrayList<>(Arrays.asList("--release", "11", "--module-path", jars, "--class-path", classes.toString(),
                "-d", classes.toString()));
        try (java.util.stream.Stream<Path> files = Files.walk(sources)) {
            files.filter(p -> p.toString().endsWith(".java")).forEach(p -> args.add(p.toString()));
        }
        JavaCompiler javac = ToolProvider.getSystemJavaCompiler();
        ByteArrayOutputStream messages = new ByteArrayOutputStream();
        int status = javac.run(null, messages, messages, args.toArray(new String[0]));
        return new Compiled(status == 0, messages.toString(StandardCharsets.UTF_8.name()));
    }

    /** What javac made of the sources. */
    public static final class Compiled {
        public final boolean ok;
        public final String messages;

        Compiled(boolean ok, String messages) {
            this.ok = ok;
            this.messages = messages;
        }
    }

    /**
     * Runs {@code module/mainClass} with the jars and the compiled module on the module path (and
     * nothing on the class path); returns its exit status and what it printed, both streams.
     */
    public Run run(String module, String mainClass, String... args) throws Exception {
        String java = System.getProperty("rockcask.test.java", System.getProperty("java.home") + File.separator + "bin" + File.separator + "java");
        // On the module path the library is loaded by org.rockcask: the module README names.
        List<String> cmd = new ArrayList<>(Arrays.asList(java, "-Xmx256m", "-Xcheck:jni", "--enable-native-access=org.rockcask",
                "--module-path", jars + File.pathSeparator + classes,
                "-m", module + "/" + mainClass));
        cmd.addAll(Arrays.asList(args));
        ProcessBuilder pb = new ProcessBuilder(cmd).redirectErrorStream(true).directory(workDir.toFile());
        Map<String, String> env = pb.environment();
        // Nothing of the test run's class path reaches the child.
        env.remove("CLASSPATH");
        Process p = pb.start();
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        try (InputStream in = p.getInputStream()) {
            in.transferTo(out);
        }
        if (!p.waitFor(2, TimeUnit.MINUTES)) {
            p.destroyForcibly();
            throw new AssertionError(String.join(" ", cmd) + " did not finish in 2 minutes");
        }
        return new Run(p.exitValue(), out.toString(StandardCharsets.UTF_8.name()), String.join(" ", cmd));
    }

    /** A finished run of the module. */
    public static final class Run {
        public final int status;
        public final String output;
        public final String command;

        Run(int status, String output, String command) {
            this.status = status;
            this.output = output;
            this.command = command;
        }

        @Override
        public String toString() {
            return command + " exited with " + status + ":\n" + output;
        }
    }
}
