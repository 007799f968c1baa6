package org.rockcask.internal.cli;

import org.rockcask.internal.NativeLibrary;

/**
 * The CLI's native calls (declared in {@code rust/jni/src/cli.rs}, registered when this class
 * initializes). Package-private, beside its only caller, {@link Main}.
 */
final class CliNative {
    static {
        NativeLibrary.register(CliNative.class);
    }

    private CliNative() {}

    /**
     * Runs the {@code rockcask} CLI in this process with the command line {@code args} (the
     * program's name first, each argument in the platform's encoding), writing to the process's
     * stdout and stderr; returns its exit code.
     */
    static native int run(byte[][] args);

    /** Stops a running export, import or verification as Ctrl-C does the native binary. */
    static native void interrupt();
}
