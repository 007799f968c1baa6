package org.rockcask;

/**
 * Told where a long export, import or verification is: about every 100 ms and once more when it
 * is done, always on the thread that started the work. An exception thrown here stops the work
 * (nothing is left behind: no partial file, no partial store) and reaches that thread's caller.
 * The store may be used from the listener, but not closed (that throws IllegalStateException).
 */
@FunctionalInterface
public interface ProgressListener {
    void onProgress(SnapshotProgress progress);
}
