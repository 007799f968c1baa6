package org.rockcask.bench;

import java.io.File;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * The command line of a benchmark's child JVM: this JVM's java, the heap given, the benchmark
 * directory, and the children's classpath, the system property {@code rockcask.bench.classpath}
 * (else this JVM's).
 */
public final class ChildJvm {
    private ChildJvm() {}

    public static List<String> command(String heap, Path benchRoot, String mainClass, List<String> args) {
        List<String> cmd = new ArrayList<>();
        cmd.add(System.getProperty("java.home") + File.separator + "bin" + File.separator + "java");
        cmd.add("-Xmx" + heap);
        // lmdbjava reads direct buffers' addresses through these packages.
        cmd.addAll(Arrays.asList("--add-opens", "java.base/java.nio=ALL-UNNAMED", "--add-opens", "java.base/sun.nio.ch=ALL-UNNAMED"));
        cmd.add("-Drockcask.bench.dir=" + benchRoot);
        cmd.add("-cp");
        cmd.add(System.getProperty("rockcask.bench.classpath", System.getProperty("java.class.path")));
        cmd.add(mainClass);
        cmd.addAll(args);
        return cmd;
    }
}
