//! Reading objects and the payloads of queue entries, as a transaction sees them (its own
//! writes first, then the store) or as committed: one object or many in one batched read,
//! through the object cache (`read_cache.rs`) where the caller passes it, inline payloads taken
//! from their entries.

use rocksdb::ReadOptions;
use uuid::Uuid;

use crate::batch::BatchRep;
use crate::error::{Result, RocksContext};
use crate::hash::IdMap;
use crate::keys::{self, Entry, Ownership, CF_OBJECTS};
use crate::read_cache::{Fill, Hit, ReadCache};
use crate::shared::DbRef;

/// A payload with the ownership of the object it was read from.
pub(crate) type OwnedPayload = (Ownership, Vec<u8>);

/// Reads of objects: as one transaction sees them (`with_own`: its writes, at their place in its
/// write batch, come first), or as committed (`committed`).
#[derive(Clone, Copy)]
pub(crate) struct ObjectReads<'a> {
    own: Option<(&'a IdMap<Uuid, ObjectWrite>, &'a BatchRep)>,
}

impl<'a> ObjectReads<'a> {
    /// Reads that see `writes` (encoded in `batch`) before the store.
    pub fn with_own(writes: &'a IdMap<Uuid, ObjectWrite>, batch: &'a BatchRep) -> ObjectReads<'a> {
        ObjectReads {
            own: Some((writes, batch)),
        }
    }

    /// Reads of what is committed.
    pub fn committed() -> ObjectReads<'static> {
        ObjectReads { own: None }
    }

    /// This transaction's own encoded value of object `id`: `Some(None)` when it deleted it.
    pub fn own_value(&self, id: &Uuid) -> Option<Option<&'a [u8]>> {
        let (writes, batch) = self.own?;
        writes.get(id).map(|w| match *w {
            ObjectWrite::Put { at, len } => Some(batch.slice(at, len)),
            ObjectWrite::Delete { .. } => None,
        })
    }

    /// Object `id` as this transaction sees it (its own writes first), reduced by `keep` to
    /// what the caller needs; `None` when there is no such object. A committed one is read
    /// through `cache` when given (see `ObjectCache` for which reads do).
    fn read_object<T>(
        &self,
        db: &DbRef<'_>,
        cache: ObjectCache<'_>,
        id: Uuid,
        keep: impl Fn(&[u8]) -> Result<T>,
    ) -> Result<Option<T>> {
        if let Some(own) = self.own_value(&id) {
            return own.map(keep).transpose();
        }
        let fill = match cached_object(cache, &id) {
            Ok(hit) => return keep(hit.value()).map(Some),
            Err(fill) => fill,
        };
        let v = db
            .db()
            .get_pinned_cf(db.cf(CF_OBJECTS), id.as_bytes())
            .context(|| format!("reading object {id}"))?;
        keep_object(cache, fill, &id, v.as_deref());
        v.map(|v| keep(&v)).transpose()
    }

    pub fn ownership_of(&self, db: &DbRef<'_>, cache: ObjectCache<'_>, id: Uuid) -> Result<Option<Ownership>> {
        Ok(self.stored_object_of(db, cache, id)?.map(|(own, _)| own))
    }

    /// Object `id`'s ownership and payload bytes as stored. The flag byte and the value's
    /// length are enough: a compressed payload is not decompressed for this.
    pub fn stored_object_of(
        &self,
        db: &DbRef<'_>,
        cache: ObjectCache<'_>,
        id: Uuid,
    ) -> Result<Option<(Ownership, u32)>> {
        self.read_object(db, cache, id, |v| {
            keys::decode_object_value(v).map(|(own, _, body)| (own, body.len() as u32))
        })
    }

    pub fn payload_of(&self, db: &DbRef<'_>, cache: ObjectCache<'_>, id: Uuid) -> Result<Option<Vec<u8>>> {
        self.read_object(db, cache, id, |v| {
            keys::object_payload(v).map(|(_, payload)| payload.into_owned())
        })
    }

    /// Payloads of `ids` in order, like `payload_of` each: those `cache` holds from it, the
    /// other stored ones in one batched read.
    pub fn read_payloads(&self, db: &DbRef<'_>, cache: ObjectCache<'_>, ids: &[Uuid]) -> Result<Vec<Option<Vec<u8>>>> {
        self.read_objects(db, cache, ids, |v| keys::object_payload(v).map(|(_, p)| p.into_owned()))
    }

    /// `read_payloads` with each object's ownership (what a poll needs to know whether the
    /// owned entry it consumes still owns its object).
    pub fn read_owned_payloads(&self, db: &DbRef<'_>, ids: &[Uuid]) -> Result<Vec<Option<OwnedPayload>>> {
        self.read_objects(db, None, ids, |v| {
            keys::object_payload(v).map(|(own, p)| (own, p.into_owned()))
        })
    }

    /// The payloads of committed `entries` in order, with each object's ownership (what a poll
    /// needs): inline ones from the entry, the others in one batched read of their objects.
    pub fn read_entry_payloads(&self, db: &DbRef<'_>, entries: &[Entry]) -> Result<Vec<Option<OwnedPayload>>> {
        self.merge_inline(
            entries,
            |ids| self.read_owned_payloads(db, ids),
            |payload| (Ownership::Owned, payload),
        )
    }

    /// `read_entry_payloads` without the ownership, the objects read with `read_options` (what
    /// a peek needs: its transaction's snapshot).
    pub fn entry_payloads(
        &self,
        db: &DbRef<'_>,
        entries: &[Entry],
        read_options: ReadOptions,
    ) -> Result<Vec<Option<Vec<u8>>>> {
        self.merge_inline(
            entries,
            |ids| {
                self.read_objects_with(db, None, ids, &read_options, |v| {
                    keys::object_payload(v).map(|(_, p)| p.into_owned())
                })
            },
            |payload| payload,
        )
    }

    /// The payload of one of this transaction's own enqueues.
    pub fn own_entry_payload(&self, db: &DbRef<'_>, entry: &Entry) -> Result<Option<Vec<u8>>> {
        match &entry.inline {
            Some(inline) => Ok(Some(inline.payload()?.into_owned())),
            None => self.payload_of(db, None, entry.id),
        }
    }

    fn merge_inline<T>(
        &self,
        entries: &[Entry],
        read: impl FnOnce(&[Uuid]) -> Result<Vec<Option<T>>>,
        from_entry: impl Fn(Vec<u8>) -> T,
    ) -> Result<Vec<Option<T>>> {
        let ids: Vec<Uuid> = entries.iter().filter(|e| e.inline.is_none()).map(|e| e.id).collect();
        let mut read = if ids.is_empty() { Vec::new() } else { read(&ids)? }.into_iter();
        entries
            .iter()
            .map(|e| match &e.inline {
                Some(inline) => Ok(Some(from_entry(inline.payload()?.into_owned()))),
                None => Ok(read.next().expect("one read per entry without its payload")),
            })
            .collect()
    }

    fn read_objects<T>(
        &self,
        db: &DbRef<'_>,
        cache: ObjectCache<'_>,
        ids: &[Uuid],
        payload: impl Fn(&[u8]) -> Result<T>,
    ) -> Result<Vec<Option<T>>> {
        self.read_objects_with(db, cache, ids, &ReadOptions::default(), payload)
    }

    /// `read_objects` whose stored objects are read with `read_options`. A snapshot read
    /// passes no cache: the cache holds latest values.
    fn read_objects_with<T>(
        &self,
        db: &DbRef<'_>,
        cache: ObjectCache<'_>,
        ids: &[Uuid],
        read_options: &ReadOptions,
        payload: impl Fn(&[u8]) -> Result<T>,
    ) -> Result<Vec<Option<T>>> {
        let mut out: Vec<Option<T>> = Vec::with_capacity(ids.len());
        let mut missed: Vec<(usize, Option<Fill>)> = Vec::new();
        for (i, id) in ids.iter().enumerate() {
            if let Some(own) = self.own_value(id) {
                out.push(own.map(&payload).transpose()?);
                continue;
            }
            match cached_object(cache, id) {
                Ok(hit) => out.push(Some(payload(hit.value())?)),
                Err(fill) => {
                    missed.push((i, fill));
                    out.push(None);
                }
            }
        }
        let keys = missed.iter().map(|(i, _)| &ids[*i].as_bytes()[..]);
        let fetched = db
            .db()
            .batched_multi_get_cf_opt(db.cf(CF_OBJECTS), keys, false, read_options);
        for ((i, fill), v) in missed.into_iter().zip(fetched) {
            let id = &ids[i];
            let v = v.context(|| format!("reading object {id}"))?;
            keep_object(cache, fill, id, v.as_deref());
            out[i] = v.map(|v| payload(&v)).transpose()?;
        }
        Ok(out)
    }
}

/// What `entries` count against a byte capacity: the size each recorded, or, for an entry
/// written without one, its object's payload bytes as stored now (0 when it is gone).
pub(crate) fn counted_bytes(db: &DbRef<'_>, entries: &[Entry]) -> Result<Vec<u64>> {
    let unsized_: Vec<&[u8]> = entries
        .iter()
        .filter(|e| e.bytes.is_none())
        .map(|e| &e.id.as_bytes()[..])
        .collect();
    let mut found = db
        .db()
        .batched_multi_get_cf(db.cf(CF_OBJECTS), unsized_, false)
        .into_iter();
    entries
        .iter()
        .map(|e| match e.bytes {
            Some(n) => Ok(u64::from(n)),
            None => {
                let v = found
                    .next()
                    .expect("one result per key")
                    .context(|| format!("reading object {}", e.id))?;
                Ok(v.map_or(0, |v| v.len().saturating_sub(1) as u64))
            }
        })
        .collect()
}

/// This transaction's last write to an object.
#[derive(Clone, Copy, Debug)]
pub(crate) enum ObjectWrite {
    /// Encoded object value (flag byte + payload) at `at..at + len` of the batch.
    Put { at: usize, len: usize },
    /// Deleted; `counted` when the object may have a reference count in `refs` to delete with it
    /// (only a queue-owned object has one: see `Buffered::delete_object`).
    Delete { counted: bool },
}

/// The object cache committed reads go through, if any: `get` and `get_many` pass it. Polls and
/// peeks pass none (a queue reads each of its objects about once, and most are queue-owned,
/// which the cache does not keep), nor do the checks of `put`, `delete` and `enqueue_id` (the
/// object they look at is about to be written, which would drop what they kept).
pub(crate) type ObjectCache<'a> = Option<&'a ReadCache>;

/// Committed object `id` from `cache`, or on a miss the ticket for keeping what RocksDB gives
/// (`None` when it may not be kept, or there is no cache).
fn cached_object(cache: ObjectCache<'_>, id: &Uuid) -> std::result::Result<Hit, Option<Fill>> {
    cache.map_or(Err(None), |c| c.lookup(id.as_bytes()))
}

/// Keeps the stored value `v` of object `id`, read after the miss that gave `fill`, when it is
/// one the object cache keeps.
fn keep_object(cache: ObjectCache<'_>, fill: Option<Fill>, id: &Uuid, v: Option<&[u8]>) {
    if let (Some(fill), Some(cache)) = (fill, cache) {
        cache.fill(fill, id.as_bytes(), v.filter(|v| is_put_value(v)));
    }
}

/// Whether a stored object value is one `put` wrote (`Ownership::Reference`): only those are
/// kept in the object cache.
pub(crate) fn is_put_value(v: &[u8]) -> bool {
    matches!(keys::decode_object_value(v), Ok((Ownership::Reference, _, _)))
}

/// Whether a stored object value is queue-owned (`enqueue` wrote it, or `put` over such an
/// object).
pub(crate) fn is_owned_value(v: &[u8]) -> bool {
    matches!(keys::decode_object_value(v), Ok((Ownership::Owned, _, _)))
}
