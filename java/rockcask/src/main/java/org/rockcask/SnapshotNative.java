package org.rockcask.internal;

/**
 * The native calls for snapshots and checkpoints (declared in {@code rust/jni/src/snapshot.rs},
 * registered when this class initializes). Each snapshot call fills {@code info} (the
 * {@code INFO_} slots of {@code org.rockcask.Wire}) and returns the summary's strings packed:
 * content, created by, source. {@code progress} may be null.
 */
public final class SnapshotNative {
    static {
        NativeLibrary.register(SnapshotNative.class);
    }

    private SnapshotNative() {}

    /** {@code options}: the {@code EXPORT_} slots of {@code org.rockcask.Wire}. */
    public static native byte[] exportStore(long store, byte[] file, long[] options, ProgressRelay progress, long[] info);

    /** {@code store}: {@code StoreOptions.record()}. */
    public static native byte[] importStore(byte[] file, byte[] dir, int workers, byte[] store, ProgressRelay progress, long[] info);

    public static native byte[] verify(byte[] file, int workers, ProgressRelay progress, long[] info);

    public static native void checkpoint(long store, byte[] dir);

    public static native byte[] exportCasket(byte[] casket, byte[] file, long[] options, ProgressRelay progress, long[] info);

    public static native byte[] importCasket(byte[] file, byte[] casket, int workers, ProgressRelay progress, long[] info);
}
