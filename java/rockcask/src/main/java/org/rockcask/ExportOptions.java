package org.rockcask;

import java.time.Instant;
import java.util.Objects;

/**
 * How {@link Store#exportTo} writes a snapshot. Immutable; each {@code with}-style method
 * returns a changed copy: {@code ExportOptions.defaults().workers(4).compression(Compression.ZSTD)}.
 */
public final class ExportOptions {
    /**
     * The largest frame size an export may aim for: {@code MAX_FRAME_TARGET} of
     * rust/core/src/snapshot/format.rs (checked by the library as it registers SnapshotNative).
     */
    private static final int MAX_FRAME_TARGET = 64 << 20;
    private int workers = Math.min(8, Runtime.getRuntime().availableProcessors());
    private Compression compression = Compression.NONE;
    private int frameBytes = 1 << 20;
    private Instant createdAt;
    private boolean overwrite;
    private ProgressListener progress;

    private ExportOptions() {}

    private ExportOptions copy() {
        ExportOptions o = new ExportOptions();
        o.workers = workers;
        o.compression = compression;
        o.frameBytes = frameBytes;
        o.createdAt = createdAt;
        o.overwrite = overwrite;
        o.progress = progress;
        return o;
    }

    /** As many workers as cores (at most 8), no compression, 1 MiB frames, refuse to overwrite. */
    public static ExportOptions defaults() {
        return new ExportOptions();
    }

    /**
     * Threads encoding and compressing frames (the calling thread reads the store and writes the
     * file), 1 to 64. The file's bytes do not depend on it. If the process cannot start that
     * many threads, the export fails with status {@code IOError} saying so.
     */
    public int workers() {
        return workers;
    }

    public ExportOptions workers(int v) {
        Wire.checkWorkers(v);
        ExportOptions o = copy();
        o.workers = v;
        return o;
    }

    /** Compression of the file's frames (a frame that does not shrink is stored raw). */
    public Compression compression() {
        return compression;
    }

    public ExportOptions compression(Compression v) {
        ExportOptions o = copy();
        o.compression = Objects.requireNonNull(v, "compression");
        return o;
    }

    /**
     * Target bytes of records per frame (the unit of checksums and of parallel work), 1 to 64 MiB;
     * a frame is larger only when one record is.
     */
    public int frameBytes() {
        return frameBytes;
    }

    public ExportOptions frameBytes(int v) {
        if (v < 1 || v > MAX_FRAME_TARGET) {
            throw new IllegalArgumentException("frameBytes must be 1 to " + MAX_FRAME_TARGET + ": " + v);
        }
        ExportOptions o = copy();
        o.frameBytes = v;
        return o;
    }

    /**
     * The creation time recorded in the file; {@code null} (default) for the time of export.
     * Fixing it makes two exports of the same data byte-identical.
     */
    public Instant createdAt() {
        return createdAt;
    }

    public ExportOptions createdAt(Instant v) {
        ExportOptions o = copy();
        o.createdAt = v;
        return o;
    }

    /** Replace an existing file (by default an existing file is refused with {@code TargetExists}). */
    public boolean overwrite() {
        return overwrite;
    }

    public ExportOptions overwrite(boolean v) {
        ExportOptions o = copy();
        o.overwrite = v;
        return o;
    }

    /** Told where the export is, about every 100 ms and once at the end; {@code null} for none. */
    public ProgressListener progress() {
        return progress;
    }

    public ExportOptions progress(ProgressListener v) {
        ExportOptions o = copy();
        o.progress = v;
        return o;
    }

    /** These options as the native side reads them: the {@code EXPORT_} slots of {@link Wire}. */
    long[] record() {
        long[] slots = new long[Wire.EXPORT_SLOTS];
        slots[Wire.EXPORT_WORKERS] = workers;
        slots[Wire.EXPORT_COMPRESSION] = compression.code;
        slots[Wire.EXPORT_FRAME_BYTES] = frameBytes;
        slots[Wire.EXPORT_FIXED_TIME] = createdAt != null ? 1 : 0;
        slots[Wire.EXPORT_CREATED_AT_MILLIS] = createdAt == null ? 0 : createdAt.toEpochMilli();
        slots[Wire.EXPORT_OVERWRITE] = overwrite ? 1 : 0;
        return slots;
    }

    @Override
    public String toString() {
        return "ExportOptions[workers=" + workers + ", compression=" + compression + ", frameBytes=" + frameBytes + ", createdAt="
                + createdAt + ", overwrite=" + overwrite + "]";
    }
}
