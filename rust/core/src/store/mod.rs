//! The store: a handle on one open RocksDB database holding named queues, objects and maps, and
//! what it answers outside any transaction (names, sizes, settings, statistics, dead letters).
//! Opening (`open.rs`, with `location.rs`, `tuning.rs`, `recovery.rs`), figures (`figures.rs`)
//! and read-only walks (`inspect.rs`) are its other rooms.

mod figures;
pub(crate) mod inspect;
mod location;
mod open;
mod recovery;
pub(crate) mod tuning;

use std::path::Path;
use std::sync::Arc;

use crate::dead_letter::{DeadLetter, DeadLetterRecord};
use crate::error::{Error, Result, RocksContext};
use crate::keys::{self, CF_META, CF_OBJECTS};
use crate::options::StoreOptions;
use crate::queue::QueueState;
use crate::queue_config::QueueConfig;
use crate::shared::Shared;
use crate::transaction::Transaction;

pub use figures::{QueueFigures, StoreMetrics};
pub use inspect::{EntryVisitor, PairVisitor};

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
            return Err(Error::InvalidArgument(format!(
                "queue name prefix is {} bytes long; at most {} are allowed",
                prefix.len(),
                keys::MAX_QUEUE_NAME_BYTES
            )));
        }
        self.shared.db()?;
        let mut names = self.shared.queues().listed_names(prefix);
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
        let (queues, queued_items) = self.shared.queues().totals();
        let prop = |cf: &rocksdb::ColumnFamily, name: &str| -> Result<u64> {
            Ok(db
                .db()
                .property_int_value_cf(cf, name)
                .context(|| format!("reading {name}"))?
                .unwrap_or(0))
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
            maps: self.shared.map_count() as u64,
            map_entries_estimate: db
                .maps_cf()
                .map(|cf| prop(cf, "rocksdb.estimate-num-keys"))
                .transpose()?
                .unwrap_or(0),
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
        // Between two commits, so that no commit is prepared against half of the change.
        self.shared.commit_lock().between_commits(|| {
            let key = keys::meta_config_key(queue);
            let mut wo = rocksdb::WriteOptions::default();
            wo.set_sync(self.shared.options().sync_on_commit);
            let written = if config.is_default() {
                db.db().delete_cf_opt(db.cf(CF_META), &key, &wo)
            } else {
                db.db().put_cf_opt(db.cf(CF_META), &key, config.encode(), &wo)
            };
            written.context(|| format!("writing the settings of queue '{queue}'"))?;
            let mut queues = self.shared.queues();
            queues.configure(queue, &config);
            // A new byte capacity counts the queue's entries now, while no commit can change them.
            open::count_queue_bytes(&db, &mut queues)?;
            queues.keep_config(queue, config);
            // A larger capacity is room for a commit waiting for it.
            self.shared.notify_arrivals();
            Ok(())
        })
    }

    /// The value under `key` in map `map` as committed now, read outside any transaction (no
    /// read is noted for a commit to check: for readers that write nothing).
    pub fn map_get(&self, map: &str, key: &[u8]) -> Result<Option<Vec<u8>>> {
        self.map_get_with(map, key, |v| v.map(<[u8]>::to_vec))
    }

    /// `read` of the value under `key` in map `map` as committed now (`map_get` without a copy
    /// of its own: for callers that copy it where they need it).
    pub fn map_get_with<R>(&self, map: &str, key: &[u8], read: impl FnOnce(Option<&[u8]>) -> R) -> Result<R> {
        crate::maps::validate_map_name(map)?;
        crate::maps::validate_map_key(key)?;
        let db = self.shared.db()?;
        let id = self.shared.map_id(map);
        crate::map_reads::with_stored_value(&self.shared, &db, None, id, map, key, read)
    }

    /// The names of the maps, sorted.
    pub fn map_names(&self) -> Result<Vec<String>> {
        self.shared.db()?;
        let mut names = self.shared.map_names();
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
        self.dead_letters_within(queue, max, usize::MAX)
    }

    /// `dead_letters` that also stops before the dead letter whose payload, origin queue and
    /// reason would bring the bytes returned over `max_bytes` (for a caller whose result must
    /// fit one buffer); the first is always returned, whatever its size. Payloads are read one
    /// dead letter at a time, so no more than that is held.
    pub fn dead_letters_within(&self, queue: &str, max: usize, max_bytes: usize) -> Result<Vec<DeadLetter>> {
        keys::validate_queue_name(queue)?;
        if max > crate::options::MAX_BATCH_ITEMS {
            return Err(Error::InvalidArgument(format!(
                "{max} dead letters are more than the {} one call lists",
                crate::options::MAX_BATCH_ITEMS
            )));
        }
        let qid = {
            let queues = self.shared.queues();
            let dlq = queues.config(queue).dead_letter_queue_of(queue);
            match queues.id(&dlq) {
                Some(qid) => qid,
                None => return Ok(Vec::new()),
            }
        };
        let db = self.shared.db()?;
        let records = crate::dead_letter::records_of(&db, qid, max)?;
        let seqs: Vec<u64> = records.keys().copied().collect();
        // A dead letter consumed since its record was read is left out (a dead letter is a
        // single-entry record, deleted with its consumption).
        let entries = crate::entry_records::read_entries(&db, qid, &seqs)?.entries;
        let (present, entries): (Vec<(u64, DeadLetterRecord)>, Vec<keys::Entry>) = records
            .into_iter()
            .zip(entries)
            .filter_map(|((seq, r), e)| e.map(|e| ((seq, r), e)))
            .unzip();
        let reads = crate::object_reads::ObjectReads::committed();
        let mut out = Vec::new();
        let mut bytes = 0usize;
        for ((sequence, record), e) in present.into_iter().zip(entries) {
            let payload = reads
                .entry_payloads(&db, std::slice::from_ref(&e), rocksdb::ReadOptions::default())?
                .pop()
                .flatten();
            let size = payload.as_ref().map_or(0, Vec::len) + record.origin_queue.len() + record.reason.len();
            bytes = bytes.saturating_add(size);
            if bytes > max_bytes && !out.is_empty() {
                break;
            }
            out.push(DeadLetter {
                sequence,
                id: e.id,
                payload,
                record,
            });
        }
        Ok(out)
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

fn directory_bytes(path: &Path) -> u64 {
    std::fs::read_dir(path)
        .map(|rd| {
            rd.flatten()
                .filter_map(|e| e.metadata().ok())
                .filter(|m| m.is_file())
                .map(|m| m.len())
                .sum()
        })
        .unwrap_or(0)
}
