//! The RocksDB options stores and caskets choose alike. Each still picks its own values (buffer
//! sizes, logs kept, compression, filters) where they differ.

use rocksdb::{BlockBasedOptions, Cache, Options};

/// Database-wide options: two background jobs, `keep_logs` info logs, `write_buffer_bytes` of
/// memtables over all column families; creating the database and its column families only
/// when `creating`.
pub(crate) fn db_options(creating: bool, keep_logs: usize, write_buffer_bytes: usize) -> Options {
    let mut o = Options::default();
    o.create_if_missing(creating);
    o.create_missing_column_families(creating);
    o.set_db_write_buffer_size(write_buffer_bytes);
    o.set_max_background_jobs(2);
    o.set_keep_log_file_num(keep_logs);
    o
}

/// Block-based tables reading through `cache`, or with no block cache at all (then RocksDB
/// keeps indexes and filters with the table readers).
pub(crate) fn table_options(cache: Option<&Cache>) -> BlockBasedOptions {
    let mut table = BlockBasedOptions::default();
    match cache {
        Some(c) => table.set_block_cache(c),
        None => table.disable_cache(),
    }
    table
}

/// Consumed entries (a queue's, a casket's consumed duplicates) are tombstones: have files full
/// of them compacted early so their space comes back and reads never wade through them.
pub(crate) fn compact_files_of_tombstones(o: &mut Options) {
    o.add_compact_on_deletion_collector_factory(10_000, 5_000, 0.5);
}

/// Column family options whose memtable remembers, per key prefix of `prefix_bytes`, where the
/// last insert went, so that keys written in order under a prefix are inserted next to their
/// predecessor instead of searched for from the top of the skip list (RocksDB's
/// `memtable_insert_with_hint_prefix_extractor`; our writes are never concurrent memtable
/// writes, which is when RocksDB uses it). Measured with `examples/queue_cycles`: about a sixth
/// of a commit's CPU. The C API has no setter for it, hence the options string.
pub(crate) fn with_insert_hints(prefix_bytes: usize) -> Options {
    Options::default()
        .get_options_from_string(format!("memtable_insert_with_hint_prefix_extractor=rocksdb.FixedPrefix.{prefix_bytes}"))
        .expect("RocksDB knows its fixed-prefix extractor")
}
