//! Opening, recovering, inspecting and closing a store.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use rocksdb::{
    Cache, ColumnFamilyDescriptor, DBCompressionType, Options, ReadOptions, DB,
};

use crate::batch;
use crate::error::{Error, Result, RocksContext};
use crate::keys::{self, QueueId, ALL_CFS, CF_ENTRIES, CF_MAPS, CF_META, CF_OBJECTS};
use crate::lock::{StoreLock, LOCK_FILE};
use crate::options::StoreOptions;
use crate::queue::{HeadLayout, QueueState, Queues};
use crate::dead_letter::{DeadLetter, DeadLetterRecord};
use crate::queue_config::QueueConfig;
use crate::rocks_options;
use crate::shared::Shared;
use crate::transaction::Transaction;
use crate::manifest_record;
use crate::wal_files;

/// A RockCask store: named durable queues and objects by UUID in one RocksDB database.
///
/// Cheap to clone (shared handle). `close` releases RocksDB at once; every later call on this
/// store or on its transactions fails with `Error::Closed`.
#[derive(Clone)]
pub struct Store {
    pub(crate) shared: Arc<Shared>,
}

/// Point-in-time figures about a store.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct StoreStats {
    pub queues: u64,
    /// Committed entries over all queues (exact).
    pub queued_items: u64,
    pub maps: u64,
    /// Pairs over all maps, as RocksDB estimates them.
    pub map_entries_estimate: u64,
    /// Objects, as RocksDB estimates them.
    pub objects_estimate: u64,
    /// Bytes of every file in the store directory.
    pub disk_bytes: u64,
    /// Bytes held by memtables.
    pub memtable_bytes: u64,
    /// Bytes held by the block cache.
    pub block_cache_bytes: u64,
    /// Bytes held by table readers (indexes and filters not in the block cache).
    pub table_reader_bytes: u64,
    /// Payload bytes committed since the store was opened, as given and as stored (after
    /// compression, where it paid).
    pub payload_bytes: u64,
    pub stored_payload_bytes: u64,
}

impl Store {
    pub fn open(path: impl AsRef<Path>, options: StoreOptions) -> Result<Store> {
        let path = path.as_ref().to_path_buf();
        options.validate()?;
        let may_create = options.create_if_missing && !options.read_only;
        let created_dir = prepare_directory(&path, may_create)?;
        // A writer locks before anything is read, so two opens racing to create one store
        // cannot both decide to create it, and holds the lock until RocksDB has closed
        // (`lock.rs`). Read-only opens write nothing and take no lock.
        let lock = if options.read_only {
            None
        } else {
            match StoreLock::acquire(&path, &path) {
                Ok(lock) => Some(lock),
                Err(e) => {
                    if created_dir {
                        let _ = std::fs::remove_dir(&path);
                    }
                    return Err(e);
                }
            }
        };
        let created_lock = lock.as_ref().is_some_and(|l| l.created);
        match Self::open_locked(path.clone(), options, lock) {
            Ok(store) => Ok(store),
            Err(e) => {
                // Leave the location as it was found: no stray lock file, no empty directory.
                if created_dir {
                    let _ = std::fs::remove_dir_all(&path);
                } else if created_lock {
                    let _ = std::fs::remove_file(path.join(LOCK_FILE));
                }
                Err(e)
            }
        }
    }

    fn open_locked(path: PathBuf, options: StoreOptions, lock: Option<StoreLock>) -> Result<Store> {
        let creating = check_location(&path, &options)?;
        let cache = (options.block_cache_bytes > 0).then(|| Cache::new_lru_cache(options.block_cache_bytes));
        let db_opts = db_options(&options, creating);
        if !creating {
            if let Some(why) = manifest_record::shortened(&path) {
                return Err(damaged_store(&path, rocksdb::ErrorKind::Corruption, format!("checking {}", manifest_of(&path)), why));
            }
            if !options.read_only {
                probe_read_only(&path, &db_opts, &options)?;
            }
        }
        let families = families_to_open(&path, creating, options.read_only)?;
        let cfs = families.iter().map(|name| ColumnFamilyDescriptor::new(*name, cf_options(name, &options, cache.as_ref())));
        let db = if options.read_only {
            open_read_only_beside_a_writer(&path, || DB::open_cf_descriptors_read_only(&db_opts, &path, cfs.clone(), false))?
        } else {
            DB::open_cf_descriptors(&db_opts, &path, cfs).map_err(|e| open_error(&path, e))?
        };
        if creating {
            let meta = db.cf_handle(CF_META).expect("just created");
            db.put_cf(meta, keys::META_FORMAT_KEY, keys::META_FORMAT_VALUE)
                .context(|| format!("writing the format marker of {}", path.display()))?;
            db.flush_wal(true).context(|| format!("syncing the new store at {}", path.display()))?;
        } else {
            check_format_marker(&db, &path)?;
        }
        let cf_ids = batch::verify_format(&db)?;
        let (queues, stale_records) = recover_queues(&db, options.max_deliveries, options.queue_cache_bytes)?;
        if !options.read_only && !stale_records.is_empty() {
            let mut batch = rocksdb::WriteBatch::default();
            for (queue, record) in stale_records {
                batch.delete_cf(db.cf_handle(CF_META).expect("opened with all column families"), keys::meta_deliveries_key(queue, record));
            }
            db.write(batch).context(|| format!("deleting stale delivery records of {}", path.display()))?;
        }
        let map_names = recover_map_names(&db)?;
        let store = Store { shared: Arc::new(Shared::new(path, options, db, queues, map_names, cf_ids, cache, lock)) };
        if !store.shared.options().read_only {
            // Entries whose last delivery ended with the process (a crash while they were
            // claimed) and that reached their queue's limit go to the dead-letter queue now,
            // before any consumer can receive them again. If that write fails (a full disk),
            // the store still opens: it then refuses writes naming the cause, and those entries
            // are moved by the first rollback that finds them, or at the next open.
            let _ = crate::dead_letter::dead_letter_over_limit(&store.shared);
            let db = store.shared.db()?;
            count_queue_bytes(&db, &mut store.shared.queues())?;
            manifest_record::remember(store.path());
        }
        Ok(store)
    }

    pub fn path(&self) -> &Path {
        self.shared.path()
    }

    pub fn options(&self) -> &StoreOptions {
        self.shared.options()
    }

    pub fn begin(&self) -> Result<Transaction> {
        if self.is_closed() {
            return Err(Error::Closed("store"));
        }
        Ok(Transaction::new(self.shared.clone()))
    }

    pub fn is_closed(&self) -> bool {
        self.shared.is_closed()
    }

    /// Names of every queue committed to and not dropped since, sorted.
    pub fn queue_names(&self) -> Result<Vec<String>> {
        self.queue_names_with_prefix("")
    }

    /// `queue_names` of the queues whose names start with `prefix` (at most a queue name long).
    pub fn queue_names_with_prefix(&self, prefix: &str) -> Result<Vec<String>> {
        if prefix.len() > keys::MAX_QUEUE_NAME_BYTES {
            return Err(Error::InvalidArgument(format!("queue name prefix is {} bytes long; at most {} are allowed", prefix.len(), keys::MAX_QUEUE_NAME_BYTES)));
        }
        self.shared.db()?;
        let queues = self.shared.queues();
        let mut names: Vec<String> = queues
            .by_name
            .iter()
            .filter(|(name, id)| name.starts_with(prefix) && queues.states.get(id).is_some_and(|q| q.published))
            .map(|(name, _)| name.clone())
            .collect();
        drop(queues);
        names.sort();
        Ok(names)
    }

    /// Committed entries in `queue` (0 for a queue never used). O(1).
    pub fn queue_size(&self, queue: &str) -> Result<u64> {
        keys::validate_queue_name(queue)?;
        self.shared.db()?;
        Ok(self.shared.queues().get(queue).map_or(0, QueueState::committed_len))
    }

    pub fn stats(&self) -> Result<StoreStats> {
        let db = self.shared.db()?;
        let (queues, queued_items) = {
            let q = self.shared.queues();
            (q.states.values().filter(|s| s.published).count() as u64, q.states.values().map(QueueState::committed_len).sum())
        };
        let prop = |cf: &rocksdb::ColumnFamily, name: &str| -> Result<u64> {
            Ok(db.db().property_int_value_cf(cf, name).context(|| format!("reading {name}"))?.unwrap_or(0))
        };
        let (payload_bytes, stored_payload_bytes) = self.shared.payload_figures();
        let mut memtable_bytes = 0;
        let mut table_reader_bytes = 0;
        for cf in db.families() {
            memtable_bytes += prop(cf, "rocksdb.cur-size-all-mem-tables")?;
            table_reader_bytes += prop(cf, "rocksdb.estimate-table-readers-mem")?;
        }
        Ok(StoreStats {
            queues,
            queued_items,
            maps: self.shared.map_names().by_name.len() as u64,
            map_entries_estimate: db.maps_cf().map(|cf| prop(cf, "rocksdb.estimate-num-keys")).transpose()?.unwrap_or(0),
            objects_estimate: prop(db.cf(CF_OBJECTS), "rocksdb.estimate-num-keys")?,
            disk_bytes: directory_bytes(self.shared.path()),
            memtable_bytes,
            block_cache_bytes: self.shared.block_cache_bytes(),
            table_reader_bytes,
            payload_bytes,
            stored_payload_bytes,
        })
    }

    /// Gives `queue` these settings (all defaults: forgets its settings), durably (synced when
    /// commits are) and at once for every transaction. A lower delivery limit applies to entries
    /// already over it at their next failed delivery, or at the next open.
    pub fn configure_queue(&self, queue: &str, config: QueueConfig) -> Result<()> {
        config.validate(queue)?;
        let db = self.shared.writable_db()?;
        // Under the commit lock, so no commit is prepared against half of the change.
        let _serial = self.shared.commit_lock();
        let key = keys::meta_config_key(queue);
        let mut wo = rocksdb::WriteOptions::default();
        wo.set_sync(self.shared.options().sync_on_commit);
        let written = if config.is_default() { db.db().delete_cf_opt(db.cf(CF_META), &key, &wo) } else { db.db().put_cf_opt(db.cf(CF_META), &key, config.encode(), &wo) };
        written.context(|| format!("writing the settings of queue '{queue}'"))?;
        let mut queues = self.shared.queues();
        let default_max = queues.default_max_deliveries;
        if let Some(q) = queues.get_mut(queue) {
            q.configure(&config, default_max);
        }
        // A new byte capacity counts the queue's entries now, while no commit can change them.
        count_queue_bytes(&db, &mut queues)?;
        if config.is_default() {
            queues.configs.remove(queue);
        } else {
            queues.configs.insert(queue.to_string(), config);
        }
        // A larger capacity is room for a commit waiting for it.
        self.shared.notify_arrivals();
        Ok(())
    }

    /// The value under `key` in map `map` as committed now, read outside any transaction (no
    /// read is noted for a commit to check: for readers that write nothing).
    pub fn map_get(&self, map: &str, key: &[u8]) -> Result<Option<Vec<u8>>> {
        self.map_get_with(map, key, |v| v.map(<[u8]>::to_vec))
    }

    /// `read` of the value under `key` in map `map` as committed now (`map_get` without a copy
    /// of its own: for callers that copy it where they need it).
    pub fn map_get_with<R>(&self, map: &str, key: &[u8], read: impl FnOnce(Option<&[u8]>) -> R) -> Result<R> {
        keys::validate_queue_name(map)?;
        crate::maps::validate_map_key(key)?;
        let db = self.shared.db()?;
        let id = self.shared.map_names().by_name.get(map).copied();
        crate::map_ops::with_stored_value(&self.shared, &db, id, map, key, read)
    }

    /// The names of the maps, sorted.
    pub fn map_names(&self) -> Result<Vec<String>> {
        self.shared.db()?;
        let mut names: Vec<String> = self.shared.map_names().by_name.keys().cloned().collect();
        names.sort();
        Ok(names)
    }

    /// The settings of `queue` (defaults when it has none).
    pub fn queue_config(&self, queue: &str) -> Result<QueueConfig> {
        keys::validate_queue_name(queue)?;
        self.shared.db()?;
        Ok(self.shared.queues().config(queue))
    }

    /// The first `max` dead letters of `queue` (found in its dead-letter queue), lowest
    /// position first, each with its payload and record.
    pub fn dead_letters(&self, queue: &str, max: usize) -> Result<Vec<DeadLetter>> {
        keys::validate_queue_name(queue)?;
        if max > crate::options::MAX_BATCH_ITEMS {
            return Err(Error::InvalidArgument(format!("{max} dead letters are more than the {} one call lists", crate::options::MAX_BATCH_ITEMS)));
        }
        let qid = {
            let queues = self.shared.queues();
            let dlq = queues.config(queue).dead_letter_queue_of(queue);
            match queues.by_name.get(&dlq) {
                Some(&qid) => qid,
                None => return Ok(Vec::new()),
            }
        };
        let records = crate::dead_letter::records_of(&self.shared, qid, max)?;
        let db = self.shared.db()?;
        let seqs: Vec<u64> = records.keys().copied().collect();
        // A dead letter consumed since its record was read is left out (a dead letter is a
        // single-entry record, deleted with its consumption).
        let entries = crate::entry_records::read_entries(&db, qid, &seqs)?.entries;
        let (present, entries): (Vec<(u64, DeadLetterRecord)>, Vec<keys::Entry>) =
            records.into_iter().zip(entries).filter_map(|((seq, r), e)| e.map(|e| ((seq, r), e))).unzip();
        let payloads = crate::buffered::Buffered::default().entry_payloads(&db, &entries)?;
        Ok(present.into_iter().zip(entries).zip(payloads).map(|(((sequence, record), e), payload)| DeadLetter { sequence, id: e.id, payload, record }).collect())
    }

    /// Flush memtables and compact everything: reclaims the space of consumed entries now
    /// instead of when RocksDB gets to it.
    pub fn compact(&self) -> Result<()> {
        self.shared.check_writable()?;
        let db = self.shared.db()?;
        for cf in db.families() {
            db.db().compact_range_cf(cf, None::<&[u8]>, None::<&[u8]>);
        }
        Ok(())
    }

    /// Release RocksDB (and its lock file). Waits for calls in flight; wakes blocked `take`s.
    /// Idempotent.
    pub fn close(&self) -> Result<()> {
        self.shared.close()
    }
}

/// Makes sure the store directory exists before it is locked: creates it (and its parents) when
/// creation is allowed. Returns whether it was created here.
fn prepare_directory(path: &Path, may_create: bool) -> Result<bool> {
    match std::fs::metadata(path) {
        Err(e) if e.kind() == std::io::ErrorKind::NotFound && may_create => {
            std::fs::create_dir_all(path).map_err(Error::io(format!("creating the store directory {}", path.display())))?;
            Ok(true)
        }
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Err(Error::NotAStore {
            path: path.to_path_buf(),
            why: "the directory does not exist (and creation was not asked for)".into(),
        }),
        Err(e) => Err(Error::NotAStore { path: path.to_path_buf(), why: format!("cannot read it: {e}") }),
        Ok(m) if !m.is_dir() => Err(Error::NotAStore { path: path.to_path_buf(), why: "it is a file, not a store directory".into() }),
        Ok(_) => Ok(false),
    }
}

/// Decide whether the directory `path` (which `prepare_directory` made sure of) is an existing
/// store or may become a new one. Returns true to create.
fn check_location(path: &Path, options: &StoreOptions) -> Result<bool> {
    let not_a_store = |why: &str| Error::NotAStore { path: path.to_path_buf(), why: why.to_string() };
    if path.join("CURRENT").is_file() {
        // A store whose files RocksDB cannot read is damaged, not foreign: saying "not a
        // store" might get it deleted.
        let cfs = DB::list_cf(&Options::default(), path).map_err(|e| damaged(path, "listing its column families", e))?;
        if let Some(missing) = ALL_CFS.iter().find(|cf| !cfs.iter().any(|c| c == *cf)) {
            if was_a_store(path) {
                return Err(damaged_store(
                    path,
                    rocksdb::ErrorKind::Corruption,
                    format!("reading its column families from {}", manifest_of(path)),
                    format!("its MANIFEST lists no column family '{missing}', yet RocksDB's OPTIONS file shows it was a RockCask store"),
                ));
            }
            return Err(not_a_store(&format!("a RocksDB database without RockCask's column family '{missing}'")));
        }
        return Ok(false);
    }
    // RockCask's lock file alone (left by an open that failed, or just taken) is no content.
    let empty = std::fs::read_dir(path)
        .map_err(|e| not_a_store(&format!("cannot read it: {e}")))?
        .flatten()
        .all(|entry| entry.file_name() == LOCK_FILE);
    match (empty, options.create_if_missing && !options.read_only) {
        (true, true) => Ok(true),
        (true, false) => Err(not_a_store("the directory is empty (and creation was not asked for)")),
        (false, _) => Err(not_a_store("the directory holds files but no RocksDB CURRENT file")),
    }
}

/// Read-only opens tried before one is refused as unsteady (see `open_read_only_beside_a_writer`).
const READ_ONLY_OPEN_ATTEMPTS: usize = 10;

/// A read-only open beside a live writer reads the MANIFEST, then opens the table files and
/// replays the logs it names. If the writer flushes or compacts meanwhile, it deletes the logs
/// and table files that made obsolete, and an open that had yet to read one recovers an older
/// state or fails, not finding a file it listed (which RocksDB reports as a damaged MANIFEST).
/// So the open is tried again (each try takes milliseconds; a writer frees a log once per
/// memtable) when it succeeded but a log present before it is gone after it, or when it failed
/// and any log, table file or MANIFEST came or went during it. A failure while nothing moved is
/// the store's own, reported as it is.
fn open_read_only_beside_a_writer(path: &Path, open: impl Fn() -> std::result::Result<DB, rocksdb::Error>) -> Result<DB> {
    for _ in 0..READ_ONLY_OPEN_ATTEMPTS {
        let before = wal_files::moving_file_names(path);
        let opened = open();
        let after = wal_files::moving_file_names(path);
        match opened {
            Ok(db) if wal_files::logs_of(&before).is_subset(&wal_files::logs_of(&after)) => return Ok(db),
            Err(e) if before == after => return Err(open_error(path, e)),
            _ => {}
        }
    }
    Err(Error::Rocks {
        status: rocksdb::ErrorKind::Busy,
        context: format!("opening {} read-only", path.display()),
        message: format!("the writer freed files the open was reading during each of {READ_ONLY_OPEN_ATTEMPTS} opens in a row; try again"),
    })
}

/// Checks an existing store in a read-only open before the writable one. A writable open deletes
/// every table file the recovered MANIFEST does not reference; when the MANIFEST lost its last
/// records (a damaged or truncated file that RocksDB takes for an unfinished write), those are
/// the store's data. RocksDB's read-only mode writes and deletes nothing, so a damaged store is
/// refused here with every file still in place, to be restored or repaired.
fn probe_read_only(path: &Path, db_opts: &Options, options: &StoreOptions) -> Result<()> {
    let families = families_to_open(path, false, true)?;
    let cfs = families.iter().map(|name| ColumnFamilyDescriptor::new(*name, cf_options(name, options, None)));
    let db = DB::open_cf_descriptors_read_only(db_opts, path, cfs, false).map_err(|e| open_error(path, e))?;
    check_format_marker(&db, path)
}

/// The column families to open: every one for a writer (which creates the maps family in a store
/// written before it existed), those the store has for a read-only open (which can create none).
fn families_to_open(path: &Path, creating: bool, read_only: bool) -> Result<Vec<&'static str>> {
    let mut families = ALL_CFS.to_vec();
    let has_maps = creating
        || !read_only
        || DB::list_cf(&Options::default(), path).map_err(|e| damaged(path, "listing its column families", e))?.iter().any(|c| c == CF_MAPS);
    if has_maps {
        families.push(CF_MAPS);
    }
    Ok(families)
}

fn check_format_marker(db: &DB, path: &Path) -> Result<()> {
    let meta = db.cf_handle(CF_META).expect("opened with all column families");
    match db.get_pinned_cf(meta, keys::META_FORMAT_KEY).context(|| format!("reading the format of {}", path.display()))? {
        Some(v) if v.as_ref() == keys::META_FORMAT_VALUE => Ok(()),
        Some(v) => Err(Error::NotAStore {
            path: path.to_path_buf(),
            why: format!("unknown format marker {:?} (this library reads {:?})", String::from_utf8_lossy(&v), String::from_utf8_lossy(keys::META_FORMAT_VALUE)),
        }),
        // Every RockCask column family is there (checked before opening), so this was a store;
        // losing the marker means RocksDB recovered less than was written.
        None => Err(damaged_store(
            path,
            rocksdb::ErrorKind::Corruption,
            format!("reading its format marker (check {} and the WAL files)", manifest_of(path)),
            "it has RockCask's column families but no format marker, so RocksDB recovered less than was written".into(),
        )),
    }
}

/// Whether a RocksDB directory whose MANIFEST lacks RockCask's column families still shows it
/// was a store: an OPTIONS file (RocksDB's record of the options it was last opened with) naming
/// RockCask's column families. (Not the lock file: a writer has just taken it, in any directory.)
fn was_a_store(path: &Path) -> bool {
    let Ok(entries) = std::fs::read_dir(path) else { return false };
    entries.flatten().filter(|e| e.file_name().to_string_lossy().starts_with("OPTIONS-")).any(|e| {
        std::fs::read_to_string(e.path()).is_ok_and(|text| ALL_CFS.iter().all(|cf| text.contains(&format!("[CFOptions \"{cf}\"]"))))
    })
}

/// The MANIFEST file CURRENT names (the file RocksDB reads the store's layout from).
fn manifest_of(path: &Path) -> String {
    match manifest_record::current_name(path) {
        Some(name) => path.join(name).display().to_string(),
        None => format!("{} (unreadable)", path.join("CURRENT").display()),
    }
}

/// A RocksDB failure reading an existing store's own files: `Corruption` (or RocksDB's status)
/// naming the store and its MANIFEST, never `NotAStore`.
fn damaged(path: &Path, doing: &str, e: rocksdb::Error) -> Error {
    let status = match e.kind() {
        rocksdb::ErrorKind::Unknown => rocksdb::ErrorKind::Corruption,
        kind => kind,
    };
    damaged_store(path, status, format!("{doing} from {}", manifest_of(path)), e.into_string())
}

/// The one error of a damaged store: what was being read and what was wrong, and what to do (a
/// user told less might delete the store).
fn damaged_store(path: &Path, status: rocksdb::ErrorKind, doing: String, what: String) -> Error {
    Error::Rocks {
        status,
        context: format!("opening {}: {doing}", path.display()),
        message: format!("{what}; the store is damaged or unreadable: do not delete it, restore it from a snapshot or checkpoint"),
    }
}

fn open_error(path: &Path, e: rocksdb::Error) -> Error {
    if e.kind() == rocksdb::ErrorKind::Corruption {
        return damaged(path, "reading its files", e);
    }
    let message = e.clone().into_string();
    // RocksDB reports a held lock file as an IOError mentioning LOCK ("Resource temporarily
    // unavailable" from another process, "lock hold by current process" from this one).
    if message.contains("LOCK") && (message.contains("lock") || message.contains("unavailable")) {
        return Error::Locked { path: path.to_path_buf(), detail: message };
    }
    Error::Rocks { status: e.kind(), context: format!("opening {}", path.display()), message }
}

fn db_options(options: &StoreOptions, creating: bool) -> Options {
    let mut o = rocks_options::db_options(creating, 4, options.write_buffer_bytes);
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
        CF_ENTRIES => rocks_options::with_insert_hints(keys::ENTRY_KEY_QUEUE_BYTES),
        // New object ids are time-ordered (UUIDv7), so new objects land in key order too.
        CF_OBJECTS => rocks_options::with_insert_hints(1),
        _ => Options::default(),
    };
    let mut table = rocks_options::table_options(cache);
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
        rocks_options::compact_files_of_tombstones(&mut o);
    } else {
        o.set_write_buffer_size((options.write_buffer_bytes / 16).max(1 << 20));
    }
    o
}

/// Rebuild every queue's state from its persisted head layout plus a bounded seek for the
/// tail. Consumed entries all lie below the persisted head, so their tombstones are walked only
/// by the look for a block holding the head of a queue with no record above it, at most
/// `MAX_BLOCK_ENTRIES - 1` of them.
/// Then the queues' settings, their entries' delivery counts and their dead letters.
/// Also returns the delivery records that count nothing any more (to be deleted by a writer).
fn recover_queues(db: &DB, default_max_deliveries: u32, queue_cache_bytes: usize) -> Result<(Queues, Vec<(QueueId, u64)>)> {
    let meta = db.cf_handle(CF_META).expect("opened with all column families");
    let entries = db.cf_handle(CF_ENTRIES).expect("opened with all column families");
    let mut queues = Queues { default_max_deliveries, entry_cache: crate::entry_cache::EntryCache::new(queue_cache_bytes), ..Queues::default() };
    for_each_named(db, ReadOptions::default(), keys::meta_config_prefix(), "queue settings", |name, v| {
        let config = QueueConfig::decode(v, &name)?;
        queues.configs.insert(name, config);
        Ok(())
    })?;
    let mut names: HashMap<QueueId, String> = HashMap::new();
    for_each_named(db, ReadOptions::default(), keys::meta_queue_prefix(), "queues", |name, v| {
        names.insert(keys::decode_u32(v, "queue id")?, name);
        Ok(())
    })?;
    for (id, name) in names {
        let layout = match db.get_pinned_cf(meta, keys::meta_head_key(id)).context(|| format!("reading head of queue '{name}'"))? {
            Some(v) => HeadLayout::decode(&v).ok_or_else(|| Error::Corrupt(format!("head layout of queue '{name}'")))?,
            None => HeadLayout::default(),
        };
        let tail = recover_tail(db, entries, id, layout.head, &name)?;
        queues.next_id = queues.next_id.max(id + 1);
        queues.insert(name, QueueState::recovered(id, layout.head, tail, layout.below_head_set()));
    }
    let mut records: Vec<(QueueId, u64)> = Vec::new();
    let all = |prefix: &[u8]| (prefix.to_vec(), [prefix, &[0xFF; 13][..]].concat());
    for_each_per_entry_record(db, all(keys::meta_deliveries_prefix()), "delivery records", |queue, record, v| {
        records.push((queue, record));
        queues.next_delivery_record = queues.next_delivery_record.max(record + 1);
        if let Some(q) = queues.states.get_mut(&queue) {
            for (seq, deliveries) in crate::deliveries::decode(v)? {
                q.recover_deliveries(seq, deliveries, record);
            }
        }
        Ok(true)
    })?;
    for_each_per_entry_record(db, all(keys::meta_dead_letter_prefix()), "dead letters", |queue, seq, _| {
        if let Some(q) = queues.states.get_mut(&queue) {
            q.dead_letters.insert(seq);
        }
        Ok(true)
    })?;
    // Records that count no present entry (all consumed or counted again since): stale.
    let stale = records.into_iter().filter(|(queue, record)| queues.states.get(queue).is_none_or(|q| q.record_counts_nothing(*record))).collect();
    Ok((queues, stale))
}

/// One past the last entry of queue `id` whose head is `head`: the end of its last record from
/// the head on; when it has none, the end of the block holding the head, if one does (its
/// consumed entries lie below the head), else the head. The second look goes at most
/// `MAX_BLOCK_ENTRIES - 1` keys below the head, the lowest first sequence such a block can have.
fn recover_tail(db: &DB, entries: &rocksdb::ColumnFamily, id: QueueId, head: u64, name: &str) -> Result<u64> {
    let last_record_end = |lowest: u64| -> Result<Option<u64>> {
        let mut ro = ReadOptions::default();
        ro.set_iterate_lower_bound(keys::entry_key(id, lowest).to_vec());
        ro.set_iterate_upper_bound(queue_upper_bound(id));
        let mut it = db.raw_iterator_cf_opt(entries, ro);
        it.seek_to_last();
        let end = it.key().map(keys::record_span).transpose()?.map(|(first, n)| first + u64::from(n));
        it.status().context(|| format!("recovering queue '{name}'"))?;
        Ok(end)
    };
    if let Some(end) = last_record_end(head)? {
        return Ok(end.max(head));
    }
    let lowest = keys::lowest_block_start(head);
    Ok(if lowest < head { last_record_end(lowest)?.map_or(head, |end| end.max(head)) } else { head })
}

/// The maps' names and ids, from their `m/` records.
fn recover_map_names(db: &DB) -> Result<crate::maps::MapNames> {
    let mut names = crate::maps::MapNames::default();
    for (name, id) in named_ids(db, ReadOptions::default(), crate::maps::meta_map_prefix(), "maps")? {
        names.next_id = names.next_id.max(id + 1);
        names.by_name.insert(name, id);
    }
    Ok(names)
}

/// Calls `each(name, value)` for every `meta` record `prefix` + UTF-8 name (queue names and ids,
/// queue settings, map names and ids), in name order, read with `ro`; `what` names them in errors.
fn for_each_named(db: &DB, ro: ReadOptions, prefix: &[u8], what: &str, mut each: impl FnMut(String, &[u8]) -> Result<()>) -> Result<()> {
    let mut it = db.raw_iterator_cf_opt(db.cf_handle(CF_META).expect("opened with all column families"), ro);
    it.seek(prefix);
    while let (Some(k), Some(v)) = (it.key(), it.value()) {
        let Some(name) = k.strip_prefix(prefix) else { break };
        let name = String::from_utf8(name.to_vec()).map_err(|_| Error::Corrupt(format!("{what}: a name is not UTF-8")))?;
        each(name, v)?;
        it.next();
    }
    it.status().context(|| format!("listing {what}"))
}

/// The names under `prefix` with the ids their records hold (queues', maps'), in name order.
pub(crate) fn named_ids(db: &DB, ro: ReadOptions, prefix: &[u8], what: &str) -> Result<Vec<(String, u32)>> {
    let mut out = Vec::new();
    for_each_named(db, ro, prefix, what, |name, v| {
        out.push((name, keys::decode_u32(v, "id")?));
        Ok(())
    })?;
    Ok(out)
}

/// Calls `each` with the queue, number and value of every `meta` record in the key range
/// `[start, end)` of `d/` or `x/` records (`keys.rs`), in key order, until it returns false.
pub(crate) fn for_each_per_entry_record(
    db: &DB,
    (start, end): (Vec<u8>, Vec<u8>),
    what: &str,
    mut each: impl FnMut(QueueId, u64, &[u8]) -> Result<bool>,
) -> Result<()> {
    let meta = db.cf_handle(CF_META).expect("opened with all column families");
    let mut ro = ReadOptions::default();
    ro.set_iterate_upper_bound(end);
    let mut it = db.raw_iterator_cf_opt(meta, ro);
    it.seek(start);
    while let (Some(k), Some(v)) = (it.key(), it.value()) {
        let (queue, seq) = keys::decode_per_entry_meta_key(k)?;
        if !each(queue, seq, v)? {
            break;
        }
        it.next();
    }
    it.status().context(|| format!("reading {what}"))
}

/// Starts counting the payload bytes of every queue with a byte capacity that is not counted
/// yet: reads each of its present entries once. The caller holds the queues lock (and, once
/// the store is in use, the commit lock), so no entry comes or goes meanwhile.
fn count_queue_bytes(db: &crate::shared::DbRef<'_>, queues: &mut Queues) -> Result<()> {
    for q in queues.states.values_mut().filter(|q| q.needs_byte_count()) {
        let present = q.present_entries();
        let read = crate::entry_records::read_entries(db, q.id, &present)?;
        q.note_blocks(read.blocks);
        let entries: Vec<keys::Entry> = read.entries.into_iter().flatten().collect();
        let bytes = crate::buffered::counted_bytes(db, &entries)?.into_iter().sum();
        q.start_counting_bytes(bytes);
    }
    Ok(())
}

/// Exclusive upper bound of one queue's entry keys (longer than any of its 12- and 16-byte keys).
pub(crate) fn queue_upper_bound(id: QueueId) -> Vec<u8> {
    let mut k = keys::entry_key(id, u64::MAX).to_vec();
    k.push(0xFF);
    k
}

fn directory_bytes(path: &Path) -> u64 {
    std::fs::read_dir(path)
        .map(|rd| rd.flatten().filter_map(|e| e.metadata().ok()).filter(|m| m.is_file()).map(|m| m.len()).sum())
        .unwrap_or(0)
}

#[cfg(test)]
mod tests {
    use std::cell::Cell;

    use super::*;

    /// A store with a log, closed, and the options to open it read-only.
    fn closed_store(dir: &Path) -> Options {
        let store = Store::open(dir, StoreOptions::default()).unwrap();
        let mut tx = store.begin().unwrap();
        tx.enqueue("q", b"x").unwrap();
        tx.commit().unwrap();
        drop(tx);
        store.close().unwrap();
        db_options(&StoreOptions { read_only: true, ..StoreOptions::default() }, false)
    }

    fn open_read_only(dir: &Path, db_opts: &Options) -> std::result::Result<DB, rocksdb::Error> {
        let cfs = families_to_open(dir, false, true).unwrap().into_iter().map(|name| ColumnFamilyDescriptor::new(name, cf_options(name, &StoreOptions::default(), None)));
        DB::open_cf_descriptors_read_only(db_opts, dir, cfs, false)
    }

    #[test]
    fn a_read_only_open_during_which_a_log_vanished_is_tried_again() {
        let dir = tempfile::tempdir().unwrap();
        let db_opts = closed_store(dir.path());
        let log = wal_files::log_names(dir.path()).into_iter().next().expect("a log file");
        let opens = Cell::new(0);
        let db = open_read_only_beside_a_writer(dir.path(), || {
            opens.set(opens.get() + 1);
            let db = open_read_only(dir.path(), &db_opts);
            if opens.get() == 1 {
                // What a writer's flush does to a log during the open: it vanishes (renamed
                // here rather than deleted, so that the next open still has the log to replay).
                std::fs::rename(dir.path().join(&log), dir.path().join("999999.log")).unwrap();
            }
            db
        });
        assert!(db.is_ok());
        assert_eq!(opens.get(), 2, "tried once more after the log vanished, and not again");
    }

    #[test]
    fn a_failed_read_only_open_during_which_a_table_file_vanished_is_tried_again() {
        let dir = tempfile::tempdir().unwrap();
        let db_opts = closed_store(dir.path());
        let opens = Cell::new(0);
        std::fs::write(dir.path().join("999998.sst"), b"").unwrap();
        let db = open_read_only_beside_a_writer(dir.path(), || {
            opens.set(opens.get() + 1);
            if opens.get() == 1 {
                // What a writer's compaction does while an open reads the MANIFEST: a table
                // file it names is deleted, and RocksDB reports the MANIFEST as damaged.
                std::fs::remove_file(dir.path().join("999998.sst")).unwrap();
                return DB::open_for_read_only(&db_opts, dir.path().join("nowhere"), false);
            }
            open_read_only(dir.path(), &db_opts)
        });
        assert!(db.is_ok());
        assert_eq!(opens.get(), 2);
    }

    #[test]
    fn a_read_only_open_that_fails_while_no_file_moves_is_refused_at_once() {
        let dir = tempfile::tempdir().unwrap();
        let db_opts = closed_store(dir.path());
        let opens = Cell::new(0);
        let refused = open_read_only_beside_a_writer(dir.path(), || {
            opens.set(opens.get() + 1);
            DB::open_for_read_only(&db_opts, dir.path().join("nowhere"), false)
        });
        assert!(refused.is_err());
        assert_eq!(opens.get(), 1, "a failure of the store's own is not tried again");
    }

    #[test]
    fn read_only_opens_that_never_see_the_logs_hold_still_are_refused_as_busy() {
        let dir = tempfile::tempdir().unwrap();
        let db_opts = closed_store(dir.path());
        let opens = Cell::new(0u64);
        let refused = open_read_only_beside_a_writer(dir.path(), || {
            opens.set(opens.get() + 1);
            let db = open_read_only(dir.path(), &db_opts);
            for name in wal_files::log_names(dir.path()) {
                std::fs::rename(dir.path().join(&name), dir.path().join(format!("{:06}.log", 900_000 + opens.get()))).unwrap();
            }
            db
        });
        match refused {
            Err(Error::Rocks { status: rocksdb::ErrorKind::Busy, message, .. }) => assert!(message.contains("try again"), "{message}"),
            other => panic!("expected Busy, got {:?}", other.map(|_| "a database")),
        }
        assert_eq!(opens.get(), READ_ONLY_OPEN_ATTEMPTS as u64);
    }
}
