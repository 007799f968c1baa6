package org.rockcask.internal.cli;

import java.io.IOException;
import java.nio.charset.Charset;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * {@code java -jar rockcask-<version>.jar ...}: the {@code rockcask} CLI (the same code as the
 * native binary, {@code rust/cli}, reached through the library in the jar), with the same
 * subcommands, output and exit codes. See docs/CLI.md.
 *
 * <p>The JVM owns the signals: on Ctrl-C or SIGTERM it runs its shutdown hooks, and the one
 * registered here stops a running export, import or verification (which removes what it wrote)
 * and holds the JVM until the command has returned; the JVM then exits with 130 or 143, as a
 * shell reports a command the signal stopped.
 */
public final class Main {
    private static final int IDLE = 0;
    private static final int RUNNING = 1;
    private static final int STOPPING = 2;

    private Main() {}

    public static void main(String[] args) {
        System.exit(run(args));
    }

    private static int run(String[] args) {
        byte[][] commandLine = commandLine(args);
        try {
            // Loads the library now, so that the shutdown hook never has to.
            Class.forName(CliNative.class.getName(), true, Main.class.getClassLoader());
        } catch (ClassNotFoundException | LinkageError e) {
            Throwable why = e instanceof ExceptionInInitializerError && e.getCause() != null ? e.getCause() : e;
            System.err.println("rockcask: error: " + String.valueOf(why.getMessage()).replace('\n', ' '));
            return 1;
        }
        AtomicInteger state = new AtomicInteger(IDLE);
        CountDownLatch returned = new CountDownLatch(1);
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            if (state.getAndSet(STOPPING) == RUNNING) {
                CliNative.interrupt();
                awaitUninterruptibly(returned);
            }
        }, "rockcask-cli-stop"));
        if (!state.compareAndSet(IDLE, RUNNING)) {
            // Stopped before the command started: nothing to undo.
            return 130;
        }
        try {
            return CliNative.run(commandLine);
        } finally {
            returned.countDown();
        }
    }

    /**
     * The program's name, then the arguments as the bytes the process was given, so that the CLI
     * sees what the native binary would (a path or a name is bytes on Unix, and bytes that are
     * not in the platform's encoding must reach the CLI to be refused, not arrive replaced).
     * The JVM decoded them into {@code args} already, replacing what its encoding cannot read;
     * where the process's own command line is readable (Linux: {@code /proc/self/cmdline}, whose
     * last entries are the program's arguments) each argument is taken from there, when it decodes
     * to the same string, and otherwise encoded again.
     */
    private static byte[][] commandLine(String[] args) {
        Charset charset = Charset.defaultCharset();
        String jnu = System.getProperty("sun.jnu.encoding");
        if (jnu != null && Charset.isSupported(jnu)) {
            charset = Charset.forName(jnu);
        }
        List<byte[]> raw = processArguments();
        int offset = raw.size() - args.length;
        byte[][] commandLine = new byte[args.length + 1][];
        commandLine[0] = "rockcask".getBytes(StandardCharsets.US_ASCII);
        for (int i = 0; i < args.length; i++) {
            byte[] given = offset > 0 ? raw.get(offset + i) : null;
            commandLine[i + 1] = given != null && new String(given, charset).equals(args[i]) ? given : args[i].getBytes(charset);
        }
        return commandLine;
    }

    /** This process's command line as bytes, one entry per argument; empty where unreadable. */
    private static List<byte[]> processArguments() {
        byte[] all;
        try {
            all = Files.readAllBytes(Paths.get("/proc/self/cmdline"));
        } catch (IOException | RuntimeException e) {
            return Collections.emptyList();
        }
        List<byte[]> entries = new ArrayList<>();
        int start = 0;
        for (int i = 0; i < all.length; i++) {
            if (all[i] == 0) {
                entries.add(Arrays.copyOfRange(all, start, i));
                start = i + 1;
            }
        }
        return entries;
    }

    private static void awaitUninterruptibly(CountDownLatch latch) {
        boolean interrupted = false;
        while (true) {
            try {
                latch.await();
                break;
            } catch (InterruptedException e) {
                interrupted = true;
            }
        }
        if (interrupted) {
            Thread.currentThread().interrupt();
        }
    }
}
