package org.rockcask;

import org.rockcask.internal.NativeLibrary;
import org.rockcask.internal.ProgressRelay;

/**
 * The native calls for snapshots and checkpoints (declared in {@code rust/jni/src/snapshot.rs},
 * registered when this class initializes). Each snapshot call fills {@code info} (the
 * {@code INFO_} slots of {@link Wire}) and returns the summary's strings packed as
 * {@link Wire#strings} reads them: content, created by, source. {@code progress} may be null.
 * Paths are {@link Wire#path}'s bytes. Package-private, as every native class: a handle is
 * trusted to come from {@link Store}.
 */
final class SnapshotNative {
    static {
        NativeLibrary.register(SnapshotNative.class);
    }

    private SnapshotNative() {}

    /** {@code options}: the {@code EXPORT_} slots of {@link Wire}. */
    static native byte[] exportStore(long store, byte[] file, long[] options, ProgressRelay progress, long[] info);

    /** {@code store}: {@code StoreOptions.record()}; {@code queueCodecs}: {@link Wire#queueCodecs}. */
    static native byte[] importStore(byte[] file, byte[] dir, int workers, long[] store, byte[] queueCodecs, ProgressRelay progress, long[] info);

    static native byte[] verify(byte[] file, int workers, ProgressRelay progress, long[] info);

    static native void checkpoint(long store, byte[] dir);

    static native byte[] exportCasket(byte[] casket, byte[] file, long[] options, ProgressRelay progress, long[] info);

    static native byte[] importCasket(byte[] file, byte[] casket, int workers, ProgressRelay progress, long[] info);
}
