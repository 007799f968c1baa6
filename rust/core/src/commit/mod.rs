//! A transaction's commit. It is prepared by one entry point, `prepare`, which owns the commit
//! lock (`lock.rs`): under it, in order, the checks that can refuse the commit (a queue's
//! capacity, `capacity.rs`; map keys read and written after its snapshot, `maps.rs` and
//! `key_writes.rs`; objects it relied on,
//! `references.rs`), then, once nothing can refuse it, what fixes its place in the order: the
//! reference counts of the objects it changes (`references.rs`), its map writes and new maps
//! (`maps.rs`), the sequence numbers of its entries, new queues and everything else only commit
//! time knows (`record.rs`), and the marks the commits prepared after it read. It returns a typed
//! outcome; a queued commit is then written by the group commit (`group.rs`, `rhythm.rs`) with
//! the commits waiting beside it, and published (`wait_written`). What a transaction buffered
//! for its commit is `buffered.rs`.

pub(crate) mod buffered;
mod capacity;
pub(crate) mod group;
pub(crate) mod key_locks;
pub(crate) mod key_writes;
pub(crate) mod lock;
mod maps;
mod record;
mod references;
mod rhythm;

use uuid::Uuid;

use crate::batch::BatchRep;
use crate::error::{Error, Result, RocksContext};
use crate::shared::{DbRef, Shared};
use buffered::Buffered;
use group::Prepared;

pub(crate) use capacity::wait_for_room;

/// How preparing a commit under the commit lock ended.
pub(crate) enum CommitOutcome {
    /// Checked and decided, its sequence numbers reserved, its batch queued for the group
    /// commit under this ticket: it is written once `wait_written` returns.
    Queued(u64),
    /// A queue it enqueues to would go over its capacity. Nothing was prepared: the transaction
    /// is still open, to wait for room (`wait_for_room`) and try again, or to roll back.
    QueueFull(QueueFull),
    /// What it read or relied on was changed by a commit ordered before it. Nothing was
    /// prepared, and it cannot commit as it is.
    Conflict(Conflict),
}

/// The queue a commit would put over its capacity, and by how much (`Error::QueueFull`).
pub(crate) struct QueueFull {
    queue: String,
    capacity: u64,
    depth: u64,
    adding: u64,
    unit: &'static str,
}

impl From<QueueFull> for Error {
    fn from(f: QueueFull) -> Error {
        Error::QueueFull {
            queue: f.queue,
            capacity: f.capacity,
            depth: f.depth,
            adding: f.adding,
            unit: f.unit,
        }
    }
}

/// What a commit relied on that a commit ordered before it changed.
pub(crate) enum Conflict {
    /// A map key it read from the store was written since (`Error::Conflict`).
    MapKey { map: String, key: String },
    /// An object it found committed and relied on (enqueued by id, or replaced while
    /// queue-owned) is deleted (`Error::NoSuchObject`).
    ObjectGone(Uuid),
}

impl From<Conflict> for Error {
    fn from(c: Conflict) -> Error {
        match c {
            Conflict::MapKey { map, key } => Error::Conflict { map, key },
            Conflict::ObjectGone(id) => Error::NoSuchObject(id),
        }
    }
}

/// Prepares the commit of what `buf` holds under the commit lock: everything that can refuse it
/// first (a refusal leaves the store as it was, and is the outcome), then, once nothing can,
/// its sequence numbers reserved and its batch queued for writing. An error (a failed read, a
/// value that is not a counter) refuses it too.
pub(crate) fn prepare(store: &Shared, db: &DbRef<'_>, buf: &mut Buffered) -> Result<CommitOutcome> {
    let mut serial = store.commit_lock().lock();
    if let Err(full) = capacity::check(buf, &store.queues()) {
        return Ok(CommitOutcome::QueueFull(full));
    }
    if let Some(conflict) = maps::check_reads(buf, store, &serial) {
        return Ok(CommitOutcome::Conflict(conflict));
    }
    if let Some(id) = references::check_relied_objects(buf, db, &serial)? {
        return Ok(CommitOutcome::Conflict(Conflict::ObjectGone(id)));
    }
    let outcomes = references::decide(buf, db, &serial)?;
    let mut tail = BatchRep::reusing(std::mem::take(&mut serial.spare_batch), record::tail_bytes(buf));
    let map_outcomes = maps::write(buf, store, db, &serial, &mut tail)?;
    let appends = record::reserve_and_record(buf, store, &mut tail, &outcomes, &serial);
    // Read from the batch before it is taken below.
    let objects_written = buf.cacheable_objects_written(store.object_cache());
    let pending_marks = references::pending_marks(buf, &serial, &outcomes);
    let mut batch = if buf.objects_in_key_order {
        std::mem::take(&mut buf.batch)
    } else {
        buf.objects_sorted_by_id(store.cf_ids())
    };
    if let Some(copied) = batch.append(tail) {
        serial.keep_spare_batch(copied);
    }
    // Before it is queued: from then on the group writing it may write it at any moment. The
    // conflict table first: a snapshot read trusts a cached value only if the table does not
    // name its key, asked after the cache (`map_reads::ReadView`).
    let ticket = store.group_commit().next_ticket();
    store.key_writes().note(maps::keys_written(&map_outcomes), ticket);
    let map_marks = store
        .map_cache()
        .begin_writes(maps::cached_keys_written(store, &map_outcomes));
    let object_marks = store
        .object_cache()
        .begin_writes(objects_written.iter().map(Uuid::as_bytes));
    let prepared = Prepared {
        batch,
        appends,
        _map_marks: map_marks,
        _object_marks: object_marks,
    };
    let queued = store.group_commit().submit(prepared);
    debug_assert_eq!(queued, ticket, "tickets are given under the commit lock");
    if store.key_writes().wants_pruning() {
        // The snapshot kept for the next reader may be old by now and would hold the prune back.
        store.latest_view().forget();
        store.key_writes().prune(|| store.group_commit().written_below());
    }
    // What it does to objects, for the commits prepared after it while it is not on disk.
    serial
        .pending_objects
        .extend(pending_marks.into_iter().map(|(id, state)| (id, (state, ticket))));
    if !buf.deleted.is_empty() {
        serial.last_delete = Some(ticket);
    }
    maps::mark_writes(&mut serial, map_outcomes, ticket);
    Ok(CommitOutcome::Queued(ticket))
}

/// Waits until the commit with `ticket` is written (writing a group of commits when no other
/// commit is doing so).
pub(crate) fn wait_written(store: &Shared, db: &DbRef<'_>, ticket: u64) -> Result<()> {
    store
        .group_commit()
        .wait(store.path(), ticket, |group| write_group(store, db, group))
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
    if store.group_commit().simulates_a_failure() {
        return Err(Error::Rocks {
            status: crate::error::RocksStatus::IOError,
            context: format!("committing to {}", store.path().display()),
            message: "IO error: No space left on device: While appending to file: 000042.log (simulated)".into(),
        });
    }
    let mut wo = rocksdb::WriteOptions::default();
    wo.set_sync(store.options().sync_on_commit);
    let started = store.metrics().start();
    db.db()
        .write_opt(all.write_batch(), &wo)
        .context(|| format!("committing to {}", store.path().display()))?;
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
        .filter(|b| b.capacity() <= lock::MAX_SPARE_BATCH_BYTES)
        .max_by_key(Vec::capacity)
        .unwrap_or_default();
    // What these commits did to objects is on disk now; keep only later commits' marks.
    let mut serial = store.commit_lock().lock();
    let not_kept = serial.keep_spare_batch(largest);
    serial.pending_objects.retain(|_, (_, ticket)| *ticket > last);
    serial.maps.pending.retain(|_, (_, ticket)| *ticket > last);
    drop(serial);
    drop(not_kept);
    Ok(())
}

#[cfg(test)]
mod tests {
    use crate::{Error, RocksStatus, Store, StoreOptions};

    fn open(dir: &std::path::Path) -> Store {
        Store::open(
            dir,
            StoreOptions {
                sync_on_commit: false,
                ..StoreOptions::default()
            },
        )
        .unwrap()
    }

    /// The keys and ids a failed group write marked in the map and object caches are unmarked
    /// with it: they are read as they were and cached again.
    #[test]
    fn a_failed_write_of_map_keys_and_objects_leaves_them_readable_and_cached_again() {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::open(
            dir.path(),
            StoreOptions {
                sync_on_commit: false,
                object_cache_bytes: 1 << 20,
                ..StoreOptions::default()
            },
        )
        .unwrap();
        let id = uuid::Uuid::now_v7();
        let mut tx = store.begin().unwrap();
        tx.map_put("m", b"k", b"old").unwrap();
        tx.put(id, b"old").unwrap();
        tx.commit().unwrap();
        let mut tx = store.begin().unwrap();
        tx.map_put("m", b"k", b"new").unwrap();
        tx.put(id, b"new").unwrap();
        let before = store.metrics().unwrap();
        store.shared.group_commit().fail_next_write();
        assert!(matches!(
            tx.commit(),
            Err(Error::Rocks {
                status: RocksStatus::IOError,
                ..
            })
        ));
        for _ in 0..3 {
            assert_eq!(store.map_get("m", b"k").unwrap().as_deref(), Some(&b"old"[..]));
            assert_eq!(store.begin().unwrap().get(id).unwrap().as_deref(), Some(&b"old"[..]));
        }
        let m = store.metrics().unwrap();
        assert_eq!(
            (m.map_cache_hits, m.map_cache_misses),
            (2, 1),
            "kept at its first miss (the cache has room), hit after"
        );
        let objects = (
            m.object_cache_hits - before.object_cache_hits,
            m.object_cache_misses - before.object_cache_misses,
        );
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
        assert_eq!(
            consumer.poll("q", 1).unwrap()[0].payload.as_deref(),
            Some(&b"owned"[..])
        );
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
        consumer.forget_claims(); // written: nothing to hand back when it is dropped
        drop(db);
        assert_eq!(store.begin().unwrap().get(id).unwrap().as_deref(), Some(&b"new"[..]));
        assert_eq!(store.queue_size("q").unwrap(), 0);
    }

    fn numbers(messages: &[crate::Message]) -> Vec<u32> {
        messages
            .iter()
            .map(|m| u32::from_be_bytes(m.payload.as_deref().unwrap().try_into().unwrap()))
            .collect()
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
        store.shared.group_commit().fail_next_write();
        let failed = tx.commit().unwrap_err();
        assert!(
            matches!(
                &failed,
                Error::Rocks {
                    status: RocksStatus::IOError,
                    ..
                }
            ),
            "{failed}"
        );
        assert!(failed.to_string().contains("No space left on device"), "{failed}");
        assert!(!tx.is_open());

        // Every polled item is back at the head, in order, behind nothing: claimable again (a
        // peek reads the snapshot, where the items `other` holds are committed too).
        let mut claimable = Vec::new();
        store.shared.queues().get("q").unwrap().peek(20, &mut claimable);
        assert_eq!(claimable, vec![2, 3, 4, 5, 6, 7, 8, 9]);
        assert_eq!(
            numbers(&store.begin().unwrap().peek("q", 20).unwrap()),
            (0..10).collect::<Vec<_>>()
        );
        assert_eq!(store.queue_size("q").unwrap(), 10);
        assert_eq!(store.queue_size("out").unwrap(), 0);
        other.rollback().unwrap();
        assert_eq!(
            numbers(&store.begin().unwrap().peek("q", 20).unwrap()),
            (0..10).collect::<Vec<_>>()
        );

        // The next write is refused with the cause's status, said once.
        let mut next = store.begin().unwrap();
        let refused = next.enqueue("q", b"more").unwrap_err();
        assert!(
            matches!(
                &refused,
                Error::Rocks {
                    status: RocksStatus::IOError,
                    ..
                }
            ),
            "{refused}"
        );
        let message = refused.to_string();
        assert_eq!(message.matches("IOError").count(), 1, "{message}");
        assert_eq!(message.matches("No space left on device").count(), 1, "{message}");
        assert!(message.contains("reopen"), "{message}");
        // Polls are refused with it; a transaction that only reads commits, having nothing to
        // write or refuse.
        let mut reader = store.begin().unwrap();
        assert!(reader.poll("q", 1).is_err());
        assert_eq!(numbers(&reader.peek("q", 1).unwrap()), vec![0]);
        reader.commit().unwrap();
        assert!(!reader.is_open());

        store.close().unwrap();
        let store = open(dir.path());
        let mut tx = store.begin().unwrap();
        assert_eq!(
            numbers(&tx.poll("q", 20).unwrap()),
            (0..10).collect::<Vec<_>>(),
            "every committed item, in order"
        );
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
        store.shared.group_commit().fail_next_write();
        assert!(crate::commit::wait_written(&store.shared, &db, t1).is_err());
        let e = crate::commit::wait_written(&store.shared, &db, t2).unwrap_err();
        assert!(
            e.to_string().contains("No space left on device"),
            "the first failure's cause: {e}"
        );
        drop(db);
        first.restore_claims();
        second.restore_claims();
        assert_eq!(
            numbers(&store.begin().unwrap().peek("q", 10).unwrap()),
            vec![0, 1, 2, 3]
        );
    }

    /// A written batch's memory goes to the next commit, unless it is beyond
    /// `MAX_SPARE_BATCH_BYTES`; what the commits write is unchanged by it.
    #[test]
    fn a_written_batchs_memory_is_kept_for_the_next_commit_up_to_its_limit() {
        let dir = tempfile::tempdir().unwrap();
        let store = open(dir.path());
        let spare = || store.shared.commit_lock().lock().spare_batch.capacity();
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
        big.put(uuid::Uuid::now_v7(), &vec![7u8; super::lock::MAX_SPARE_BATCH_BYTES])
            .unwrap();
        big.commit().unwrap();
        assert_eq!(spare(), kept, "a batch beyond the limit is not kept");
        let mut tx = store.begin().unwrap();
        let polled = tx.poll("q", 20_000).unwrap();
        assert_eq!(polled.len(), 10_001);
        assert_eq!(polled[9_999].payload.as_deref(), Some(&9_999u32.to_be_bytes()[..]));
        assert_eq!(polled[10_000].payload.as_deref(), Some(&b"small"[..]));
    }
}
