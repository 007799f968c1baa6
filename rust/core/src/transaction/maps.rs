//! A transaction's operations on named maps (`maps.rs` says what they promise). Reads and
//! scans see one snapshot (`map_reads::ReadView`, taken at the transaction's first map read)
//! with the transaction's own writes, buffered in key order, merged in; the commit
//! (`commit/maps.rs`) checks the keys read and writes everything with the rest of the
//! transaction.

use std::time::Duration;

use crate::commit::buffered::MapWrite;
use crate::commit::key_locks::Refusal;
use crate::error::{Error, Result, RocksContext};
use crate::map_reads::{stored_value, stored_values, viewed_value, ReadView};
use crate::maps::{self, Direction, KeyRange, MapId, ScanPage};
use crate::options::{KEY_HOLD_WAIT_MILLIS, MAX_BATCH_ITEMS, MAX_PAYLOAD_BYTES};
use crate::shared::{DbRef, Shared};
use crate::transaction::Transaction;

/// How a transaction that could not take a key for update reports itself finished.
const KEY_NOT_TAKEN: &str = "ended when a key it asked for update could not be taken";

/// A key's name in the table of keys held for update: the map's name (length first, so no two
/// maps' keys meet) and the key.
fn hold_key(map: &str, key: &[u8]) -> Vec<u8> {
    let mut held = Vec::with_capacity(4 + map.len() + key.len());
    held.extend_from_slice(&(map.len() as u32).to_be_bytes());
    held.extend_from_slice(map.as_bytes());
    held.extend_from_slice(key);
    held
}

impl Transaction {
    /// Stores `value` under `key` in map `map` (created at commit if it does not exist).
    pub fn map_put(&mut self, map: &str, key: &[u8], value: &[u8]) -> Result<()> {
        self.check_map_write(map, key)?;
        if value.len() > MAX_PAYLOAD_BYTES {
            return Err(Error::InvalidArgument(format!(
                "map value of {} bytes exceeds the limit of {MAX_PAYLOAD_BYTES} bytes",
                value.len()
            )));
        }
        self.buf.write_map(map, key, MapWrite::Put(value.to_vec()));
        Ok(())
    }

    /// Deletes `key` from map `map`; whether it was there (as this transaction sees it).
    pub fn map_delete(&mut self, map: &str, key: &[u8]) -> Result<bool> {
        self.check_map_write(map, key)?;
        let existed = self.map_value(map, key, false)?.is_some();
        self.buf.write_map(map, key, MapWrite::Delete);
        Ok(existed)
    }

    /// Adds `delta` to the counter under `key` (an 8-byte little-endian i64; absent counts as 0),
    /// at commit, to its value then: concurrent adds never conflict and none is lost. Overflow
    /// wraps. The commit fails if the value there is not a counter.
    pub fn map_add(&mut self, map: &str, key: &[u8], delta: i64) -> Result<()> {
        self.check_map_write(map, key)?;
        self.buf.add_to_counter(map, key, delta)
    }

    /// The value under `key` in map `map`, this transaction's own writes included. A key read
    /// from the store is checked at commit: if another commit wrote it since, the commit fails
    /// with `Error::Conflict`.
    pub fn map_get(&mut self, map: &str, key: &[u8]) -> Result<Option<Vec<u8>>> {
        self.check_open()?;
        maps::validate_map_name(map)?;
        maps::validate_map_key(key)?;
        self.map_value(map, key, true)
    }

    /// `map_get` that first takes `key` for update: this transaction holds it until it ends
    /// (commit, rollback or drop), and any other transaction asking for it the same way waits
    /// its turn, first come first served, so a read-modify-write of a hot key makes progress
    /// where optimistic retries can keep failing. The value read is the latest committed one
    /// (every commit of an earlier holder is in it), whatever this transaction's snapshot;
    /// later reads of other keys still see the snapshot. A commit that writes the key without
    /// asking for it (a blind `map_put`, say) is not held back: if one writes it after this
    /// read, this transaction's commit fails with `Error::Conflict` as for any read.
    ///
    /// When the key is held by a transaction that waits, directly or through others, for a key
    /// this one holds (a deadlock), or is not released within `KEY_HOLD_WAIT_MILLIS`, the call fails
    /// with `Error::KeyHeld` and the transaction ends as a rollback does, releasing its keys.
    pub fn map_get_for_update(&mut self, map: &str, key: &[u8]) -> Result<Option<Vec<u8>>> {
        self.check_map_write(map, key)?;
        let held = hold_key(map, key);
        if !self.held_keys.contains(&held) {
            let locks = self.store.key_locks();
            let holder = *self.key_holder.get_or_insert_with(|| locks.new_holder());
            if let Err(refusal) = locks.acquire(holder, &held, Duration::from_millis(KEY_HOLD_WAIT_MILLIS)) {
                let why = match refusal {
                    Refusal::Deadlock => "waiting for it would deadlock (that transaction waits, directly or through \
                                         others, for a key this one holds)"
                        .to_string(),
                    Refusal::TimedOut(wait) => format!("was not released within {} ms", wait.as_millis()),
                };
                let e = Error::KeyHeld {
                    map: map.to_string(),
                    key: maps::show_key(key),
                    why,
                };
                self.rollback_because(&e.to_string(), None)?;
                self.finished = Some(KEY_NOT_TAKEN);
                return Err(e);
            }
            self.held_keys.push(held);
        }
        let own = self.buf.map_write(map, key).cloned();
        if matches!(own, Some(MapWrite::Put(_) | MapWrite::Delete)) {
            return apply_own(own, None, map, key);
        }
        if self.view.is_none() {
            // Taken now, after the key was: it holds every commit of the key's earlier holders.
            return self.map_value(map, key, true);
        }
        let store = self.store.clone();
        let db = store.db()?;
        // Read before the value: a commit from this ticket on that writes the key makes the
        // commit fail (one written in the instant between counts as after the read).
        let written_below = store.group_commit().written_below();
        let id = store.map_id(map);
        let stored = stored_value(&store, &db, id, map, key)?;
        self.buf.note_map_read(map, key, written_below);
        apply_own(own, stored, map, key)
    }

    pub fn map_contains(&mut self, map: &str, key: &[u8]) -> Result<bool> {
        Ok(self.map_get(map, key)?.is_some())
    }

    /// `map_get` of each key, in order, the stored ones read in one batched lookup.
    pub fn map_get_many(&mut self, map: &str, keys_wanted: &[Vec<u8>]) -> Result<Vec<Option<Vec<u8>>>> {
        self.map_get_many_within(map, keys_wanted, usize::MAX)
    }

    /// `map_get_many` for a caller whose result must fit one buffer: when the values found
    /// total more than `max_bytes`, it fails with `Error::InvalidArgument` naming the total and
    /// the bound (every key asked for must have its answer, so it cannot return fewer). The
    /// keys are not noted as read then: nothing was returned.
    pub fn map_get_many_within(
        &mut self,
        map: &str,
        keys_wanted: &[Vec<u8>],
        max_bytes: usize,
    ) -> Result<Vec<Option<Vec<u8>>>> {
        self.check_open()?;
        maps::validate_map_name(map)?;
        if keys_wanted.len() > MAX_BATCH_ITEMS {
            return Err(Error::InvalidArgument(format!(
                "{} keys are more than the {MAX_BATCH_ITEMS} one call reads",
                keys_wanted.len()
            )));
        }
        for k in keys_wanted {
            maps::validate_map_key(k)?;
        }
        let store = self.store.clone();
        let db = store.db()?;
        let view = self.view.get_or_insert_with(|| ReadView::take(&store, &db));
        let written_below = view.written_below();
        let id = store.map_id(map);
        let stored: Vec<Option<Vec<u8>>> = match (id, db.maps_cf()) {
            (Some(id), Some(cf)) => stored_values(&store, &db, view, cf, id, keys_wanted, map)?,
            _ => vec![None; keys_wanted.len()],
        };
        let mut out = Vec::with_capacity(keys_wanted.len());
        let mut unseen = Vec::new();
        for (key, stored) in keys_wanted.iter().zip(stored) {
            let own = self.buf.map_write(map, key).cloned();
            if !matches!(own, Some(MapWrite::Put(_) | MapWrite::Delete)) {
                unseen.push(key);
            }
            out.push(apply_own(own, stored, map, key)?);
        }
        let total = out.iter().flatten().map(Vec::len).fold(0usize, usize::saturating_add);
        if total > max_bytes {
            return Err(Error::InvalidArgument(format!(
                "the values of the {} keys asked for in map '{map}' total {total} bytes, more than the \
                 {max_bytes} one call returns: ask for fewer keys at a time",
                keys_wanted.len()
            )));
        }
        for key in unseen {
            self.buf.note_map_read(map, key, written_below);
        }
        Ok(out)
    }

    /// Up to `limit` (key, value) pairs of map `map` in `range`, in key order or reversed, as
    /// this transaction sees them (its own writes merged in). Not checked at commit.
    pub fn map_scan(
        &mut self,
        map: &str,
        range: &KeyRange,
        direction: Direction,
        limit: usize,
    ) -> Result<Vec<(Vec<u8>, Vec<u8>)>> {
        Ok(self.map_scan_within(map, range, direction, limit, usize::MAX)?.pairs)
    }

    /// `map_scan` that also stops before the pair whose key and value would bring the bytes
    /// returned over `max_bytes` (for a caller whose result must fit one buffer), and says so:
    /// the first pair is always returned, whatever its size; a caller that wants the rest scans
    /// again from after the last key returned.
    pub fn map_scan_within(
        &mut self,
        map: &str,
        range: &KeyRange,
        direction: Direction,
        limit: usize,
        max_bytes: usize,
    ) -> Result<ScanPage> {
        let mut pairs = Vec::new();
        let cut = self.map_scan_visit(map, range, direction, limit, max_bytes, |k, v| {
            pairs.push((k.to_vec(), v.to_vec()))
        })?;
        Ok(ScanPage { pairs, cut })
    }

    /// `map_scan_within` handing each pair to `visit`, in scan order, instead of collecting
    /// them: a caller that packs them for Java copies each once, from RocksDB's block. Returns
    /// whether the scan stopped at `max_bytes` before a pair of its range.
    pub fn map_scan_visit(
        &mut self,
        map: &str,
        range: &KeyRange,
        direction: Direction,
        limit: usize,
        max_bytes: usize,
        visit: impl FnMut(&[u8], &[u8]),
    ) -> Result<bool> {
        self.check_open()?;
        maps::validate_map_name(map)?;
        if limit > MAX_BATCH_ITEMS {
            return Err(Error::InvalidArgument(format!(
                "a scan of {limit} pairs is more than the {MAX_BATCH_ITEMS} one call returns"
            )));
        }
        let store = self.store.clone();
        let db = store.db()?;
        let view = self.view.get_or_insert_with(|| ReadView::take(&store, &db));
        let id = store.map_id(map);
        let stored = StoredScan::new(&store, &db, view, id, range, direction)?;
        let own_range = self
            .buf
            .map_writes_from(map, range.from.clone().unwrap_or_default())
            .filter(|(k, _)| range.contains(k))
            .map(|(k, w)| (k.to_vec(), w.clone()));
        let mut own: Vec<(Vec<u8>, MapWrite)> = own_range.collect();
        if direction == Direction::Reverse {
            own.reverse();
        }
        merge(stored, own, direction, Bounds { limit, max_bytes }, map, visit)
    }

    fn check_map_write(&self, map: &str, key: &[u8]) -> Result<()> {
        self.check_open()?;
        self.store.writable_db()?;
        maps::validate_map_name(map)?;
        maps::validate_map_key(key)
    }

    /// The value of `key` as this transaction sees it; `record` notes a read from the store for
    /// the commit's check.
    fn map_value(&mut self, map: &str, key: &[u8], record: bool) -> Result<Option<Vec<u8>>> {
        let own = self.buf.map_write(map, key).cloned();
        if let Some(MapWrite::Put(v)) = own {
            return Ok(Some(v));
        }
        if let Some(MapWrite::Delete) = own {
            return Ok(None);
        }
        // Fields borrowed one by one, not `self.store` cloned: a clone is an atomic add on a
        // line every reading thread shares.
        let store = &self.store;
        let db = store.db()?;
        let view = self.view.get_or_insert_with(|| ReadView::take(store, &db));
        let id = store.map_id(map);
        let stored = viewed_value(store, &db, view, id, map, key)?;
        if record {
            self.buf.note_map_read(map, key, view.written_below());
        }
        apply_own(own, stored, map, key)
    }
}

/// A stored value with this transaction's pending `Add` applied (other writes are final).
fn apply_own(own: Option<MapWrite>, stored: Option<Vec<u8>>, map: &str, key: &[u8]) -> Result<Option<Vec<u8>>> {
    match own {
        Some(MapWrite::Put(v)) => Ok(Some(v)),
        Some(MapWrite::Delete) => Ok(None),
        Some(MapWrite::Add(d)) => {
            let base = stored
                .as_deref()
                .map(|v| maps::decode_counter(v, map, key))
                .transpose()?
                .unwrap_or(0);
            Ok(Some(base.wrapping_add(d).to_le_bytes().to_vec()))
        }
        None => Ok(stored),
    }
}

/// The stored pairs of one map in a range, in scan order.
struct StoredScan<'a> {
    it: Option<rocksdb::DBRawIterator<'a>>,
    direction: Direction,
}

impl<'a> StoredScan<'a> {
    fn new(
        store: &Shared,
        db: &'a DbRef<'_>,
        view: &ReadView,
        id: Option<MapId>,
        range: &KeyRange,
        direction: Direction,
    ) -> Result<StoredScan<'a>> {
        let (Some(id), Some(cf)) = (id, db.maps_cf()) else {
            return Ok(StoredScan { it: None, direction });
        };
        let (map_start, map_end) = maps::map_range(id);
        let lower = range.from.as_deref().map_or(map_start, |f| maps::map_key(id, f));
        let upper = range.to.as_deref().map(|t| maps::map_key(id, t)).or(map_end);
        let mut ro = view.read_options(store, db)?;
        ro.set_iterate_lower_bound(lower.clone());
        if let Some(upper) = upper {
            ro.set_iterate_upper_bound(upper);
        }
        let mut it = db.db().raw_iterator_cf_opt(cf, ro);
        match direction {
            Direction::Forward => it.seek(&lower),
            Direction::Reverse => it.seek_to_last(),
        }
        Ok(StoredScan {
            it: Some(it),
            direction,
        })
    }

    /// The current pair (the key without the map id).
    fn current(&self) -> Option<(&[u8], &[u8])> {
        let it = self.it.as_ref()?;
        Some((&it.key()?[4..], it.value()?))
    }

    fn advance(&mut self) {
        if let Some(it) = self.it.as_mut() {
            match self.direction {
                Direction::Forward => it.next(),
                Direction::Reverse => it.prev(),
            }
        }
    }

    fn status(&self) -> Result<()> {
        self.it
            .as_ref()
            .map_or(Ok(()), |it| it.status().context(|| "scanning a map".to_string()))
    }
}

/// Where a scan stops: after `limit` pairs, or before the pair that would bring the keys' and
/// values' bytes over `max_bytes` (never before the first).
struct Bounds {
    limit: usize,
    max_bytes: usize,
}

/// The pairs a scan has taken and their bytes.
#[derive(Default)]
struct Taken {
    count: usize,
    bytes: usize,
}

impl Taken {
    /// Whether a pair of `len` bytes fits `bounds`' bytes (the first always does); counts it
    /// when it does.
    fn fits(&mut self, len: usize, bounds: &Bounds) -> bool {
        self.bytes = self.bytes.saturating_add(len);
        if self.bytes > bounds.max_bytes && self.count > 0 {
            return false;
        }
        self.count += 1;
        true
    }
}

/// The stored pairs and this transaction's writes, merged in scan order and handed to `visit`:
/// an own write replaces (or, a delete, hides) the stored pair with its key; stops at `bounds`.
/// Returns whether it stopped at the byte bound. A stored pair is visited in place, from
/// RocksDB's block.
fn merge(
    mut stored: StoredScan<'_>,
    own: Vec<(Vec<u8>, MapWrite)>,
    direction: Direction,
    bounds: Bounds,
    map: &str,
    mut visit: impl FnMut(&[u8], &[u8]),
) -> Result<bool> {
    let before = |a: &[u8], b: &[u8]| match direction {
        Direction::Forward => a < b,
        Direction::Reverse => a > b,
    };
    let mut taken = Taken::default();
    let mut own = own.into_iter().peekable();
    while taken.count < bounds.limit {
        // The stored pair comes first (or alone): visited in place.
        if let Some((k, v)) = stored.current() {
            if own.peek().is_none_or(|(ok, _)| before(k, ok)) {
                if !taken.fits(k.len() + v.len(), &bounds) {
                    stored.status()?;
                    return Ok(true);
                }
                visit(k, v);
                stored.advance();
                continue;
            }
        }
        let Some((k, w)) = own.next() else { break };
        let stored_value = match stored.current() {
            Some((sk, sv)) if sk == k.as_slice() => {
                let v = sv.to_vec();
                stored.advance();
                Some(v)
            }
            _ => None,
        };
        if let Some(v) = apply_own(Some(w), stored_value, map, &k)? {
            if !taken.fits(k.len() + v.len(), &bounds) {
                stored.status()?;
                return Ok(true);
            }
            visit(&k, &v);
        }
    }
    stored.status()?;
    Ok(false)
}
