//! Read-only inspection of a store: walking one queue's committed entries in FIFO order.
//!
//! `Transaction::peek` answers "what would a consumer get next" and is capped at
//! `MAX_BATCH_ITEMS` because it returns a vector. Tools that dump a queue need every entry of
//! a queue of any length, so this walks the entries with an iterator under one RocksDB
//! snapshot and hands them to a callback one at a time: memory stays flat and what is seen is
//! one point in time even while other threads keep committing.

use std::cmp::Ordering;

use rocksdb::{DBRawIteratorWithThreadMode, ReadOptions, DB};
use uuid::Uuid;

use crate::entry_records::PresentEntries;
use crate::error::{Error, Result, RocksContext};
use crate::keys::{self, CF_META, CF_OBJECTS};
use crate::store::Store;

/// What `Store::visit_map` calls for each pair: key, value; returns false to stop.
pub type PairVisitor<'a> = dyn FnMut(&[u8], &[u8]) -> Result<bool> + 'a;

/// What `Store::visit_queue` calls for each entry: position, object id, payload (`None` for a
/// deleted object); returns false to stop.
pub type EntryVisitor<'a> = dyn FnMut(u64, Uuid, Option<&[u8]>) -> Result<bool> + 'a;

impl Store {
    /// Calls `visit(key, value)` for each pair of map `map`, in key order, as the store is at
    /// the moment of the call (one RocksDB snapshot); returns how many it visited. A map that
    /// does not exist is an `Error::InvalidArgument`.
    pub fn visit_map(&self, map: &str, visit: &mut PairVisitor<'_>) -> Result<u64> {
        crate::maps::validate_map_name(map)?;
        let db = self.shared.db()?;
        let snapshot = db.db().snapshot();
        let mut ro = ReadOptions::default();
        ro.set_snapshot(&snapshot);
        let id = match db
            .db()
            .get_pinned_cf_opt(db.cf(CF_META), crate::maps::meta_map_key(map), &ro)
            .context(|| format!("looking up map '{map}'"))?
        {
            Some(v) => keys::decode_u32(&v, "map id")?,
            None => {
                return Err(Error::InvalidArgument(format!(
                    "store at {} has no map named '{map}'",
                    self.path().display()
                )))
            }
        };
        let Some(cf) = db.maps_cf() else { return Ok(0) };
        let (start, end) = crate::maps::map_range(id);
        let mut ro = ReadOptions::default();
        ro.set_snapshot(&snapshot);
        ro.fill_cache(false);
        ro.set_iterate_lower_bound(start);
        if let Some(end) = end {
            ro.set_iterate_upper_bound(end);
        }
        let mut it = db.db().raw_iterator_cf_opt(cf, ro);
        it.seek_to_first();
        let mut visited = 0;
        while let (Some(k), Some(v)) = (it.key(), it.value()) {
            visited += 1;
            if !visit(&k[4..], v)? {
                break;
            }
            it.next();
        }
        it.status().context(|| format!("reading map '{map}'"))?;
        Ok(visited)
    }

    /// Calls `visit(position, object_id, payload)` for each committed entry of `queue`, in FIFO
    /// order, as the store is at the moment of the call (one RocksDB snapshot). `position`
    /// counts from 0 at the head, as in a snapshot file; `payload` is `None` for an entry whose
    /// object has been deleted (a `put` object removed while still referenced from the queue).
    /// Entries claimed by a transaction of this process that has not committed yet are still
    /// committed entries and are visited.
    ///
    /// `visit` returns false to stop early, or an error that is returned as is. Returns the
    /// number of entries visited. A queue that was never committed to is an
    /// `Error::InvalidArgument`.
    ///
    /// Works on a store opened read-only. The store cannot be closed while the walk is going on
    /// (`close` waits for it to end), as with any other call.
    pub fn visit_queue(&self, queue: &str, visit: &mut EntryVisitor<'_>) -> Result<u64> {
        keys::validate_queue_name(queue)?;
        let db = self.shared.db()?;
        let snapshot = db.db().snapshot();
        let read_options = || {
            let mut ro = ReadOptions::default();
            ro.set_snapshot(&snapshot);
            // A dump of a long queue would only push the consumers' hot blocks out of the cache.
            ro.fill_cache(false);
            ro
        };
        // The queue's id is looked up under the same snapshot as its entries, so a queue created
        // after the snapshot is unknown rather than empty.
        let id = match db
            .db()
            .get_pinned_cf_opt(db.cf(CF_META), keys::meta_queue_key(queue), &read_options())
            .context(|| format!("looking up queue '{queue}'"))?
        {
            Some(v) => keys::decode_u32(&v, "queue id")?,
            None => {
                return Err(Error::InvalidArgument(format!(
                    "store at {} has no queue named '{queue}'",
                    self.path().display()
                )))
            }
        };
        let entry_options = || {
            let mut ro = read_options();
            ro.set_readahead_size(2 << 20);
            Ok(ro)
        };
        let mut entries = PresentEntries::new(db.db(), entry_options, id, queue)?;
        let mut object_options = read_options();
        object_options.set_readahead_size(2 << 20);
        let mut objects = ObjectCursor {
            it: db.db().raw_iterator_cf_opt(db.cf(CF_OBJECTS), object_options),
        };
        let mut position = 0u64;
        // Entry keys sort by queue then sequence, and every entry below the head (handed back
        // by a rollback) is taken before the head: sequence order is FIFO order.
        while let Some((_, value)) = entries.next()? {
            let entry = keys::decode_entry(value)?;
            let object_id = entry.id;
            let keep_going = match &entry.inline {
                Some(inline) => visit(position, object_id, Some(&inline.payload()?))?,
                None => match objects.find(object_id.as_bytes())? {
                    Some(stored) => {
                        let (_, payload) = keys::object_payload(stored)?;
                        visit(position, object_id, Some(&payload))?
                    }
                    None => visit(position, object_id, None)?,
                },
            };
            position += 1;
            if !keep_going {
                return Ok(position);
            }
        }
        Ok(position)
    }
}

/// Finds the objects of a queue's entries, taken in FIFO order.
///
/// Objects are keyed by id, and ids are mostly UUIDs v7 (time-ordered), so the objects of
/// successive entries mostly lie next to each other in key order. A forward iterator that steps
/// a few keys finds them in the block it already holds, where a point lookup per entry (with
/// the cache bypassed) would read and decompress that block again for every entry. Ids that
/// go backwards or jump far ahead cost one seek.
struct ObjectCursor<'a> {
    it: DBRawIteratorWithThreadMode<'a, DB>,
}

impl ObjectCursor<'_> {
    /// Keys stepped over before a seek is cheaper.
    const MAX_STEPS: usize = 16;

    /// The stored value (flag byte and payload) of object `id`, if it exists.
    fn find(&mut self, id: &[u8]) -> Result<Option<&[u8]>> {
        match self.it.key().map(|k| k.cmp(id)) {
            Some(Ordering::Equal) => {}
            Some(Ordering::Less) => {
                let mut steps = 0;
                loop {
                    self.it.next();
                    steps += 1;
                    match self.it.key() {
                        Some(k) if k < id && steps >= Self::MAX_STEPS => {
                            self.it.seek(id);
                            break;
                        }
                        Some(k) if k < id => {}
                        // At or past `id`, or past the end: keys are sorted, so this settles it.
                        _ => break,
                    }
                }
            }
            Some(Ordering::Greater) | None => self.it.seek(id),
        }
        self.it
            .status()
            .context(|| format!("reading object {}", Uuid::from_slice(id).unwrap_or_default()))?;
        Ok(match (self.it.key(), self.it.value()) {
            (Some(k), Some(v)) if k == id => Some(v),
            _ => None,
        })
    }
}
