package org.rockcask.testsupport;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.List;
import org.junit.Test;
import org.junit.runner.Description;
import org.junit.runner.JUnitCore;
import org.junit.runner.Result;
import org.junit.runner.notification.Failure;
import org.junit.runner.notification.RunListener;

/**
 * Runs JUnit 4 test classes in this JVM without Gradle (tools/test-platforms.sh runs it on another
 * platform's JVM, the {@code testJdk25} tasks on JDK 25): one line per test as Gradle's runs print
 * them, each failure in full, and a closing line {@code <label>: N passed, N failed, N skipped}.
 * Exits 1 if any test failed. Arguments: the label, then the names of the classes to look at; of
 * those, like Gradle's test detection, it runs the concrete ones that have {@code @Test} methods
 * (their own or inherited) or a {@code @RunWith}. With {@code -Drockcask.test.runningFile=F}, F
 * names the test running while one runs, so that a JVM that dies says during which.
 */
public final class SuiteRunner {
    private SuiteRunner() {}

    public static void main(String[] args) throws Exception {
        String label = args[0];
        List<Class<?>> classes = new ArrayList<>();
        for (int i = 1; i < args.length; i++) {
            // Not initialized: a class that holds no tests has its static initializer left alone.
            Class<?> c = Class.forName(args[i], false, SuiteRunner.class.getClassLoader());
            if (holdsTests(c)) {
                classes.add(c);
            }
        }
        String running = System.getProperty("rockcask.test.runningFile");
        Path runningFile = running == null ? null : Paths.get(running);
        JUnitCore junit = new JUnitCore();
        junit.addListener(new RunListener() {
            private long started;
            private boolean failed;

            @Override
            public void testStarted(Description d) {
                started = System.nanoTime();
                failed = false;
                if (runningFile != null) {
                    write(runningFile, d.getClassName() + "." + d.getMethodName() + "\n");
                }
            }

            @Override
            public void testFailure(Failure f) {
                failed = true;
                System.out.println("  FAILURE " + f.getDescription().getClassName() + "." + f.getDescription().getMethodName() + ": " + f.getTrace());
            }

            @Override
            public void testAssumptionFailure(Failure f) {
                failed = true; // not run to its end: printed as skipped, not as a success
                System.out.println("  SKIPPED " + f.getDescription().getClassName() + "." + f.getDescription().getMethodName() + ": " + f.getMessage());
            }

            @Override
            public void testFinished(Description d) {
                if (runningFile != null) {
                    delete(runningFile);
                }
                if (!failed) {
                    System.out.println("  SUCCESS " + d.getClassName() + "." + d.getMethodName() + " (" + (System.nanoTime() - started) / 1_000_000 + " ms)");
                }
            }

            @Override
            public void testIgnored(Description d) {
                System.out.println("  SKIPPED " + d.getClassName() + "." + d.getMethodName());
            }
        });
        Result result = junit.run(classes.toArray(new Class<?>[0]));
        int failed = result.getFailureCount();
        // JUnit counts a test whose assumption failed as run; here it is skipped.
        int skipped = result.getIgnoreCount() + result.getAssumptionFailureCount();
        System.out.println(label + ": " + (result.getRunCount() - failed - result.getAssumptionFailureCount()) + " passed, " + failed + " failed, " + skipped + " skipped");
        System.exit(failed == 0 ? 0 : 1);
    }

    private static boolean holdsTests(Class<?> c) {
        if (Modifier.isAbstract(c.getModifiers()) || !Modifier.isPublic(c.getModifiers())) {
            return false;
        }
        if (c.isAnnotationPresent(org.junit.runner.RunWith.class)) {
            return true;
        }
        for (Method m : c.getMethods()) {
            if (m.isAnnotationPresent(Test.class)) {
                return true;
            }
        }
        return false;
    }

    private static void write(Path file, String text) {
        try {
            Files.write(file, text.getBytes(StandardCharsets.UTF_8));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static void delete(Path file) {
        try {
            Files.deleteIfExists(file);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
