package org.rockcask;

import java.nio.file.Path;
import java.time.Instant;

/** What a snapshot file holds: its header and the counts of its trailer (docs/SNAPSHOT_FORMAT.md). */
public final class SnapshotInfo {
    /** What was exported: a store (queues and objects) or a drop-in casket (key/values). */
    public enum Content { STORE, CASKET }

    private final Path file;
    private final int formatVersion;
    private final Content content;
    private final Compression compression;
    private final String createdBy;
    private final Instant createdAt;
    private final String source;
    private final long[] counts;

    /** {@code counts}: the {@code INFO_} slots of {@link Wire}, as the native call filled them. */
    SnapshotInfo(Path file, int formatVersion, Content content, Compression compression, String createdBy, Instant createdAt,
            String source, long[] counts) {
        this.file = file;
        this.formatVersion = formatVersion;
        this.content = content;
        this.compression = compression;
        this.createdBy = createdBy;
        this.createdAt = createdAt;
        this.source = source;
        this.counts = counts.clone();
    }

    public Path file() {
        return file;
    }

    /** The file's snapshot format version (this version writes 2 and reads 1 and 2). */
    public int formatVersion() {
        return formatVersion;
    }

    public Content content() {
        return content;
    }

    /** The frame compression asked for when the file was written. */
    public Compression compression() {
        return compression;
    }

    /** The writer, e.g. {@code "rockcask 0.1.0"}. */
    public String createdBy() {
        return createdBy;
    }

    public Instant createdAt() {
        return createdAt;
    }

    /** The exported store's path as the exporter saw it. */
    public String source() {
        return source;
    }

    public long fileBytes() {
        return counts[Wire.INFO_FILE_BYTES];
    }

    public long frames() {
        return counts[Wire.INFO_FRAMES];
    }

    public long records() {
        return counts[Wire.INFO_RECORDS];
    }

    public long queues() {
        return counts[Wire.INFO_QUEUES];
    }

    public long entries() {
        return counts[Wire.INFO_ENTRIES];
    }

    public long objects() {
        return counts[Wire.INFO_OBJECTS];
    }

    /** Casket snapshots: keys and values (duplicates counted). */
    public long keys() {
        return counts[Wire.INFO_KEYS];
    }

    public long values() {
        return counts[Wire.INFO_VALUES];
    }

    /** Object payload (and casket value) bytes, uncompressed. */
    public long payloadBytes() {
        return counts[Wire.INFO_PAYLOAD_BYTES];
    }

    /** Store snapshots: maps (format version 3 on; 0 before) and their key-value pairs. */
    public long maps() {
        return counts[Wire.INFO_MAPS];
    }

    public long mapEntries() {
        return counts[Wire.INFO_MAP_ENTRIES];
    }

    @Override
    public String toString() {
        return "SnapshotInfo[" + file + ", " + content + ", " + queues() + " queues, " + entries() + " entries, " + objects() + " objects, " + maps()
                + " maps, " + mapEntries() + " map entries, "
                + fileBytes() + " bytes]";
    }
}
