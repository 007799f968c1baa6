package org.rockcask.testsupport;

import java.util.ArrayList;
import java.util.List;
import org.junit.runner.Description;
import org.junit.runner.JUnitCore;
import org.junit.runner.Result;
import org.junit.runner.notification.Failure;
import org.junit.runner.notification.RunListener;

/**
 * Runs JUnit 4 test classes in this JVM without Gradle (tools/test-platforms.sh runs it on another
 * platform's JVM): one line per test as Gradle's runs print them, each failure in full, and a
 * closing line {@code <label>: N passed, N failed, N skipped}. Exits 1 if any test failed.
 * Arguments: the label, then the test classes' names.
 */
public final class SuiteRunner {
    private SuiteRunner() {}

    public static void main(String[] args) throws Exception {
        String label = args[0];
        List<Class<?>> classes = new ArrayList<>();
        for (int i = 1; i < args.length; i++) {
            classes.add(Class.forName(args[i]));
        }
        JUnitCore junit = new JUnitCore();
        junit.addListener(new RunListener() {
            private long started;
            private boolean failed;

            @Override
            public void testStarted(Description d) {
                started = System.nanoTime();
                failed = false;
            }

            @Override
            public void testFailure(Failure f) {
                failed = true;
                System.out.println("  FAILURE " + f.getDescription().getClassName() + "." + f.getDescription().getMethodName() + ": " + f.getTrace());
            }

            @Override
            public void testFinished(Description d) {
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
        System.out.println(label + ": " + (result.getRunCount() - failed) + " passed, " + failed + " failed, " + result.getIgnoreCount() + " skipped");
        System.exit(failed == 0 ? 0 : 1);
    }
}
