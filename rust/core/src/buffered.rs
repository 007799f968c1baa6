//! What a transaction has buffered for its commit: the entries it claimed, its own enqueues,
//! its object writes (already encoded in a write batch) and what they rely on. The transaction
//! (`transaction.rs`) fills it; the commit (`commit.rs`) turns it into one write.

use std::collections::{BTreeSet, HashMap, VecDeque};

use uuid::Uuid;

use crate::batch::{BatchRep, CfIds};
use crate::error::{Result, RocksContext};
use crate::hash::{IdMap, IdSet};
use crate::keys::{self, Entry, Ownership, QueueId, CF_OBJECTS};
use crate::read_cache::{Fill, Hit, ReadCache};
use crate::shared::DbRef;

#[derive(Debug)]
pub(crate) struct Claim {
    pub queue: QueueId,
    pub seq: u64,
    /// Which delivery of the entry this claim is (1 for the first); 0 while it is claimed but
    /// not delivered (past a poll's budget, or taken by a drop or move).
    pub deliveries: u32,
    /// The delivery record (`deliveries.rs`) holding this delivery's count, for queues with a
    /// delivery limit: its consumption releases it.
    pub record: Option<u64>,
    /// What the entry counts against its queue's byte capacity (0 when the queue has none).
    pub bytes: u64,
}

impl Claim {
    pub fn new(queue: QueueId, seq: u64) -> Claim {
        Claim { queue, seq, deliveries: 0, record: None, bytes: 0 }
    }
}

/// What `entries` count against a byte capacity: the size each recorded, or, for an entry
/// written without one, its object's payload bytes as stored now (0 when it is gone).
pub(crate) fn counted_bytes(db: &DbRef<'_>, entries: &[Entry]) -> Result<Vec<u64>> {
    let unsized_: Vec<&[u8]> = entries.iter().filter(|e| e.bytes.is_none()).map(|e| &e.id.as_bytes()[..]).collect();
    let mut found = db.db().batched_multi_get_cf(db.cf(CF_OBJECTS), unsized_, false).into_iter();
    entries
        .iter()
        .map(|e| match e.bytes {
            Some(n) => Ok(u64::from(n)),
            None => {
                let v = found.next().expect("one result per key").context(|| format!("reading object {}", e.id))?;
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
    Delete,
}

/// This transaction's own enqueues, per queue, in order. Engines touch a handful of queues per
/// transaction, so the last one used is checked first and the map only serves the others.
#[derive(Default)]
pub(crate) struct OwnEnqueues {
    pub queues: Vec<(String, VecDeque<Entry>)>,
    index: HashMap<String, usize>,
    last: usize,
}

impl OwnEnqueues {
    pub fn push(&mut self, queue: &str, item: Entry) {
        let i = match self.queues.get(self.last) {
            Some((name, _)) if name == queue => self.last,
            _ => match self.index.get(queue) {
                Some(&i) => i,
                None => {
                    self.index.insert(queue.to_string(), self.queues.len());
                    self.queues.push((queue.to_string(), VecDeque::new()));
                    self.queues.len() - 1
                }
            },
        };
        self.last = i;
        self.queues[i].1.push_back(item);
    }

    pub fn get(&self, queue: &str) -> Option<&VecDeque<Entry>> {
        self.index.get(queue).map(|&i| &self.queues[i].1)
    }

    pub fn get_mut(&mut self, queue: &str) -> Option<&mut VecDeque<Entry>> {
        self.index.get(queue).map(|&i| &mut self.queues[i].1)
    }
}

pub(crate) struct Buffered {
    pub claims: Vec<Claim>,
    pub enqueued: OwnEnqueues,
    /// Object puts and deletes, already encoded in `batch` in the order they were made.
    pub batch: BatchRep,
    pub objects: IdMap<Uuid, ObjectWrite>,
    /// Every object write so far had a larger id than the one before (new ids are time-ordered,
    /// so this is the common case): `batch` is then already in key order. Otherwise commit
    /// writes each object's final state sorted by id, because RocksDB's memtable inserts keys in
    /// order far faster than scattered ones.
    pub objects_in_key_order: bool,
    pub last_object: Option<Uuid>,
    /// Change in the number of owned entries pointing at each queue-owned object. An owned entry
    /// whose object was deleted (and perhaps put again, no longer queue-owned) owns nothing:
    /// its consumption changes no count (`consume_owned`).
    pub ref_delta: IdMap<Uuid, i64>,
    /// Objects of owned entries consumed without their object read (a dropped queue, dropped
    /// dead letters): whether each still is the queue-owned object its entries own is read at
    /// commit.
    pub unread_owners: IdSet<Uuid>,
    /// Every commit below this ticket was written when this transaction first read the object
    /// of an entry it consumes: a `delete` in a commit from this ticket on may have been
    /// missed by that read, which the commit then reads again.
    pub owners_read_below: Option<u64>,
    /// Objects this transaction deleted, also those it put again afterwards (`objects` then
    /// holds the put): for the commits prepared after it, which must not take a put again for
    /// the queue-owned object it deleted.
    pub deleted: IdSet<Uuid>,
    /// Committed objects this transaction enqueued by id, with how many of those entries are
    /// still to be written (its own polls can take them back): each must still exist at commit.
    pub enqueued_by_id: IdMap<Uuid, u32>,
    /// Committed queue-owned objects this transaction replaced with `put` (keeping them
    /// queue-owned): each must still exist at commit, or the put would leave a queue-owned
    /// object that no entry points at (and that nothing would ever delete).
    pub owned_puts: IdSet<Uuid>,
    /// Queues `drop_queue` or `move_queue` emptied: the commit forgets each name that is still
    /// empty then.
    pub dropped_queues: BTreeSet<String>,
    /// Per dead-letter queue, the encoded records of the dead letters this transaction moves
    /// there, in the order of its own enqueues to that queue (every one of which is a dead letter).
    pub dead_letter_records: HashMap<String, Vec<Vec<u8>>>,
    /// Moving dead letters never fails on a full dead-letter queue.
    pub exempt_from_capacity: bool,
    /// Writes to maps, by map name and key, in key order (`map_ops.rs`).
    pub map_writes: std::collections::BTreeMap<(String, Vec<u8>), MapWrite>,
    /// Keys read from the store with `get`/`contains`, each with the ticket below which every
    /// commit was written when it was read: the commit checks none was written since.
    pub map_reads: Vec<(String, Vec<u8>, u64)>,
}

/// This transaction's last word on a map key.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum MapWrite {
    Put(Vec<u8>),
    Delete,
    /// Added to the counter at commit, to its value then (absent: 0).
    Add(i64),
}

impl Default for Buffered {
    fn default() -> Self {
        Buffered {
            claims: Vec::new(),
            enqueued: OwnEnqueues::default(),
            batch: BatchRep::default(),
            objects: IdMap::default(),
            objects_in_key_order: true,
            last_object: None,
            ref_delta: IdMap::default(),
            unread_owners: IdSet::default(),
            owners_read_below: None,
            deleted: IdSet::default(),
            enqueued_by_id: IdMap::default(),
            owned_puts: IdSet::default(),
            dropped_queues: BTreeSet::new(),
            dead_letter_records: HashMap::new(),
            exempt_from_capacity: false,
            map_writes: std::collections::BTreeMap::new(),
            map_reads: Vec::new(),
        }
    }
}

impl Buffered {
    pub fn note_object_write(&mut self, id: Uuid, w: ObjectWrite) {
        if self.last_object.is_some_and(|last| id <= last) {
            self.objects_in_key_order = false;
        }
        self.last_object = Some(id);
        if self.objects.insert(id, w).is_some() {
            self.objects_in_key_order = false; // the earlier record is still in the batch
        }
    }

    /// This transaction consumes an owned entry of object `id`, which it read as
    /// `owned_when_read` (`None`: not read; checked at commit). Only the consumption of an entry
    /// whose object is still the queue-owned one it was written for counts.
    pub fn consume_owned(&mut self, id: Uuid, owned_when_read: Option<bool>) {
        match owned_when_read {
            Some(false) => return,
            Some(true) => {}
            None => {
                self.unread_owners.insert(id);
            }
        }
        *self.ref_delta.entry(id).or_insert(0) -= 1;
    }

    /// Takes the first `n` of this transaction's own enqueues to `queue` back, as its own poll
    /// or drop of them does: they will not be written, nor count as owning their objects.
    pub fn take_back_own_enqueues(&mut self, queue: &str, n: usize) -> Vec<Entry> {
        let items = self.enqueued.get_mut(queue).map(|items| items.drain(..n).collect::<Vec<_>>()).unwrap_or_default();
        for e in &items {
            let id = e.id;
            if e.owns_an_object() {
                *self.ref_delta.entry(id).or_insert(0) -= 1;
            }
            if let Some(left) = self.enqueued_by_id.get_mut(&id) {
                *left -= 1;
                if *left == 0 {
                    self.enqueued_by_id.remove(&id);
                }
            }
        }
        items
    }

    /// This transaction's own encoded value of object `id`: `Some(None)` when it deleted it.
    pub fn own_value(&self, id: &Uuid) -> Option<Option<&[u8]>> {
        self.objects.get(id).map(|w| match *w {
            ObjectWrite::Put { at, len } => Some(self.batch.slice(at, len)),
            ObjectWrite::Delete => None,
        })
    }

    /// Object `id` as this transaction sees it (its own writes first), reduced by `keep` to
    /// what the caller needs; `None` when there is no such object. A committed one is read
    /// through `cache` when given (see `ObjectCache` for which reads do).
    fn read_object<T>(&self, db: &DbRef<'_>, cache: ObjectCache<'_>, id: Uuid, keep: impl Fn(&[u8]) -> Result<T>) -> Result<Option<T>> {
        if let Some(own) = self.own_value(&id) {
            return own.map(keep).transpose();
        }
        let fill = match cached_object(cache, &id) {
            Ok(hit) => return keep(hit.value()).map(Some),
            Err(fill) => fill,
        };
        let v = db.db().get_pinned_cf(db.cf(CF_OBJECTS), id.as_bytes()).context(|| format!("reading object {id}"))?;
        keep_object(cache, fill, &id, v.as_deref());
        v.map(|v| keep(&v)).transpose()
    }

    pub fn ownership_of(&self, db: &DbRef<'_>, cache: ObjectCache<'_>, id: Uuid) -> Result<Option<Ownership>> {
        Ok(self.stored_object_of(db, cache, id)?.map(|(own, _)| own))
    }

    /// Object `id`'s ownership and payload bytes as stored. The flag byte and the value's
    /// length are enough: a compressed payload is not decompressed for this.
    pub fn stored_object_of(&self, db: &DbRef<'_>, cache: ObjectCache<'_>, id: Uuid) -> Result<Option<(Ownership, u32)>> {
        self.read_object(db, cache, id, |v| keys::decode_object_value(v).map(|(own, _, body)| (own, body.len() as u32)))
    }

    pub fn payload_of(&self, db: &DbRef<'_>, cache: ObjectCache<'_>, id: Uuid) -> Result<Option<Vec<u8>>> {
        self.read_object(db, cache, id, |v| keys::object_payload(v).map(|(_, payload)| payload.into_owned()))
    }

    /// Payloads of `ids` in order, like `payload_of` each: those `cache` holds from it, the
    /// other stored ones in one batched read.
    pub fn read_payloads(&self, db: &DbRef<'_>, cache: ObjectCache<'_>, ids: &[Uuid]) -> Result<Vec<Option<Vec<u8>>>> {
        self.read_objects(db, cache, ids, |v| keys::object_payload(v).map(|(_, p)| p.into_owned()))
    }

    /// `read_payloads` with each object's ownership (what a poll needs to know whether the
    /// owned entry it consumes still owns its object).
    pub fn read_owned_payloads(&self, db: &DbRef<'_>, ids: &[Uuid]) -> Result<Vec<Option<(Ownership, Vec<u8>)>>> {
        self.read_objects(db, None, ids, |v| keys::object_payload(v).map(|(own, p)| (own, p.into_owned())))
    }

    /// The payloads of committed `entries` in order, with each object's ownership (what a poll
    /// needs): inline ones from the entry, the others in one batched read of their objects.
    pub fn read_entry_payloads(&self, db: &DbRef<'_>, entries: &[Entry]) -> Result<Vec<Option<(Ownership, Vec<u8>)>>> {
        self.merge_inline(entries, |ids| self.read_owned_payloads(db, ids), |payload| (Ownership::Owned, payload))
    }

    /// `read_entry_payloads` without the ownership (what a peek needs).
    pub fn entry_payloads(&self, db: &DbRef<'_>, entries: &[Entry]) -> Result<Vec<Option<Vec<u8>>>> {
        self.merge_inline(entries, |ids| self.read_payloads(db, None, ids), |payload| payload)
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

    fn read_objects<T>(&self, db: &DbRef<'_>, cache: ObjectCache<'_>, ids: &[Uuid], payload: impl Fn(&[u8]) -> Result<T>) -> Result<Vec<Option<T>>> {
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
        let fetched = db.db().batched_multi_get_cf(db.cf(CF_OBJECTS), keys, false);
        for ((i, fill), v) in missed.into_iter().zip(fetched) {
            let id = &ids[i];
            let v = v.context(|| format!("reading object {id}"))?;
            keep_object(cache, fill, id, v.as_deref());
            out[i] = v.map(|v| payload(&v)).transpose()?;
        }
        Ok(out)
    }

    /// The ids of the objects this commit writes that the object cache could hold, to be
    /// marked as being written (`read_cache.rs`): those it puts (not queue-owned) or deletes.
    /// Queue-owned objects, which the cache never keeps, are not marked: those it creates
    /// (`enqueue`'s ids are fresh), those it replaces with `put` (they stay queue-owned, and
    /// the put is refused if the object was deleted meanwhile) and those its consumptions
    /// delete (only ever a queue-owned object, `decide_references`). None when the cache is off.
    pub fn cacheable_objects_written(&self, store: &crate::shared::Shared) -> Vec<Uuid> {
        if !store.object_cache().enabled() {
            return Vec::new();
        }
        let written = self.objects.iter().filter(|(_, w)| match **w {
            ObjectWrite::Put { at, len } => is_put_value(self.batch.slice(at, len)),
            ObjectWrite::Delete => true,
        });
        written.map(|(id, _)| *id).collect()
    }

    /// Each object's final write in this transaction, sorted by id.
    pub fn objects_sorted_by_id(&self, cf: CfIds) -> BatchRep {
        let mut writes: Vec<(&Uuid, &ObjectWrite)> = self.objects.iter().collect();
        writes.sort_unstable_by_key(|(id, _)| **id);
        let mut out = BatchRep::default();
        for (id, w) in writes {
            match *w {
                ObjectWrite::Put { at, len } => {
                    out.put(cf.objects, id.as_bytes(), self.batch.slice(at, len));
                }
                ObjectWrite::Delete => delete_object(&mut out, cf, id),
            }
        }
        out
    }
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

/// An object and its reference count go together.
pub(crate) fn delete_object(batch: &mut BatchRep, cf: CfIds, id: &Uuid) {
    batch.delete(cf.objects, id.as_bytes());
    batch.delete(cf.refs, id.as_bytes());
}
