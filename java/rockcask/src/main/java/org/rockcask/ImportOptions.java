package org.rockcask;

import java.util.Objects;

/** How {@link Store#importFrom} reads a snapshot into a new store. Immutable, like {@link ExportOptions}. */
public final class ImportOptions {
    private int workers = Math.min(8, Runtime.getRuntime().availableProcessors());
    private StoreOptions store = StoreOptions.defaults();
    private ProgressListener progress;

    private ImportOptions() {}

    private ImportOptions copy() {
        ImportOptions o = new ImportOptions();
        o.workers = workers;
        o.store = store;
        o.progress = progress;
        return o;
    }

    /** As many workers as cores (at most 8), default store options. */
    public static ImportOptions defaults() {
        return new ImportOptions();
    }

    /** Threads checking, decompressing and decoding frames, 1 to 64. */
    public int workers() {
        return workers;
    }

    public ImportOptions workers(int v) {
        Wire.checkWorkers(v);
        ImportOptions o = copy();
        o.workers = v;
        return o;
    }

    /**
     * Options of the store created: its payload compression applies to every imported object
     * (the snapshot holds payloads uncompressed); per-queue codecs do not, as objects are
     * imported apart from the entries that refer to them. Opening it afterwards takes its own
     * options.
     */
    public StoreOptions store() {
        return store;
    }

    public ImportOptions store(StoreOptions v) {
        ImportOptions o = copy();
        o.store = Objects.requireNonNull(v, "store");
        return o;
    }

    /** Told how many bytes of the file have been read and checked; {@code null} for none. */
    public ProgressListener progress() {
        return progress;
    }

    public ImportOptions progress(ProgressListener v) {
        ImportOptions o = copy();
        o.progress = v;
        return o;
    }

    @Override
    public String toString() {
        return "ImportOptions[workers=" + workers + ", store=" + store + "]";
    }
}
