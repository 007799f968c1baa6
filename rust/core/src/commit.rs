//! A transaction's commit: prepared under the store's commit lock, which fixes its place in the
//! order (deciding reference counts, reserving sequence numbers, marking what it does to
//! objects for the commits prepared after it), then written by the group commit
//! (`group_commit.rs`) with the commits waiting beside it, and published.

use std::collections::{BTreeSet, HashMap, VecDeque};

use uuid::Uuid;

use crate::batch::{BatchRep, CfIds};
use crate::buffered::{is_owned_value, is_put_value, Buffered, ObjectWrite};
use crate::error::{Error, Result, RocksContext};
use crate::group_commit::{Append, CommitState, PendingObject, Prepared};
use crate::keys::{self, Entry, QueueId, CF_OBJECTS, CF_REFS};
use crate::queue::{ConsumedRecord, QueueState, Queues};
use crate::shared::{DbRef, Shared};

impl Buffered {
    /// Everything that can refuse the commit, then (once nothing can) sequence numbers reserved
    /// and the batch queued for writing; returns its ticket. Refusing leaves the store as it was.
    pub fn prepare(&mut self, store: &Shared, db: &DbRef<'_>) -> Result<u64> {
        let mut serial = store.commit_lock();
        self.check_capacity(&store.queues())?;
        self.check_map_reads(store, &serial)?;
        self.check_relied_objects(db, &serial)?;
        let outcomes = self.decide_references(db, &serial)?;
        let mut tail = BatchRep::reusing(std::mem::take(&mut serial.spare_batch), self.tail_bytes());
        let map_outcomes = self.write_maps(store, db, &serial, &mut tail)?;
        let appends = self.reserve_and_record(store, &mut tail, &outcomes);
        // Read from the batch before it is taken below.
        let objects_written = self.cacheable_objects_written(store);
        let pending_marks = self.pending_marks(&serial, &outcomes);
        let mut batch = if self.objects_in_key_order { std::mem::take(&mut self.batch) } else { self.objects_sorted_by_id(store.cf_ids()) };
        if let Some(copied) = batch.append(tail) {
            serial.keep_spare_batch(copied);
        }
        // Before it is queued: from then on the group writing it may write it at any moment.
        let map_marks = store.map_cache().begin_writes(crate::map_commit::cached_keys_written(store, &map_outcomes));
        let object_marks = store.object_cache().begin_writes(objects_written.iter().map(Uuid::as_bytes));
        let ticket = store.group_commit().submit(Prepared { batch, appends, map_marks, object_marks });
        // What it does to objects, for the commits prepared after it while it is not on disk.
        serial.pending_objects.extend(pending_marks.into_iter().map(|(id, state)| (id, (state, ticket))));
        if !self.deleted.is_empty() {
            serial.last_delete = Some(ticket);
        }
        crate::map_commit::mark_map_writes(&mut serial, map_outcomes, ticket);
        Ok(ticket)
    }

    /// `QueueFull` if, once this commit is written after those prepared before it, a queue it
    /// enqueues to would hold more entries than its capacity (what it consumes from that queue
    /// makes room first). Called under the commit lock, which every change of a queue's
    /// reserved tail is made under, so concurrent committers can never together overfill it.
    pub fn check_capacity(&self, queues: &Queues) -> Result<()> {
        if self.exempt_from_capacity {
            return Ok(());
        }
        for (name, items) in self.enqueued.queues.iter().filter(|(_, items)| !items.is_empty()) {
            let config;
            let (capacity, capacity_bytes, depth, bytes, consuming, consuming_bytes) = match queues.get(name) {
                Some(q) if q.capacity == 0 && q.capacity_bytes == 0 => continue,
                Some(q) => {
                    let mine = self.claims.iter().filter(|c| c.queue == q.id);
                    let (n, b) = mine.fold((0, 0), |(n, b), c| (n + 1, b + c.bytes));
                    (q.capacity, q.capacity_bytes, q.committed_len() + q.being_written(), q.bytes_held(), n, b)
                }
                None => {
                    config = queues.config(name);
                    (config.capacity, config.capacity_bytes, 0, 0, 0, 0)
                }
            };
            let adding = items.len() as u64;
            if capacity > 0 && depth - consuming + adding > capacity {
                return Err(Error::QueueFull { queue: name.clone(), capacity, depth: depth - consuming, adding, unit: "entries" });
            }
            let adding_bytes = entries_bytes(items);
            let held = bytes.saturating_sub(consuming_bytes);
            if capacity_bytes > 0 && held + adding_bytes > capacity_bytes {
                return Err(Error::QueueFull { queue: name.clone(), capacity: capacity_bytes, depth: held, adding: adding_bytes, unit: "payload bytes" });
            }
        }
        Ok(())
    }

    /// After `QueueFull`: waits (until `deadline`) for a commit to make room in the full queues;
    /// returns whether this commit would fit now (false once the deadline has passed without).
    pub fn wait_for_room(&self, store: &Shared, deadline: std::time::Instant) -> Result<bool> {
        let mut queues = store.queues();
        loop {
            if store.is_closed() {
                return Err(Error::Closed("store"));
            }
            if self.check_capacity(&queues).is_ok() {
                return Ok(true);
            }
            if !store.wait_for_arrivals(&mut queues, deadline) {
                return Ok(self.check_capacity(&queues).is_ok());
            }
        }
    }

    /// `NoSuchObject` if an object this transaction found committed and relied on (enqueued by
    /// id, or replaced while queue-owned) is deleted in the store as it will be once the
    /// commits prepared before this one are written; for a replaced one, also if what is under
    /// its id then is an object put since (the queue-owned one it replaced was deleted). Called
    /// under the commit lock, so no commit can delete it between this check and this commit's
    /// place in the order.
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
                Some(PendingObject::Put) if self.owned_puts.contains(id) => return Err(Error::NoSuchObject(*id)),
                Some(PendingObject::Count(_) | PendingObject::Put) => {}
                None => on_disk.push(id),
            }
        }
        if on_disk.is_empty() {
            return Ok(());
        }
        let keys = on_disk.iter().map(|id| &id.as_bytes()[..]);
        for (id, found) in on_disk.iter().zip(db.db().batched_multi_get_cf(db.cf(CF_OBJECTS), keys, false)) {
            let gone = match found.context(|| format!("reading object {id}"))? {
                None => true,
                Some(v) => self.owned_puts.contains(*id) && !is_owned_value(&v),
            };
            if gone {
                return Err(Error::NoSuchObject(**id));
            }
        }
        Ok(())
    }

    /// New owning-entry count of every queue-owned object this transaction changed, as the
    /// store will be once the commits prepared before it are written, sorted by id (so that
    /// their writes land in key order), and whether a `refs` record holds its count then (one
    /// does only above one; without one there is nothing to delete). Objects it deletes are
    /// left out: their count goes with them. So is an object that is not queue-owned any more
    /// (deleted, perhaps put again, since the entries were written): the owned entries this
    /// transaction consumes or adds for it own nothing, and their consumption must never delete
    /// what was put under that id since. A poll reads that with the payload; what it cannot
    /// have seen (a delete written after it read, entries dropped unread) is read here. Counts
    /// and ownership not marked by a prepared commit are read in batched lookups.
    fn decide_references(&self, db: &DbRef<'_>, serial: &CommitState) -> Result<Vec<Outcome>> {
        let deletes_unseen = match (serial.last_delete, self.owners_read_below) {
            (Some(delete), Some(read_below)) => delete >= read_below,
            _ => false,
        };
        let mut outcomes = Vec::with_capacity(self.ref_delta.len());
        let mut unread = Vec::new();
        let mut ownership_unknown = Vec::new();
        for (id, delta) in self.ref_delta.iter().filter(|(_, d)| **d != 0) {
            let own_write = match self.objects.get(id) {
                Some(ObjectWrite::Delete) => continue,
                Some(&ObjectWrite::Put { at, len }) => Some(is_owned_value(self.batch.slice(at, len))),
                None => None,
            };
            let pending = serial.pending_objects.get(id).map(|(state, _)| *state);
            let owned = match (own_write, pending) {
                (Some(owned), _) => owned,
                (None, Some(PendingObject::Count(_))) => true,
                (None, Some(PendingObject::Deleted | PendingObject::Put)) => false,
                (None, None) => {
                    if *delta < 0 && (deletes_unseen || self.unread_owners.contains(id)) {
                        ownership_unknown.push(outcomes.len());
                    }
                    true
                }
            };
            if !owned {
                continue;
            }
            let current = match pending {
                Some(PendingObject::Count(n)) => Some((n as i64, record_exists(n as i64))),
                // Deleted by an earlier commit (its count with it): only this transaction's own
                // write (an object it created) can be alive with entries (`check_relied_objects`
                // refused the rest).
                Some(PendingObject::Deleted | PendingObject::Put) => Some((i64::from(own_write.is_some()), false)),
                None => None,
            };
            if current.is_none() {
                unread.push(outcomes.len());
            }
            let (count, counted) = current.unwrap_or((0, false));
            outcomes.push(Outcome { id: *id, count: count + delta, counted, owned: true });
        }
        read_for(db, CF_OBJECTS, "reading object", &mut outcomes, &ownership_unknown, |o, value| {
            o.owned = value.is_some_and(is_owned_value);
            Ok(())
        })?;
        unread.retain(|&i| outcomes[i].owned);
        read_for(db, CF_REFS, "reading references of", &mut outcomes, &unread, |o, record| {
            // No record: exactly one owning entry.
            let count = match record {
                Some(v) => keys::decode_u64(v, "reference count")? as i64,
                None => 1,
            };
            o.count += count;
            o.counted = record_exists(count);
            Ok(())
        })?;
        outcomes.retain(|o| o.owned);
        outcomes.sort_unstable_by_key(|o| o.id);
        Ok(outcomes)
    }

    /// Reserve sequence numbers and record what only commit time knows, into `tail`: entries
    /// (each queue's next sequences, in commit order), deletion of consumed entries, reference
    /// counts (kept in CF_REFS only while above one; an owned object at zero is deleted) and
    /// queue layouts. Returns the entries to publish per queue once written.
    fn reserve_and_record(&mut self, store: &Shared, tail_batch: &mut BatchRep, outcomes: &[Outcome]) -> Vec<Append> {
        let cf = store.cf_ids();
        let mut consuming: HashMap<QueueId, BTreeSet<u64>> = HashMap::new();
        for c in &self.claims {
            consuming.entry(c.queue).or_default().insert(c.seq);
        }
        let mut appends = Vec::new();
        let mut layouts = Vec::with_capacity(consuming.len());
        // Delivery records that count no entry once this commit's are consumed.
        let mut spent_records = Vec::new();
        // Entry records holding nothing present once this commit's entries are consumed.
        let mut consumed_records = Vec::new();
        let forgotten;
        {
            let mut queues = store.queues();
            let mut own: Vec<&mut (String, VecDeque<Entry>)> = self.enqueued.queues.iter_mut().filter(|(_, q)| !q.is_empty()).collect();
            own.sort_by(|a, b| a.0.cmp(&b.0));
            for (name, items) in own {
                let qid = match queues.by_name.get(name.as_str()) {
                    Some(&qid) => qid,
                    None => {
                        let qid = queues.next_id;
                        queues.next_id += 1;
                        queues.insert(name.clone(), QueueState::unpublished(qid));
                        tail_batch.put(cf.meta, &keys::meta_queue_key(name), &qid.to_le_bytes());
                        qid
                    }
                };
                let state = queues.states.get_mut(&qid).expect("queue registered");
                let bytes = entries_bytes(items);
                let first = state.reserve(items.len() as u64, bytes);
                let dead_letters = self.dead_letter_records.get(name.as_str());
                // Dead letters are single records: each has a record of its own beside it.
                let runs = if dead_letters.is_some() { vec![1; items.len()] } else { crate::entry_records::plan_records(items) };
                let mut at = 0usize;
                for n in runs {
                    let seq = first + at as u64;
                    let run = items.range(at..at + n as usize);
                    at += n as usize;
                    if n == 1 {
                        let entry = &items[at - 1];
                        tail_batch
                            .put_with::<crate::Error>(cf.entries, &keys::entry_key(qid, seq), keys::encoded_entry_len(entry), |buf| {
                                keys::encode_entry_into(entry, buf);
                                Ok(())
                            })
                            .expect("an entry is far below 4 GiB");
                        continue;
                    }
                    tail_batch
                        .put_with::<crate::Error>(cf.entries, &keys::block_key(qid, seq, n), keys::block_value_len(run.clone()), |buf| {
                            keys::encode_block_into(run, buf);
                            Ok(())
                        })
                        .expect("a block is bounded far below 4 GiB");
                    state.note_block(seq, n);
                }
                for (i, record) in dead_letters.into_iter().flatten().enumerate() {
                    tail_batch.put(cf.meta, &keys::meta_dead_letter_key(qid, first + i as u64), record);
                    state.dead_letters.insert(first + i as u64);
                }
                // Nothing can refuse the commit any more: its entries go with it, to be kept in
                // memory once published.
                let n = items.len() as u64;
                let entries = if dead_letters.is_some() { VecDeque::new() } else { std::mem::take(items) };
                appends.push(Append { queue: qid, first, n, entries, bytes });
            }
            for (qid, seqs) in &consuming {
                if let Some(q) = queues.states.get_mut(qid) {
                    layouts.push((*qid, q.layout_after(seqs)));
                    // Gone for every commit prepared after this one, with what was kept about them.
                    for &seq in seqs {
                        q.consumed(seq);
                        spent_records.extend(q.detach_record(seq).map(|r| (*qid, r)));
                        if q.dead_letters.remove(&seq) {
                            tail_batch.delete(cf.meta, &keys::meta_dead_letter_key(*qid, seq));
                        }
                    }
                    consumed_records.extend(q.records_consumed(seqs).into_iter().map(|r| (*qid, r)));
                }
                queues.metrics.count_consumed(*qid, seqs.len() as u64);
            }
            for c in self.claims.iter().filter(|c| c.record.is_some() || c.bytes > 0) {
                let Some(q) = queues.states.get_mut(&c.queue) else { continue };
                q.consume_bytes(c.bytes);
                if let Some(r) = c.record.filter(|&r| q.release_record(r)) {
                    spent_records.push((c.queue, r));
                }
            }
            if !consuming.is_empty() {
                // Room in a bounded queue, for a commit waiting for it.
                store.notify_arrivals();
            }
            forgotten = self.forget_dropped_queues(&mut queues, &appends, tail_batch, cf);
        }
        for (qid, record) in consumed_records {
            // Records are written exactly once, which is what SingleDelete requires.
            match record {
                ConsumedRecord::Single(seq) => tail_batch.single_delete(cf.entries, &keys::entry_key(qid, seq)),
                ConsumedRecord::Block { first, n } => tail_batch.single_delete(cf.entries, &keys::block_key(qid, first, n)),
            }
        }
        for (qid, record) in spent_records {
            tail_batch.delete(cf.meta, &keys::meta_deliveries_key(qid, record));
        }
        for o in outcomes {
            match o.count {
                n if n <= 0 => {
                    tail_batch.delete(cf.objects, o.id.as_bytes());
                    if o.counted {
                        tail_batch.delete(cf.refs, o.id.as_bytes());
                    }
                }
                1 if o.counted => tail_batch.delete(cf.refs, o.id.as_bytes()),
                1 => {}
                n => {
                    tail_batch.put(cf.refs, o.id.as_bytes(), &(n as u64).to_le_bytes());
                }
            }
        }
        for (qid, layout) in layouts.iter().filter(|(qid, _)| !forgotten.contains(qid)) {
            tail_batch.put(cf.meta, &keys::meta_head_key(*qid), &layout.encode());
        }
        appends
    }

    /// Forgets each queue this transaction dropped or moved away that has no entry left once it
    /// commits (none committed since, none held by another transaction, none being written,
    /// none it enqueued itself): its name and head layout are deleted, and the commits prepared
    /// after this one create it anew under a new id. Returns the ids forgotten.
    fn forget_dropped_queues(&self, queues: &mut Queues, appends: &[Append], tail_batch: &mut BatchRep, cf: CfIds) -> Vec<QueueId> {
        let mut forgotten = Vec::new();
        for name in &self.dropped_queues {
            let Some(&qid) = queues.by_name.get(name) else { continue };
            let idle = queues.states.get(&qid).is_some_and(QueueState::is_empty_and_idle);
            if !idle || appends.iter().any(|a| a.queue == qid) {
                continue;
            }
            queues.by_name.remove(name);
            queues.forget(qid);
            tail_batch.delete(cf.meta, &keys::meta_queue_key(name));
            tail_batch.delete(cf.meta, &keys::meta_head_key(qid));
            forgotten.push(qid);
        }
        forgotten
    }

    /// What this commit does to objects, as the commits prepared after it are to see it until
    /// it is on disk (read from the batch, so before it is taken to be written).
    fn pending_marks(&self, serial: &CommitState, outcomes: &[Outcome]) -> Vec<(Uuid, PendingObject)> {
        let mut marks = Vec::with_capacity(outcomes.len());
        for (id, w) in &self.objects {
            let state = match *w {
                ObjectWrite::Delete => Some(PendingObject::Deleted),
                // Alive again after a delete (an earlier commit's or its own): queue-owned with
                // its one entry when this transaction created it so, otherwise put (`put` over
                // an object it read as queue-owned is refused when that object is deleted,
                // `check_relied_objects`).
                ObjectWrite::Put { at, len } if self.deleted.contains(id) || matches!(serial.pending_objects.get(id), Some((PendingObject::Deleted, _))) => {
                    Some(if is_put_value(self.batch.slice(at, len)) { PendingObject::Put } else { PendingObject::Count(1) })
                }
                ObjectWrite::Put { .. } => None,
            };
            marks.extend(state.map(|state| (*id, state)));
        }
        for o in outcomes {
            marks.push((o.id, if o.count <= 0 { PendingObject::Deleted } else { PendingObject::Count(o.count as u64) }));
        }
        marks
    }
}

/// A queue-owned object's owning-entry count once a commit is written, and whether a `refs`
/// record holds the count before it.
struct Outcome {
    id: Uuid,
    count: i64,
    counted: bool,
    /// Still the queue-owned object its entries were written for (read at commit when unknown;
    /// the others are dropped before the outcomes are used).
    owned: bool,
}

/// `read` of each outcome at `indexes` with what column family `cf` holds under its id, read in
/// one batched lookup (`what` names the read in errors).
fn read_for(
    db: &DbRef<'_>,
    cf: &str,
    what: &str,
    outcomes: &mut [Outcome],
    indexes: &[usize],
    mut read: impl FnMut(&mut Outcome, Option<&[u8]>) -> Result<()>,
) -> Result<()> {
    if indexes.is_empty() {
        return Ok(());
    }
    let keys: Vec<[u8; 16]> = indexes.iter().map(|&i| *outcomes[i].id.as_bytes()).collect();
    let found = db.db().batched_multi_get_cf(db.cf(cf), keys.iter().map(|k| &k[..]), false);
    for (&i, found) in indexes.iter().zip(found) {
        let o = &mut outcomes[i];
        let value = found.context(|| format!("{what} {}", o.id))?;
        read(o, value.as_deref())?;
    }
    Ok(())
}

/// Write batch bytes of a single entry's put besides its value (type, column family, the key
/// and both lengths; lengths over 2^14 take a byte or two more, and the batch grows for them).
/// At least what an entry adds to a block's put (its length, and its share of the key).
const ENTRY_PUT_OVERHEAD: usize = 1 + 1 + 1 + 12 + 2;
/// Most write batch bytes of a consumed record's single delete (a block's; a commit deletes at
/// most one record per entry it consumes).
const ENTRY_DELETE_BYTES: usize = 1 + 1 + 1 + keys::BLOCK_KEY_BYTES;

impl Buffered {
    /// At least what the entries' puts and the consumed records' deletes take in the write batch,
    /// so that it is allocated once: a commit of 10^5 entries regrowing its 5 MB batch copied it
    /// and touched fresh pages each time.
    fn tail_bytes(&self) -> usize {
        let puts: usize = self.enqueued.queues.iter().flat_map(|(_, q)| q.iter()).map(|e| ENTRY_PUT_OVERHEAD + keys::encoded_entry_len(e)).sum();
        puts + self.claims.len() * ENTRY_DELETE_BYTES
    }
}

/// What entries about to be written count against a byte capacity (an entry without a recorded
/// size, moved from a store written before sizes were kept, counts 0 here and its object's size
/// when counted at open).
fn entries_bytes(items: &VecDeque<Entry>) -> u64 {
    items.iter().map(|e| u64::from(e.bytes.unwrap_or(0))).sum()
}

/// `refs` holds a count only above one (absent means exactly one).
fn record_exists(count: i64) -> bool {
    count > 1
}

/// Waits until the commit with `ticket` is written (writing a group of commits when no other
/// commit is doing so).
pub(crate) fn wait_written(store: &Shared, db: &DbRef<'_>, ticket: u64) -> Result<()> {
    store.group_commit().wait(store.path(), ticket, |group| write_group(store, db, group))
}

/// One synced RocksDB write of the group's batches, in order; then their entries are published
/// and their marks on objects dropped.
fn write_group(store: &Shared, db: &DbRef<'_>, group: &mut [(u64, Prepared)]) -> Result<()> {
    let last = group.last().map_or(0, |g| g.0);
    let mut all = BatchRep::default();
    let mut copied = Vec::new();
    for (_, prepared) in group.iter_mut() {
        // Not needed once written, nor if the write fails (the commits fail with it).
        copied.extend(all.append(std::mem::take(&mut prepared.batch)));
    }
    #[cfg(test)]
    if store.group_commit().fail_next_write.swap(false, std::sync::atomic::Ordering::SeqCst) {
        return Err(Error::Rocks {
            status: crate::error::RocksStatus::IOError,
            context: format!("committing to {}", store.path().display()),
            message: "IO error: No space left on device: While appending to file: 000042.log (simulated)".into(),
        });
    }
    let mut wo = rocksdb::WriteOptions::default();
    wo.set_sync(store.options().sync_on_commit);
    let started = store.metrics().start();
    db.db().write_opt(all.to_write_batch(), &wo).context(|| format!("committing to {}", store.path().display()))?;
    store.metrics().count_group_write(started, group.len());
    {
        let mut queues = store.queues();
        for (_, prepared) in group.iter_mut() {
            for a in prepared.appends.drain(..) {
                queues.publish(a.queue, a.first, a.n, a.entries, a.bytes);
            }
        }
        store.notify_arrivals();
    }
    // The largest buffer may be kept for the next commit; the others are freed here, before
    // the commit lock is taken, so that their `munmap` does not hold up commits being prepared.
    let largest = copied
        .into_iter()
        .chain([all.into_buffer()])
        .filter(|b| b.capacity() <= crate::group_commit::MAX_SPARE_BATCH_BYTES)
        .max_by_key(Vec::capacity)
        .unwrap_or_default();
    // What these commits did to objects is on disk now; keep only later commits' marks.
    let mut serial = store.commit_lock();
    let not_kept = serial.keep_spare_batch(largest);
    serial.pending_objects.retain(|_, (_, ticket)| *ticket > last);
    serial.maps.pending.retain(|_, (_, ticket)| *ticket > last);
    drop(serial);
    drop(not_kept);
    Ok(())
}

#[cfg(test)]
mod tests {
    use std::sync::atomic::Ordering;

    use crate::{Error, RocksStatus, Store, StoreOptions};

    fn open(dir: &std::path::Path) -> Store {
        Store::open(dir, StoreOptions { sync_on_commit: false, ..StoreOptions::default() }).unwrap()
    }

    /// The keys and ids a failed group write marked in the map and object caches are unmarked
    /// with it: they are read as they were and cached again.
    #[test]
    fn a_failed_write_of_map_keys_and_objects_leaves_them_readable_and_cached_again() {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::open(dir.path(), StoreOptions { sync_on_commit: false, object_cache_bytes: 1 << 20, ..StoreOptions::default() }).unwrap();
        let id = uuid::Uuid::now_v7();
        let mut tx = store.begin().unwrap();
        tx.map_put("m", b"k", b"old").unwrap();
        tx.put(id, b"old").unwrap();
        tx.commit().unwrap();
        let mut tx = store.begin().unwrap();
        tx.map_put("m", b"k", b"new").unwrap();
        tx.put(id, b"new").unwrap();
        let before = store.metrics().unwrap();
        store.shared.group_commit().fail_next_write.store(true, Ordering::SeqCst);
        assert!(matches!(tx.commit(), Err(Error::Rocks { status: RocksStatus::IOError, .. })));
        for _ in 0..3 {
            assert_eq!(store.map_get("m", b"k").unwrap().as_deref(), Some(&b"old"[..]));
            assert_eq!(store.begin().unwrap().get(id).unwrap().as_deref(), Some(&b"old"[..]));
        }
        let m = store.metrics().unwrap();
        assert_eq!((m.map_cache_hits, m.map_cache_misses), (2, 1), "kept at its first miss (the cache has room), hit after");
        let objects = (m.object_cache_hits - before.object_cache_hits, m.object_cache_misses - before.object_cache_misses);
        assert_eq!(objects, (2, 1), "kept at its first miss, hit after");
    }

    /// Commits prepared but not yet written see what the ones before them do to objects: a
    /// delete of an already deleted queue-owned object, a put under its id, then a consumer that
    /// read the object while it was still queue-owned, all pending at once. The consumer's entry
    /// owns nothing any more, and the object put stays.
    #[test]
    fn a_consumption_prepared_behind_a_pending_delete_and_put_of_its_object_keeps_the_put() {
        let dir = tempfile::tempdir().unwrap();
        let store = open(dir.path());
        let mut tx = store.begin().unwrap();
        let id = tx.enqueue("q", b"owned").unwrap();
        tx.commit().unwrap();
        let mut consumer = store.begin().unwrap();
        assert_eq!(consumer.poll("q", 1).unwrap()[0].payload.as_deref(), Some(&b"owned"[..]));
        let mut tx = store.begin().unwrap();
        tx.delete(id).unwrap();
        tx.commit().unwrap();

        let db = store.shared.writable_db().unwrap();
        let mut deleting = store.begin().unwrap();
        assert!(!deleting.delete(id).unwrap());
        deleting.prepare(&db).unwrap();
        let mut putting = store.begin().unwrap();
        putting.put(id, b"new").unwrap();
        putting.prepare(&db).unwrap();
        let ticket = consumer.prepare(&db).unwrap();
        super::wait_written(&store.shared, &db, ticket).unwrap();
        consumer.buf.claims.clear(); // written: nothing to hand back when it is dropped
        drop(db);
        assert_eq!(store.begin().unwrap().get(id).unwrap().as_deref(), Some(&b"new"[..]));
        assert_eq!(store.queue_size("q").unwrap(), 0);
    }

    fn numbers(messages: &[crate::Message]) -> Vec<u32> {
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
        store.shared.group_commit().fail_next_write.store(true, Ordering::SeqCst);
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
        store.shared.group_commit().fail_next_write.store(true, Ordering::SeqCst);
        assert!(crate::commit::wait_written(&store.shared, &db, t1).is_err());
        let e = crate::commit::wait_written(&store.shared, &db, t2).unwrap_err();
        assert!(e.to_string().contains("No space left on device"), "the first failure's cause: {e}");
        drop(db);
        first.restore_claims();
        second.restore_claims();
        assert_eq!(numbers(&store.begin().unwrap().peek("q", 10).unwrap()), vec![0, 1, 2, 3]);
    }

    /// A written batch's memory goes to the next commit, unless it is beyond
    /// `MAX_SPARE_BATCH_BYTES`; what the commits write is unchanged by it.
    #[test]
    fn a_written_batchs_memory_is_kept_for_the_next_commit_up_to_its_limit() {
        let dir = tempfile::tempdir().unwrap();
        let store = open(dir.path());
        let spare = || store.shared.commit_lock().spare_batch.capacity();
        assert_eq!(spare(), 0);
        let mut tx = store.begin().unwrap();
        for i in 0..10_000u32 {
            tx.enqueue("q", &i.to_be_bytes()).unwrap();
        }
        tx.commit().unwrap();
        let kept = spare();
        assert!(kept > 10_000 * 20, "kept {kept} bytes");
        let mut small = store.begin().unwrap();
        small.enqueue("q", b"small").unwrap();
        small.commit().unwrap();
        assert_eq!(spare(), kept, "a small commit used it and gave it back");
        let mut big = store.begin().unwrap();
        big.put(uuid::Uuid::now_v7(), &vec![7u8; crate::group_commit::MAX_SPARE_BATCH_BYTES]).unwrap();
        big.commit().unwrap();
        assert_eq!(spare(), kept, "a batch beyond the limit is not kept");
        let mut tx = store.begin().unwrap();
        let polled = tx.poll("q", 20_000).unwrap();
        assert_eq!(polled.len(), 10_001);
        assert_eq!(polled[9_999].payload.as_deref(), Some(&9_999u32.to_be_bytes()[..]));
        assert_eq!(polled[10_000].payload.as_deref(), Some(&b"small"[..]));
    }
}
