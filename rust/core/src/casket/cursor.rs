//! Cursor operations. A cursor is only a position: the RocksDB key of the entry it points at,
//! held by the caller. Every call re-seeks from it, so a cursor can never point into freed
//! memory; if its entry was removed meanwhile (by any writer, or a rollback), reading or writing
//! at it fails with ENOREC, and moving goes on from where the entry was.

use super::error::{CasketError, CasketResult, Ecode};
use super::records::{damaged, RawIter};
use super::{Casket, Inner, KeyOrder};

/// Where `cursor_put` writes, relative to the cursor's entry (Tokyo Cabinet's CP* modes).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CursorPut {
    Current,
    Before,
    After,
}

/// An entry a cursor stopped at.
pub type Position = Vec<u8>;

fn here(it: &RawIter<'_>) -> CasketResult<Position> {
    it.status()
        .map_err(|e| CasketError::rocks(Ecode::Read, "moving a cursor", e))?;
    it.key().map(<[u8]>::to_vec).ok_or_else(CasketError::no_record)
}

impl Inner {
    fn value_at(&self, pos: &[u8]) -> CasketResult<Vec<u8>> {
        self.db()
            .get_cf(self.data(), pos)
            .map_err(|e| CasketError::rocks(Ecode::Read, "reading at a cursor", e))?
            .ok_or_else(CasketError::no_record)
    }

    /// The sequences of the entries before and after `pos` within its key, if any.
    fn neighbours(&self, order: &KeyOrder, pos: &[u8]) -> CasketResult<(Option<u64>, Option<u64>)> {
        let (key, _) = order.decode(pos).ok_or_else(|| damaged(pos))?;
        let mut it = self.iter();
        let seq_if_same = |it: &RawIter<'_>| {
            it.key()
                .filter(|k| Self::same_key(order, k, &key))
                .and_then(|k| order.decode(k))
                .map(|(_, s)| s)
        };
        it.seek(pos);
        it.prev();
        let before = seq_if_same(&it);
        it.seek(pos);
        it.next();
        let after = seq_if_same(&it);
        it.status()
            .map_err(|e| CasketError::rocks(Ecode::Read, "reading around a cursor", e))?;
        Ok((before, after))
    }

    /// Gives every value of the key at `pos` a fresh, widely spaced sequence (same order), and
    /// returns `pos`'s new place.
    fn renumber(&mut self, order: &KeyOrder, pos: &[u8]) -> CasketResult<Position> {
        let (key, _) = order.decode(pos).ok_or_else(|| damaged(pos))?;
        let key = key.into_owned();
        let mut entries = Vec::new();
        {
            let mut it = self.iter();
            it.seek(order.encode(&key, 0));
            while let (Some(k), Some(v)) = (it.key(), it.value()) {
                if !Self::same_key(order, k, &key) {
                    break;
                }
                entries.push((k.to_vec(), v.to_vec()));
                it.next();
            }
            it.status()
                .map_err(|e| CasketError::rocks(Ecode::Read, "reading a key's values", e))?;
        }
        // All or nothing, also outside a transaction: a half-renumbered key would lose values
        // or change their order.
        let moved = self.atomically(|inner| {
            let mut moved = None;
            for (raw, value) in entries {
                let fresh = order.encode(&key, inner.next_seq()?);
                if raw == pos {
                    moved = Some(fresh.clone());
                }
                inner.write_delete(raw, value.clone())?;
                inner.write_put(fresh, &value, None)?;
            }
            Ok(moved)
        })?;
        self.clear_hints();
        self.flush()?;
        moved.ok_or_else(CasketError::no_record)
    }
}

impl Casket {
    pub fn cursor_first(&self) -> CasketResult<Position> {
        let inner = self.lock_flushed(false)?;
        let mut it = inner.iter();
        it.seek_to_first();
        here(&it)
    }

    pub fn cursor_last(&self) -> CasketResult<Position> {
        let inner = self.lock_flushed(false)?;
        let mut it = inner.iter();
        it.seek_to_last();
        here(&it)
    }

    /// The first entry whose key is at or after `key`.
    pub fn cursor_jump(&self, key: &[u8]) -> CasketResult<Position> {
        let inner = self.lock_flushed(false)?;
        let mut it = inner.iter();
        it.seek(self.order.encode(key, 0));
        here(&it)
    }

    /// The entry after `pos` (each duplicate is an entry).
    pub fn cursor_next(&self, pos: &[u8]) -> CasketResult<Position> {
        let inner = self.lock_flushed(false)?;
        let mut it = inner.iter();
        it.seek(pos);
        if it.key() == Some(pos) {
            it.next();
        }
        here(&it)
    }

    pub fn cursor_prev(&self, pos: &[u8]) -> CasketResult<Position> {
        let inner = self.lock_flushed(false)?;
        let mut it = inner.iter();
        it.seek_for_prev(pos);
        if it.key() == Some(pos) {
            it.prev();
        }
        here(&it)
    }

    /// The user key of the entry at `pos` (ENOREC if it is gone).
    pub fn cursor_key(&self, pos: &[u8]) -> CasketResult<Vec<u8>> {
        let inner = self.lock_flushed(false)?;
        inner.value_at(pos)?;
        Ok(self.order.decode(pos).ok_or_else(|| damaged(pos))?.0.into_owned())
    }

    pub fn cursor_value(&self, pos: &[u8]) -> CasketResult<Vec<u8>> {
        self.lock_flushed(false)?.value_at(pos)
    }

    /// One step of iteration: the user key and value at `pos` (or, if that entry was removed,
    /// at the first entry after where it was), and the position after it (`None` at the end).
    /// So iterating while removing what was visited (`outlist` of each key) visits the rest.
    pub fn cursor_key_value_next(&self, pos: &[u8]) -> CasketResult<(Vec<u8>, Vec<u8>, Option<Position>)> {
        let inner = self.lock_flushed(false)?;
        let mut it = inner.iter();
        it.seek(pos);
        it.status()
            .map_err(|e| CasketError::rocks(Ecode::Read, "moving a cursor", e))?;
        let (Some(k), Some(v)) = (it.key(), it.value()) else {
            return Err(CasketError::no_record());
        };
        let key = self.order.decode(k).ok_or_else(|| damaged(k))?.0.into_owned();
        let value = v.to_vec();
        it.next();
        let next = it.key().map(<[u8]>::to_vec);
        it.status()
            .map_err(|e| CasketError::rocks(Ecode::Read, "moving a cursor", e))?;
        Ok((key, value, next))
    }

    /// Writes at the cursor: replaces its value, or inserts a duplicate of its key before or
    /// after it. Returns the cursor's new position (the inserted entry for Before/After).
    pub fn cursor_put(&self, pos: &[u8], value: &[u8], mode: CursorPut) -> CasketResult<Position> {
        let order = &self.order;
        let mut inner = self.lock_flushed(true)?;
        let old = inner.value_at(pos)?;
        if mode == CursorPut::Current {
            inner.replace(pos.to_vec(), old, value)?;
            return Ok(pos.to_vec());
        }
        let mut pos = pos.to_vec();
        for _ in 0..2 {
            let (_, seq) = order.decode(&pos).ok_or_else(|| damaged(&pos))?;
            let (before, after) = inner.neighbours(order, &pos)?;
            let new_seq = match mode {
                CursorPut::Before => midpoint(before.unwrap_or(0), seq),
                // After the last value: a fresh sequence is above every existing one.
                _ => match after {
                    Some(a) => midpoint(seq, a),
                    None => Some(inner.next_seq()?),
                },
            };
            if let Some(s) = new_seq {
                let (key, _) = order.decode(&pos).ok_or_else(|| damaged(&pos))?;
                let raw = order.encode(&key, s);
                inner.write_put(raw.clone(), value, None)?;
                inner.lower_hint(order, &raw, s);
                inner.flush()?;
                return Ok(raw);
            }
            // No room between the neighbours: spread the key's values out and try again.
            pos = inner.renumber(order, &pos)?;
        }
        Err(CasketError::new(
            Ecode::Misc,
            "no room to insert a value after renumbering",
        ))
    }

    /// Removes the entry at the cursor; returns the position after it (`None` at the end).
    pub fn cursor_out(&self, pos: &[u8]) -> CasketResult<Option<Position>> {
        let mut inner = self.lock_flushed(true)?;
        let old = inner.value_at(pos)?;
        inner.remove(pos, old)?;
        inner.flush()?;
        let mut it = inner.iter();
        it.seek(pos);
        it.status()
            .map_err(|e| CasketError::rocks(Ecode::Read, "moving a cursor", e))?;
        Ok(it.key().map(<[u8]>::to_vec))
    }
}

fn midpoint(low: u64, high: u64) -> Option<u64> {
    let mid = low + (high - low) / 2;
    (mid > low && mid < high).then_some(mid)
}

#[cfg(test)]
mod tests {
    #[test]
    fn midpoint_needs_room() {
        assert_eq!(super::midpoint(0, 1 << 16), Some(1 << 15));
        assert_eq!(super::midpoint(4, 5), None);
        assert_eq!(super::midpoint(4, 6), Some(5));
    }
}
