//! Casket transactions: one at a time per casket (`tranbegin` from another thread waits its
//! turn); writes gathered beyond a bound are written early with undo records (`undo.rs`), which
//! an abort, or the next open after a crash, applies newest first.

use rocksdb::{Direction, IteratorMode, WriteBatch, WriteOptions, DB};

use super::error::{CasketError, CasketResult, Ecode};
use super::undo::{self, Undo};
use super::{Casket, Inner, TxState, CF_DATA, META_BYTES, META_RNUM};

impl Casket {
    /// Starts a transaction; waits while another thread's transaction runs.
    pub fn tranbegin(&self) -> CasketResult<()> {
        let me = std::thread::current().id();
        let mut inner = self.lock(true)?;
        while let Some(tx) = &inner.tx {
            if tx.owner == me {
                return Err(CasketError::new(
                    Ecode::Invalid,
                    "this thread already runs a transaction on this database",
                ));
            }
            let ended = inner.transaction_ended.clone();
            ended.wait(&mut inner);
            if inner.db.is_none() {
                return Err(CasketError::new(
                    Ecode::Invalid,
                    "the database was closed while waiting for a transaction",
                ));
            }
        }
        inner.flush()?;
        inner.tx = Some(TxState {
            owner: me,
            rnum_at_begin: inner.rnum,
            bytes_at_begin: inner.bytes,
            undo_written: 0,
        });
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
        let written = inner
            .db()
            .write_opt(batch, &wo)
            .map_err(|e| CasketError::rocks(Ecode::Write, "committing the transaction", e));
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
}

impl Inner {
    /// Drops gathered writes, applies written undo records newest first, restores the count,
    /// and lets the next `tranbegin` in. If the rollback cannot be completed, the casket refuses
    /// writes until it is reopened (the undo log stays on disk and reopening finishes the job).
    pub(super) fn abort(&mut self) -> CasketResult<()> {
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
            self.db()
                .write(batch)
                .map_err(|e| CasketError::rocks(Ecode::Write, "restoring the record count", e))
        })();
        if let Err(e) = &result {
            self.fatal = Some(format!("rolling back a transaction failed: {}", e.detail));
        }
        self.transaction_ended.notify_all();
        result
    }
}

pub(super) fn has_undo(db: &DB) -> CasketResult<bool> {
    let mut it = db.raw_iterator();
    it.seek(undo::UNDO_PREFIX);
    it.status()
        .map_err(|e| CasketError::rocks(Ecode::Read, "reading the undo log", e))?;
    Ok(it.key().is_some_and(|k| k.starts_with(undo::UNDO_PREFIX)))
}

/// Applies every undo record, newest first, deleting each in the batch that applies it (so an
/// interrupted rollback resumes where it stopped), then restores the record count from the
/// header.
pub(super) fn rollback_undo(db: &DB) -> CasketResult<()> {
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
            counts_at_begin =
                Some(undo::parse_header(&v).ok_or_else(|| CasketError::new(Ecode::Meta, "damaged undo log header"))?);
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
    db.flush_wal(true)
        .map_err(|e| CasketError::rocks(Ecode::Sync, "syncing a rollback", e))
}
