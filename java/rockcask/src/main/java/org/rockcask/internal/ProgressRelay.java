package org.rockcask.internal;

/** What the native side calls, on the calling thread, to report the progress of a long call. */
public interface ProgressRelay {
    void report(long records, long recordsExpected, long bytes, long bytesExpected, boolean done);
}
