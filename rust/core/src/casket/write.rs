//! The write path: every record write goes through `Inner::record`, which counts records and
//! their bytes and gathers the write (`pending.rs`); gathered writes are written in one batch
//! (outside a transaction at once, inside one at commit or when they grow past a bound).

use rocksdb::{WriteBatch, WriteOptions};

use super::error::{CasketError, CasketResult, Ecode};
use super::open::read_u64;
use super::{order, record_bytes, records, undo, Inner, MAX_PENDING_BYTES, META_BYTES, META_RNUM, META_SEQ};

impl Inner {
    pub(super) fn next_seq(&mut self) -> CasketResult<u64> {
        // 2^48 sequences: at a million appends a second, nine years of one casket.
        if self.next_counter >= 1 << 48 {
            return Err(CasketError::new(
                Ecode::Misc,
                "the casket has used up its duplicate sequence numbers",
            ));
        }
        let seq = self.next_counter << 16;
        self.next_counter += 1;
        Ok(seq)
    }

    pub(super) fn put_meta(&self, batch: &mut WriteBatch) {
        batch.put(META_RNUM, self.rnum.to_le_bytes());
        batch.put(META_BYTES, self.bytes.to_le_bytes());
        batch.put(META_SEQ, self.next_counter.to_le_bytes());
    }

    /// Records one data write (`before`: the key's previous value, `None` if new): gathered in
    /// a transaction, written at once outside one.
    pub(super) fn write_put(&mut self, key: Vec<u8>, value: &[u8], before: Option<Vec<u8>>) -> CasketResult<()> {
        self.record(
            |arena| arena.extend_from_slice(&key),
            Some(value),
            before.as_deref(),
            true,
        )
    }

    /// A put of a new entry whose key is encoded straight into the pending arena (the hot path
    /// of `putdup`: no allocation).
    pub(super) fn write_new(&mut self, encode: impl FnOnce(&mut Vec<u8>), value: &[u8]) -> CasketResult<()> {
        self.record(encode, Some(value), None, true)
    }

    pub(super) fn write_delete(&mut self, key: Vec<u8>, before: Vec<u8>) -> CasketResult<()> {
        self.record(|arena| arena.extend_from_slice(&key), None, Some(&before), false)
    }

    /// Every write goes through here: it checks the value's size, that the caller's order has
    /// not failed in this call, and counts records and their bytes.
    pub(super) fn record(
        &mut self,
        key: impl FnOnce(&mut Vec<u8>),
        value: Option<&[u8]>,
        before: Option<&[u8]>,
        put: bool,
    ) -> CasketResult<()> {
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

    pub(super) fn after_write(&mut self) -> CasketResult<()> {
        if (self.tx.is_none() && !self.holding) || self.pending.bytes() >= MAX_PENDING_BYTES {
            self.flush()
        } else {
            Ok(())
        }
    }

    /// Whether a read of the user key with this key part must first apply the pending writes.
    /// Hash collisions only cause a flush that was not needed.
    pub(super) fn must_flush_for(&self, key_part: &[u8]) -> bool {
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
    pub(super) fn take_pending(&mut self) -> WriteBatch {
        self.pending_keys.clear();
        self.pending.take_batch(self.data_cf_id, !self.order_is_external)
    }

    /// Writes the gathered writes (with their undo records inside a transaction).
    pub(super) fn flush(&mut self) -> CasketResult<()> {
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
                    return Err(CasketError::new(
                        err.code,
                        format!("{}; the transaction was rolled back", err.detail),
                    ));
                }
                Err(err)
            }
        }
    }

    /// Goes back to the record count and bytes last written (after writes that did not happen).
    pub(super) fn reread_counts(&mut self) {
        self.rnum = read_u64(self.db(), META_RNUM).unwrap_or(self.rnum);
        self.bytes = read_u64(self.db(), META_BYTES).unwrap_or(self.bytes);
    }

    /// Forgets gathered writes (and the head hints, which may be past values they removed).
    pub(super) fn discard_pending(&mut self) {
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
    pub(super) fn atomically<T>(&mut self, f: impl FnOnce(&mut Self) -> CasketResult<T>) -> CasketResult<T> {
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

pub(super) fn key_part_hash(key_part: &[u8]) -> u64 {
    use std::hash::{Hash, Hasher};
    let mut h = std::collections::hash_map::DefaultHasher::new();
    key_part.hash(&mut h);
    h.finish()
}
