//! RocksDB tuning: the options stores and caskets choose alike (`base_db_options`,
//! `table_options`, ...), and a store's own choices for the database and each column family.
//! Caskets pick their own values where they differ (buffer sizes, logs kept, compression,
//! filters: `casket/open.rs`).

use rocksdb::{BlockBasedOptions, Cache, DBCompressionType, Options};

use crate::keys::{self, CF_ENTRIES, CF_MAPS, CF_OBJECTS};
use crate::options::StoreOptions;

/// Database-wide options: two background jobs, `keep_logs` info logs, `write_buffer_bytes` of
/// memtables over all column families; creating the database and its column families only
/// when `creating`.
pub(crate) fn base_db_options(creating: bool, keep_logs: usize, write_buffer_bytes: usize) -> Options {
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
        .get_options_from_string(format!(
            "memtable_insert_with_hint_prefix_extractor=rocksdb.FixedPrefix.{prefix_bytes}"
        ))
        .expect("RocksDB knows its fixed-prefix extractor")
}

pub(super) fn db_options(options: &StoreOptions, creating: bool) -> Options {
    let mut o = base_db_options(creating, 4, options.write_buffer_bytes);
    // A writer adds the families later versions have (the required ones are checked before).
    o.create_missing_column_families(!options.read_only);
    o.increase_parallelism(2);
    // A synced commit appends to the log and syncs it. Appending to a new file also changes its
    // size and allocates blocks, which fdatasync must write to the journal too (ext4 here: 4 KiB
    // synced appends about 370 us each, overwrites about 130 us). RocksDB can instead reuse a
    // log whose memtables were flushed, overwriting it in place. Capping the logs' total size
    // makes that happen within minutes of opening rather than after several memtables' worth of
    // log, and bounds what an open after a crash replays. Measured with `examples/queue_cycles`
    // (docs/BENCHMARKS.md, "Log recycling"): a synced commit 20% quicker.
    o.set_recycle_log_file_num(RECYCLED_LOGS);
    o.set_max_total_wal_size(LOG_BYTES_BEFORE_FLUSH);
    o
}

/// Flushed logs RocksDB keeps to write over instead of creating new ones.
const RECYCLED_LOGS: usize = 2;

/// Logs' total size from which RocksDB flushes the memtables that keep the oldest one.
const LOG_BYTES_BEFORE_FLUSH: u64 = 16 << 20;

pub(crate) fn cf_options(name: &str, options: &StoreOptions, cache: Option<&Cache>) -> Options {
    let mut o = match name {
        // A queue's entries are appended at its tail and consumed at its head, in key order.
        CF_ENTRIES => with_insert_hints(keys::ENTRY_KEY_QUEUE_BYTES),
        // New object ids are time-ordered (UUIDv7), so new objects land in key order too.
        CF_OBJECTS => with_insert_hints(1),
        _ => Options::default(),
    };
    let mut table = table_options(cache);
    table.set_bloom_filter(10.0, false);
    // Indexes and filters count against the cache, so memory stays within the options (without
    // a cache RocksDB refuses to cache them and keeps them with the table readers).
    if cache.is_some() {
        table.set_cache_index_and_filter_blocks(true);
        table.set_pin_l0_filter_and_index_blocks_in_cache(true);
    }
    o.set_block_based_table_factory(&table);
    if name == CF_OBJECTS {
        // Every `put` first reads whether its object exists (to keep a queue-owned one so), and
        // a new id is in no memtable: a whole-key bloom filter answers that without searching
        // the skip list. Measured (docs/BENCHMARKS.md, "put + enqueue by id"): put+id seed
        // experiment 1.6x-1.9x at N = 10^4 and 10^5; a small filter (0.5% of the memtable) costs
        // an unsynced queue cycle about 3% (0.05 cost 13%).
        o.set_memtable_prefix_bloom_ratio(0.005);
        o.set_memtable_whole_key_filtering(true);
    }
    if name == CF_OBJECTS || name == CF_MAPS {
        // A point read decompresses the whole block holding its object: with compressible
        // objects of 256 bytes (10^6, a 64 MiB cache) `examples/random_reads` read 15,000 per
        // second with zstd-compressed blocks, 35,000 with lz4 and 190,000 uncompressed. Payloads
        // are compressed one object at a time instead, when `StoreOptions::compression` says so.
        o.set_compression_type(DBCompressionType::None);
        o.set_bottommost_compression_type(DBCompressionType::None);
    } else {
        o.set_compression_type(DBCompressionType::Lz4);
        o.set_bottommost_compression_type(DBCompressionType::Zstd);
    }
    if name == CF_MAPS {
        o.set_write_buffer_size((options.write_buffer_bytes / 4).max(1 << 20));
    } else if name == CF_ENTRIES || name == CF_OBJECTS {
        o.set_write_buffer_size((options.write_buffer_bytes / 2).max(1 << 20));
        o.set_max_write_buffer_number(4);
        // Consumed entries (and their objects) are tombstones.
        compact_files_of_tombstones(&mut o);
    } else {
        o.set_write_buffer_size((options.write_buffer_bytes / 16).max(1 << 20));
    }
    o
}
