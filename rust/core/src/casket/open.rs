//! Opening and closing a casket: its options, the marker and data directory checks, RocksDB's
//! options, the counts read back (or counted, for caskets written before they were kept).

use std::collections::HashMap;
use std::path::Path;
use std::sync::Arc;

use parking_lot::{Condvar, Mutex};
use rocksdb::{Cache, ColumnFamilyDescriptor, DBCompressionType, Options, WriteBatch, DB};

use super::error::{CasketError, CasketResult, Ecode};
use super::files::{self, Kind, LockMode, MarkerFile, OpenRegistration};
use super::order::KeyOrder;
use super::transaction::{has_undo, rollback_undo};
use super::{
    pending, record_bytes, Casket, Inner, CF_DATA, EXTERNAL_COMPARATOR, META_BYTES, META_ID, META_RNUM, META_SEQ,
};
use crate::store::tuning;

/// Compression of the casket's files (Tokyo Cabinet's `TDEFLATE`, `TBZIP`, `TTCBS` map here).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum Compression {
    #[default]
    None,
    Lz4,
    Zstd,
}

#[derive(Clone, Debug)]
pub struct CasketOptions {
    pub kind: Kind,
    pub order: KeyOrder,
    pub writer: bool,
    pub create: bool,
    pub truncate: bool,
    pub lock: LockMode,
    /// Sync every transaction commit to the device (`OTSYNC`).
    pub sync_transactions: bool,
    pub cache_bytes: usize,
    pub write_buffer_bytes: usize,
    pub compression: Compression,
}

impl CasketOptions {
    pub fn new(kind: Kind, writer: bool) -> CasketOptions {
        CasketOptions {
            kind,
            order: KeyOrder::Lexical,
            writer,
            create: false,
            truncate: false,
            lock: LockMode::Blocking,
            sync_transactions: false,
            cache_bytes: 32 << 20,
            write_buffer_bytes: DEFAULT_WRITE_BUFFER_BYTES,
            compression: Compression::None,
        }
    }

    /// Takes the memory sizes as the drop-in's tuning calls leave them (signed, as Java holds
    /// them): a negative cache size is no cache, a negative write buffer size the default, and
    /// a write buffer is at least 1 MiB (a smaller one would flush at every few writes).
    pub fn set_sizes(&mut self, cache_bytes: i64, write_buffer_bytes: i64) {
        self.cache_bytes = usize::try_from(cache_bytes).unwrap_or(0);
        self.write_buffer_bytes = usize::try_from(write_buffer_bytes)
            .unwrap_or(DEFAULT_WRITE_BUFFER_BYTES)
            .max(MIN_WRITE_BUFFER_BYTES);
    }
}

/// A casket's write buffer unless its opener asks for another size.
const DEFAULT_WRITE_BUFFER_BYTES: usize = 64 << 20;
/// The smallest write buffer `set_sizes` gives.
const MIN_WRITE_BUFFER_BYTES: usize = 1 << 20;

impl Casket {
    pub fn open(path: impl AsRef<Path>, opts: CasketOptions) -> CasketResult<Casket> {
        let path = path.as_ref().to_path_buf();
        if path.as_os_str().is_empty() {
            return Err(CasketError::new(Ecode::NoFile, "empty path"));
        }
        let registration = OpenRegistration::register(&path)?;
        let create = opts.writer && opts.create;
        let mut marker_file = MarkerFile::open(&path, opts.writer, create, opts.lock.clone())?;
        let dir = files::data_dir(&path);
        let order_id = opts.order.id();
        let existing = match if opts.writer && opts.truncate {
            None
        } else {
            marker_file.read()?
        } {
            Some(m) => {
                m.check(&path, opts.kind, &order_id)?;
                if !dir.is_dir() {
                    return Err(CasketError::new(
                        Ecode::Meta,
                        format!(
                            "data directory {} of casket {} is missing",
                            dir.display(),
                            path.display()
                        ),
                    ));
                }
                Some(m)
            }
            None if opts.writer => None,
            None => {
                return Err(CasketError::new(
                    Ecode::Meta,
                    format!("{} is empty, not a casket", path.display()),
                ))
            }
        };
        let cache = (opts.cache_bytes > 0).then(|| Cache::new_lru_cache(opts.cache_bytes));
        let (db, marker) = match existing {
            Some(m) => {
                // RocksDB refuses a second writer from another process, but not one from this
                // process through another copy of this library (another class loader), with
                // ONOLCK or no marker lock to stop it: two writers would destroy the database.
                if opts.writer && files::dir_in_use(&dir)? {
                    return Err(CasketError::new(
                        Ecode::Lock,
                        format!("{} is already open (in this or another process)", dir.display()),
                    ));
                }
                (open_db(&dir, &opts, cache.as_ref(), false)?, m)
            }
            None => {
                // A new casket (or a truncated one): whatever directory is there is stale. The
                // old marker is emptied first, so a crash from here on leaves a casket that
                // the next create starts afresh, never a marker naming a half-removed one.
                marker_file.clear()?;
                files::remove_stale_dir(&dir)?;
                files::create_dir(&dir)?;
                let m = files::Marker::new(opts.kind, order_id);
                let db = open_db(&dir, &opts, cache.as_ref(), true)?;
                let mut batch = WriteBatch::default();
                batch.put(META_ID, m.id.as_bytes());
                db.write(batch)
                    .map_err(|e| CasketError::rocks(Ecode::Write, "initialising the casket", e))?;
                db.flush_wal(true)
                    .map_err(|e| CasketError::rocks(Ecode::Sync, "syncing the new casket", e))?;
                // The marker is written last: a crash before this leaves a stale directory and
                // no casket, never a marker without data.
                marker_file.write(&m)?;
                (db, m)
            }
        };
        let stored_id = db
            .get(META_ID)
            .map_err(|e| CasketError::rocks(Ecode::Read, "reading the casket id", e))?;
        if stored_id.as_deref() != Some(marker.id.as_bytes()) {
            return Err(CasketError::new(
                Ecode::Meta,
                format!("{} belongs to another casket than {}", dir.display(), path.display()),
            ));
        }
        let data_cf_id = {
            let data = db.cf_handle(CF_DATA).expect("opened with the data column family");
            let id =
                crate::batch::cf_id(data, CF_DATA).and_then(|id| crate::batch::check_encoding(data, id).map(|_| id));
            id.map_err(|e| CasketError::new(Ecode::Misc, e.to_string()))?
        };
        let casket = Casket {
            path,
            marker,
            order: opts.order.clone(),
            kind: opts.kind,
            writer: opts.writer,
            sync_transactions: opts.sync_transactions,
            inner: Mutex::new(Inner {
                db: Some(db),
                marker_file: Some(marker_file),
                registration: Some(registration),
                pending: pending::Pending::default(),
                rnum: 0,
                bytes: 0,
                next_counter: 1,
                tx: None,
                transaction_ended: Arc::new(Condvar::new()),
                fatal: None,
                holding: false,
                hint_bytes: 0,
                first_hint: HashMap::new(),
                pending_keys: HashMap::new(),
                order_is_external: opts.order.is_external(),
                order: opts.order.clone(),
                data_cf_id,
                _cache: cache,
            }),
        };
        {
            let mut inner = casket.inner.lock();
            let db = inner.db.as_ref().expect("just opened");
            if has_undo(db)? {
                if !opts.writer {
                    return Err(CasketError::new(
                        Ecode::Meta,
                        format!(
                            "{}: a transaction was interrupted; open it once as a writer to roll it back",
                            casket.path.display()
                        ),
                    ));
                }
                rollback_undo(db)?;
            }
            let (rnum, counter) = (read_u64(db, META_RNUM)?, read_u64(db, META_SEQ)?.max(1));
            let bytes = match read_opt_u64(db, META_BYTES)? {
                Some(b) => b,
                None => {
                    let b = count_record_bytes(db, &opts.order)?;
                    if opts.writer {
                        db.put(META_BYTES, b.to_le_bytes())
                            .map_err(|e| CasketError::rocks(Ecode::Write, "writing casket metadata", e))?;
                    }
                    b
                }
            };
            inner.rnum = rnum;
            inner.bytes = bytes;
            inner.next_counter = counter;
        }
        Ok(casket)
    }

    /// Aborts a running transaction, writes what is pending, syncs, releases RocksDB, the
    /// lock and the marker. Later calls fail with EINVALID. A second close is a no-op.
    pub fn close(&self) -> CasketResult<()> {
        let mut inner = self.inner.lock();
        if inner.db.is_none() {
            return Ok(());
        }
        let mut result = Ok(());
        if inner.tx.is_some() {
            result = inner.abort();
        }
        if result.is_ok() {
            result = inner.flush();
        }
        if result.is_ok() && self.writer {
            result = inner
                .db()
                .flush_wal(true)
                .map_err(|e| CasketError::rocks(Ecode::Sync, "syncing at close", e));
        }
        inner.db = None;
        inner.marker_file = None;
        inner.registration = None;
        inner.clear_hints();
        inner.transaction_ended.notify_all();
        result
    }
}

pub(super) fn read_u64(db: &DB, key: &[u8]) -> CasketResult<u64> {
    Ok(read_opt_u64(db, key)?.unwrap_or(0))
}

pub(super) fn read_opt_u64(db: &DB, key: &[u8]) -> CasketResult<Option<u64>> {
    match db
        .get_pinned(key)
        .map_err(|e| CasketError::rocks(Ecode::Read, "reading casket metadata", e))?
    {
        None => Ok(None),
        Some(v) => {
            Ok(Some(u64::from_le_bytes(v.as_ref().try_into().map_err(|_| {
                CasketError::new(Ecode::Meta, "damaged casket metadata")
            })?)))
        }
    }
}

/// The record bytes of every record, counted (for caskets written before they were kept).
pub(super) fn count_record_bytes(db: &DB, order: &KeyOrder) -> CasketResult<u64> {
    let data = db.cf_handle(CF_DATA).expect("opened with the data column family");
    let mut ro = rocksdb::ReadOptions::default();
    ro.fill_cache(false);
    let mut it = db.raw_iterator_cf_opt(data, ro);
    it.seek_to_first();
    let mut bytes = 0;
    while let (Some(k), Some(v)) = (it.key(), it.value()) {
        bytes += record_bytes(order.user_key_len(k), v.len());
        it.next();
    }
    it.status()
        .map_err(|e| CasketError::rocks(Ecode::Read, "counting the casket's records", e))?;
    Ok(bytes)
}

fn open_db(dir: &Path, opts: &CasketOptions, cache: Option<&Cache>, creating: bool) -> CasketResult<DB> {
    let db_opts = tuning::base_db_options(creating, 2, opts.write_buffer_bytes * 2);
    let mut data = Options::default();
    let mut table = tuning::table_options(cache);
    table.set_cache_index_and_filter_blocks(true);
    data.set_block_based_table_factory(&table);
    data.set_write_buffer_size(opts.write_buffer_bytes.max(1 << 20));
    data.set_compression_type(match opts.compression {
        Compression::None => DBCompressionType::None,
        Compression::Lz4 => DBCompressionType::Lz4,
        Compression::Zstd => DBCompressionType::Zstd,
    });
    // Consumed duplicates (the queue pattern) are tombstones.
    tuning::compact_files_of_tombstones(&mut data);
    if let KeyOrder::External { compare, .. } = &opts.order {
        data.set_comparator(EXTERNAL_COMPARATOR, KeyOrder::rocks_comparator(compare.clone()));
    }
    let cfs = vec![
        ColumnFamilyDescriptor::new(rocksdb::DEFAULT_COLUMN_FAMILY_NAME, Options::default()),
        ColumnFamilyDescriptor::new(CF_DATA, data),
    ];
    let opened = if opts.writer {
        DB::open_cf_descriptors(&db_opts, dir, cfs)
    } else {
        DB::open_cf_descriptors_read_only(&db_opts, dir, cfs, false)
    };
    opened.map_err(|e| {
        let code = if e.kind() == rocksdb::ErrorKind::IOError && e.to_string().contains("lock") {
            Ecode::Lock
        } else {
            Ecode::Open
        };
        CasketError::rocks(code, format!("opening {}", dir.display()), e)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_asked_for_become_no_cache_the_default_buffer_when_negative_and_a_buffer_of_at_least_1_mib() {
        let sized = |cache, buffer| {
            let mut o = CasketOptions::new(Kind::Btree, true);
            o.set_sizes(cache, buffer);
            (o.cache_bytes, o.write_buffer_bytes)
        };
        assert_eq!(sized(-1, -1), (0, 64 << 20));
        assert_eq!(sized(0, 10), (0, 1 << 20));
        assert_eq!(sized(24 << 20, 128 << 20), (24 << 20, 128 << 20));
    }
}
