//! A transaction: polls claim entries, enqueues and object writes are buffered; `commit` writes
//! everything as one RocksDB write batch, `rollback` (or drop) hands claimed entries back.
//!
//! Object lifetime rule: an object created by `enqueue(queue, bytes)` is queue-owned and is
//! deleted when the last owned entry pointing at it is consumed (enqueueing it by id into
//! another queue adds an owned entry). An object created by `put` lives until `delete`;
//! entries pointing at it are references. `put` over a queue-owned object replaces its payload
//! and keeps it queue-owned.

use std::collections::{BTreeSet, HashMap, VecDeque};
use std::sync::atomic::Ordering as AtomicOrdering;
use std::sync::Arc;
use std::time::{Duration, Instant};

use uuid::Uuid;

use crate::batch::{BatchRep, CfIds};
use crate::compress::{Compression, Policy};
use crate::error::{Error, Result, RocksContext};
use crate::hash::IdMap;
use crate::pipeline::{CommitState, PendingObject, Prepared};
use crate::keys::{self, Ownership, QueueId, CF_ENTRIES, CF_OBJECTS, CF_REFS};
use crate::options::{MAX_BATCH_ITEMS, MAX_PAYLOAD_BYTES};
use crate::queue::QueueState;
use crate::store::{DbRef, Shared};

/// One item delivered by `poll`, `peek` or `take`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Message {
    pub id: Uuid,
    /// `None` when the entry points at an object that was deleted with `delete`.
    pub payload: Option<Vec<u8>>,
}

#[derive(Debug)]
struct Claim {
    queue: QueueId,
    seq: u64,
}

/// This transaction's last write to an object.
#[derive(Clone, Copy, Debug)]
enum ObjectWrite {
    /// Encoded object value (flag byte + payload) at `at..at + len` of the batch.
    Put { at: usize, len: usize },
    Delete,
}

/// This transaction's own enqueues, per queue, in order. Engines touch a handful of queues per
/// transaction, so the last one used is checked first and the map only serves the others.
#[derive(Default)]
struct OwnEnqueues {
    queues: Vec<(String, VecDeque<(Uuid, Ownership)>)>,
    index: HashMap<String, usize>,
    last: usize,
}

impl OwnEnqueues {
    fn push(&mut self, queue: &str, item: (Uuid, Ownership)) {
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

    fn get(&self, queue: &str) -> Option<&VecDeque<(Uuid, Ownership)>> {
        self.index.get(queue).map(|&i| &self.queues[i].1)
    }

    fn get_mut(&mut self, queue: &str) -> Option<&mut VecDeque<(Uuid, Ownership)>> {
        self.index.get(queue).map(|&i| &mut self.queues[i].1)
    }
}

pub struct Transaction {
    store: Arc<Shared>,
    finished: Option<&'static str>,
    claims: Vec<Claim>,
    enqueued: OwnEnqueues,
    /// Object puts and deletes, already encoded in `batch` in the order they were made.
    batch: BatchRep,
    objects: IdMap<Uuid, ObjectWrite>,
    /// Every object write so far had a larger id than the one before (new ids are time-ordered,
    /// so this is the common case): `batch` is then already in key order. Otherwise commit
    /// writes each object's final state sorted by id, because RocksDB's memtable inserts keys in
    /// order far faster than scattered ones.
    objects_in_key_order: bool,
    last_object: Option<Uuid>,
    /// Change in the number of owned entries pointing at each queue-owned object.
    ref_delta: IdMap<Uuid, i64>,
    /// Payload bytes written, before and after compression (added to the store's figures on
    /// commit).
    payload_bytes: u64,
    stored_bytes: u64,
}

impl Transaction {
    pub(crate) fn new(store: Arc<Shared>) -> Self {
        Transaction {
            store,
            finished: None,
            claims: Vec::new(),
            enqueued: OwnEnqueues::default(),
            batch: BatchRep::default(),
            objects: IdMap::default(),
            objects_in_key_order: true,
            last_object: None,
            ref_delta: IdMap::default(),
            payload_bytes: 0,
            stored_bytes: 0,
        }
    }

    fn check_open(&self) -> Result<()> {
        if let Some(how) = self.finished {
            return Err(Error::TransactionFinished(how));
        }
        Ok(())
    }

    fn check_write(&self) -> Result<DbRef<'_>> {
        self.check_open()?;
        self.store.writable_db()
    }

    /// New queue-owned object with `payload` (under a new time-ordered id, returned), and an
    /// entry for it at the tail of `queue`.
    pub fn enqueue(&mut self, queue: &str, payload: &[u8]) -> Result<Uuid> {
        let id = Uuid::now_v7();
        self.enqueue_new(queue, id, payload)?;
        Ok(id)
    }

    /// `enqueue` under an id the caller generated. The id must be fresh: a UUIDv7 from
    /// RockCask's own generator (the Java API creates ids without a native call so that
    /// enqueues can cross JNI in chunks). An existing object with that id would be replaced.
    pub fn enqueue_new(&mut self, queue: &str, id: Uuid, payload: &[u8]) -> Result<()> {
        self.enqueue_new_with(queue, id, payload.len(), |buf| {
            buf.copy_from_slice(payload);
            Ok::<(), Error>(())
        })
    }

    /// `enqueue_new` for a payload of `len` bytes that `fill` writes in place (the JNI bridge
    /// copies large Java arrays straight into the write batch this way). Nothing is enqueued if
    /// `fill` fails.
    pub fn enqueue_new_with<E: From<Error>>(
        &mut self,
        queue: &str,
        id: Uuid,
        len: usize,
        fill: impl FnOnce(&mut [u8]) -> std::result::Result<(), E>,
    ) -> std::result::Result<(), E> {
        self.check_write()?;
        keys::validate_queue_name(queue)?;
        check_payload_len(len)?;
        let policy = self.store.options.policy_for_queue(queue);
        self.write_object(id, Ownership::Owned, policy, len, fill)?;
        self.enqueued.push(queue, (id, Ownership::Owned));
        Ok(())
    }

    fn write_object<E: From<Error>>(
        &mut self,
        id: Uuid,
        own: Ownership,
        policy: Policy,
        len: usize,
        fill: impl FnOnce(&mut [u8]) -> std::result::Result<(), E>,
    ) -> std::result::Result<(), E> {
        let cf = self.store.cf_ids.objects;
        let (at, stored) = if policy.codec == Compression::None || len < policy.threshold {
            // Raw: written straight into the batch, no copy.
            let at = self.batch.put_with(cf, id.as_bytes(), len + 1, |buf| {
                buf[0] = keys::object_flag(own, Compression::None);
                fill(&mut buf[1..])
            })?;
            (at, len + 1)
        } else {
            let mut payload = vec![0u8; len];
            fill(&mut payload)?;
            let (codec, body) = policy.compress(&payload);
            let at = self.batch.put_with(cf, id.as_bytes(), body.len() + 1, |buf| {
                buf[0] = keys::object_flag(own, codec);
                buf[1..].copy_from_slice(&body);
                Ok::<(), Error>(())
            })?;
            (at, body.len() + 1)
        };
        self.payload_bytes += len as u64;
        self.stored_bytes += (stored - 1) as u64;
        self.note_object_write(id, ObjectWrite::Put { at, len: stored });
        Ok(())
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

    /// An entry for the existing object `id` at the tail of `queue` (no copy of the payload).
    pub fn enqueue_id(&mut self, queue: &str, id: Uuid) -> Result<()> {
        let own = {
            let db = self.check_write()?;
            keys::validate_queue_name(queue)?;
            self.ownership_of(&db, id)?.ok_or(Error::NoSuchObject(id))?
        };
        if own == Ownership::Owned {
            *self.ref_delta.entry(id).or_insert(0) += 1;
        }
        self.enqueued.push(queue, (id, own));
        Ok(())
    }

    /// Remove up to `max` items from the head of `queue`: committed entries first (FIFO), then
    /// this transaction's own enqueues. Others never receive them unless this rolls back.
    ///
    /// If reading what was claimed fails, the whole transaction rolls back (and the error says
    /// so): claimed entries must never be consumed by a later commit without being delivered.
    pub fn poll(&mut self, queue: &str, max: usize) -> Result<Vec<Message>> {
        self.poll_within(queue, max, usize::MAX)
    }

    /// `poll` that also stops before the message whose payload would bring the payload bytes
    /// returned over `max_payload_bytes` (for a caller whose result must fit one buffer). The
    /// first message is always returned, whatever its size; the ones left go back to the head
    /// of the queue for the next poll, in order.
    pub fn poll_within(&mut self, queue: &str, max: usize, max_payload_bytes: usize) -> Result<Vec<Message>> {
        self.check_open()?;
        let store = self.store.clone();
        let db = store.writable_db()?;
        keys::validate_queue_name(queue)?;
        check_batch(max)?;
        match self.claim_and_read(&db, queue, max, max_payload_bytes) {
            Ok(messages) => Ok(messages),
            Err(e) => {
                self.rollback()?;
                Err(Error::RolledBack(Box::new(e)))
            }
        }
    }

    fn claim_and_read(&mut self, db: &DbRef<'_>, queue: &str, max: usize, max_payload_bytes: usize) -> Result<Vec<Message>> {
        let mut seqs = Vec::new();
        let queue_id = {
            let mut queues = self.store.queues.lock();
            match queues.get_mut(queue) {
                Some(q) => {
                    q.claim(max, &mut seqs);
                    Some(q.id)
                }
                None => None,
            }
        };
        let mut out = Vec::with_capacity(seqs.len());
        if let Some(qid) = queue_id.filter(|_| !seqs.is_empty()) {
            // Claimed first, so that a failure below gives every one of them back (rollback).
            self.claims.extend(seqs.iter().map(|&seq| Claim { queue: qid, seq }));
            let entries = read_entries(db, qid, &seqs)?;
            let mut found = Vec::with_capacity(entries.len());
            for (seq, entry) in seqs.iter().zip(entries) {
                found.push(entry.ok_or_else(|| Error::Corrupt(format!("queue '{queue}' entry {seq} is missing")))?);
            }
            let ids: Vec<Uuid> = found.iter().map(|&(id, _)| id).collect();
            let payloads = self.read_payloads(db, &ids)?;
            let kept = within_budget(payloads.iter().map(|p| p.as_ref().map_or(0, Vec::len)), max_payload_bytes, 0);
            // The claims past the budget go back, to be the head of the next poll.
            self.give_back_last(seqs.len() - kept);
            for &(id, own) in &found[..kept] {
                if own == Ownership::Owned {
                    *self.ref_delta.entry(id).or_insert(0) -= 1;
                }
            }
            out.extend(ids.into_iter().zip(payloads).take(kept).map(|(id, payload)| Message { id, payload }));
            if kept < seqs.len() {
                return Ok(out);
            }
        }
        if out.len() < max {
            let used: usize = out.iter().map(|m| m.payload.as_ref().map_or(0, Vec::len)).sum();
            let available = self.enqueued.get(queue).map_or(0, |items| items.len());
            let n = (max - out.len()).min(available);
            let mut taken = Vec::with_capacity(n);
            for i in 0..n {
                let (id, _) = self.enqueued.get(queue).expect("counted above")[i];
                taken.push((id, self.payload_of(db, id)?));
            }
            let kept = within_budget(taken.iter().map(|(_, p)| p.as_ref().map_or(0, Vec::len)), max_payload_bytes.saturating_sub(used), out.len());
            let own_items = self.enqueued.get_mut(queue).map(|items| items.drain(..kept).collect::<Vec<_>>()).unwrap_or_default();
            for ((id, own), (_, payload)) in own_items.into_iter().zip(taken) {
                if own == Ownership::Owned {
                    *self.ref_delta.entry(id).or_insert(0) -= 1;
                }
                out.push(Message { id, payload });
            }
        }
        Ok(out)
    }

    /// Hands the last `n` claims back to their queue (a poll that returns fewer than it claimed).
    fn give_back_last(&mut self, n: usize) {
        if n == 0 {
            return;
        }
        let mut queues = self.store.queues.lock();
        for c in self.claims.drain(self.claims.len() - n..) {
            if let Some(q) = queues.states.get_mut(&c.queue) {
                q.give_back(c.seq);
            }
        }
        self.store.arrivals.notify_all();
    }

    /// The first `max` items `poll` would return, without removing them.
    pub fn peek(&self, queue: &str, max: usize) -> Result<Vec<Message>> {
        self.peek_within(queue, max, usize::MAX)
    }

    /// `peek` bounded like `poll_within`: the items `poll_within` would return.
    pub fn peek_within(&self, queue: &str, max: usize, max_payload_bytes: usize) -> Result<Vec<Message>> {
        self.check_open()?;
        let db = self.store.db()?;
        keys::validate_queue_name(queue)?;
        check_batch(max)?;
        let mut seqs = Vec::new();
        let queue_id = {
            let queues = self.store.queues.lock();
            queues.get(queue).map(|q| {
                q.peek(max, &mut seqs);
                q.id
            })
        };
        let mut out = Vec::with_capacity(seqs.len());
        if let Some(qid) = queue_id.filter(|_| !seqs.is_empty()) {
            // An entry may be consumed by another commit between the peek and this read: skip it.
            let ids: Vec<Uuid> = read_entries(&db, qid, &seqs)?.into_iter().flatten().map(|(id, _)| id).collect();
            let payloads = self.read_payloads(&db, &ids)?;
            out.extend(ids.into_iter().zip(payloads).map(|(id, payload)| Message { id, payload }));
        }
        if let Some(own_items) = self.enqueued.get(queue) {
            for &(id, _) in own_items.iter().take(max - out.len()) {
                out.push(Message { id, payload: self.payload_of(&db, id)? });
            }
        }
        out.truncate(within_budget(out.iter().map(|m| m.payload.as_ref().map_or(0, Vec::len)), max_payload_bytes, 0));
        Ok(out)
    }

    /// Poll one item, waiting up to `timeout` for one to be committed to `queue`.
    pub fn take(&mut self, queue: &str, timeout: Duration) -> Result<Option<Message>> {
        let deadline = Instant::now().checked_add(timeout).ok_or_else(|| Error::InvalidArgument("timeout is too long".into()))?;
        loop {
            if let Some(m) = self.poll(queue, 1)?.pop() {
                return Ok(Some(m));
            }
            let mut queues = self.store.queues.lock();
            loop {
                if self.store.closed.load(std::sync::atomic::Ordering::Acquire) {
                    return Err(Error::Closed("store"));
                }
                if queues.get(queue).is_some_and(|q| q.available() > 0) {
                    break;
                }
                if self.store.arrivals.wait_until(&mut queues, deadline).timed_out() {
                    return Ok(None);
                }
            }
        }
    }

    /// Store `payload` under `id`, replacing any previous payload.
    pub fn put(&mut self, id: Uuid, payload: &[u8]) -> Result<()> {
        self.put_with(id, payload.len(), |buf| {
            buf.copy_from_slice(payload);
            Ok::<(), Error>(())
        })
    }

    /// `put` for a payload of `len` bytes that `fill` writes in place.
    pub fn put_with<E: From<Error>>(
        &mut self,
        id: Uuid,
        len: usize,
        fill: impl FnOnce(&mut [u8]) -> std::result::Result<(), E>,
    ) -> std::result::Result<(), E> {
        let own = {
            let db = self.check_write()?;
            check_payload_len(len)?;
            self.ownership_of(&db, id)?.unwrap_or(Ownership::Reference)
        };
        let policy = self.store.options.compression;
        self.write_object(id, own, policy, len, fill)
    }

    /// The payload of object `id`, including this transaction's own writes.
    pub fn get(&self, id: Uuid) -> Result<Option<Vec<u8>>> {
        self.check_open()?;
        let db = self.store.db()?;
        self.payload_of(&db, id)
    }

    /// Delete object `id`. Entries still pointing at it are delivered with no payload.
    /// Returns whether the object existed.
    pub fn delete(&mut self, id: Uuid) -> Result<bool> {
        let existed = {
            let db = self.check_write()?;
            self.ownership_of(&db, id)?.is_some()
        };
        delete_object(&mut self.batch, self.store.cf_ids, &id);
        self.note_object_write(id, ObjectWrite::Delete);
        self.ref_delta.remove(&id);
        Ok(existed)
    }

    /// This transaction's own encoded value of object `id`: `Some(None)` when it deleted it.
    fn own_value(&self, id: &Uuid) -> Option<Option<&[u8]>> {
        self.objects.get(id).map(|w| match *w {
            ObjectWrite::Put { at, len } => Some(self.batch.slice(at, len)),
            ObjectWrite::Delete => None,
        })
    }

    /// Object `id` as this transaction sees it (its own writes first), reduced by `keep` to
    /// what the caller needs; `None` when there is no such object.
    fn read_object<T>(&self, db: &DbRef<'_>, id: Uuid, keep: impl Fn(&[u8]) -> Result<T>) -> Result<Option<T>> {
        let decode = |v: &[u8]| keep(v);
        match self.own_value(&id) {
            Some(own) => own.map(decode).transpose(),
            None => {
                let v = db.db().get_pinned_cf(db.cf(CF_OBJECTS), id.as_bytes()).context(|| format!("reading object {id}"))?;
                v.map(|v| decode(&v)).transpose()
            }
        }
    }

    fn ownership_of(&self, db: &DbRef<'_>, id: Uuid) -> Result<Option<Ownership>> {
        // The flag byte is enough: a compressed payload is not decompressed for this.
        self.read_object(db, id, |v| keys::decode_object_value(v).map(|(own, _, _)| own))
    }

    fn payload_of(&self, db: &DbRef<'_>, id: Uuid) -> Result<Option<Vec<u8>>> {
        self.read_object(db, id, |v| keys::object_payload(v).map(|(_, payload)| payload.into_owned()))
    }

    /// Payloads of `ids` in order, like `payload_of` each, with the stored ones in one batched read.
    fn read_payloads(&self, db: &DbRef<'_>, ids: &[Uuid]) -> Result<Vec<Option<Vec<u8>>>> {
        let payload = |v: &[u8]| keys::object_payload(v).map(|(_, p)| p.into_owned());
        let missing: Vec<&[u8]> = ids.iter().filter(|id| self.own_value(id).is_none()).map(|id| &id.as_bytes()[..]).collect();
        let mut fetched = db.db().batched_multi_get_cf(db.cf(CF_OBJECTS), missing, false).into_iter();
        ids.iter()
            .map(|id| match self.own_value(id) {
                Some(own) => own.map(payload).transpose(),
                None => {
                    let v = fetched.next().expect("one result per key").context(|| format!("reading object {id}"))?;
                    v.map(|v| payload(&v)).transpose()
                }
            })
            .collect()
    }

    /// Make everything durable at once (synced when the store says so), then publish the new
    /// entries to consumers. Commits from several threads share one synced write (group
    /// commit). If the commit is refused before anything is written (an enqueued object was
    /// deleted meanwhile), the transaction stays open; if the write itself fails, it is over and
    /// the store refuses further writes until reopened.
    pub fn commit(&mut self) -> Result<()> {
        self.check_open()?;
        let store = self.store.clone();
        let db = store.writable_db()?;
        let ticket = {
            let mut serial = store.commit_lock.lock();
            // Everything that can refuse the commit happens before anything is reserved.
            let outcomes = self.decide_references(&db, &serial)?;
            let mut tail = BatchRep::default();
            let appends = self.reserve_and_record(&mut tail, &outcomes);
            let mut batch = if self.objects_in_key_order { std::mem::take(&mut self.batch) } else { self.objects_sorted_by_id() };
            batch.append(&tail);
            let ticket = store.group_commit.submit(Prepared { batch, appends });
            self.mark_pending_objects(&mut serial, &outcomes, ticket);
            ticket
        };
        self.claims.clear();
        let written = store.group_commit.wait(&store, &db, ticket);
        self.finished = Some(if written.is_ok() { "committed" } else { "failed" });
        if written.is_ok() {
            store.payload_bytes.fetch_add(self.payload_bytes, AtomicOrdering::Relaxed);
            store.stored_payload_bytes.fetch_add(self.stored_bytes, AtomicOrdering::Relaxed);
        }
        written
    }

    /// New owning-entry count of every queue-owned object this transaction changed, as the
    /// store will be once the commits prepared before it are written.
    fn decide_references(&self, db: &DbRef<'_>, serial: &CommitState) -> Result<Vec<(Uuid, i64)>> {
        let mut outcomes = Vec::with_capacity(self.ref_delta.len());
        for (id, delta) in self.ref_delta.iter().filter(|(_, d)| **d != 0) {
            let pending = serial.pending_objects.get(id).map(|(state, _)| *state);
            let own_write = self.objects.contains_key(id);
            if *delta > 0 && !own_write {
                // Entries were added for an object read before this commit: an earlier commit
                // may have consumed its last entry (deleting it) since. Refuse rather than point
                // at nothing.
                let exists = match pending {
                    Some(PendingObject::Deleted) => false,
                    Some(PendingObject::Count(_)) => true,
                    None => db.db().get_pinned_cf(db.cf(CF_OBJECTS), id.as_bytes()).context(|| format!("reading object {id}"))?.is_some(),
                };
                if !exists {
                    return Err(Error::NoSuchObject(*id));
                }
            }
            let current = match pending {
                Some(PendingObject::Count(n)) => n as i64,
                Some(PendingObject::Deleted) => i64::from(own_write),
                None => match db.db().get_pinned_cf(db.cf(CF_REFS), id.as_bytes()).context(|| format!("reading references of {id}"))? {
                    Some(v) => keys::decode_u64(&v, "reference count")? as i64,
                    None => 1,
                },
            };
            outcomes.push((*id, current + delta));
        }
        Ok(outcomes)
    }

    /// Reserve sequence numbers and record what only commit time knows, into `tail`: entries
    /// (each queue's next sequences, in commit order), deletion of consumed entries, reference
    /// counts (kept in CF_REFS only while above one; an owned object at zero is deleted) and
    /// queue layouts. Returns the entries to publish per queue once written.
    fn reserve_and_record(&self, tail_batch: &mut BatchRep, outcomes: &[(Uuid, i64)]) -> Vec<(QueueId, u64)> {
        let cf = self.store.cf_ids;
        let mut consuming: HashMap<QueueId, BTreeSet<u64>> = HashMap::new();
        for c in &self.claims {
            consuming.entry(c.queue).or_default().insert(c.seq);
        }
        let mut appends = Vec::new();
        let mut layouts = Vec::with_capacity(consuming.len());
        {
            let mut queues = self.store.queues.lock();
            let mut own: Vec<&(String, VecDeque<(Uuid, Ownership)>)> = self.enqueued.queues.iter().filter(|(_, q)| !q.is_empty()).collect();
            own.sort_by(|a, b| a.0.cmp(&b.0));
            for (name, items) in own {
                let qid = match queues.by_name.get(name) {
                    Some(&qid) => qid,
                    None => {
                        let qid = queues.next_id;
                        queues.next_id += 1;
                        queues.by_name.insert(name.clone(), qid);
                        queues.states.insert(qid, QueueState::unpublished(qid));
                        tail_batch.put(cf.meta, &keys::meta_queue_key(name), &qid.to_le_bytes());
                        qid
                    }
                };
                let first = queues.states.get_mut(&qid).expect("queue registered").reserve(items.len() as u64);
                for (i, (id, own)) in items.iter().enumerate() {
                    tail_batch.put(cf.entries, &keys::entry_key(qid, first + i as u64), &keys::entry_value(*id, *own));
                }
                appends.push((qid, items.len() as u64));
            }
            for (qid, seqs) in &consuming {
                if let Some(q) = queues.states.get_mut(qid) {
                    layouts.push((*qid, q.layout_after(seqs)));
                    // Gone for every commit prepared after this one.
                    seqs.iter().for_each(|&seq| q.consumed(seq));
                }
            }
        }
        for c in &self.claims {
            // Entries are written exactly once, which is what SingleDelete requires.
            tail_batch.single_delete(cf.entries, &keys::entry_key(c.queue, c.seq));
        }
        for &(id, count) in outcomes {
            match count {
                n if n <= 0 => delete_object(tail_batch, cf, &id),
                1 => tail_batch.delete(cf.refs, id.as_bytes()),
                n => {
                    tail_batch.put(cf.refs, id.as_bytes(), &(n as u64).to_le_bytes());
                }
            }
        }
        for (qid, layout) in &layouts {
            tail_batch.put(cf.meta, &keys::meta_head_key(*qid), &layout.encode());
        }
        appends
    }

    /// Tell commits prepared after this one what it does to objects before it is on disk.
    fn mark_pending_objects(&self, serial: &mut CommitState, outcomes: &[(Uuid, i64)], ticket: u64) {
        for (id, w) in &self.objects {
            let state = match w {
                ObjectWrite::Delete => Some(PendingObject::Deleted),
                ObjectWrite::Put { .. } => match serial.pending_objects.get(id) {
                    Some((PendingObject::Deleted, _)) => Some(PendingObject::Count(1)),
                    _ => None,
                },
            };
            if let Some(state) = state {
                serial.pending_objects.insert(*id, (state, ticket));
            }
        }
        for &(id, count) in outcomes {
            let state = if count <= 0 { PendingObject::Deleted } else { PendingObject::Count(count as u64) };
            serial.pending_objects.insert(id, (state, ticket));
        }
    }

    /// Each object's final write in this transaction, sorted by id.
    fn objects_sorted_by_id(&self) -> BatchRep {
        let cf = self.store.cf_ids;
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

    /// Undo everything: claimed entries go back to the head of their queues in order.
    /// Idempotent; also what dropping an open transaction does.
    pub fn rollback(&mut self) -> Result<()> {
        if self.finished.is_some() {
            return Ok(());
        }
        self.release_claims();
        self.enqueued = OwnEnqueues::default();
        self.batch = BatchRep::default();
        self.objects.clear();
        self.objects_in_key_order = true;
        self.last_object = None;
        self.ref_delta.clear();
        self.finished = Some("rolled back");
        Ok(())
    }

    fn release_claims(&mut self) {
        if self.claims.is_empty() {
            return;
        }
        let mut queues = self.store.queues.lock();
        for c in self.claims.drain(..) {
            if let Some(q) = queues.states.get_mut(&c.queue) {
                q.give_back(c.seq);
            }
        }
        self.store.arrivals.notify_all();
    }

    pub fn is_open(&self) -> bool {
        self.finished.is_none()
    }
}

impl Drop for Transaction {
    fn drop(&mut self) {
        let _ = self.rollback();
    }
}

/// An object and its reference count go together.
fn delete_object(batch: &mut BatchRep, cf: CfIds, id: &Uuid) {
    batch.delete(cf.objects, id.as_bytes());
    batch.delete(cf.refs, id.as_bytes());
}

fn read_entries(db: &DbRef<'_>, qid: QueueId, seqs: &[u64]) -> Result<Vec<Option<(Uuid, Ownership)>>> {
    let keys: Vec<[u8; 12]> = seqs.iter().map(|&s| keys::entry_key(qid, s)).collect();
    db.db()
        .batched_multi_get_cf(db.cf(CF_ENTRIES), keys.iter(), true)
        .into_iter()
        .map(|r| {
            let v = r.context(|| "reading queue entries".into())?;
            v.map(|v| keys::decode_entry_value(&v)).transpose()
        })
        .collect()
}

/// How many of the payloads (of these lengths, in order) fit in `budget` bytes; the first always
/// counts as fitting when nothing was returned before it (`already` messages), so a poll of one
/// large payload never comes back empty.
fn within_budget(lengths: impl Iterator<Item = usize>, budget: usize, already: usize) -> usize {
    let mut used = 0usize;
    let mut n = 0;
    for len in lengths {
        used = used.saturating_add(len);
        if used > budget && n + already > 0 {
            break;
        }
        n += 1;
    }
    n
}

fn check_payload_len(len: usize) -> Result<()> {
    if len > MAX_PAYLOAD_BYTES {
        return Err(Error::InvalidArgument(format!("payload of {len} bytes exceeds the limit of {MAX_PAYLOAD_BYTES} bytes")));
    }
    Ok(())
}

fn check_batch(max: usize) -> Result<()> {
    if max == 0 || max > MAX_BATCH_ITEMS {
        return Err(Error::InvalidArgument(format!("item count {max} is outside 1..={MAX_BATCH_ITEMS}")));
    }
    Ok(())
}
