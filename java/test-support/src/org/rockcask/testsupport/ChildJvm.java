package org.rockcask.testsupport;

import java.io.File;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * Starts a child JVM on this test run's classpath (so it loads the same RockCask build): the crash,
 * locking and loader tests of every Java module need a second process, and start it the same way.
 */
public final class ChildJvm {
    private ChildJvm() {}

    public static ProcessBuilder builder(List<String> jvmArgs, Class<?> main, String... args) {
        String java = System.getProperty("rockcask.test.java", System.getProperty("java.home") + File.separator + "bin" + File.separator + "java");
        List<String> cmd = new ArrayList<>();
        cmd.add(java);
        cmd.add("-Xmx256m");
        // The library is loaded from the class path: granted native access, as README says, so
        // that JDK 24+ prints no warning into the output the tests read.
        cmd.add("--enable-native-access=ALL-UNNAMED");
        // What the platform's runner gives every JVM of the run (tools/test-platforms.sh: under
        // Wine, the SecureRandom of tools/wine-security.properties), space-separated.
        String runArgs = System.getProperty("rockcask.test.childJvmArgs", "").trim();
        if (!runArgs.isEmpty()) {
            cmd.addAll(Arrays.asList(runArgs.split(" +")));
        }
        cmd.addAll(jvmArgs);
        cmd.add("-cp");
        cmd.add(System.getProperty("java.class.path"));
        cmd.add(main.getName());
        cmd.addAll(Arrays.asList(args));
        return new ProcessBuilder(cmd);
    }

    /**
     * The exit value of a child ended by {@link Process#destroyForcibly()}: 137 (128 + SIGKILL)
     * on Linux and macOS; on Windows the JDK ends it with {@code TerminateProcess(handle, 1)}.
     */
    public static int killedExitValue() {
        return System.getProperty("os.name", "").startsWith("Windows") ? 1 : 137;
    }
}
