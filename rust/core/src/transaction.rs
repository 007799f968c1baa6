//! A transaction: polls claim entries, enqueues and object writes are buffered; `commit` writes
//! everything as one RocksDB write batch, `rollback` (or drop) hands claimed entries back.
//!
//! Object lifetime rule: an object created by `enqueue(queue, bytes)` is queue-owned and is
//! deleted when the last owned entry pointing at it is consumed (enqueueing it by id into
//! another queue adds an owned entry). An object created by `put` lives until `delete`;
//! entries pointing at it are references. `put` over a queue-owned object replaces its payload
//! and keeps it queue-owned.

use std::collections::{BTreeSet, HashMap, VecDeque};
use std::sync::Arc;
use std::time::{Duration, Instant};

use rocksdb::{WriteBatch, WriteOptions};
use uuid::Uuid;

use crate::error::{Error, Result, RocksContext};
use crate::keys::{self, Ownership, QueueId, CF_ENTRIES, CF_META, CF_OBJECTS, CF_REFS};
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

#[derive(Debug)]
enum ObjectWrite {
    /// Encoded object value (flag byte + payload).
    Put(Vec<u8>),
    Delete,
}

/// Object writes in the order they were made (new ids are time-ordered, so this is also key
/// order for the common case), with an index for read-your-own-writes.
#[derive(Default)]
struct ObjectWrites {
    writes: Vec<(Uuid, ObjectWrite)>,
    index: HashMap<Uuid, usize>,
}

impl ObjectWrites {
    fn set(&mut self, id: Uuid, w: ObjectWrite) {
        match self.index.get(&id) {
            Some(&i) => self.writes[i].1 = w,
            None => {
                self.index.insert(id, self.writes.len());
                self.writes.push((id, w));
            }
        }
    }
    fn get(&self, id: &Uuid) -> Option<&ObjectWrite> {
        self.index.get(id).map(|&i| &self.writes[i].1)
    }
}

pub struct Transaction {
    store: Arc<Shared>,
    finished: Option<&'static str>,
    claims: Vec<Claim>,
    /// This transaction's own enqueues, per queue, in order.
    enqueued: HashMap<String, VecDeque<(Uuid, Ownership)>>,
    objects: ObjectWrites,
    /// Change in the number of owned entries pointing at each queue-owned object.
    ref_delta: HashMap<Uuid, i64>,
}

impl Transaction {
    pub(crate) fn new(store: Arc<Shared>) -> Self {
        Transaction {
            store,
            finished: None,
            claims: Vec::new(),
            enqueued: HashMap::new(),
            objects: ObjectWrites::default(),
            ref_delta: HashMap::new(),
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
        let db = self.store.db()?;
        self.store.check_writable()?;
        Ok(db)
    }

    /// New queue-owned object with `payload`, and an entry for it at the tail of `queue`.
    pub fn enqueue(&mut self, queue: &str, payload: &[u8]) -> Result<Uuid> {
        self.check_write()?;
        keys::validate_queue_name(queue)?;
        check_payload(payload)?;
        let id = Uuid::now_v7();
        self.objects.set(id, ObjectWrite::Put(keys::object_value(Ownership::Owned, payload)));
        self.push_entry(queue, id, Ownership::Owned);
        Ok(id)
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
        self.push_entry(queue, id, own);
        Ok(())
    }

    fn push_entry(&mut self, queue: &str, id: Uuid, own: Ownership) {
        match self.enqueued.get_mut(queue) {
            Some(q) => q.push_back((id, own)),
            None => {
                self.enqueued.insert(queue.to_string(), VecDeque::from([(id, own)]));
            }
        }
    }

    /// Remove up to `max` items from the head of `queue`: committed entries first (FIFO), then
    /// this transaction's own enqueues. Others never receive them unless this rolls back.
    pub fn poll(&mut self, queue: &str, max: usize) -> Result<Vec<Message>> {
        self.check_open()?;
        let store = self.store.clone();
        let db = store.db()?;
        store.check_writable()?;
        keys::validate_queue_name(queue)?;
        check_batch(max)?;
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
            let entries = match read_entries(&db, qid, &seqs) {
                Ok(e) => e,
                Err(e) => {
                    let mut queues = self.store.queues.lock();
                    if let Some(q) = queues.states.get_mut(&qid) {
                        seqs.iter().for_each(|&s| q.give_back(s));
                    }
                    self.store.arrivals.notify_all();
                    return Err(e);
                }
            };
            let mut ids = Vec::with_capacity(entries.len());
            for (seq, entry) in seqs.iter().zip(entries) {
                let (id, own) = entry.ok_or_else(|| Error::Corrupt(format!("queue '{queue}' entry {seq} is missing")))?;
                self.claims.push(Claim { queue: qid, seq: *seq });
                if own == Ownership::Owned {
                    *self.ref_delta.entry(id).or_insert(0) -= 1;
                }
                ids.push(id);
            }
            let payloads = self.read_payloads(&db, &ids)?;
            out.extend(ids.into_iter().zip(payloads).map(|(id, payload)| Message { id, payload }));
        }
        if out.len() < max {
            if let Some(own_items) = self.enqueued.get_mut(queue) {
                let n = (max - out.len()).min(own_items.len());
                let taken: Vec<(Uuid, Ownership)> = own_items.drain(..n).collect();
                for (id, own) in taken {
                    if own == Ownership::Owned {
                        *self.ref_delta.entry(id).or_insert(0) -= 1;
                    }
                    let payload = self.payload_of(&db, id)?;
                    out.push(Message { id, payload });
                }
            }
        }
        Ok(out)
    }

    /// The first `max` items `poll` would return, without removing them.
    pub fn peek(&self, queue: &str, max: usize) -> Result<Vec<Message>> {
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
        let own = {
            let db = self.check_write()?;
            check_payload(payload)?;
            self.ownership_of(&db, id)?.unwrap_or(Ownership::Reference)
        };
        self.objects.set(id, ObjectWrite::Put(keys::object_value(own, payload)));
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
        self.objects.set(id, ObjectWrite::Delete);
        self.ref_delta.remove(&id);
        Ok(existed)
    }

    fn ownership_of(&self, db: &DbRef<'_>, id: Uuid) -> Result<Option<Ownership>> {
        match self.objects.get(&id) {
            Some(ObjectWrite::Put(v)) => Ok(Some(keys::decode_object_value(v)?.0)),
            Some(ObjectWrite::Delete) => Ok(None),
            None => {
                let v = db.db().get_pinned_cf(db.cf(CF_OBJECTS), id.as_bytes()).context(|| format!("reading object {id}"))?;
                v.map(|v| keys::decode_object_value(&v).map(|(own, _)| own)).transpose()
            }
        }
    }

    fn payload_of(&self, db: &DbRef<'_>, id: Uuid) -> Result<Option<Vec<u8>>> {
        match self.objects.get(&id) {
            Some(ObjectWrite::Put(v)) => Ok(Some(keys::decode_object_value(v)?.1.to_vec())),
            Some(ObjectWrite::Delete) => Ok(None),
            None => {
                let v = db.db().get_pinned_cf(db.cf(CF_OBJECTS), id.as_bytes()).context(|| format!("reading object {id}"))?;
                v.map(|v| keys::decode_object_value(&v).map(|(_, p)| p.to_vec())).transpose()
            }
        }
    }

    /// Payloads of `ids` in order: own writes first, the rest in one batched read.
    fn read_payloads(&self, db: &DbRef<'_>, ids: &[Uuid]) -> Result<Vec<Option<Vec<u8>>>> {
        let missing: Vec<&[u8]> = ids.iter().filter(|id| self.objects.get(id).is_none()).map(|id| &id.as_bytes()[..]).collect();
        let mut fetched = db.db().batched_multi_get_cf(db.cf(CF_OBJECTS), missing, false).into_iter();
        ids.iter()
            .map(|id| match self.objects.get(id) {
                Some(ObjectWrite::Put(v)) => Ok(Some(keys::decode_object_value(v)?.1.to_vec())),
                Some(ObjectWrite::Delete) => Ok(None),
                None => {
                    let v = fetched.next().expect("one result per key").context(|| format!("reading object {id}"))?;
                    v.map(|v| keys::decode_object_value(&v).map(|(_, p)| p.to_vec())).transpose()
                }
            })
            .collect()
    }

    /// Make everything durable at once (synced when the store says so), then publish the new
    /// entries to consumers. On error nothing was written and the transaction stays open.
    pub fn commit(&mut self) -> Result<()> {
        self.check_open()?;
        let store = self.store.clone();
        let db = store.db()?;
        store.check_writable()?;
        let _serial = store.commit_lock.lock();
        let mut batch = WriteBatch::default();

        // New entries: sequence numbers come from each queue's tail, in commit order.
        let mut queue_names: Vec<&String> = self.enqueued.keys().filter(|q| !self.enqueued[*q].is_empty()).collect();
        queue_names.sort();
        let mut appends: Vec<(QueueId, u64, Option<String>)> = Vec::with_capacity(queue_names.len());
        let mut consuming: HashMap<QueueId, BTreeSet<u64>> = HashMap::new();
        for c in &self.claims {
            consuming.entry(c.queue).or_default().insert(c.seq);
        }
        let mut layouts = Vec::with_capacity(consuming.len());
        {
            let queues = store.queues.lock();
            let mut next_id = queues.next_id;
            for name in queue_names {
                let items = &self.enqueued[name];
                let (qid, tail, created) = match queues.get(name) {
                    Some(q) => (q.id, q.tail(), None),
                    None => {
                        let id = next_id;
                        next_id = next_id.checked_add(1).ok_or_else(|| Error::InvalidArgument("too many queues".into()))?;
                        batch.put_cf(db.cf(CF_META), keys::meta_queue_key(name), id.to_le_bytes());
                        (id, 0, Some(name.clone()))
                    }
                };
                for (i, (id, own)) in items.iter().enumerate() {
                    batch.put_cf(db.cf(CF_ENTRIES), keys::entry_key(qid, tail + i as u64), keys::entry_value(*id, *own));
                }
                appends.push((qid, items.len() as u64, created));
            }
            for (qid, seqs) in &consuming {
                if let Some(q) = queues.states.get(qid) {
                    layouts.push((*qid, q.layout_after(seqs)));
                }
            }
        }
        for c in &self.claims {
            // Entries are written exactly once, which is what SingleDelete requires.
            batch.single_delete_cf(db.cf(CF_ENTRIES), keys::entry_key(c.queue, c.seq));
        }
        for (id, w) in &self.objects.writes {
            match w {
                ObjectWrite::Put(v) => batch.put_cf(db.cf(CF_OBJECTS), id.as_bytes(), v),
                ObjectWrite::Delete => {
                    batch.delete_cf(db.cf(CF_OBJECTS), id.as_bytes());
                    batch.delete_cf(db.cf(CF_REFS), id.as_bytes());
                }
            }
        }
        self.apply_ref_changes(&db, &mut batch)?;
        for (qid, layout) in &layouts {
            batch.put_cf(db.cf(CF_META), keys::meta_head_key(*qid), layout.encode());
        }

        let mut wo = WriteOptions::default();
        wo.set_sync(store.options.sync_on_commit);
        db.db().write_opt(batch, &wo).context(|| format!("committing to {}", store.path.display()))?;

        let mut queues = store.queues.lock();
        for (qid, n, created) in appends {
            if let Some(name) = created {
                queues.by_name.insert(name, qid);
                queues.states.insert(qid, QueueState::new(qid, 0, 0));
                queues.next_id = queues.next_id.max(qid + 1);
            }
            queues.states.get_mut(&qid).expect("queue registered").appended(n);
        }
        for c in &self.claims {
            if let Some(q) = queues.states.get_mut(&c.queue) {
                q.consumed(c.seq);
            }
        }
        store.arrivals.notify_all();
        drop(queues);
        self.claims.clear();
        self.finished = Some("committed");
        Ok(())
    }

    /// Reference counts live in CF_REFS only while above one; an owned object whose count drops
    /// to zero is deleted. Read under the commit lock, so no other commit changes them meanwhile.
    fn apply_ref_changes(&self, db: &DbRef<'_>, batch: &mut WriteBatch) -> Result<()> {
        for (id, delta) in self.ref_delta.iter().filter(|(_, d)| **d != 0) {
            if *delta > 0 && self.objects.get(id).is_none() {
                // Entries were added for an object read before this commit: another commit may
                // have consumed its last entry (deleting it) since. Refuse rather than point at
                // nothing.
                let exists = db.db().get_pinned_cf(db.cf(CF_OBJECTS), id.as_bytes()).context(|| format!("reading object {id}"))?.is_some();
                if !exists {
                    return Err(Error::NoSuchObject(*id));
                }
            }
            let current = match db.db().get_pinned_cf(db.cf(CF_REFS), id.as_bytes()).context(|| format!("reading references of {id}"))? {
                Some(v) => keys::decode_u64(&v, "reference count")? as i64,
                None => 1,
            };
            match current + delta {
                n if n <= 0 => {
                    batch.delete_cf(db.cf(CF_OBJECTS), id.as_bytes());
                    batch.delete_cf(db.cf(CF_REFS), id.as_bytes());
                }
                1 => batch.delete_cf(db.cf(CF_REFS), id.as_bytes()),
                n => batch.put_cf(db.cf(CF_REFS), id.as_bytes(), (n as u64).to_le_bytes()),
            }
        }
        Ok(())
    }

    /// Undo everything: claimed entries go back to the head of their queues in order.
    /// Idempotent; also what dropping an open transaction does.
    pub fn rollback(&mut self) -> Result<()> {
        if self.finished.is_some() {
            return Ok(());
        }
        self.release_claims();
        self.enqueued.clear();
        self.objects = ObjectWrites::default();
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

fn check_payload(payload: &[u8]) -> Result<()> {
    if payload.len() > MAX_PAYLOAD_BYTES {
        return Err(Error::InvalidArgument(format!(
            "payload of {} bytes exceeds the limit of {MAX_PAYLOAD_BYTES} bytes",
            payload.len()
        )));
    }
    Ok(())
}

fn check_batch(max: usize) -> Result<()> {
    if max == 0 || max > MAX_BATCH_ITEMS {
        return Err(Error::InvalidArgument(format!("item count {max} is outside 1..={MAX_BATCH_ITEMS}")));
    }
    Ok(())
}
