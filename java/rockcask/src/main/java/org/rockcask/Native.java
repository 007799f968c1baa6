package org.rockcask;

import org.rockcask.internal.NativeLibrary;

/**
 * The native entry points. Not API: public classes hold handles and call these; every call
 * checks its handle and throws a Java exception on any failure (never crashes the JVM).
 */
final class Native {
    static {
        NativeLibrary.load();
    }

    private Native() {}

    static void ensureLoaded() {
        // Triggers the static initializer.
    }

    static native long storeOpen(byte[] path, boolean syncOnCommit, long blockCacheBytes, long writeBufferBytes,
            boolean createIfMissing, boolean readOnly, int compression, int compressionThreshold, byte[] queueCompression);

    static native void storeClose(long store);

    static native void storeFree(long store);

    static native long storeBegin(long store);

    static native byte[] storeQueueNames(long store);

    static native long storeQueueSize(long store, byte[] queue);

    static native void storeStats(long store, long[] out);

    static native void storeCompact(long store);

    /** Returns the snapshot's strings packed (content, created by, source); fills {@code info} (see SnapshotInfo). */
    static native byte[] storeExport(long store, byte[] file, int workers, int compression, int frameBytes, boolean fixedTime,
            long createdAtMillis, boolean overwrite, SnapshotProgress.Relay progress, long[] info);

    static native byte[] snapshotImport(byte[] file, byte[] dir, int workers, boolean syncOnCommit, long blockCacheBytes,
            long writeBufferBytes, int compression, int compressionThreshold, byte[] queueCompression, SnapshotProgress.Relay progress,
            long[] info);

    static native byte[] snapshotVerify(byte[] file, int workers, SnapshotProgress.Relay progress, long[] info);

    static native void storeCheckpoint(long store, byte[] dir);

    static native byte[] casketExport(byte[] casket, byte[] file, int workers, int compression, int frameBytes, boolean fixedTime,
            long createdAtMillis, boolean overwrite, SnapshotProgress.Relay progress, long[] info);

    static native byte[] casketImport(byte[] file, byte[] casket, int workers, SnapshotProgress.Relay progress, long[] info);

    static native void txFree(long tx);

    static native void txApply(long tx, java.nio.ByteBuffer pending, int length);

    static native void txEnqueueNew(long tx, byte[] queue, long msb, long lsb, byte[] payload);

    static native void txEnqueueId(long tx, byte[] queue, long msb, long lsb);

    static native byte[] txPoll(long tx, byte[] queue, int max);

    static native byte[] txPeek(long tx, byte[] queue, int max);

    static native byte[] txTake(long tx, byte[] queue, long timeoutMillis);

    static native void txPut(long tx, long msb, long lsb, byte[] payload);

    static native byte[] txGet(long tx, long msb, long lsb);

    static native boolean txDelete(long tx, long msb, long lsb);

    static native void txCommit(long tx);

    static native void txRollback(long tx);
}
