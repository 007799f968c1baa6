//! Record operations: Tokyo Cabinet's put/get/out family over (user key, duplicate) entries.

use rocksdb::{DBRawIteratorWithThreadMode, ReadOptions, DB};

use super::error::{CasketError, CasketResult, Ecode};
use super::{Casket, Inner, KeyOrder, Kind, MAX_HINTS, MAX_HINT_BYTES};
use crate::options::MAX_RESULT_BYTES;

/// The largest value a casket holds: the most a Java `byte[]` can hold on every JVM
/// (`Integer.MAX_VALUE - 8`), so that `get` can always return what is stored. `tokyocabinet`'s
/// Java side repeats it (`Database.MAX_VALUE_SIZE`), which the JNI bridge checks against this
/// one when the drop-in's native class registers.
/// It is also well under the 4 GiB a RocksDB write batch record can hold.
pub const MAX_VALUE_LEN: usize = i32::MAX as usize - 8;

/// Refuses a value longer than [`MAX_VALUE_LEN`] (EINVALID): a casket never holds a value its
/// API cannot return.
pub fn check_value_len(len: usize) -> CasketResult<()> {
    if len > MAX_VALUE_LEN {
        return Err(CasketError::new(
            Ecode::Invalid,
            format!("a value of {len} bytes is larger than the {MAX_VALUE_LEN} bytes a value may hold (the most a Java array holds)"),
        ));
    }
    Ok(())
}

/// The length of a value of `current` bytes after `appended` more, if a value may be that long.
pub fn appended_len(current: usize, appended: usize) -> CasketResult<usize> {
    let Some(len) = current.checked_add(appended).filter(|&n| n <= MAX_VALUE_LEN) else {
        return Err(CasketError::new(
            Ecode::Invalid,
            format!(
                "appending {appended} bytes to a value of {current} bytes would make it larger than the {MAX_VALUE_LEN} bytes a value may hold (the most a Java array holds)"
            ),
        ));
    };
    Ok(len)
}

/// How `put` treats an existing key (Tokyo Cabinet's put modes).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PutMode {
    /// Replace the first value (other duplicates stay).
    Over,
    /// Fail with EKEEP if the key exists.
    Keep,
    /// Append to the first value.
    Cat,
    /// Add a value after the key's existing ones.
    Dup,
}

/// Distinct keys in a range: bounds are user keys; `None` is open-ended.
pub struct Range<'a> {
    pub begin: Option<&'a [u8]>,
    pub begin_inclusive: bool,
    pub end: Option<&'a [u8]>,
    pub end_inclusive: bool,
    /// Negative: no limit.
    pub max: i64,
}

pub(super) type RawIter<'a> = DBRawIteratorWithThreadMode<'a, DB>;

impl Inner {
    pub(super) fn iter(&self) -> RawIter<'_> {
        self.db().raw_iterator_cf(self.data())
    }

    /// An iterator bounded to one user key's entries (RocksDB then stops at the bound instead
    /// of reading into the next key).
    fn key_iter(&self, order: &KeyOrder, key: &[u8]) -> RawIter<'_> {
        let mut ro = ReadOptions::default();
        if !order.is_external() {
            ro.set_iterate_upper_bound(order.encode(key, u64::MAX));
        }
        self.db().raw_iterator_cf_opt(self.data(), ro)
    }

    /// Whether the entry `raw` belongs to user key `key`.
    pub(super) fn same_key(order: &KeyOrder, raw: &[u8], key: &[u8]) -> bool {
        match order {
            KeyOrder::External { compare, .. } => compare(order.key_part(raw), key).is_eq(),
            _ => order.key_part(raw) == order.key_part(&order.encode(key, 0)),
        }
    }

    /// The first entry of `key`: (RocksDB key, value).
    fn first_of(&mut self, order: &KeyOrder, key: &[u8]) -> CasketResult<Option<(Vec<u8>, Vec<u8>)>> {
        self.first_with(order, key, |k, v| (k.to_vec(), v.to_vec()))
    }

    /// `f` of the first entry of `key` (RocksDB key, value), read in place.
    fn first_with<R>(
        &mut self,
        order: &KeyOrder,
        key: &[u8],
        f: impl FnOnce(&[u8], &[u8]) -> R,
    ) -> CasketResult<Option<R>> {
        let start = order.encode(key, 0);
        let hint = self.first_hint.get(order.key_part(&start)).copied().unwrap_or(0);
        let mut it = self.key_iter(order, key);
        it.seek(order.encode(key, hint));
        let found = match (it.key(), it.value()) {
            (Some(k), Some(v)) if Self::same_key(order, k, key) => Some((order.decode(k).map(|(_, seq)| seq), f(k, v))),
            _ => None,
        };
        it.status()
            .map_err(|e| CasketError::rocks(Ecode::Read, "reading a record", e))?;
        drop(it);
        Ok(found.map(|(seq, r)| {
            if let Some(seq) = seq {
                self.set_hint(order, &start, seq);
            }
            r
        }))
    }

    /// With a caller's order, looks `key` up before a write that reads nothing first (a
    /// duplicate appended blindly): a comparator that fails then fails the call before it
    /// writes (see `order::report_comparison_failure`).
    fn probe_order(&self, order: &KeyOrder, key: &[u8]) -> CasketResult<()> {
        if !order.is_external() {
            return Ok(());
        }
        let mut it = self.key_iter(order, key);
        it.seek(order.encode(key, 0));
        it.status()
            .map_err(|e| CasketError::rocks(Ecode::Read, "reading a record", e))
    }

    /// Every entry of `key`, in duplicate order.
    fn all_of(&mut self, order: &KeyOrder, key: &[u8]) -> CasketResult<Vec<(Vec<u8>, Vec<u8>)>> {
        let Some((first, _)) = self.first_of(order, key)? else {
            return Ok(Vec::new());
        };
        let mut it = self.key_iter(order, key);
        it.seek(&first);
        let mut out = Vec::new();
        while let (Some(k), Some(v)) = (it.key(), it.value()) {
            if !Self::same_key(order, k, key) {
                break;
            }
            out.push((k.to_vec(), v.to_vec()));
            it.next();
        }
        it.status()
            .map_err(|e| CasketError::rocks(Ecode::Read, "reading records", e))?;
        Ok(out)
    }

    pub(super) fn set_hint(&mut self, order: &KeyOrder, encoded: &[u8], seq: u64) {
        // A caller's order may call different bytes the same key, so a hint filed under one
        // spelling would be missed (or wrongly trusted) under another: none are kept.
        if order.is_external() {
            return;
        }
        let key_part = order.key_part(encoded);
        if self.first_hint.len() >= MAX_HINTS || self.hint_bytes + key_part.len() > MAX_HINT_BYTES {
            self.clear_hints();
        }
        if self.first_hint.insert(key_part.to_vec(), seq).is_none() {
            self.hint_bytes += key_part.len();
        }
    }

    /// Lowers the hint of the key of `raw` if a value was inserted before its first one.
    pub(super) fn lower_hint(&mut self, order: &KeyOrder, raw: &[u8], seq: u64) {
        if let Some(h) = self.first_hint.get_mut(order.key_part(raw)) {
            *h = (*h).min(seq);
        }
    }

    pub(super) fn add_new(&mut self, order: &KeyOrder, key: &[u8], value: &[u8]) -> CasketResult<()> {
        let seq = self.next_seq()?;
        self.write_new(|arena| order.encode_into(key, seq, arena), value)
    }

    pub(super) fn replace(&mut self, raw: Vec<u8>, old: Vec<u8>, value: &[u8]) -> CasketResult<()> {
        self.write_put(raw, value, Some(old))
    }

    pub(super) fn remove(&mut self, raw: &[u8], old: Vec<u8>) -> CasketResult<()> {
        self.write_delete(raw.to_vec(), old)
    }
}

impl Casket {
    pub fn put(&self, key: &[u8], value: &[u8], mode: PutMode) -> CasketResult<()> {
        if mode == PutMode::Dup && self.kind == Kind::Hash {
            return Err(CasketError::new(Ecode::Invalid, "a hash database has no duplicates"));
        }
        let order = &self.order;
        if mode == PutMode::Dup {
            // Blind append: a fresh sequence is above every existing one, no read needed.
            let mut inner = self.lock(true)?;
            inner.probe_order(order, key)?;
            return inner.add_new(order, key, value);
        }
        let mut inner = self.lock_for_key(true, key)?;
        match (inner.first_of(order, key)?, mode) {
            (None, _) => inner.add_new(order, key, value),
            (Some(_), PutMode::Keep) => Err(CasketError::new(Ecode::Keep, "the key already exists")),
            (Some((raw, old)), PutMode::Cat) => {
                let mut joined = Vec::with_capacity(appended_len(old.len(), value.len())?);
                joined.extend_from_slice(&old);
                joined.extend_from_slice(value);
                inner.replace(raw, old, &joined)
            }
            (Some((raw, old)), _) => inner.replace(raw, old, value),
        }
    }

    /// Adds each value after the key's existing ones.
    pub fn put_list<'v>(&self, key: &[u8], values: impl IntoIterator<Item = &'v [u8]>) -> CasketResult<()> {
        let mut inner = self.lock(true)?;
        inner.probe_order(&self.order, key)?;
        inner.atomically(|inner| {
            for v in values {
                inner.add_new(&self.order, key, v)?;
            }
            Ok(())
        })
    }

    /// Removes the first value of `key` (ENOREC if none).
    pub fn out(&self, key: &[u8]) -> CasketResult<()> {
        let mut inner = self.lock_for_key(true, key)?;
        let (raw, old) = inner.first_of(&self.order, key)?.ok_or_else(CasketError::no_record)?;
        inner.remove(&raw, old)?;
        if let Some((_, seq)) = self.order.decode(&raw) {
            inner.set_hint(&self.order, &raw, seq + 1);
        }
        Ok(())
    }

    /// Removes every value of `key` (ENOREC if none).
    pub fn out_list(&self, key: &[u8]) -> CasketResult<()> {
        let mut inner = self.lock_for_key(true, key)?;
        let all = inner.all_of(&self.order, key)?;
        let Some((last, _)) = all.last() else {
            return Err(CasketError::no_record());
        };
        let past_last = self.order.decode(last).map(|(_, seq)| (last.clone(), seq + 1));
        inner.atomically(|inner| {
            for (raw, old) in all {
                inner.remove(&raw, old)?;
            }
            Ok(())
        })?;
        if let Some((raw, seq)) = past_last {
            inner.set_hint(&self.order, &raw, seq);
        }
        Ok(())
    }

    /// The first value of `key` (ENOREC if none).
    pub fn get(&self, key: &[u8]) -> CasketResult<Vec<u8>> {
        let mut inner = self.lock_for_key(false, key)?;
        inner
            .first_of(&self.order, key)?
            .map(|(_, v)| v)
            .ok_or_else(CasketError::no_record)
    }

    /// Every value of `key`, in insertion order (ENOREC if none).
    pub fn get_list(&self, key: &[u8]) -> CasketResult<Vec<Vec<u8>>> {
        self.get_list_within(key, MAX_RESULT_BYTES)
    }

    /// `get_list`, refused with `Ecode::Invalid` naming the total when the values exceed
    /// `max_bytes` (`MAX_RESULT_BYTES` for `get_list`: the list crosses to Java as one array, and
    /// every value must be in it).
    pub fn get_list_within(&self, key: &[u8], max_bytes: usize) -> CasketResult<Vec<Vec<u8>>> {
        let mut inner = self.lock_for_key(false, key)?;
        let all = inner.all_of(&self.order, key)?;
        if all.is_empty() {
            return Err(CasketError::no_record());
        }
        let total = all.iter().map(|(_, v)| v.len()).fold(0usize, usize::saturating_add);
        if total > max_bytes {
            return Err(CasketError::new(
                Ecode::Invalid,
                format!(
                    "the {} values of the key total {total} bytes, more than the {max_bytes} one call returns",
                    all.len()
                ),
            ));
        }
        Ok(all.into_iter().map(|(_, v)| v).collect())
    }

    /// Number of values of `key` (0 if none; not an error).
    pub fn vnum(&self, key: &[u8]) -> CasketResult<usize> {
        let mut inner = self.lock_for_key(false, key)?;
        Ok(inner.all_of(&self.order, key)?.len())
    }

    /// Size of the first value of `key` (ENOREC if none). The value is not copied.
    pub fn vsiz(&self, key: &[u8]) -> CasketResult<usize> {
        let mut inner = self.lock_for_key(false, key)?;
        inner
            .first_with(&self.order, key, |_, v| v.len())?
            .ok_or_else(CasketError::no_record)
    }

    /// Adds to a 4-byte native-order integer value; stores `num` if the key is missing.
    /// EKEEP if the existing value is not 4 bytes. `num == 0` reads without writing.
    pub fn add_int(&self, key: &[u8], num: i32) -> CasketResult<i32> {
        self.add_number(
            key,
            num,
            |b: [u8; 4]| i32::from_ne_bytes(b),
            |a, b| a.wrapping_add(b),
            i32::to_ne_bytes,
            num == 0,
        )
    }

    /// As `add_int`, for an 8-byte native-order double.
    pub fn add_double(&self, key: &[u8], num: f64) -> CasketResult<f64> {
        self.add_number(key, num, f64::from_ne_bytes, |a, b| a + b, f64::to_ne_bytes, num == 0.0)
    }

    fn add_number<T: Copy, const N: usize>(
        &self,
        key: &[u8],
        num: T,
        decode: impl Fn([u8; N]) -> T,
        add: impl Fn(T, T) -> T,
        encode: impl Fn(T) -> [u8; N],
        read_only: bool,
    ) -> CasketResult<T> {
        let mut inner = self.lock_for_key(true, key)?;
        match inner.first_of(&self.order, key)? {
            None => {
                inner.add_new(&self.order, key, &encode(num))?;
                Ok(num)
            }
            Some((raw, old)) => {
                let current: [u8; N] = old.as_slice().try_into().map_err(|_| {
                    CasketError::new(
                        Ecode::Keep,
                        format!("the existing value is {} bytes, not {N}", old.len()),
                    )
                })?;
                if read_only {
                    return Ok(decode(current));
                }
                let sum = add(decode(current), num);
                inner.replace(raw, old, &encode(sum))?;
                Ok(sum)
            }
        }
    }

    /// Distinct keys within a range, in key order. Never fails on an empty result.
    pub fn range(&self, r: &Range<'_>) -> CasketResult<Vec<Vec<u8>>> {
        self.range_within(r, MAX_RESULT_BYTES)
    }

    /// `range` that also stops before the key that would bring the bytes returned over
    /// `max_bytes` (`MAX_RESULT_BYTES` for `range`: the keys cross to Java as one array); the
    /// first key is always returned.
    pub fn range_within(&self, r: &Range<'_>, max_bytes: usize) -> CasketResult<Vec<Vec<u8>>> {
        let inner = self.lock_flushed(false)?;
        let mut bytes = 0usize;
        let order = &self.order;
        let mut out = Vec::new();
        if r.max == 0 {
            return Ok(out);
        }
        let mut it = inner.iter();
        match r.begin {
            Some(b) => it.seek(order.encode(b, 0)),
            None => it.seek_to_first(),
        }
        while let Some(raw) = it.key() {
            let (key, _) = order.decode(raw).ok_or_else(|| damaged(raw))?;
            let key = key.into_owned();
            let skip_begin = !r.begin_inclusive && r.begin.is_some_and(|b| order.compare(&key, b).is_eq());
            if let Some(e) = r.end {
                let c = order.compare(&key, e);
                if c.is_gt() || (c.is_eq() && !r.end_inclusive) {
                    break;
                }
            }
            // Past this key's duplicates: no sequence reaches u64::MAX.
            it.seek(order.encode(&key, u64::MAX));
            if !skip_begin {
                bytes = bytes.saturating_add(key.len());
                if bytes > max_bytes && !out.is_empty() {
                    break;
                }
                out.push(key);
                if r.max > 0 && out.len() as i64 >= r.max {
                    break;
                }
            }
        }
        it.status()
            .map_err(|e| CasketError::rocks(Ecode::Read, "reading a key range", e))?;
        Ok(out)
    }

    /// Distinct keys starting with `prefix`, in key order. Never fails on an empty result.
    pub fn fwmkeys(&self, prefix: &[u8], max: i64) -> CasketResult<Vec<Vec<u8>>> {
        self.fwmkeys_within(prefix, max, MAX_RESULT_BYTES)
    }

    /// `fwmkeys` bounded in bytes as `range_within` is.
    pub fn fwmkeys_within(&self, prefix: &[u8], max: i64, max_bytes: usize) -> CasketResult<Vec<Vec<u8>>> {
        let inner = self.lock_flushed(false)?;
        let mut bytes = 0usize;
        let order = &self.order;
        let mut out = Vec::new();
        if max == 0 {
            return Ok(out);
        }
        let mut it = inner.iter();
        // In lexical order the keys with a prefix are contiguous; in other orders they may be
        // anywhere, so every key is looked at.
        let contiguous = matches!(order, KeyOrder::Lexical);
        if contiguous {
            it.seek(order.encode(prefix, 0));
        } else {
            it.seek_to_first();
        }
        while let Some(raw) = it.key() {
            let (key, _) = order.decode(raw).ok_or_else(|| damaged(raw))?;
            let key = key.into_owned();
            let matches = key.starts_with(prefix);
            if !matches && contiguous {
                break;
            }
            it.seek(order.encode(&key, u64::MAX));
            if matches {
                bytes = bytes.saturating_add(key.len());
                if bytes > max_bytes && !out.is_empty() {
                    break;
                }
                out.push(key);
                if max > 0 && out.len() as i64 >= max {
                    break;
                }
            }
        }
        it.status()
            .map_err(|e| CasketError::rocks(Ecode::Read, "listing keys", e))?;
        Ok(out)
    }

    /// Removes every record.
    pub fn vanish(&self) -> CasketResult<()> {
        let mut inner = self.lock_flushed(true)?;
        loop {
            let chunk: Vec<(Vec<u8>, Vec<u8>)> = {
                let mut it = inner.iter();
                it.seek_to_first();
                let mut chunk = Vec::new();
                while let (Some(k), Some(v)) = (it.key(), it.value()) {
                    chunk.push((k.to_vec(), v.to_vec()));
                    if chunk.len() == 10_000 {
                        break;
                    }
                    it.next();
                }
                it.status()
                    .map_err(|e| CasketError::rocks(Ecode::Read, "reading records", e))?;
                chunk
            };
            if chunk.is_empty() {
                break;
            }
            inner.atomically(|inner| {
                for (raw, old) in chunk {
                    inner.remove(&raw, old)?;
                }
                Ok(())
            })?;
            inner.flush()?;
        }
        inner.clear_hints();
        Ok(())
    }
}

pub(super) fn damaged(raw: &[u8]) -> CasketError {
    CasketError::new(Ecode::RHead, format!("damaged record key ({} bytes)", raw.len()))
}
