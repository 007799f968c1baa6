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

mod claims;
pub(crate) mod dead_letters;
mod maps;
mod poll;
mod queues;

use std::sync::Arc;
use std::time::{Duration, Instant};

use uuid::Uuid;

use rockcask_codec::compress::{Compression, Policy};

use crate::commit::buffered::Buffered;
use crate::commit::key_locks::Holder;
use crate::commit::{self, CommitOutcome};
use crate::error::{Error, Result};
use crate::keys::{self, Entry, Ownership};
use crate::map_reads::ReadView;
use crate::options::{MAX_BATCH_ITEMS, MAX_PAYLOAD_BYTES, MAX_RETRY_DELAY_MILLIS};
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
    store: Arc<Shared>,
    finished: Option<&'static str>,
    buf: Buffered,
    /// The snapshot its map reads see, from its first one until it ends (`transaction/maps.rs`).
    view: Option<ReadView>,
    /// Its id in the store's table of keys held for update, from its first
    /// `map_get_for_update`, and the keys it holds there until it ends (`commit/key_locks.rs`).
    key_holder: Option<Holder>,
    held_keys: Vec<Vec<u8>>,
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
            view: None,
            key_holder: None,
            held_keys: Vec::new(),
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
            Entry {
                id,
                own: Ownership::Owned,
                bytes: Some(stored),
                inline: None,
            }
        };
        self.buf.enqueue(queue, entry);
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
        let stored = if policy.codec == Compression::None || len < policy.threshold {
            // Raw: written straight into the batch, no copy.
            self.buf.put_object_with(cf, id, len + 1, |buf| {
                buf[0] = keys::object_flag(own, Compression::None);
                fill(&mut buf[1..])
            })?;
            len + 1
        } else {
            let mut payload = vec![0u8; len];
            fill(&mut payload)?;
            let (codec, body) = policy.compress(&payload);
            self.buf.put_object_with(cf, id, body.len() + 1, |buf| {
                buf[0] = keys::object_flag(own, codec);
                buf[1..].copy_from_slice(&body);
                Ok::<(), Error>(())
            })?;
            body.len() + 1
        };
        self.payload_bytes += len as u64;
        self.stored_bytes += (stored - 1) as u64;
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
            let (own, bytes) = self
                .buf
                .object_reads()
                .stored_object_of(&db, None, id)?
                .ok_or(Error::NoSuchObject(id))?;
            (own, bytes, !self.buf.writes_object(&id))
        };
        self.buf.enqueue_existing(
            queue,
            Entry {
                id,
                own,
                bytes: Some(bytes),
                inline: None,
            },
            committed,
        );
        Ok(())
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
            let own = self.buf.object_reads().ownership_of(&db, None, id)?;
            (
                own.unwrap_or(Ownership::Reference),
                own == Some(Ownership::Owned) && !self.buf.writes_object(&id),
            )
        };
        let policy = self.store.options().compression;
        self.write_object(id, own, policy, len, fill)?;
        if owned_committed {
            self.buf.note_owned_put(id);
        }
        Ok(())
    }

    /// The payload of object `id`, including this transaction's own writes.
    pub fn get(&self, id: Uuid) -> Result<Option<Vec<u8>>> {
        self.check_open()?;
        let db = self.store.db()?;
        self.buf
            .object_reads()
            .payload_of(&db, Some(self.store.object_cache()), id)
    }

    /// The payloads of objects `ids`, in order (`None` where there is none), as `get` of each
    /// would return them, with the stored ones read in one batched lookup (RocksDB's
    /// `MultiGet`). At most `MAX_BATCH_ITEMS` ids per call.
    pub fn get_many(&self, ids: &[Uuid]) -> Result<Vec<Option<Vec<u8>>>> {
        self.check_open()?;
        if ids.len() > MAX_BATCH_ITEMS {
            return Err(Error::InvalidArgument(format!(
                "{} ids are more than the {MAX_BATCH_ITEMS} one call reads",
                ids.len()
            )));
        }
        let db = self.store.db()?;
        self.buf
            .object_reads()
            .read_payloads(&db, Some(self.store.object_cache()), ids)
    }

    /// Delete object `id`. Entries still pointing at it are delivered with no payload.
    /// Returns whether the object existed.
    pub fn delete(&mut self, id: Uuid) -> Result<bool> {
        let own = {
            let db = self.check_write()?;
            self.buf.object_reads().ownership_of(&db, None, id)?
        };
        self.buf
            .delete_object(self.store.cf_ids(), id, own == Some(Ownership::Owned));
        Ok(own.is_some())
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
        let deadline = Instant::now()
            .checked_add(wait)
            .ok_or_else(|| Error::InvalidArgument("wait is too long".into()))?;
        if self.buf.writes_nothing() {
            // Nothing to check, order or make durable: what it read was one snapshot
            // (`maps.rs`), so it cannot conflict, and a sync would protect nothing.
            self.finish_reads();
            self.finished = Some("committed");
            return Ok(());
        }
        let store = self.store.clone();
        let started = store.metrics().start();
        let (db, ticket) = loop {
            let refused = match store.writable_db() {
                Err(e) => e,
                Ok(db) => match commit::prepare(&store, &db, &mut self.buf) {
                    Ok(CommitOutcome::Queued(ticket)) => break (db, ticket),
                    Ok(CommitOutcome::QueueFull(full)) => {
                        // Not waited for with the database held: `close` waits for it.
                        drop(db);
                        if Instant::now() < deadline && commit::wait_for_room(&store, &self.buf, deadline)? {
                            continue;
                        }
                        return Err(full.into());
                    }
                    Ok(CommitOutcome::Conflict(conflict)) => conflict.into(),
                    Err(e) => e,
                },
            };
            self.rollback_because(&format!("commit refused: {refused}"), None)?;
            self.finished = Some(FAILED_COMMIT);
            return Err(refused);
        };
        let written = commit::wait_written(&store, &db, ticket);
        drop(db);
        match written {
            Ok(()) => {
                self.buf.forget_claims();
                self.finish_reads();
                self.finished = Some("committed");
                store.count_payload(self.payload_bytes, self.stored_bytes);
                store.metrics().count_commit(started);
                Ok(())
            }
            Err(e) => {
                self.restore_claims();
                self.finish_reads();
                self.finished = Some(FAILED_COMMIT);
                Err(e)
            }
        }
    }

    /// Prepares the commit without waiting for it to be written (tests interleave commits so);
    /// returns its ticket, or the refusal as the error `commit` returns.
    #[cfg(test)]
    pub(crate) fn prepare(&mut self, db: &DbRef<'_>) -> Result<u64> {
        match commit::prepare(&self.store, db, &mut self.buf)? {
            CommitOutcome::Queued(ticket) => Ok(ticket),
            CommitOutcome::QueueFull(full) => Err(full.into()),
            CommitOutcome::Conflict(conflict) => Err(conflict.into()),
        }
    }

    /// After a test waited for the commit it prepared to be written: nothing is left to hand
    /// back.
    #[cfg(test)]
    pub(crate) fn forget_claims(&mut self) {
        self.buf.forget_claims();
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
    /// the next open). A `retry_after` over `MAX_RETRY_DELAY_MILLIS` is refused first, with
    /// the transaction still open.
    pub fn rollback_because(&mut self, reason: &str, retry_after: Option<Duration>) -> Result<()> {
        if self.finished.is_some() {
            return Ok(());
        }
        let not_before = match retry_after {
            Some(d) => Some(not_before(d)?),
            None => None,
        };
        let doomed = self.hand_back_delivered(not_before);
        self.buf = Buffered::default();
        self.finish_reads();
        self.finished = Some("rolled back");
        dead_letters::move_to_dead_letter_queues(&self.store, doomed, reason)
    }

    /// Releases the snapshot its reads saw and the keys it held for update: it will read no
    /// more, and what it wrote (if anything) is written.
    fn finish_reads(&mut self) {
        self.view = None;
        if let Some(holder) = self.key_holder {
            self.store.key_locks().release(holder, &self.held_keys);
            self.held_keys.clear();
        }
    }

    /// Ends this transaction as dropping it does (one still open rolls back, its claimed
    /// entries back at the head of their queues) and starts a new one of the same store in its
    /// place: for a caller that keeps transaction objects for reuse (the JNI bridge returns
    /// them to a per-store pool, so that beginning costs no allocation).
    pub fn restart(&mut self) {
        let store = self.store.clone();
        *self = Transaction::new(store);
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

/// When an entry handed back with a delay of `delay` is due, if the delay is within
/// `MAX_RETRY_DELAY_MILLIS`.
fn not_before(delay: Duration) -> Result<Instant> {
    let too_long = || {
        Error::InvalidArgument(format!(
            "retry delay of {delay:?} exceeds the limit of {MAX_RETRY_DELAY_MILLIS} ms (365 days)"
        ))
    };
    if delay > Duration::from_millis(MAX_RETRY_DELAY_MILLIS) {
        return Err(too_long());
    }
    Instant::now().checked_add(delay).ok_or_else(too_long)
}

fn check_payload_len(len: usize) -> Result<()> {
    if len > MAX_PAYLOAD_BYTES {
        return Err(Error::InvalidArgument(format!(
            "payload of {len} bytes exceeds the limit of {MAX_PAYLOAD_BYTES} bytes"
        )));
    }
    Ok(())
}
