package org.rockcask;

/** Where a snapshot export, import or verification is (see {@link ProgressListener}). */
public final class SnapshotProgress {
    private final long records;
    private final long recordsExpected;
    private final long bytes;
    private final long bytesExpected;
    private final boolean done;

    SnapshotProgress(long records, long recordsExpected, long bytes, long bytesExpected, boolean done) {
        this.records = records;
        this.recordsExpected = recordsExpected;
        this.bytes = bytes;
        this.bytesExpected = bytesExpected;
        this.done = done;
    }

    /** Records written or read so far. */
    public long records() {
        return records;
    }

    /** Records expected in all: an estimate while exporting, 0 while reading (known at the end). */
    public long recordsExpected() {
        return recordsExpected;
    }

    /** Bytes of the file written or read so far. */
    public long bytes() {
        return bytes;
    }

    /** Bytes of the file in all: known while reading, 0 while exporting until done. */
    public long bytesExpected() {
        return bytesExpected;
    }

    /** True for the last report, sent once the work has completed. */
    public boolean done() {
        return done;
    }

    /** Completed fraction in [0, 1], from bytes when their total is known, else from records. */
    public double fraction() {
        if (done) {
            return 1.0;
        }
        if (bytesExpected > 0) {
            return Math.min(1.0, bytes / (double) bytesExpected);
        }
        return recordsExpected > 0 ? Math.min(1.0, records / (double) recordsExpected) : 0.0;
    }

    @Override
    public String toString() {
        return "SnapshotProgress[records=" + records + "/" + recordsExpected + ", bytes=" + bytes + "/" + bytesExpected + (done ? ", done]" : "]");
    }

    /** Called by the native layer; builds the report and hands it to the listener. */
    static final class Relay implements org.rockcask.internal.ProgressRelay {
        private final ProgressListener listener;

        Relay(ProgressListener listener) {
            this.listener = listener;
        }

        static Relay of(ProgressListener listener) {
            return listener == null ? null : new Relay(listener);
        }

        @Override
        public void report(long records, long recordsExpected, long bytes, long bytesExpected, boolean done) {
            listener.onProgress(new SnapshotProgress(records, recordsExpected, bytes, bytesExpected, done));
        }
    }
}
