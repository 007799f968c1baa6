//! Caskets: the key/value databases behind the Tokyo Cabinet drop-in (`tokyocabinet.BDB`,
//! `HDB`), one RocksDB database each.
//!
//! Records are ordered by the casket's key order; a key may hold several values (duplicates),
//! kept in insertion order (`order.rs`). Writes outside a transaction are written at once
//! (write-ahead logged, not synced: they survive the process being killed, as Tokyo Cabinet
//! promised nothing stronger without a transaction). Inside a transaction they are gathered in a
//! batch and undo-logged when they must be written early (`undo.rs`).
//!
//! All operations on one casket are serialized by one mutex; `tranbegin` from a second thread
//! waits on a condition variable until the first transaction ends.

pub mod cursor;
pub mod error;
pub mod files;
pub mod order;
mod pending;
pub mod records;
pub mod scan;
mod undo;

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::thread::ThreadId;

use parking_lot::{Condvar, Mutex, MutexGuard};
use rocksdb::{
    BlockBasedOptions, Cache, ColumnFamily, ColumnFamilyDescriptor, DBCompressionType, Direction, IteratorMode, Options,
    WriteBatch, WriteOptions, DB,
};

pub use error::{errmsg, CasketError, CasketResult, Ecode};
pub use files::{Kind, LockMode};
pub use order::{ExternalCompare, KeyOrder};
pub use cursor::{CursorPut, Position};
pub use order::report_comparison_failure;
pub use records::{appended_len, check_value_len, PutMode, Range, MAX_VALUE_LEN};

use files::{MarkerFile, OpenRegistration};
use undo::Undo;

const CF_DATA: &str = "data";
const META_RNUM: &[u8] = b"m/rnum";
/// The record bytes `fsiz` counts (see `FSIZ_HEADER`); absent in caskets made before it was
/// kept, where the first open counts it.
const META_BYTES: &[u8] = b"m/bytes";
const META_SEQ: &[u8] = b"m/seq";
const META_ID: &[u8] = b"m/id";
/// Name of the RocksDB comparator of caskets with a caller-supplied order. The order's own
/// identity is checked through the marker, before RocksDB sees the comparator.
const EXTERNAL_COMPARATOR: &str = "rockcask.casket.external";
/// Transaction writes gathered beyond this many bytes are written early, with undo records.
const MAX_PENDING_BYTES: usize = 64 << 20;
/// `fsiz` is this figure plus, for every record (each duplicate value counted), its key's and
/// value's lengths and `FSIZ_RECORD`: a size that follows the committed contents only, so an
/// aborted transaction leaves it as it was at `tranbegin` (as Tokyo Cabinet truncated its file
/// back), whatever RocksDB's logs and compactions do on disk meanwhile.
pub const FSIZ_HEADER: u64 = 256;
pub const FSIZ_RECORD: u64 = 16;

/// What one record adds to `fsiz`.
fn record_bytes(key_len: usize, value_len: usize) -> u64 {
    FSIZ_RECORD + key_len as u64 + value_len as u64
}

/// Bound on the per-key "first live duplicate" hints (a cache; losing it costs one longer seek).
const MAX_HINTS: usize = 1 << 16;
const MAX_HINT_BYTES: usize = 16 << 20;

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
            write_buffer_bytes: 64 << 20,
            compression: Compression::None,
        }
    }
}

impl Clone for LockMode {
    fn clone(&self) -> Self {
        match self {
            LockMode::None => LockMode::None,
            LockMode::Blocking => LockMode::Blocking,
            LockMode::NonBlocking => LockMode::NonBlocking,
        }
    }
}

impl std::fmt::Debug for LockMode {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            LockMode::None => "None",
            LockMode::Blocking => "Blocking",
            LockMode::NonBlocking => "NonBlocking",
        })
    }
}

pub struct Casket {
    path: PathBuf,
    marker: files::Marker,
    order: KeyOrder,
    kind: Kind,
    writer: bool,
    sync_transactions: bool,
    inner: Mutex<Inner>,
}

struct TxState {
    owner: ThreadId,
    rnum_at_begin: u64,
    bytes_at_begin: u64,
    /// Undo records already written (index 0, the header, is written with the first).
    undo_written: u64,
}

struct Inner {
    /// `None` once closed.
    db: Option<DB>,
    /// The locked marker file; dropping it releases the lock.
    marker_file: Option<MarkerFile>,
    registration: Option<OpenRegistration>,
    /// Writes of the running transaction not yet written to RocksDB.
    pending: pending::Pending,
    rnum: u64,
    /// The record bytes `fsiz` counts (`record_bytes` of every record).
    bytes: u64,
    /// Next duplicate counter; sequences are `counter << 16`, leaving room to insert between
    /// neighbours (cursor puts) without renumbering.
    next_counter: u64,
    tx: Option<TxState>,
    /// Signalled whenever a transaction ends (commit, abort, a failure that rolls it back) and
    /// at close, for `tranbegin` calls waiting their turn.
    transaction_ended: Arc<Condvar>,
    /// Set when a rollback could not be completed: the undo log is still on disk and the data
    /// may hold the transaction's writes, so writes are refused until the casket is reopened
    /// (which completes the rollback).
    fatal: Option<String>,
    /// Set by `atomically`: writes outside a transaction are gathered until it ends.
    holding: bool,
    /// Bytes of the keys in `first_hint` (it is bounded by bytes as well as entries).
    hint_bytes: usize,
    /// Per user-key part: a sequence at or below the key's first live value, so reading the
    /// head of a much-consumed key does not walk over the tombstones of consumed values.
    first_hint: HashMap<Vec<u8>, u64>,
    /// Hashes of the user-key parts with pending writes: true if a put is among them, false if
    /// only removals (of a key's first values, which its `first_hint` already skips).
    pending_keys: HashMap<u64, bool>,
    /// Pending writes are sorted bytewise before they are applied, unless RocksDB orders this
    /// casket with a caller's comparator.
    order_is_external: bool,
    /// The casket's order (to measure the user keys of written records).
    order: KeyOrder,
    /// The data column family's id in write batches (`crate::batch`).
    data_cf_id: u32,
    _cache: Option<Cache>,
}

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
        let existing = match if opts.writer && opts.truncate { None } else { marker_file.read()? } {
            Some(m) => {
                m.check(&path, opts.kind, &order_id)?;
                if !dir.is_dir() {
                    return Err(CasketError::new(
                        Ecode::Meta,
                        format!("data directory {} of casket {} is missing", dir.display(), path.display()),
                    ));
                }
                Some(m)
            }
            None if opts.writer => None,
            None => return Err(CasketError::new(Ecode::Meta, format!("{} is empty, not a casket", path.display()))),
        };
        let cache = (opts.cache_bytes > 0).then(|| Cache::new_lru_cache(opts.cache_bytes));
        let (db, marker) = match existing {
            Some(m) => {
                // RocksDB refuses a second writer from another process, but not one from this
                // process through another copy of this library (another class loader), with
                // ONOLCK or no marker lock to stop it: two writers would destroy the database.
                if opts.writer && files::dir_in_use(&dir)? {
                    return Err(CasketError::new(Ecode::Lock, format!("{} is already open (in this or another process)", dir.display())));
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
                db.write(batch).map_err(|e| CasketError::rocks(Ecode::Write, "initialising the casket", e))?;
                db.flush_wal(true).map_err(|e| CasketError::rocks(Ecode::Sync, "syncing the new casket", e))?;
                // The marker is written last: a crash before this leaves a stale directory and
                // no casket, never a marker without data.
                marker_file.write(&m)?;
                (db, m)
            }
        };
        let stored_id = db.get(META_ID).map_err(|e| CasketError::rocks(Ecode::Read, "reading the casket id", e))?;
        if stored_id.as_deref() != Some(marker.id.as_bytes()) {
            return Err(CasketError::new(
                Ecode::Meta,
                format!("{} belongs to another casket than {}", dir.display(), path.display()),
            ));
        }
        let data_cf_id = {
            let data = db.cf_handle(CF_DATA).expect("opened with the data column family");
            let id = crate::batch::cf_id(data, CF_DATA).and_then(|id| crate::batch::check_encoding(data, id).map(|_| id));
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
                        format!("{}: a transaction was interrupted; open it once as a writer to roll it back", casket.path.display()),
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
                        db.put(META_BYTES, b.to_le_bytes()).map_err(|e| CasketError::rocks(Ecode::Write, "writing casket metadata", e))?;
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
            result = inner.db().flush_wal(true).map_err(|e| CasketError::rocks(Ecode::Sync, "syncing at close", e));
        }
        inner.db = None;
        inner.marker_file = None;
        inner.registration = None;
        inner.clear_hints();
        inner.transaction_ended.notify_all();
        result
    }

    /// The casket, open; `write` also requires a writer.
    fn lock(&self, write: bool) -> CasketResult<MutexGuard<'_, Inner>> {
        let inner = self.inner.lock();
        if inner.db.is_none() {
            return Err(CasketError::new(Ecode::Invalid, "the database is not open"));
        }
        if write && !self.writer {
            return Err(CasketError::new(Ecode::Invalid, format!("{} is open as a reader", self.path.display())));
        }
        if let (true, Some(why)) = (write, &inner.fatal) {
            return Err(CasketError::new(Ecode::Invalid, format!("writes are refused until the database is reopened: {why}")));
        }
        Ok(inner)
    }

    /// The casket, open, ready to read `key`'s values: gathered writes that could change what
    /// a read of that key sees are applied first (the others stay gathered).
    fn lock_for_key(&self, write: bool, key: &[u8]) -> CasketResult<MutexGuard<'_, Inner>> {
        let mut inner = self.lock(write)?;
        let probe = self.order.encode(key, 0);
        if inner.must_flush_for(self.order.key_part(&probe)) {
            inner.flush()?;
        }
        Ok(inner)
    }

    /// The casket, open, with every gathered write applied (so reads see them).
    fn lock_flushed(&self, write: bool) -> CasketResult<MutexGuard<'_, Inner>> {
        let mut inner = self.lock(write)?;
        inner.flush()?;
        Ok(inner)
    }

    pub fn rnum(&self) -> CasketResult<u64> {
        Ok(self.lock(false)?.rnum)
    }

    /// Tokyo Cabinet's `fsiz`: [`FSIZ_HEADER`] plus, for every record, [`FSIZ_RECORD`] and the
    /// lengths of its key and value. It grows and shrinks with the records (a transaction's
    /// writes included while it runs) and is back where it was after `tranabort`.
    pub fn fsiz(&self) -> CasketResult<u64> {
        Ok(FSIZ_HEADER + self.lock(false)?.bytes)
    }

    /// Runs one call of the casket's user (the drop-in's entry points run every call that reads
    /// records through this). With a caller-supplied order, a call during which the order
    /// reported a failure (`report_comparison_failure`) before the call wrote anything fails
    /// with EINVALID, with nothing written; the result of the failed comparisons is not
    /// returned. Other orders cannot fail; the call just runs.
    pub fn call<T, E: From<CasketError>>(&self, f: impl FnOnce(&Casket) -> Result<T, E>) -> Result<T, E> {
        if self.order.is_external() {
            order::tracked(|| f(self))
        } else {
            f(self)
        }
    }

    /// Bytes on disk now (writes a transaction has gathered in memory are not counted).
    pub fn disk_bytes(&self) -> CasketResult<u64> {
        let _open = self.lock(false)?;
        Ok(files::disk_bytes(&self.path))
    }

    // ---- transactions -------------------------------------------------------------------

    /// Starts a transaction; waits while another thread's transaction runs.
    pub fn tranbegin(&self) -> CasketResult<()> {
        let me = std::thread::current().id();
        let mut inner = self.lock(true)?;
        while let Some(tx) = &inner.tx {
            if tx.owner == me {
                return Err(CasketError::new(Ecode::Invalid, "this thread already runs a transaction on this database"));
            }
            let ended = inner.transaction_ended.clone();
            ended.wait(&mut inner);
            if inner.db.is_none() {
                return Err(CasketError::new(Ecode::Invalid, "the database was closed while waiting for a transaction"));
            }
        }
        inner.flush()?;
        inner.tx = Some(TxState { owner: me, rnum_at_begin: inner.rnum, bytes_at_begin: inner.bytes, undo_written: 0 });
        Ok(())
    }

    /// Writes the transaction durably (synced if opened with `sync_transactions`). If the
    /// write fails, the transaction is rolled back.
    pub fn trancommit(&self) -> CasketResult<()> {
        let mut inner = self.lock(true)?;
        let Some(tx) = inner.tx.as_ref() else {
            return Err(CasketError::new(Ecode::Invalid, "no transaction is running"));
        };
        let undo_written = tx.undo_written;
        let mut batch = inner.take_pending();
        if undo_written > 0 {
            let (lo, hi) = undo::undo_range();
            batch.delete_range(lo, hi);
        }
        inner.put_meta(&mut batch);
        let mut wo = WriteOptions::default();
        wo.set_sync(self.sync_transactions);
        let written = inner.db().write_opt(batch, &wo).map_err(|e| CasketError::rocks(Ecode::Write, "committing the transaction", e));
        match written {
            Ok(()) => {
                inner.tx = None;
                inner.transaction_ended.notify_all();
                Ok(())
            }
            Err(e) => {
                let _ = inner.abort();
                Err(e)
            }
        }
    }

    /// Restores the state at `tranbegin`: values, record count, everything.
    pub fn tranabort(&self) -> CasketResult<()> {
        let mut inner = self.lock(true)?;
        if inner.tx.is_none() {
            return Err(CasketError::new(Ecode::Invalid, "no transaction is running"));
        }
        inner.abort()
    }

    // ---- maintenance --------------------------------------------------------------------

    /// Writes everything and syncs it to the device.
    pub fn sync(&self) -> CasketResult<()> {
        let inner = self.lock_flushed(true)?;
        inner.db().flush_wal(true).map_err(|e| CasketError::rocks(Ecode::Sync, "syncing", e))
    }

    /// Compacts the data (Tokyo Cabinet's `optimize` rebuilt the file).
    pub fn optimize(&self) -> CasketResult<()> {
        let inner = self.lock_flushed(true)?;
        let db = inner.db();
        db.compact_range_cf(inner.data(), None::<&[u8]>, None::<&[u8]>);
        db.compact_range(None::<&[u8]>, None::<&[u8]>);
        Ok(())
    }

    /// A copy that opens at `dest`: a RocksDB checkpoint (hard links where possible) beside a
    /// new marker. An existing casket or file at `dest` is replaced, unless it is open in this
    /// process (ELOCK).
    pub fn copy(&self, dest: &Path) -> CasketResult<()> {
        let inner = self.lock_flushed(false)?;
        if std::path::absolute(dest).ok() == std::path::absolute(&self.path).ok() {
            return Err(CasketError::new(Ecode::Invalid, "cannot copy a database onto itself"));
        }
        // A casket open at `dest` (in this process, this one under another spelling included,
        // or in another process) would have its data replaced under it: refused with ELOCK, as
        // a second open is. The destination's marker stays locked until the copy is done.
        let _dest = OpenRegistration::register(dest)?;
        let _dest_marker = match MarkerFile::open(dest, true, false, LockMode::NonBlocking) {
            Err(e) if e.code == Ecode::NoFile => None,
            other => Some(other?),
        };
        let dest_dir = files::data_dir(dest);
        files::remove_stale_dir(&dest_dir)?;
        if self.writer {
            let checkpoint = rocksdb::checkpoint::Checkpoint::new(inner.db())
                .map_err(|e| CasketError::rocks(Ecode::Misc, "preparing the copy", e))?;
            checkpoint
                .create_checkpoint(&dest_dir)
                .map_err(|e| CasketError::rocks(Ecode::Write, format!("copying to {}", dest_dir.display()), e))?;
        } else {
            // A reader's shared lock keeps writers out, so its files hold still (with ONOLCK
            // the copy is only as consistent as copying a file that is being written).
            files::copy_dir(&files::data_dir(&self.path), &dest_dir)?;
        }
        files::tag_dir(&dest_dir)?;
        files::write_marker(dest, &self.marker)
    }
}

impl std::fmt::Debug for Casket {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Casket({}, {:?}, {:?})", self.path.display(), self.kind, self.order)
    }
}

impl Drop for Casket {
    fn drop(&mut self) {
        let _ = self.close();
    }
}

impl Inner {
    fn db(&self) -> &DB {
        self.db.as_ref().expect("checked open by Casket::lock")
    }

    fn data(&self) -> &ColumnFamily {
        self.db().cf_handle(CF_DATA).expect("opened with the data column family")
    }

    fn next_seq(&mut self) -> CasketResult<u64> {
        // 2^48 sequences: at a million appends a second, nine years of one casket.
        if self.next_counter >= 1 << 48 {
            return Err(CasketError::new(Ecode::Misc, "the casket has used up its duplicate sequence numbers"));
        }
        let seq = self.next_counter << 16;
        self.next_counter += 1;
        Ok(seq)
    }

    fn put_meta(&self, batch: &mut WriteBatch) {
        batch.put(META_RNUM, self.rnum.to_le_bytes());
        batch.put(META_BYTES, self.bytes.to_le_bytes());
        batch.put(META_SEQ, self.next_counter.to_le_bytes());
    }

    /// Records one data write (`before`: the key's previous value, `None` if new): gathered in
    /// a transaction, written at once outside one.
    fn write_put(&mut self, key: Vec<u8>, value: &[u8], before: Option<Vec<u8>>) -> CasketResult<()> {
        self.record(|arena| arena.extend_from_slice(&key), Some(value), before.as_deref(), true)
    }

    /// A put of a new entry whose key is encoded straight into the pending arena (the hot path
    /// of `putdup`: no allocation).
    fn write_new(&mut self, encode: impl FnOnce(&mut Vec<u8>), value: &[u8]) -> CasketResult<()> {
        self.record(encode, Some(value), None, true)
    }

    fn write_delete(&mut self, key: Vec<u8>, before: Vec<u8>) -> CasketResult<()> {
        self.record(|arena| arena.extend_from_slice(&key), None, Some(&before), false)
    }

    /// Every write goes through here: it checks the value's size, that the caller's order has
    /// not failed in this call, and counts records and their bytes.
    fn record(&mut self, key: impl FnOnce(&mut Vec<u8>), value: Option<&[u8]>, before: Option<&[u8]>, put: bool) -> CasketResult<()> {
        if let Some(v) = value {
            records::check_value_len(v.len())?;
        }
        if self.order_is_external {
            order::before_write()?;
        }
        let key = self.pending.push(key, value, before);
        let key_len = self.order.user_key_len(key);
        match (value, before) {
            (Some(v), None) => {
                self.rnum += 1;
                self.bytes += record_bytes(key_len, v.len());
            }
            (Some(v), Some(b)) => self.bytes = (self.bytes + v.len() as u64).saturating_sub(b.len() as u64),
            (None, Some(b)) => {
                self.rnum = self.rnum.saturating_sub(1);
                self.bytes = self.bytes.saturating_sub(record_bytes(key_len, b.len()));
            }
            (None, None) => {}
        }
        if self.tx.is_some() {
            let hash = key_part_hash(&key[..key.len().saturating_sub(8)]);
            *self.pending_keys.entry(hash).or_insert(false) |= put;
        }
        self.after_write()
    }

    fn after_write(&mut self) -> CasketResult<()> {
        if (self.tx.is_none() && !self.holding) || self.pending.bytes() >= MAX_PENDING_BYTES {
            self.flush()
        } else {
            Ok(())
        }
    }

    /// Whether a read of the user key with this key part must first apply the pending writes.
    /// Hash collisions only cause a flush that was not needed.
    fn must_flush_for(&self, key_part: &[u8]) -> bool {
        if self.pending.is_empty() {
            return false;
        }
        if self.order_is_external {
            // The caller's order may call different bytes the same key: no shortcut.
            return true;
        }
        match self.pending_keys.get(&key_part_hash(key_part)) {
            None => false,
            Some(true) => true,
            // Only removals of the key's first values: reads start past them at the hint.
            Some(false) => !self.first_hint.contains_key(key_part),
        }
    }

    /// The pending writes as a write batch (more records may be appended to it).
    fn take_pending(&mut self) -> WriteBatch {
        self.pending_keys.clear();
        self.pending.take_batch(self.data_cf_id, !self.order_is_external)
    }

    /// Writes the gathered writes (with their undo records inside a transaction).
    fn flush(&mut self) -> CasketResult<()> {
        if self.pending.is_empty() {
            return Ok(());
        }
        let mut undo_records = Vec::new();
        if let Some(tx) = self.tx.as_mut() {
            if tx.undo_written == 0 {
                undo_records.push((undo::undo_key(0), undo::header(tx.rnum_at_begin, tx.bytes_at_begin)));
            }
            for u in self.pending.undo_records() {
                tx.undo_written += 1;
                undo_records.push((undo::undo_key(tx.undo_written), u.encode()));
            }
        }
        let mut batch = self.take_pending();
        for (k, v) in undo_records {
            batch.put(k, v);
        }
        self.put_meta(&mut batch);
        match self.db().write_opt(batch, &WriteOptions::default()) {
            Ok(()) => Ok(()),
            Err(e) => {
                let err = CasketError::rocks(Ecode::Write, "writing records", e);
                // Nothing of the batch was applied: go back to the counts last written, and
                // end a running transaction so it cannot commit with writes missing.
                self.reread_counts();
                if self.tx.is_some() {
                    let _ = self.abort();
                    return Err(CasketError::new(err.code, format!("{}; the transaction was rolled back", err.detail)));
                }
                Err(err)
            }
        }
    }

    /// Drops gathered writes, applies written undo records newest first, restores the count,
    /// and lets the next `tranbegin` in. If the rollback cannot be completed, the casket refuses
    /// writes until it is reopened (the undo log stays on disk and reopening finishes the job).
    fn abort(&mut self) -> CasketResult<()> {
        let Some(tx) = self.tx.take() else { return Ok(()) };
        self.discard_pending();
        let result = (|| {
            if tx.undo_written > 0 {
                rollback_undo(self.db())?;
            }
            self.rnum = tx.rnum_at_begin;
            self.bytes = tx.bytes_at_begin;
            let mut batch = WriteBatch::default();
            self.put_meta(&mut batch);
            self.db().write(batch).map_err(|e| CasketError::rocks(Ecode::Write, "restoring the record count", e))
        })();
        if let Err(e) = &result {
            self.fatal = Some(format!("rolling back a transaction failed: {}", e.detail));
        }
        self.transaction_ended.notify_all();
        result
    }

    /// Goes back to the record count and bytes last written (after writes that did not happen).
    fn reread_counts(&mut self) {
        self.rnum = read_u64(self.db(), META_RNUM).unwrap_or(self.rnum);
        self.bytes = read_u64(self.db(), META_BYTES).unwrap_or(self.bytes);
    }

    /// Forgets gathered writes (and the head hints, which may be past values they removed).
    fn discard_pending(&mut self) {
        self.pending.clear();
        self.pending_keys.clear();
        self.clear_hints();
    }

    pub(super) fn clear_hints(&mut self) {
        self.first_hint.clear();
        self.hint_bytes = 0;
    }

    /// Runs `f` so that its writes outside a transaction reach RocksDB in one batch (all or
    /// none), up to the gathering limit. If `f` fails, its gathered writes are dropped.
    fn atomically<T>(&mut self, f: impl FnOnce(&mut Self) -> CasketResult<T>) -> CasketResult<T> {
        if self.tx.is_some() || self.holding {
            return f(self);
        }
        self.holding = true;
        let result = f(self);
        self.holding = false;
        match result {
            Ok(v) => self.flush().map(|_| v),
            Err(e) => {
                self.discard_pending();
                self.reread_counts();
                Err(e)
            }
        }
    }
}

fn key_part_hash(key_part: &[u8]) -> u64 {
    use std::hash::{Hash, Hasher};
    let mut h = std::collections::hash_map::DefaultHasher::new();
    key_part.hash(&mut h);
    h.finish()
}

fn read_u64(db: &DB, key: &[u8]) -> CasketResult<u64> {
    Ok(read_opt_u64(db, key)?.unwrap_or(0))
}

fn read_opt_u64(db: &DB, key: &[u8]) -> CasketResult<Option<u64>> {
    match db.get_pinned(key).map_err(|e| CasketError::rocks(Ecode::Read, "reading casket metadata", e))? {
        None => Ok(None),
        Some(v) => Ok(Some(u64::from_le_bytes(
            v.as_ref().try_into().map_err(|_| CasketError::new(Ecode::Meta, "damaged casket metadata"))?,
        ))),
    }
}

/// The record bytes of every record, counted (for caskets written before they were kept).
fn count_record_bytes(db: &DB, order: &KeyOrder) -> CasketResult<u64> {
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
    it.status().map_err(|e| CasketError::rocks(Ecode::Read, "counting the casket's records", e))?;
    Ok(bytes)
}

fn has_undo(db: &DB) -> CasketResult<bool> {
    let mut it = db.raw_iterator();
    it.seek(undo::UNDO_PREFIX);
    it.status().map_err(|e| CasketError::rocks(Ecode::Read, "reading the undo log", e))?;
    Ok(it.key().is_some_and(|k| k.starts_with(undo::UNDO_PREFIX)))
}

/// Applies every undo record, newest first, deleting each in the batch that applies it (so an
/// interrupted rollback resumes where it stopped), then restores the record count from the
/// header.
fn rollback_undo(db: &DB) -> CasketResult<()> {
    let data = db.cf_handle(CF_DATA).expect("opened with the data column family");
    let failed = |e| CasketError::rocks(Ecode::Write, "rolling back a transaction", e);
    let (lo, hi) = undo::undo_range();
    let mut counts_at_begin = None;
    let mut batch = WriteBatch::default();
    for item in db.iterator(IteratorMode::From(&hi, Direction::Reverse)) {
        let (k, v) = item.map_err(|e| CasketError::rocks(Ecode::Read, "reading the undo log", e))?;
        if !k.starts_with(undo::UNDO_PREFIX) || k.as_ref() < lo.as_slice() {
            break;
        }
        if k.as_ref() == lo.as_slice() {
            counts_at_begin = Some(undo::parse_header(&v).ok_or_else(|| CasketError::new(Ecode::Meta, "damaged undo log header"))?);
        } else {
            match Undo::decode(&v).ok_or_else(|| CasketError::new(Ecode::RHead, "damaged undo record"))? {
                Undo::Delete(key) => batch.delete_cf(data, key),
                Undo::Restore(key, value) => batch.put_cf(data, key, value),
            }
        }
        batch.delete(&k);
        if batch.len() >= 10_000 {
            db.write(std::mem::take(&mut batch)).map_err(failed)?;
        }
    }
    if let Some((rnum, bytes)) = counts_at_begin {
        batch.put(META_RNUM, rnum.to_le_bytes());
        match bytes {
            Some(b) => batch.put(META_BYTES, b.to_le_bytes()),
            // An undo log written before the bytes were kept: the next open counts them.
            None => batch.delete(META_BYTES),
        }
    }
    db.write(batch).map_err(failed)?;
    db.flush_wal(true).map_err(|e| CasketError::rocks(Ecode::Sync, "syncing a rollback", e))
}

fn open_db(dir: &Path, opts: &CasketOptions, cache: Option<&Cache>, creating: bool) -> CasketResult<DB> {
    let mut db_opts = Options::default();
    db_opts.create_if_missing(creating);
    db_opts.create_missing_column_families(creating);
    db_opts.set_max_background_jobs(2);
    db_opts.set_keep_log_file_num(2);
    db_opts.set_db_write_buffer_size(opts.write_buffer_bytes * 2);
    let mut data = Options::default();
    let mut table = BlockBasedOptions::default();
    match cache {
        Some(c) => table.set_block_cache(c),
        None => table.disable_cache(),
    }
    table.set_cache_index_and_filter_blocks(true);
    data.set_block_based_table_factory(&table);
    data.set_write_buffer_size(opts.write_buffer_bytes.max(1 << 20));
    data.set_compression_type(match opts.compression {
        Compression::None => DBCompressionType::None,
        Compression::Lz4 => DBCompressionType::Lz4,
        Compression::Zstd => DBCompressionType::Zstd,
    });
    // Consumed duplicates (the queue pattern) are tombstones: compact files full of them early.
    data.add_compact_on_deletion_collector_factory(10_000, 5_000, 0.5);
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
        let code = if e.kind() == rocksdb::ErrorKind::IOError && e.to_string().contains("lock") { Ecode::Lock } else { Ecode::Open };
        CasketError::rocks(code, format!("opening {}", dir.display()), e)
    })
}
