//! Group commit: transactions prepare their write batch under the store's commit lock (which
//! fixes their order), then the first one to wait becomes the leader, writes every batch
//! waiting at that moment as one synced RocksDB write, publishes them in order and wakes the
//! others. Concurrent committers thus share one fsync instead of paying one each in turn.
//!
//! A leader that finds fewer commits waiting than recent groups held first waits a little for
//! the others (`commit_rhythm.rs`).
//!
//! A failed group write leaves the store failed for writes (RocksDB itself refuses further
//! writes after a failed WAL write): later commits are refused until the store is reopened.
//! Every commit of the failed group, and every one queued behind it, fails with the cause of
//! the failure, so each of their transactions hands back what it had polled.

use std::collections::VecDeque;
use std::path::Path;
use std::sync::OnceLock;
use std::time::Instant;

use parking_lot::{Condvar, Mutex};
use uuid::Uuid;

use crate::batch::BatchRep;
use crate::commit_rhythm::Rhythm;
use crate::error::{Error, Result, RocksStatus};
use crate::hash::IdMap;
use crate::keys::QueueId;

/// What commits prepared but not yet written have done to objects, so that the next commit
/// prepared under the commit lock reads the state it will be written after, not the disk's.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum PendingObject {
    /// Deleted (explicitly or with its last owning entry).
    Deleted,
    /// Alive and queue-owned, with this many owning entries.
    Count(u64),
    /// Alive and written by `put` after a delete: owned by no entry, so consuming an entry
    /// written for the object deleted before it leaves it alone.
    Put,
}

/// State guarded by the commit lock.
#[derive(Default)]
pub(crate) struct CommitState {
    pub pending_objects: IdMap<Uuid, (PendingObject, u64)>,
    /// Ticket of the last commit prepared that deletes objects with `delete`: a transaction
    /// that read its entries' objects before that commit was written re-reads, at commit,
    /// whether the objects it consumes are still queue-owned (`Buffered::decide_references`).
    pub last_delete: Option<u64>,
    pub maps: crate::maps::MapCommitState,
    /// The memory of the last written batch (`BatchRep::reusing`), for the next commit's
    /// entries: a large commit in fresh memory pays a page fault per 4 KiB on top of the copy.
    pub spare_batch: Vec<u8>,
}

/// A written batch's memory is kept for the next commit up to this size (a commit of 10^5
/// small entries is about 6 MB).
pub(crate) const MAX_SPARE_BATCH_BYTES: usize = 16 << 20;

impl CommitState {
    /// Keeps `buffer` for the next commit, unless it is larger than `MAX_SPARE_BATCH_BYTES` or
    /// smaller than the one kept; returns the buffer not kept, for the caller to free once it
    /// has released the commit lock (freeing megabytes is an `munmap`).
    pub fn keep_spare_batch(&mut self, buffer: Vec<u8>) -> Vec<u8> {
        if buffer.capacity() <= MAX_SPARE_BATCH_BYTES && buffer.capacity() > self.spare_batch.capacity() {
            return std::mem::replace(&mut self.spare_batch, buffer);
        }
        buffer
    }
}

/// A prepared commit waiting to be written.
pub(crate) struct Prepared {
    pub batch: BatchRep,
    /// Entries to publish per queue once written.
    pub appends: Vec<Append>,
    /// The keys of the maps family it writes, marked in the map cache until it is dropped: held
    /// for its `Drop`, never read.
    #[allow(dead_code)]
    pub map_marks: crate::read_cache::WriteMarks,
    /// Likewise the ids of the objects it writes that the object cache could hold.
    #[allow(dead_code)]
    pub object_marks: crate::read_cache::WriteMarks,
}

/// The entries a commit adds to one queue, published once it is written.
pub(crate) struct Append {
    pub queue: QueueId,
    /// The sequences reserved for them: `first..first + n`.
    pub first: u64,
    pub n: u64,
    /// As written, to be kept in memory once published (`entry_cache.rs`); none for dead
    /// letters, which only a listing or an explicit move reads.
    pub entries: std::collections::VecDeque<crate::keys::Entry>,
    /// The payload bytes they count.
    pub bytes: u64,
}

#[derive(Default)]
pub(crate) struct Pipeline {
    next_ticket: u64,
    waiting: VecDeque<(u64, Prepared)>,
    leader: bool,
    /// Every ticket below this has been written (or failed).
    done_below: u64,
    /// First ticket of the group whose write failed.
    failed_from: Option<u64>,
    rhythm: Rhythm,
}

/// Why the first failed group write failed: RocksDB's status and message (without RockCask's
/// context, so that repeating it in later refusals does not wrap it again).
struct Failure {
    status: RocksStatus,
    message: String,
}

impl Failure {
    fn of(e: &Error) -> Failure {
        match e {
            Error::Rocks { status, message, .. } => Failure { status: status.clone(), message: message.clone() },
            other => Failure { status: RocksStatus::IOError, message: other.to_string() },
        }
    }
}

pub(crate) struct GroupCommit {
    pipeline: Mutex<Pipeline>,
    written: Condvar,
    /// Notified on each commit queued, for a leader waiting for more (`commit_rhythm.rs`).
    arrived: Condvar,
    failure: OnceLock<Failure>,
    /// Makes the next group write fail as a full disk does, before it reaches RocksDB.
    #[cfg(test)]
    pub fail_next_write: std::sync::atomic::AtomicBool,
}

impl Default for GroupCommit {
    fn default() -> Self {
        GroupCommit {
            pipeline: Mutex::new(Pipeline::default()),
            written: Condvar::new(),
            arrived: Condvar::new(),
            failure: OnceLock::new(),
            #[cfg(test)]
            fail_next_write: std::sync::atomic::AtomicBool::new(false),
        }
    }
}

impl GroupCommit {
    /// Why the store refuses writes (RocksDB's message), if a group write failed.
    pub fn failure(&self) -> Option<&str> {
        self.failure.get().map(|f| f.message.as_str())
    }

    /// Every commit with a ticket below this one is written.
    pub fn written_below(&self) -> u64 {
        self.pipeline.lock().done_below
    }

    /// Queue a prepared commit. Call under the commit lock, so tickets follow preparation order.
    pub fn submit(&self, prepared: Prepared) -> u64 {
        let mut p = self.pipeline.lock();
        let ticket = p.next_ticket;
        p.next_ticket += 1;
        p.waiting.push_back((ticket, prepared));
        // With no leader waiting for it, this only reads an atomic.
        self.arrived.notify_one();
        ticket
    }

    /// Wait until `ticket` is written, leading the write of a group when no one else is:
    /// `write` writes one group's batches, in order, and publishes them (`commit.rs`). `path`
    /// names the store in errors.
    pub fn wait(&self, path: &Path, ticket: u64, write: impl Fn(&mut [(u64, Prepared)]) -> Result<()>) -> Result<()> {
        let mut p = self.pipeline.lock();
        loop {
            if p.done_below > ticket {
                return match (p.failed_from, self.failure.get()) {
                    (Some(first), Some(failure)) if ticket >= first => Err(Error::Rocks {
                        status: failure.status.clone(),
                        context: format!("committing to {}", path.display()),
                        message: failure.message.clone(),
                    }),
                    (Some(first), None) if ticket >= first => Err(Error::Internal("a commit group failed without a cause".into())),
                    _ => Ok(()),
                };
            }
            if p.leader {
                self.written.wait(&mut p);
                continue;
            }
            p.leader = true;
            if let Some(until) = p.rhythm.gather_until(p.waiting.len(), Instant::now()) {
                while p.waiting.len() < p.rhythm.expected_group() && !self.arrived.wait_until(&mut p, until).timed_out() {}
            }
            let mut group: Vec<(u64, Prepared)> = p.waiting.drain(..).collect();
            drop(p);
            let started = Instant::now();
            let (first, last) = (group.first().map_or(ticket, |g| g.0), group.last().map_or(ticket, |g| g.0));
            // A panic here must not leave `leader` set (every later commit would wait forever):
            // it becomes a failed write like any other.
            let written = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| self.write_group(&mut group, &write)))
                .unwrap_or_else(|_| Err(Error::Internal("panic while writing a commit group".into())));
            // Written, failed or refused: the commits' marks in the read caches end here, before
            // their tickets count as written (`WriteMarks`).
            let commits = group.len();
            drop(group);
            p = self.pipeline.lock();
            p.rhythm.written(commits, started.elapsed());
            p.leader = false;
            p.done_below = p.done_below.max(last + 1);
            if let Err(e) = written {
                let _ = self.failure.set(Failure::of(&e));
                p.failed_from = Some(p.failed_from.map_or(first, |f| f.min(first)));
            }
            self.written.notify_all();
        }
    }

    fn write_group(&self, group: &mut [(u64, Prepared)], write: impl Fn(&mut [(u64, Prepared)]) -> Result<()>) -> Result<()> {
        if self.failure().is_some() {
            return Err(Error::Internal("an earlier write failed".into()));
        }
        write(group)
    }
}
