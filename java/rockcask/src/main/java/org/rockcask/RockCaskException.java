package org.rockcask;

/**
 * A store operation failed. {@link #status()} says how: a RocksDB status (IOError, Corruption,
 * Busy, ...) or one of RockCask's own (Locked, NotAStore, ReadOnly, NoSuchObject, Internal,
 * BadSnapshot, TargetExists).
 * The message names what and where (path, queue, object id).
 */
public class RockCaskException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    /** How an operation failed. The first group are RocksDB's status codes. */
    public enum Status {
        NotFound, Corruption, NotSupported, InvalidArgument, IOError, MergeInProgress, Incomplete, ShutdownInProgress,
        TimedOut, Aborted, Busy, Expired, TryAgain, CompactionTooLarge, ColumnFamilyDropped, Unknown,
        /** The store's lock is held by another process or another open handle. */
        Locked,
        /** The path is not a RockCask store. */
        NotAStore,
        /** The store was opened read-only. */
        ReadOnly,
        /** No object with the given id. */
        NoSuchObject,
        /** A fault inside RockCask itself (a bug): please report it. */
        Internal,
        /** A snapshot file that cannot be read or trusted ({@link SnapshotException}). */
        BadSnapshot,
        /** The destination of an export, import or checkpoint already exists. */
        TargetExists,
        /**
         * A commit would put a queue over its {@link QueueOptions#capacity()}: nothing was
         * written and the transaction is still open.
         */
        QueueFull,
        /**
         * A map key the transaction read was written by another commit since: nothing was
         * written and the transaction is over. Run it again.
         */
        Conflict
    }

    private final Status status;

    /**
     * Built from its fields, by the native layer and by this package: the message is
     * {@code "Status: detail"}, and {@link #status()} the status given (never parsed back from
     * a message).
     */
    RockCaskException(Status status, String detail) {
        super(status.name() + ": " + detail);
        this.status = status;
    }

    public Status status() {
        return status;
    }
}
