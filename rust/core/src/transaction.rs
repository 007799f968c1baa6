//! A transaction: polls claim entries, enqueues and object writes are buffered; `commit` writes
//! everything as one RocksDB write batch, `rollback` (or drop) hands claimed entries back.
//!
//! Object lifetime rule: an object created by `enqueue(queue, bytes)` is queue-owned and is
//! deleted when the last owned entry pointing at it is consumed (enqueueing it by id into
//! another queue adds an owned entry). An object created by `put` lives until `delete`;
//! entries pointing at it are references. `put` over a queue-owned object replaces its payload
//! and keeps it queue-owned.
//!
//! A new entry never points at an object that is already gone: what a transaction relied on
//! finding (an object it enqueued by id, a queue-owned object it replaced with `put`) is checked
//! again under the commit lock, against the disk and the commits prepared before it; if another
//! commit deleted the object in between (explicitly, or with its last owning entry), the commit
//! fails with `Error::NoSuchObject` and nothing of it is written. Deleting an object does not
//! remove entries committed before: those are delivered without a payload.
//!
//! A commit that fails ends the transaction as a rollback does: every entry it polled is back
//! at the head of its queue, in order.

use std::collections::{BTreeSet, HashMap, VecDeque};
use std::sync::atomic::Ordering as AtomicOrdering;
use std::sync::Arc;
use std::time::{Duration, Instant};

use uuid::Uuid;

use crate::batch::{BatchRep, CfIds};
use crate::compress::{Compression, Policy};
use crate::error::{Error, Result, RocksContext};
use crate::hash::{IdMap, IdSet};
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

/// How a transaction whose commit failed reports itself finished.
const FAILED_COMMIT: &str = "ended by a failed commit";

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
    /// Committed objects this transaction enqueued by id, with how many of those entries are
    /// still to be written (its own polls can take them back): each must still exist at commit.
    enqueued_by_id: IdMap<Uuid, u32>,
    /// Committed queue-owned objects this transaction replaced with `put` (keeping them
    /// queue-owned): each must still exist at commit, or the put would leave a queue-owned
    /// object that no entry points at (and that nothing would ever delete).
    owned_puts: IdSet<Uuid>,
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
            enqueued_by_id: IdMap::default(),
            owned_puts: IdSet::default(),
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
    ///
    /// `Error::NoSuchObject` now if there is no such object, or at commit if another commit
    /// deletes it before this one commits (unless this transaction writes it itself).
    pub fn enqueue_id(&mut self, queue: &str, id: Uuid) -> Result<()> {
        let (own, committed) = {
            let db = self.check_write()?;
            keys::validate_queue_name(queue)?;
            let own = self.ownership_of(&db, id)?.ok_or(Error::NoSuchObject(id))?;
            (own, !self.objects.contains_key(&id))
        };
        if own == Ownership::Owned {
            *self.ref_delta.entry(id).or_insert(0) += 1;
        }
        if committed {
            *self.enqueued_by_id.entry(id).or_insert(0) += 1;
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
                if let Some(n) = self.enqueued_by_id.get_mut(&id) {
                    *n -= 1;
                    if *n == 0 {
                        self.enqueued_by_id.remove(&id);
                    }
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
    ///
    /// Over a queue-owned object, the object stays queue-owned; if another commit deletes it
    /// (by consuming its last entry) before this one commits, the commit fails with
    /// `Error::NoSuchObject`.
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
        let (own, owned_committed) = {
            let db = self.check_write()?;
            check_payload_len(len)?;
            let own = self.ownership_of(&db, id)?;
            (own.unwrap_or(Ownership::Reference), own == Some(Ownership::Owned) && !self.objects.contains_key(&id))
        };
        let policy = self.store.options.compression;
        self.write_object(id, own, policy, len, fill)?;
        if owned_committed {
            self.owned_puts.insert(id);
        }
        Ok(())
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
        // Entries this transaction enqueued for it point at a deleted object, as committed ones
        // do: nothing here relies on it any more.
        self.enqueued_by_id.remove(&id);
        self.owned_puts.remove(&id);
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
    /// commit).
    ///
    /// Whatever the outcome, the transaction is over. If the commit fails, every entry it
    /// polled is back at the head of its queue in its original order, as after `rollback`:
    /// - refused before anything is written (`Error::NoSuchObject`: an object it enqueued by id,
    ///   or a queue-owned object it replaced with `put`, was deleted by a commit ordered before
    ///   it; or the store refuses writes): the store is exactly as before;
    /// - the write itself failed (an `IOError` such as a full disk): nothing of it is visible,
    ///   and the store refuses further writes until it is reopened, which shows whether the write
    ///   reached the disk after all.
    pub fn commit(&mut self) -> Result<()> {
        self.check_open()?;
        let store = self.store.clone();
        let prepared = store.writable_db().and_then(|db| {
            let ticket = self.prepare(&db)?;
            Ok((db, ticket))
        });
        let (db, ticket) = match prepared {
            Ok(p) => p,
            Err(e) => {
                self.rollback()?;
                self.finished = Some(FAILED_COMMIT);
                return Err(e);
            }
        };
        let written = store.group_commit.wait(&store, &db, ticket);
        drop(db);
        match written {
            Ok(()) => {
                self.claims.clear();
                self.finished = Some("committed");
                store.payload_bytes.fetch_add(self.payload_bytes, AtomicOrdering::Relaxed);
                store.stored_payload_bytes.fetch_add(self.stored_bytes, AtomicOrdering::Relaxed);
                Ok(())
            }
            Err(e) => {
                self.restore_claims();
                self.finished = Some(FAILED_COMMIT);
                Err(e)
            }
        }
    }

    /// Everything that can refuse the commit, then (once nothing can) sequence numbers reserved
    /// and the batch queued for writing; returns its ticket. Refusing leaves the store as it was.
    fn prepare(&mut self, db: &DbRef<'_>) -> Result<u64> {
        let store = self.store.clone();
        let mut serial = store.commit_lock.lock();
        self.check_relied_objects(db, &serial)?;
        let outcomes = self.decide_references(db, &serial)?;
        let mut tail = BatchRep::default();
        let appends = self.reserve_and_record(&mut tail, &outcomes);
        let mut batch = if self.objects_in_key_order { std::mem::take(&mut self.batch) } else { self.objects_sorted_by_id() };
        batch.append(&tail);
        let ticket = store.group_commit.submit(Prepared { batch, appends });
        self.mark_pending_objects(&mut serial, &outcomes, ticket);
        Ok(ticket)
    }

    /// `NoSuchObject` if an object this transaction found committed and relied on (enqueued by
    /// id, or replaced while queue-owned) is deleted in the store as it will be once the
    /// commits prepared before this one are written. Called under the commit lock, so no commit
    /// can delete it between this check and this commit's place in the order.
    fn check_relied_objects(&self, db: &DbRef<'_>, serial: &CommitState) -> Result<()> {
        let relied = self
            .enqueued_by_id
            .keys()
            // An object this transaction writes itself exists when its entries are written,
            // unless that write is a put relying on a queue-owned object (checked below).
            .filter(|id| !self.objects.contains_key(id))
            .chain(self.owned_puts.iter());
        let mut on_disk: Vec<&Uuid> = Vec::new();
        for id in relied {
            match serial.pending_objects.get(id).map(|(state, _)| *state) {
                Some(PendingObject::Deleted) => return Err(Error::NoSuchObject(*id)),
                Some(PendingObject::Count(_)) => {}
                None => on_disk.push(id),
            }
        }
        if on_disk.is_empty() {
            return Ok(());
        }
        let keys = on_disk.iter().map(|id| &id.as_bytes()[..]);
        for (id, found) in on_disk.iter().zip(db.db().batched_multi_get_cf(db.cf(CF_OBJECTS), keys, false)) {
            if found.context(|| format!("reading object {id}"))?.is_none() {
                return Err(Error::NoSuchObject(**id));
            }
        }
        Ok(())
    }

    /// New owning-entry count of every queue-owned object this transaction changed, as the
    /// store will be once the commits prepared before it are written. Objects it deletes are
    /// left out: their count goes with them.
    fn decide_references(&self, db: &DbRef<'_>, serial: &CommitState) -> Result<Vec<(Uuid, i64)>> {
        let mut outcomes = Vec::with_capacity(self.ref_delta.len());
        for (id, delta) in self.ref_delta.iter().filter(|(_, d)| **d != 0) {
            let own_write = match self.objects.get(id) {
                Some(ObjectWrite::Delete) => continue,
                Some(ObjectWrite::Put { .. }) => true,
                None => false,
            };
            let current = match serial.pending_objects.get(id).map(|(state, _)| *state) {
                Some(PendingObject::Count(n)) => n as i64,
                // Deleted by an earlier commit: only this transaction's own write (an object it
                // created) can be alive with entries (`check_relied_objects` refused the rest).
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
        self.enqueued_by_id.clear();
        self.owned_puts.clear();
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

    /// After a failed write: the entries this commit was to consume are still on disk (and
    /// were taken out of every later commit's view when it was prepared); they go back to the
    /// head of their queues, lowest first, as a rollback hands them back.
    fn restore_claims(&mut self) {
        if self.claims.is_empty() {
            return;
        }
        let mut queues = self.store.queues.lock();
        for c in self.claims.drain(..) {
            if let Some(q) = queues.states.get_mut(&c.queue) {
                q.restore(c.seq);
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

#[cfg(test)]
mod tests {
    use std::sync::atomic::Ordering;

    use crate::{Error, RocksStatus, Store, StoreOptions};

    fn open(dir: &std::path::Path) -> Store {
        Store::open(dir, StoreOptions { sync_on_commit: false, ..StoreOptions::default() }).unwrap()
    }

    fn numbers(messages: &[super::Message]) -> Vec<u32> {
        messages.iter().map(|m| u32::from_be_bytes(m.payload.as_deref().unwrap().try_into().unwrap())).collect()
    }

    #[test]
    fn a_failed_write_hands_back_what_the_commit_polled_and_later_writes_name_the_cause_once() {
        let dir = tempfile::tempdir().unwrap();
        let store = open(dir.path());
        let mut tx = store.begin().unwrap();
        for i in 0..10u32 {
            tx.enqueue("q", &i.to_be_bytes()).unwrap();
        }
        tx.commit().unwrap();
        let mut other = store.begin().unwrap();
        assert_eq!(numbers(&other.poll("q", 2).unwrap()), vec![0, 1]); // claimed elsewhere, stays so

        let mut tx = store.begin().unwrap();
        assert_eq!(numbers(&tx.poll("q", 3).unwrap()), vec![2, 3, 4]);
        tx.enqueue("out", b"new").unwrap();
        tx.put(uuid::Uuid::new_v4(), b"object").unwrap();
        store.shared.group_commit.fail_next_write.store(true, Ordering::SeqCst);
        let failed = tx.commit().unwrap_err();
        assert!(matches!(&failed, Error::Rocks { status: RocksStatus::IOError, .. }), "{failed}");
        assert!(failed.to_string().contains("No space left on device"), "{failed}");
        assert!(!tx.is_open());

        // Every polled item is back at the head, in order, behind nothing.
        let peeked = store.begin().unwrap().peek("q", 20).unwrap();
        assert_eq!(numbers(&peeked), vec![2, 3, 4, 5, 6, 7, 8, 9]);
        assert_eq!(store.queue_size("q").unwrap(), 10);
        assert_eq!(store.queue_size("out").unwrap(), 0);
        other.rollback().unwrap();
        assert_eq!(numbers(&store.begin().unwrap().peek("q", 20).unwrap()), (0..10).collect::<Vec<_>>());

        // The next write is refused with the cause's status, said once.
        let mut next = store.begin().unwrap();
        let refused = next.enqueue("q", b"more").unwrap_err();
        assert!(matches!(&refused, Error::Rocks { status: RocksStatus::IOError, .. }), "{refused}");
        let message = refused.to_string();
        assert_eq!(message.matches("IOError").count(), 1, "{message}");
        assert_eq!(message.matches("No space left on device").count(), 1, "{message}");
        assert!(message.contains("reopen"), "{message}");
        // A commit refused by the failed store also hands back what it polled.
        let mut poller = store.begin().unwrap();
        assert!(matches!(poller.commit(), Err(Error::Rocks { status: RocksStatus::IOError, .. })));
        assert!(!poller.is_open());

        store.close().unwrap();
        let store = open(dir.path());
        let mut tx = store.begin().unwrap();
        assert_eq!(numbers(&tx.poll("q", 20).unwrap()), (0..10).collect::<Vec<_>>(), "every committed item, in order");
        assert_eq!(store.queue_size("out").unwrap(), 0);
        tx.commit().unwrap();
    }

    #[test]
    fn every_commit_of_a_failed_group_write_fails_with_its_cause_and_hands_back_its_polls() {
        let dir = tempfile::tempdir().unwrap();
        let store = open(dir.path());
        let mut tx = store.begin().unwrap();
        for i in 0..4u32 {
            tx.enqueue("q", &i.to_be_bytes()).unwrap();
        }
        tx.commit().unwrap();
        // Two commits prepared before either is written: one group write carries both.
        let mut first = store.begin().unwrap();
        first.poll("q", 1).unwrap();
        let mut second = store.begin().unwrap();
        second.poll("q", 2).unwrap();
        let db = store.shared.writable_db().unwrap();
        let t1 = first.prepare(&db).unwrap();
        let t2 = second.prepare(&db).unwrap();
        store.shared.group_commit.fail_next_write.store(true, Ordering::SeqCst);
        assert!(store.shared.group_commit.wait(&store.shared, &db, t1).is_err());
        let e = store.shared.group_commit.wait(&store.shared, &db, t2).unwrap_err();
        assert!(e.to_string().contains("No space left on device"), "the first failure's cause: {e}");
        drop(db);
        first.restore_claims();
        second.restore_claims();
        assert_eq!(numbers(&store.begin().unwrap().peek("q", 10).unwrap()), vec![0, 1, 2, 3]);
    }
}
