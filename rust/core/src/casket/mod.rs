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

pub(crate) mod cursor;
pub(crate) mod error;
pub mod files;
mod open;
pub(crate) mod order;
mod pending;
pub(crate) mod records;
pub(crate) mod scan;
mod transaction;
mod undo;
mod write;

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::thread::ThreadId;

use parking_lot::{Condvar, Mutex, MutexGuard};
use rocksdb::{Cache, ColumnFamily, DB};

pub use cursor::{CursorPut, Position};
pub use error::{errmsg, CasketError, CasketResult, Ecode};
pub use files::{Kind, LockMode};
pub use open::{CasketOptions, Compression};
pub use order::report_comparison_failure;
pub use order::{ExternalCompare, KeyOrder};
pub use records::{appended_len, check_value_len, PutMode, Range, MAX_VALUE_LEN};

use files::{MarkerFile, OpenRegistration};

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
    /// The casket, open; `write` also requires a writer.
    fn lock(&self, write: bool) -> CasketResult<MutexGuard<'_, Inner>> {
        let inner = self.inner.lock();
        if inner.db.is_none() {
            return Err(CasketError::new(Ecode::Invalid, "the database is not open"));
        }
        if write && !self.writer {
            return Err(CasketError::new(
                Ecode::Invalid,
                format!("{} is open as a reader", self.path.display()),
            ));
        }
        if let (true, Some(why)) = (write, &inner.fatal) {
            return Err(CasketError::new(
                Ecode::Invalid,
                format!("writes are refused until the database is reopened: {why}"),
            ));
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

    // ---- maintenance --------------------------------------------------------------------

    /// Writes everything and syncs it to the device.
    pub fn sync(&self) -> CasketResult<()> {
        let inner = self.lock_flushed(true)?;
        inner
            .db()
            .flush_wal(true)
            .map_err(|e| CasketError::rocks(Ecode::Sync, "syncing", e))
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
        self.db()
            .cf_handle(CF_DATA)
            .expect("opened with the data column family")
    }
}
