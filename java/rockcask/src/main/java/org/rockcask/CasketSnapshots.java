package org.rockcask;

import java.nio.file.Path;
import java.util.Objects;

/**
 * Snapshots of the Tokyo Cabinet drop-in's databases ({@code tokyocabinet.BDB}, {@code HDB}):
 * the same file format as store snapshots (docs/SNAPSHOT_FORMAT.md), holding every key with its
 * values (duplicates in insertion order) in the database's key order.
 *
 * <p>Only databases with a built-in key order ({@code CMPLEXICAL}, {@code CMPDECIMAL},
 * {@code CMPINT32}, {@code CMPINT64}) can be exported: a Java comparator's order lives in the
 * program, not in the database.
 */
public final class CasketSnapshots {
    private CasketSnapshots() {}

    /**
     * Writes a snapshot of the database at {@code databasePath} (the path given to
     * {@code BDB.open}). It is opened as a reader for the time of the export, so the export
     * waits for a writer in another process to close it, and writers wait for the export.
     * A database this JVM has open must be closed first.
     *
     * @throws RockCaskException {@code NotAStore} when there is no database at the path,
     *     {@code Locked} when this JVM has it open, {@code TargetExists} when {@code file}
     *     exists and overwriting was not asked for
     * @throws IllegalArgumentException for a database ordered by a Java comparator, or another
     *     kind of file at the path (the message says which)
     */
    public static SnapshotInfo exportTo(Path databasePath, Path file, ExportOptions options) {
        Objects.requireNonNull(databasePath, "databasePath");
        Objects.requireNonNull(file, "file");
        Objects.requireNonNull(options, "options");
        byte[] database = Wire.path(databasePath.toAbsolutePath());
        return Store.snapshot(file, (target, info) -> SnapshotNative.exportCasket(database, target, options.record(),
                SnapshotProgress.Relay.of(options.progress()), info));
    }

    /**
     * Creates the database at {@code databasePath} (which must not exist) from a database
     * snapshot, with the kind and key order the snapshot records; open it afterwards with
     * {@code BDB.open} and that order. Built under a temporary name beside the path and moved
     * there once the whole file has checked out: on any error nothing is left at the path.
     *
     * @throws SnapshotException when the file is damaged, truncated, of a newer format, or holds
     *     a store rather than a database
     * @throws RockCaskException {@code TargetExists} when something is at {@code databasePath}
     */
    public static SnapshotInfo importFrom(Path file, Path databasePath, ImportOptions options) {
        Objects.requireNonNull(file, "file");
        Objects.requireNonNull(databasePath, "databasePath");
        Objects.requireNonNull(options, "options");
        byte[] database = Wire.path(databasePath.toAbsolutePath());
        return Store.snapshot(file, (source, info) -> SnapshotNative.importCasket(source, database, options.workers(),
                SnapshotProgress.Relay.of(options.progress()), info));
    }
}
