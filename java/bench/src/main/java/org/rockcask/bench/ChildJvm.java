package org.rockcask.bench;

import java.io.BufferedReader;
import java.io.File;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Predicate;

/**
 * The command line of a benchmark's child JVM: this JVM's java, the heap given, the benchmark
 * directory, and the children's classpath, the system property {@code rockcask.bench.classpath}
 * (else this JVM's); and {@link #run}, which runs one and picks its result line out of its output.
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

    /** How a child ended: its result line (null if it printed none), its last other line, its exit code. */
    public static final class Outcome {
        public final String resultLine;
        private final String lastOther;
        private final int exit;
        private final long stoppedAfterSeconds;

        private Outcome(String resultLine, String lastOther, int exit, long stoppedAfterSeconds) {
            this.resultLine = resultLine;
            this.lastOther = lastOther;
            this.exit = exit;
            this.stoppedAfterSeconds = stoppedAfterSeconds;
        }

        public boolean stopped() {
            return stoppedAfterSeconds > 0;
        }

        /** Why there is no result, with the child's last words. */
        public String failure() {
            String last = lastOther.isEmpty() ? "" : (stopped() ? "; last: " : ": ") + lastOther;
            return (stopped() ? "stopped after " + stoppedAfterSeconds + " s" : "child exited with " + exit) + last;
        }
    }

    /**
     * Runs {@code cmd}, echoing its output indented except the lines {@code isResult} takes (the
     * last one is the outcome's); stops it after {@code timeoutSeconds} (none if 0 or less).
     */
    public static Outcome run(List<String> cmd, Predicate<String> isResult, long timeoutSeconds) throws IOException, InterruptedException {
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
        ScheduledExecutorService timer = Executors.newSingleThreadScheduledExecutor();
        AtomicBoolean stopped = new AtomicBoolean();
        try {
            if (timeoutSeconds > 0) {
                timer.schedule(() -> {
                    stopped.set(true);
                    p.destroyForcibly();
                }, timeoutSeconds, TimeUnit.SECONDS);
            }
            String result = null;
            String last = "";
            try (BufferedReader r = new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8))) {
                for (String line; (line = r.readLine()) != null;) {
                    if (isResult.test(line)) {
                        result = line;
                    } else {
                        System.out.println("        | " + line);
                        last = line;
                    }
                }
            }
            int exit = p.waitFor();
            return new Outcome(stopped.get() ? null : result, last, exit, stopped.get() ? timeoutSeconds : 0);
        } finally {
            timer.shutdownNow();
        }
    }
}
