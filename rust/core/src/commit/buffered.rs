//! What a transaction has buffered for its commit: the entries it claimed, its own enqueues,
//! its object writes (already encoded in a write batch) and what they rely on, its map writes
//! and reads. The transaction (`transaction/`) fills it; the commit (`commit/mod.rs`) turns it
//! into one write.

use std::collections::{BTreeMap, BTreeSet, HashMap, VecDeque};
use std::ops::Bound;

use uuid::Uuid;

use crate::batch::{BatchRep, CfIds};
use crate::error::{Error, Result};
use crate::hash::{IdMap, IdSet};
use crate::keys::{Entry, Ownership, QueueId};
use crate::object_reads::{is_put_value, ObjectReads, ObjectWrite};
use crate::read_cache::ReadCache;

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
        Claim {
            queue,
            seq,
            deliveries: 0,
            record: None,
            bytes: 0,
        }
    }
}

/// This transaction's own enqueues, per queue, in order. Engines touch a handful of queues per
/// transaction, so the last one used is checked first and the map only serves the others.
#[derive(Default)]
pub(crate) struct OwnEnqueues {
    pub(super) queues: Vec<(String, VecDeque<Entry>)>,
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

/// What a transaction has buffered, private to the commit: the transaction records into it
/// with the methods below, named for what it does.
pub(crate) struct Buffered {
    pub(super) claims: Vec<Claim>,
    pub(super) enqueued: OwnEnqueues,
    /// Object puts and deletes, already encoded in `batch` in the order they were made.
    pub(super) batch: BatchRep,
    pub(super) objects: IdMap<Uuid, ObjectWrite>,
    /// Every object write so far had a larger id than the one before (new ids are time-ordered,
    /// so this is the common case): `batch` is then already in key order. Otherwise commit
    /// writes each object's final state sorted by id, because RocksDB's memtable inserts keys in
    /// order far faster than scattered ones.
    pub(super) objects_in_key_order: bool,
    pub(super) last_object: Option<Uuid>,
    /// Change in the number of owned entries pointing at each queue-owned object. An owned entry
    /// whose object was deleted (and perhaps put again, no longer queue-owned) owns nothing:
    /// its consumption changes no count (`consume_owned`).
    pub(super) ref_delta: IdMap<Uuid, i64>,
    /// Objects of owned entries consumed without their object read (a dropped queue, dropped
    /// dead letters): whether each still is the queue-owned object its entries own is read at
    /// commit.
    pub(super) unread_owners: IdSet<Uuid>,
    /// Every commit below this ticket was written when this transaction first read the object
    /// of an entry it consumes: a `delete` in a commit from this ticket on may have been
    /// missed by that read, which the commit then reads again.
    pub(super) owners_read_below: Option<u64>,
    /// Objects this transaction deleted, also those it put again afterwards (`objects` then
    /// holds the put): for the commits prepared after it, which must not take a put again for
    /// the queue-owned object it deleted.
    pub(super) deleted: IdSet<Uuid>,
    /// Committed objects this transaction enqueued by id, with how many of those entries are
    /// still to be written (its own polls can take them back): each must still exist at commit.
    pub(super) enqueued_by_id: IdMap<Uuid, u32>,
    /// Committed queue-owned objects this transaction replaced with `put` (keeping them
    /// queue-owned): each must still exist at commit, or the put would leave a queue-owned
    /// object that no entry points at (and that nothing would ever delete).
    pub(super) owned_puts: IdSet<Uuid>,
    /// Queues `drop_queue` or `move_queue` emptied: the commit forgets each name that is still
    /// empty then.
    pub(super) dropped_queues: BTreeSet<String>,
    /// Per dead-letter queue, the encoded records of the dead letters this transaction moves
    /// there, in the order of its own enqueues to that queue (every one of which is a dead letter).
    pub(super) dead_letter_records: HashMap<String, Vec<Vec<u8>>>,
    /// Moving dead letters never fails on a full dead-letter queue.
    pub(super) exempt_from_capacity: bool,
    /// Writes to maps, by map name and key, in key order (`transaction/maps.rs`).
    pub(super) map_writes: BTreeMap<(String, Vec<u8>), MapWrite>,
    /// Keys read from the store with `get`/`contains`, each with the ticket below which every
    /// commit was written when it was read: the commit checks none was written since.
    pub(super) map_reads: Vec<(String, Vec<u8>, u64)>,
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
            map_writes: BTreeMap::new(),
            map_reads: Vec::new(),
        }
    }
}

impl Buffered {
    /// Whether a commit would write nothing: no claim (a poll, a take, a drop or move of a
    /// queue), no enqueue, no object or map write, no dead letter. Reads and peeks leave
    /// nothing here, so such a commit has nothing to check, order or make durable.
    pub fn writes_nothing(&self) -> bool {
        self.claims.is_empty()
            && self.enqueued.queues.is_empty()
            && self.objects.is_empty()
            && self.ref_delta.is_empty()
            && self.unread_owners.is_empty()
            && self.deleted.is_empty()
            && self.enqueued_by_id.is_empty()
            && self.owned_puts.is_empty()
            && self.dropped_queues.is_empty()
            && self.dead_letter_records.is_empty()
            && self.map_writes.is_empty()
    }

    /// Objects as this transaction sees them: its own writes first, then the store.
    pub fn object_reads(&self) -> ObjectReads<'_> {
        ObjectReads::with_own(&self.objects, &self.batch)
    }

    /// The entries it holds claimed, in the order it claimed them.
    pub fn claims(&self) -> &[Claim] {
        &self.claims
    }

    /// Claims entries `seqs` of queue `queue` (not delivered yet); returns the index of the
    /// first of them among its claims.
    pub fn add_claims(&mut self, queue: QueueId, seqs: &[u64]) -> usize {
        let first = self.claims.len();
        self.claims.extend(seqs.iter().map(|&seq| Claim::new(queue, seq)));
        first
    }

    pub fn add_claim(&mut self, claim: Claim) {
        self.claims.push(claim);
    }

    /// The claims from index `first` on count `bytes` against their queues' byte capacity.
    pub fn count_claim_bytes(&mut self, first: usize, bytes: impl IntoIterator<Item = u64>) {
        for (c, bytes) in self.claims[first..].iter_mut().zip(bytes) {
            c.bytes = bytes;
        }
    }

    /// The claims from index `first` on are delivered: each had `failed` deliveries before
    /// this one, whose count is in delivery record `record` (when its queue keeps them).
    pub fn deliver_claims(&mut self, first: usize, failed: &[u32], record: Option<u64>) {
        for (c, &failed) in self.claims[first..].iter_mut().zip(failed) {
            c.deliveries = failed + 1;
            c.record = record;
        }
    }

    /// Takes the claims from index `first` on, to be handed back.
    pub fn take_claims(&mut self, first: usize) -> std::vec::Drain<'_, Claim> {
        self.claims.drain(first..)
    }

    /// Its commit is written: what it claimed is consumed, nothing is left to hand back.
    pub fn forget_claims(&mut self) {
        self.claims.clear();
    }

    /// It reads the objects of entries it consumes now, when every commit below `written_below`
    /// is written (only the first such read counts: `owners_read_below`).
    pub fn note_owners_read(&mut self, written_below: impl FnOnce() -> u64) {
        if self.owners_read_below.is_none() {
            self.owners_read_below = Some(written_below());
        }
    }

    /// Its own enqueues to `queue`, in order.
    pub fn own_enqueues(&self, queue: &str) -> Option<&VecDeque<Entry>> {
        self.enqueued.get(queue)
    }

    /// `entry` goes to the tail of `queue` at commit.
    pub fn enqueue(&mut self, queue: &str, entry: Entry) {
        self.enqueued.push(queue, entry);
    }

    /// `entry`, for the object `entry.id` already in the store, goes to the tail of `queue` at
    /// commit: one more owning entry when `entry.own` is `Owned`; when the object is a committed
    /// one (`committed`), it must still be there at commit.
    pub fn enqueue_existing(&mut self, queue: &str, entry: Entry, committed: bool) {
        let id = entry.id;
        if entry.own == Ownership::Owned {
            *self.ref_delta.entry(id).or_insert(0) += 1;
        }
        if committed {
            *self.enqueued_by_id.entry(id).or_insert(0) += 1;
        }
        self.enqueued.push(queue, entry);
    }

    /// `entry` goes to the tail of dead-letter queue `queue` at commit, with `record` (encoded)
    /// beside it.
    pub fn enqueue_dead_letter(&mut self, queue: &str, entry: Entry, record: Vec<u8>) {
        self.enqueued.push(queue, entry);
        self.dead_letter_records
            .entry(queue.to_string())
            .or_default()
            .push(record);
    }

    /// Its commit moves dead letters: it never fails on a full dead-letter queue.
    pub fn exempt_from_capacity(&mut self) {
        self.exempt_from_capacity = true;
    }

    /// Takes every one of its own enqueues to `queue` back, as they are, to enqueue them
    /// elsewhere (what they own goes with them).
    pub fn move_own_enqueues(&mut self, queue: &str) -> Vec<Entry> {
        self.enqueued
            .get_mut(queue)
            .map(|items| items.drain(..).collect())
            .unwrap_or_default()
    }

    /// At commit, `queue` is forgotten if nothing is left in it then.
    pub fn drop_queue(&mut self, queue: &str) {
        self.dropped_queues.insert(queue.to_string());
    }

    /// Writes object `id` (its value of `len` bytes written in place by `fill`) into the batch,
    /// column family `cf`.
    pub fn put_object_with<E: From<Error>>(
        &mut self,
        cf: u32,
        id: Uuid,
        len: usize,
        fill: impl FnOnce(&mut [u8]) -> std::result::Result<(), E>,
    ) -> std::result::Result<(), E> {
        let at = self.batch.put_with(cf, id.as_bytes(), len, fill)?;
        self.note_object_write(id, ObjectWrite::Put { at, len });
        Ok(())
    }

    /// Whether it writes object `id` itself.
    pub fn writes_object(&self, id: &Uuid) -> bool {
        self.objects.contains_key(id)
    }

    /// It replaced the committed queue-owned object `id` with `put`: the object must still be
    /// there at commit.
    pub fn note_owned_put(&mut self, id: Uuid) {
        self.owned_puts.insert(id);
    }

    /// Deletes object `id` (and its reference count, when it is `counted`): nothing of it relies
    /// on the object any more.
    ///
    /// Only a queue-owned object has a count in `refs` (kept there above one owning entry). An
    /// object put by `put`, or none at all, never gets one: ownership is fixed when an object is
    /// created and new queue-owned objects have fresh ids. So their delete writes no `refs`
    /// tombstone: with objects under random ids each such tombstone is an insert at a random
    /// place in the `refs` memtable, measured at about 40% of RocksDB's write of a put-by-id
    /// queue cycle (`examples/component_cycles putid`).
    pub fn delete_object(&mut self, cf: CfIds, id: Uuid, counted: bool) {
        delete_object(&mut self.batch, cf, &id, counted);
        self.note_object_write(id, ObjectWrite::Delete { counted });
        self.deleted.insert(id);
        self.ref_delta.remove(&id);
        // Entries this transaction enqueued for it point at a deleted object, as committed ones
        // do: nothing here relies on it any more.
        self.enqueued_by_id.remove(&id);
        self.owned_puts.remove(&id);
    }

    fn note_object_write(&mut self, id: Uuid, w: ObjectWrite) {
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
        let items = self
            .enqueued
            .get_mut(queue)
            .map(|items| items.drain(..n).collect::<Vec<_>>())
            .unwrap_or_default();
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

    /// Its last word on key `key` of map `map`.
    pub fn map_write(&self, map: &str, key: &[u8]) -> Option<&MapWrite> {
        self.map_writes.get(&(map.to_string(), key.to_vec()))
    }

    /// `write` is its last word on key `key` of map `map`.
    pub fn write_map(&mut self, map: &str, key: &[u8], write: MapWrite) {
        self.map_writes.insert((map.to_string(), key.to_vec()), write);
    }

    /// Adds `delta` to the counter under `key` of map `map`: at commit, unless its last word on
    /// the key is a value (then to that value now; an error if it is not a counter).
    pub fn add_to_counter(&mut self, map: &str, key: &[u8], delta: i64) -> Result<()> {
        let entry = self
            .map_writes
            .entry((map.to_string(), key.to_vec()))
            .or_insert(MapWrite::Add(0));
        *entry = match entry {
            MapWrite::Add(d) => MapWrite::Add(d.wrapping_add(delta)),
            MapWrite::Delete => MapWrite::Put(delta.to_le_bytes().to_vec()),
            MapWrite::Put(v) => {
                let sum = crate::maps::decode_counter(v, map, key)?.wrapping_add(delta);
                MapWrite::Put(sum.to_le_bytes().to_vec())
            }
        };
        Ok(())
    }

    /// Its writes to map `map` at keys from `from` on, in key order.
    pub fn map_writes_from<'a>(
        &'a self,
        map: &'a str,
        from: Vec<u8>,
    ) -> impl Iterator<Item = (&'a [u8], &'a MapWrite)> + 'a {
        self.map_writes
            .range((Bound::Included((map.to_string(), from)), Bound::Unbounded))
            .take_while(move |((m, _), _)| m == map)
            .map(|((_, k), w)| (k.as_slice(), w))
    }

    /// It read key `key` of map `map` from the store when every commit below `written_below`
    /// was written: its commit is refused if one from that ticket on writes the key.
    pub fn note_map_read(&mut self, map: &str, key: &[u8], written_below: u64) {
        self.map_reads.push((map.to_string(), key.to_vec(), written_below));
    }

    /// The ids of the objects this commit writes that the object cache could hold, to be
    /// marked as being written (`read_cache.rs`): those it puts (not queue-owned) or deletes.
    /// Queue-owned objects, which the cache never keeps, are not marked: those it creates
    /// (`enqueue`'s ids are fresh), those it replaces with `put` (they stay queue-owned, and
    /// the put is refused if the object was deleted meanwhile) and those its consumptions
    /// delete (only ever a queue-owned object, `references.rs`). None when the cache is off.
    pub(super) fn cacheable_objects_written(&self, cache: &ReadCache) -> Vec<Uuid> {
        if !cache.enabled() {
            return Vec::new();
        }
        let written = self.objects.iter().filter(|(_, w)| match **w {
            ObjectWrite::Put { at, len } => is_put_value(self.batch.slice(at, len)),
            ObjectWrite::Delete { .. } => true,
        });
        written.map(|(id, _)| *id).collect()
    }

    /// Each object's final write in this transaction, sorted by id.
    pub(super) fn objects_sorted_by_id(&self, cf: CfIds) -> BatchRep {
        let mut writes: Vec<(&Uuid, &ObjectWrite)> = self.objects.iter().collect();
        writes.sort_unstable_by_key(|(id, _)| **id);
        let mut out = BatchRep::default();
        for (id, w) in writes {
            match *w {
                ObjectWrite::Put { at, len } => {
                    out.put(cf.objects, id.as_bytes(), self.batch.slice(at, len));
                }
                ObjectWrite::Delete { counted } => delete_object(&mut out, cf, id, counted),
            }
        }
        out
    }
}

/// An object and its reference count go together.
fn delete_object(batch: &mut BatchRep, cf: CfIds, id: &Uuid, counted: bool) {
    batch.delete(cf.objects, id.as_bytes());
    if counted {
        batch.delete(cf.refs, id.as_bytes());
    }
}
