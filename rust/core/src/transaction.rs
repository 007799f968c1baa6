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

use std::sync::Arc;
use std::time::{Duration, Instant};

use uuid::Uuid;

use crate::buffered::{delete_object, Buffered, Claim, ObjectWrite};
use crate::commit;
use crate::dead_letter::{self, Doomed};
use crate::compress::{Compression, Policy};
use crate::error::{Error, Result, RocksContext};
use crate::entry_records;
use crate::keys::{self, Entry, Ownership, QueueId};
use crate::options::{MAX_BATCH_ITEMS, MAX_PAYLOAD_BYTES};
use crate::queue::QueueState;
use crate::shared::{DbRef, Shared};

/// One item delivered by `poll`, `peek` or `take`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Message {
    pub id: Uuid,
    /// `None` when the entry points at an object that was deleted with `delete`.
    pub payload: Option<Vec<u8>>,
    /// The entry's position in its queue: assigned at commit, increasing in enqueue order and
    /// never reused while the queue exists (a dropped queue created again starts over). `None`
    /// for an item this transaction enqueued itself (it has no position before the commit).
    pub sequence: Option<u64>,
    /// Which delivery of the entry this is: 1 the first time, one more each time it came back
    /// unconsumed (see `Transaction::rollback_because`). For `peek`, the count a poll would
    /// give now. After the process ends with an entry claimed, the count survives only for
    /// queues with a delivery limit (their claims are recorded on disk).
    pub deliveries: u32,
}

/// The reasons dead letters record when the caller gave none.
const ROLLED_BACK: &str = "rolled back";
const DROPPED_OPEN: &str = "transaction closed without commit or rollback";

/// How a transaction whose commit failed reports itself finished.
const FAILED_COMMIT: &str = "ended by a failed commit";

pub struct Transaction {
    pub(crate) store: Arc<Shared>,
    finished: Option<&'static str>,
    pub(crate) buf: Buffered,
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
            buf: Buffered::default(),
            payload_bytes: 0,
            stored_bytes: 0,
        }
    }

    pub(crate) fn check_open(&self) -> Result<()> {
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
    /// entry for it at the tail of `queue`; or, for a payload up to
    /// `StoreOptions::inline_payload_bytes`, an entry holding the payload and no object.
    pub fn enqueue(&mut self, queue: &str, payload: &[u8]) -> Result<Uuid> {
        let id = Uuid::now_v7();
        self.enqueue_new(queue, id, payload)?;
        Ok(id)
    }

    /// `enqueue` under an id the caller generated. The id must be fresh: a UUIDv7 from
    /// RockCask's own generator (the Java API creates ids without a native call so that
    /// enqueues can cross JNI in chunks). An existing object with that id would be replaced,
    /// and an object cache holding it would go on answering `get` with the replaced payload
    /// (such writes are not marked, `Buffered::cacheable_objects_written`).
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
        let policy = self.store.options().policy_for_queue(queue);
        let entry = if len <= self.store.options().inline_payload_bytes {
            // Kept in the entry (written at commit): no object, no index entry, no object cache mark.
            let mut payload = vec![0u8; len];
            fill(&mut payload)?;
            let (codec, stored) = policy.compress_owned(payload);
            self.payload_bytes += len as u64;
            self.stored_bytes += stored.len() as u64;
            Entry::inline(id, codec, stored)
        } else {
            let stored = self.write_object(id, Ownership::Owned, policy, len, fill)?;
            Entry { id, own: Ownership::Owned, bytes: Some(stored), inline: None }
        };
        self.buf.enqueued.push(queue, entry);
        Ok(())
    }

    fn write_object<E: From<Error>>(
        &mut self,
        id: Uuid,
        own: Ownership,
        policy: Policy,
        len: usize,
        fill: impl FnOnce(&mut [u8]) -> std::result::Result<(), E>,
    ) -> std::result::Result<u32, E> {
        let cf = self.store.cf_ids().objects;
        let (at, stored) = if policy.codec == Compression::None || len < policy.threshold {
            // Raw: written straight into the batch, no copy.
            let at = self.buf.batch.put_with(cf, id.as_bytes(), len + 1, |buf| {
                buf[0] = keys::object_flag(own, Compression::None);
                fill(&mut buf[1..])
            })?;
            (at, len + 1)
        } else {
            let mut payload = vec![0u8; len];
            fill(&mut payload)?;
            let (codec, body) = policy.compress(&payload);
            let at = self.buf.batch.put_with(cf, id.as_bytes(), body.len() + 1, |buf| {
                buf[0] = keys::object_flag(own, codec);
                buf[1..].copy_from_slice(&body);
                Ok::<(), Error>(())
            })?;
            (at, body.len() + 1)
        };
        self.payload_bytes += len as u64;
        self.stored_bytes += (stored - 1) as u64;
        self.buf.note_object_write(id, ObjectWrite::Put { at, len: stored });
        // Payloads are at most MAX_PAYLOAD_BYTES (1 GiB), so the stored size fits.
        Ok((stored - 1) as u32)
    }

    /// An entry for the existing object `id` at the tail of `queue` (no copy of the payload).
    ///
    /// `Error::NoSuchObject` now if there is no such object, or at commit if another commit
    /// deletes it before this one commits (unless this transaction writes it itself).
    pub fn enqueue_id(&mut self, queue: &str, id: Uuid) -> Result<()> {
        let (own, bytes, committed) = {
            let db = self.check_write()?;
            keys::validate_queue_name(queue)?;
            let (own, bytes) = self.buf.stored_object_of(&db, None, id)?.ok_or(Error::NoSuchObject(id))?;
            (own, bytes, !self.buf.objects.contains_key(&id))
        };
        if own == Ownership::Owned {
            *self.buf.ref_delta.entry(id).or_insert(0) += 1;
        }
        if committed {
            *self.buf.enqueued_by_id.entry(id).or_insert(0) += 1;
        }
        self.buf.enqueued.push(queue, Entry { id, own, bytes: Some(bytes), inline: None });
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
        let read = self.claim_and_read(&db, queue, max, max_payload_bytes);
        self.or_roll_back(read)
    }

    /// `result`, or, when it failed, the failure after rolling the whole transaction back: entries
    /// this transaction claimed must never be consumed by a later commit without being delivered.
    pub(crate) fn or_roll_back<T>(&mut self, result: Result<T>) -> Result<T> {
        result.or_else(|e| {
            self.rollback()?;
            Err(Error::RolledBack(Box::new(e)))
        })
    }

    /// Claims up to `max` committed entries of `queue` that no other transaction holds, in
    /// delivery order, and reads what each points at; `None` when there were none. Claimed before
    /// they are read, so that a failure (the caller rolls back) gives every one of them back.
    fn claim_entries(&mut self, db: &DbRef<'_>, queue: &str, max: usize) -> Result<Option<Claimed>> {
        let mut seqs = Vec::new();
        let mut queues = self.store.queues();
        let claimed = queues.claim(queue, max, &mut seqs).map(|(q, kept)| {
            let failed: Vec<u32> = seqs.iter().map(|&seq| q.failed_deliveries(seq)).collect();
            (q.id, kept, failed, q.max_deliveries > 0, q.counts_bytes())
        });
        if let Some((qid, ..)) = &claimed {
            queues.metrics.count_claimed(*qid, seqs.len() as u64);
        }
        drop(queues);
        let Some((qid, kept, failed, tracked, counts_bytes)) = claimed.filter(|_| !seqs.is_empty()) else { return Ok(None) };
        if self.buf.owners_read_below.is_none() {
            // Before any of their objects is read.
            self.buf.owners_read_below = Some(self.store.group_commit().written_below());
        }
        let first = self.buf.claims.len();
        self.buf.claims.extend(seqs.iter().map(|&seq| Claim::new(qid, seq)));
        let entries = with_unkept_read(&self.store, db, qid, &seqs, kept)?
            .into_iter()
            .zip(&seqs)
            .map(|(entry, seq)| entry.ok_or_else(|| Error::Corrupt(format!("queue '{queue}' entry {seq} is missing"))))
            .collect::<Result<Vec<_>>>()?;
        if counts_bytes {
            for (c, bytes) in self.buf.claims[first..].iter_mut().zip(crate::buffered::counted_bytes(db, &entries)?) {
                c.bytes = bytes;
            }
        }
        Ok(Some(Claimed { queue: qid, seqs, entries, failed, tracked }))
    }

    /// The last `n` claims are delivered now: each becomes its entry's next delivery, recorded
    /// on disk first when the queue has a delivery limit, in one delivery record for them all
    /// (`deliveries.rs`), written to the write-ahead log without a sync.
    fn deliver_last_claims(&mut self, db: &DbRef<'_>, claimed: &Claimed, n: usize) -> Result<()> {
        let record = if claimed.tracked && n > 0 { Some(self.record_deliveries(db, claimed, n)?) } else { None };
        let from = self.buf.claims.len() - n;
        for (c, &failed) in self.buf.claims[from..].iter_mut().zip(&claimed.failed) {
            c.deliveries = failed + 1;
            c.record = record;
        }
        Ok(())
    }

    /// Writes the delivery record of the first `n` entries of `claimed` (deleting the records
    /// this supersedes, once they count nothing); returns its number.
    fn record_deliveries(&self, db: &DbRef<'_>, claimed: &Claimed, n: usize) -> Result<u64> {
        let delivered = claimed.seqs.iter().copied().zip(claimed.failed.iter().map(|f| f + 1)).take(n);
        let mut batch = rocksdb::WriteBatch::default();
        let record = {
            let mut queues = self.store.queues();
            let record = queues.next_delivery_record;
            queues.next_delivery_record += 1;
            if let Some(q) = queues.states.get_mut(&claimed.queue) {
                for &seq in &claimed.seqs[..n] {
                    if let Some(superseded) = q.detach_record(seq) {
                        batch.delete_cf(db.cf(keys::CF_META), keys::meta_deliveries_key(claimed.queue, superseded));
                    }
                }
                q.attach_record(record, n as u32);
            }
            record
        };
        batch.put_cf(db.cf(keys::CF_META), keys::meta_deliveries_key(claimed.queue, record), crate::deliveries::encode(delivered));
        let mut wo = rocksdb::WriteOptions::default();
        wo.set_sync(false);
        db.db().write_opt(batch, &wo).context(|| "recording deliveries".to_string())?;
        Ok(record)
    }

    fn claim_and_read(&mut self, db: &DbRef<'_>, queue: &str, max: usize, max_payload_bytes: usize) -> Result<Vec<Message>> {
        let mut out = Vec::new();
        if let Some(claimed) = self.claim_entries(db, queue, max)? {
            let ids: Vec<Uuid> = claimed.entries.iter().map(|e| e.id).collect();
            let objects = self.buf.read_entry_payloads(db, &claimed.entries)?;
            let kept = within_budget(objects.iter().map(|o| o.as_ref().map_or(0, |(_, p)| p.len())), max_payload_bytes, 0);
            // The claims past the budget go back, to be the head of the next poll.
            self.hand_back_claims(self.buf.claims.len() - (claimed.seqs.len() - kept), |q, c| q.give_back(c.seq));
            self.deliver_last_claims(db, &claimed, kept)?;
            for (e, object) in claimed.entries[..kept].iter().zip(&objects) {
                if e.owns_an_object() {
                    self.buf.consume_owned(e.id, Some(matches!(object, Some((Ownership::Owned, _)))));
                }
            }
            let payloads = objects.into_iter().map(|o| o.map(|(_, p)| p));
            let delivered = ids.into_iter().zip(payloads).zip(claimed.seqs.iter().zip(&claimed.failed)).take(kept);
            out.extend(delivered.map(|((id, payload), (&seq, &failed))| Message { id, payload, sequence: Some(seq), deliveries: failed + 1 }));
            if kept < claimed.seqs.len() {
                return Ok(out);
            }
        }
        if out.len() < max {
            let used: usize = out.iter().map(|m| m.payload.as_ref().map_or(0, Vec::len)).sum();
            let available = self.buf.enqueued.get(queue).map_or(0, |items| items.len());
            let n = (max - out.len()).min(available);
            let mut taken = Vec::with_capacity(n);
            for i in 0..n {
                let e = &self.buf.enqueued.get(queue).expect("counted above")[i];
                taken.push((e.id, self.buf.own_entry_payload(db, e)?));
            }
            let kept = within_budget(taken.iter().map(|(_, p)| p.as_ref().map_or(0, Vec::len)), max_payload_bytes.saturating_sub(used), out.len());
            let own_items = self.buf.take_back_own_enqueues(queue, kept);
            for (e, (_, payload)) in own_items.into_iter().zip(taken) {
                out.push(Message { id: e.id, payload, sequence: None, deliveries: 1 });
            }
        }
        Ok(out)
    }

    /// Remove every entry of `queue`: claims each one no other transaction holds (as a poll of
    /// all of them would, without reading payloads) and takes back this transaction's own
    /// enqueues to it. The commit deletes them (a queue-owned object goes with its last entry)
    /// and, if nothing is left in the queue then (no entry committed since, none held by another
    /// transaction), forgets its name: `queue_names` no longer lists it and a later enqueue
    /// creates it anew, numbering from 0. Returns how many entries it removes.
    ///
    /// If reading the claimed entries fails, the whole transaction rolls back, as with `poll`.
    pub fn drop_queue(&mut self, queue: &str) -> Result<u64> {
        let entries = self.claim_everything(queue)?;
        for e in entries.iter().filter(|e| e.owns_an_object()) {
            self.buf.consume_owned(e.id, None);
        }
        let own = self.buf.enqueued.get(queue).map_or(0, |items| items.len());
        self.buf.take_back_own_enqueues(queue, own);
        self.buf.dropped_queues.insert(queue.to_string());
        Ok((entries.len() + own) as u64)
    }

    /// Move every entry of `from` to the tail of `to`, in order: claims each one no other
    /// transaction holds and enqueues the same object in `to` (no payload is read or copied; a
    /// queue-owned object stays queue-owned, now by its entry in `to`), this transaction's own
    /// enqueues to `from` included. The commit then forgets `from` as `drop_queue` does.
    /// Returns how many entries it moves.
    pub fn move_queue(&mut self, from: &str, to: &str) -> Result<u64> {
        keys::validate_queue_name(to)?;
        if from == to {
            return Err(Error::InvalidArgument(format!("queue '{from}' cannot be moved into itself")));
        }
        let mut moved = self.claim_everything(from)?;
        let own = self.buf.enqueued.get(from).map_or(0, |items| items.len());
        moved.extend(self.buf.enqueued.get_mut(from).map(|items| items.drain(..own).collect::<Vec<_>>()).unwrap_or_default());
        let n = moved.len() as u64;
        // An inline entry moves with its payload.
        for item in moved {
            self.buf.enqueued.push(to, item);
        }
        self.buf.dropped_queues.insert(from.to_string());
        Ok(n)
    }

    /// Claims every committed entry of `queue` that no other transaction holds, in delivery
    /// order, and returns what each points at. A failure rolls the transaction back.
    fn claim_everything(&mut self, queue: &str) -> Result<Vec<Entry>> {
        self.check_open()?;
        let store = self.store.clone();
        let db = store.writable_db()?;
        keys::validate_queue_name(queue)?;
        let claimed = self.claim_entries(&db, queue, usize::MAX);
        Ok(self.or_roll_back(claimed)?.map_or_else(Vec::new, |c| c.entries))
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
        let mut failed = Vec::new();
        let queue_id = {
            let queues = self.store.queues();
            queues.get(queue).map(|q| {
                q.peek(max, &mut seqs);
                failed.extend(seqs.iter().map(|&seq| q.failed_deliveries(seq)));
                q.id
            })
        };
        let mut out = Vec::with_capacity(seqs.len());
        if let Some(qid) = queue_id.filter(|_| !seqs.is_empty()) {
            // An entry may be consumed by another commit between the peek and this read: it is
            // left out (its block may still hold it, so that is asked of the queue after the read).
            let read = entry_records::read_entries(&db, qid, &seqs)?.entries;
            let still: Vec<bool> = {
                let queues = self.store.queues();
                let q = queues.states.get(&qid);
                seqs.iter().map(|&seq| q.is_some_and(|q| q.is_present(seq))).collect()
            };
            let (present, entries): (Vec<(u64, u32)>, Vec<Entry>) = seqs
                .iter()
                .zip(failed)
                .zip(read)
                .zip(still)
                .filter_map(|(((&seq, failed), entry), still)| entry.filter(|_| still).map(|e| ((seq, failed), e)))
                .unzip();
            let payloads = self.buf.entry_payloads(&db, &entries)?;
            out.extend(
                entries.iter().zip(payloads).zip(present).map(|((e, payload), (seq, failed))| Message { id: e.id, payload, sequence: Some(seq), deliveries: failed + 1 }),
            );
        }
        if let Some(own_items) = self.buf.enqueued.get(queue) {
            for e in own_items.iter().take(max - out.len()) {
                out.push(Message { id: e.id, payload: self.buf.own_entry_payload(&db, e)?, sequence: None, deliveries: 1 });
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
            let mut queues = self.store.queues();
            loop {
                if self.store.is_closed() {
                    return Err(Error::Closed("store"));
                }
                let (available, next_due) = queues.get(queue).map_or((false, None), |q| (q.available() > 0, q.next_due()));
                if available {
                    break;
                }
                // A delayed entry becoming due arrives without anyone committing.
                let until = next_due.map_or(deadline, |due| due.min(deadline));
                if !self.store.wait_for_arrivals(&mut queues, until) && until == deadline {
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
            let own = self.buf.ownership_of(&db, None, id)?;
            (own.unwrap_or(Ownership::Reference), own == Some(Ownership::Owned) && !self.buf.objects.contains_key(&id))
        };
        let policy = self.store.options().compression;
        self.write_object(id, own, policy, len, fill)?;
        if owned_committed {
            self.buf.owned_puts.insert(id);
        }
        Ok(())
    }

    /// The payload of object `id`, including this transaction's own writes.
    pub fn get(&self, id: Uuid) -> Result<Option<Vec<u8>>> {
        self.check_open()?;
        let db = self.store.db()?;
        self.buf.payload_of(&db, Some(self.store.object_cache()), id)
    }

    /// The payloads of objects `ids`, in order (`None` where there is none), as `get` of each
    /// would return them, with the stored ones read in one batched lookup (RocksDB's
    /// `MultiGet`). At most `MAX_BATCH_ITEMS` ids per call.
    pub fn get_many(&self, ids: &[Uuid]) -> Result<Vec<Option<Vec<u8>>>> {
        self.check_open()?;
        if ids.len() > MAX_BATCH_ITEMS {
            return Err(Error::InvalidArgument(format!("{} ids are more than the {MAX_BATCH_ITEMS} one call reads", ids.len())));
        }
        let db = self.store.db()?;
        self.buf.read_payloads(&db, Some(self.store.object_cache()), ids)
    }

    /// Delete object `id`. Entries still pointing at it are delivered with no payload.
    /// Returns whether the object existed.
    pub fn delete(&mut self, id: Uuid) -> Result<bool> {
        let existed = {
            let db = self.check_write()?;
            self.buf.ownership_of(&db, None, id)?.is_some()
        };
        delete_object(&mut self.buf.batch, self.store.cf_ids(), &id);
        self.buf.note_object_write(id, ObjectWrite::Delete);
        self.buf.deleted.insert(id);
        self.buf.ref_delta.remove(&id);
        // Entries this transaction enqueued for it point at a deleted object, as committed ones
        // do: nothing here relies on it any more.
        self.buf.enqueued_by_id.remove(&id);
        self.buf.owned_puts.remove(&id);
        Ok(existed)
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
    ///
    /// One refusal leaves the transaction open with everything it did: `Error::QueueFull`, when
    /// the commit would put a queue over its capacity (see `commit_waiting`).
    pub fn commit(&mut self) -> Result<()> {
        self.commit_waiting(Duration::ZERO)
    }

    /// `commit` that, when a queue it enqueues to is at capacity, waits up to `wait` for
    /// consumers to make room (a commit consuming from it) and tries again; `Error::QueueFull`
    /// once `wait` has passed, with the transaction still open.
    pub fn commit_waiting(&mut self, wait: Duration) -> Result<()> {
        self.check_open()?;
        let deadline = Instant::now().checked_add(wait).ok_or_else(|| Error::InvalidArgument("wait is too long".into()))?;
        let store = self.store.clone();
        let started = store.metrics().start();
        let (db, ticket) = loop {
            let prepared = store.writable_db().and_then(|db| {
                let ticket = self.prepare(&db)?;
                Ok((db, ticket))
            });
            match prepared {
                Ok(p) => break p,
                Err(Error::QueueFull { .. }) if Instant::now() < deadline && self.buf.wait_for_room(&store, deadline)? => continue,
                Err(e @ Error::QueueFull { .. }) => return Err(e),
                Err(e) => {
                    self.rollback_because(&format!("commit refused: {e}"), None)?;
                    self.finished = Some(FAILED_COMMIT);
                    return Err(e);
                }
            }
        };
        let written = commit::wait_written(&store, &db, ticket);
        drop(db);
        match written {
            Ok(()) => {
                self.buf.claims.clear();
                self.finished = Some("committed");
                store.count_payload(self.payload_bytes, self.stored_bytes);
                store.metrics().count_commit(started);
                Ok(())
            }
            Err(e) => {
                self.restore_claims();
                self.finished = Some(FAILED_COMMIT);
                Err(e)
            }
        }
    }

    /// Prepares the commit under the commit lock (`commit.rs`); returns its ticket.
    pub(crate) fn prepare(&mut self, db: &DbRef<'_>) -> Result<u64> {
        self.buf.prepare(&self.store, db)
    }

    /// Undo everything: claimed entries go back to the head of their queues in order.
    /// Idempotent; also what dropping an open transaction does.
    pub fn rollback(&mut self) -> Result<()> {
        self.rollback_because(ROLLED_BACK, None)
    }

    /// `rollback` saying why: the entries it delivered come back with one more failed
    /// delivery, and those that reach their queue's delivery limit are moved to its dead-letter
    /// queue instead, recording `reason` (cut to `dead_letter::MAX_REASON_BYTES`). With
    /// `retry_after`, the others are not delivered again before that much time has passed;
    /// they keep their place, so once due they come before every entry after them.
    ///
    /// The transaction is over even when moving dead letters fails (the error says why; those
    /// entries stay in their queue and are moved at the next rollback that finds them, or at
    /// the next open). A `retry_after` too long to be a point in time is refused first, with
    /// the transaction still open.
    pub fn rollback_because(&mut self, reason: &str, retry_after: Option<Duration>) -> Result<()> {
        if self.finished.is_some() {
            return Ok(());
        }
        let not_before = match retry_after {
            Some(d) => Some(Instant::now().checked_add(d).ok_or_else(|| Error::InvalidArgument(format!("retry delay of {d:?} is too long")))?),
            None => None,
        };
        let doomed = self.hand_back_delivered(not_before);
        self.buf = Buffered::default();
        self.finished = Some("rolled back");
        dead_letter::move_to_dead_letter_queues(&self.store, doomed, reason)
    }

    /// A rollback hands every claim back, except the delivered ones that reached their queue's
    /// limit: those are returned, still claimed, to be dead-lettered (unless the store is closed
    /// or refuses writes, when they go back too, their counts kept).
    fn hand_back_delivered(&mut self, not_before: Option<Instant>) -> Vec<Doomed> {
        let writable = !self.store.is_closed() && self.store.check_writable().is_ok();
        let mut doomed = Vec::new();
        self.hand_back_claims(0, |q, c| {
            if c.deliveries == 0 {
                q.give_back(c.seq);
            } else if writable && q.max_deliveries > 0 && c.deliveries >= q.max_deliveries && !q.dead_letters.contains(&c.seq) {
                doomed.push(Doomed { queue: c.queue, seq: c.seq, deliveries: c.deliveries, record: c.record });
            } else {
                q.give_back_delivered(c.seq, c.deliveries, c.record, not_before);
            }
        });
        doomed
    }

    /// After a failed write: the entries this commit was to consume are still on disk (and
    /// were taken out of every later commit's view when it was prepared); they go back to the
    /// head of their queues, lowest first, as a rollback hands them back, each delivery counted
    /// as failed.
    pub(crate) fn restore_claims(&mut self) {
        crate::metrics::uncount_consumed(&self.store, &self.buf.claims);
        self.hand_back_claims(0, |q, c| {
            q.restore(c.seq);
            q.restore_bytes(c.bytes);
            if c.deliveries > 0 {
                q.note_failed_deliveries(c.seq, c.deliveries);
            }
            if let Some(r) = c.record {
                // Released when the commit was prepared; the record is still on disk.
                q.give_back_record(c.seq, r);
            }
        });
    }

    /// Hands the claims from index `from` on back to their queues with `how`, and wakes
    /// waiting consumers (a poll that returns fewer than it claimed hands back its last ones).
    fn hand_back_claims(&mut self, from: usize, mut how: impl FnMut(&mut QueueState, &Claim)) {
        if from >= self.buf.claims.len() {
            return;
        }
        let mut queues = self.store.queues();
        for c in self.buf.claims.drain(from..) {
            if let Some(q) = queues.states.get_mut(&c.queue) {
                how(q, &c);
            }
            queues.metrics.count_returned(c.queue, 1);
        }
        self.store.notify_arrivals();
    }

    pub fn is_open(&self) -> bool {
        self.finished.is_none()
    }
}

impl Drop for Transaction {
    fn drop(&mut self) {
        let _ = self.rollback_because(DROPPED_OPEN, None);
    }
}

/// What `claim_entries` claimed of one queue: sequence numbers, the entries read, each one's
/// failed deliveries so far, and whether the queue records deliveries on disk.
struct Claimed {
    queue: QueueId,
    seqs: Vec<u64>,
    entries: Vec<Entry>,
    failed: Vec<u32>,
    tracked: bool,
}

/// `kept`, the entries `seqs` of queue `qid` the entry cache had, with the others read
/// (`read_claimed`).
fn with_unkept_read(store: &Shared, db: &DbRef<'_>, qid: QueueId, seqs: &[u64], mut kept: Vec<Option<Entry>>) -> Result<Vec<Option<Entry>>> {
    let unkept: Vec<u64> = seqs.iter().zip(&kept).filter(|(_, e)| e.is_none()).map(|(&seq, _)| seq).collect();
    if unkept.is_empty() {
        return Ok(kept);
    }
    let mut read = read_claimed(store, db, qid, &unkept)?.into_iter();
    for slot in kept.iter_mut().filter(|e| e.is_none()) {
        *slot = read.next().expect("one read per entry not kept");
    }
    Ok(kept)
}

/// The entries at `seqs` of queue `qid` (`None` where there is none), claimed to be consumed:
/// the queue's state learns the blocks they were read from, for the commit that consumes the
/// last entry of one to delete it.
pub(crate) fn read_claimed(store: &Shared, db: &DbRef<'_>, qid: QueueId, seqs: &[u64]) -> Result<Vec<Option<Entry>>> {
    let read = entry_records::read_entries(db, qid, seqs)?;
    if !read.blocks.is_empty() {
        let mut queues = store.queues();
        if let Some(q) = queues.states.get_mut(&qid) {
            q.note_blocks(read.blocks);
        }
    }
    Ok(read.entries)
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
