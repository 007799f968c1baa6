//! Group commit: transactions prepare their write batch under the store's commit lock (which
//! fixes their order), then the first one to wait becomes the leader, writes every batch
//! waiting at that moment as one synced RocksDB write, publishes them in order and wakes the
//! others. Concurrent committers thus share one fsync instead of paying one each in turn.
//!
//! A leader that finds fewer commits waiting than recent groups held first waits a little for
//! the others (`rhythm.rs`).
//!
//! A failed group write leaves the store failed for writes (RocksDB itself refuses further
//! writes after a failed WAL write): later commits are refused until the store is reopened.
//! Every commit of the failed group, and every one queued behind it, fails with the cause of
//! the failure, so each of their transactions hands back what it had polled.

use std::collections::VecDeque;
use std::path::Path;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::OnceLock;
use std::time::{Duration, Instant};

use parking_lot::{Condvar, Mutex};

use super::rhythm::Rhythm;
use crate::batch::BatchRep;
use crate::error::{Error, Result, RocksStatus};
use crate::keys::{Entry, QueueId};
use crate::read_cache::WriteMarks;

/// A prepared commit waiting to be written.
pub(super) struct Prepared {
    pub(super) batch: BatchRep,
    /// Entries to publish per queue once written.
    pub(super) appends: Vec<Append>,
    /// The keys of the maps family it writes, marked in the map cache until it is dropped: held
    /// for its `Drop`, never read.
    pub(super) _map_marks: WriteMarks,
    /// Likewise the ids of the objects it writes that the object cache could hold.
    pub(super) _object_marks: WriteMarks,
}

/// The entries a commit adds to one queue, published once it is written.
pub(super) struct Append {
    pub(super) queue: QueueId,
    /// The sequences reserved for them: `first..first + n`.
    pub(super) first: u64,
    pub(super) n: u64,
    /// As written, to be kept in memory once published (`entry_cache.rs`); none for dead
    /// letters, which only a listing or an explicit move reads.
    pub(super) entries: VecDeque<Entry>,
    /// The payload bytes they count.
    pub(super) bytes: u64,
}

#[derive(Default)]
struct Pipeline {
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
            Error::Rocks { status, message, .. } => Failure {
                status: status.clone(),
                message: message.clone(),
            },
            other => Failure {
                status: RocksStatus::IOError,
                message: other.to_string(),
            },
        }
    }
}

pub(crate) struct GroupCommit {
    pipeline: Mutex<Pipeline>,
    written: Condvar,
    /// Notified on each commit queued, for a leader waiting for more (`rhythm.rs`).
    arrived: Condvar,
    failure: OnceLock<Failure>,
    /// Group writes ended (written or failed), for committers watching for one (`watch_groups`).
    groups_written: AtomicU64,
    /// Makes the next group write fail as a full disk does, before it reaches RocksDB.
    #[cfg(test)]
    fail_next_write: std::sync::atomic::AtomicBool,
}

impl Default for GroupCommit {
    fn default() -> Self {
        GroupCommit {
            pipeline: Mutex::new(Pipeline::default()),
            written: Condvar::new(),
            arrived: Condvar::new(),
            failure: OnceLock::new(),
            groups_written: AtomicU64::new(0),
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

    /// The ticket the next `submit` gives. Call under the commit lock (only it submits).
    pub(super) fn next_ticket(&self) -> u64 {
        self.pipeline.lock().next_ticket
    }

    /// Queue a prepared commit. Call under the commit lock, so tickets follow preparation order.
    pub(super) fn submit(&self, prepared: Prepared) -> u64 {
        let mut p = self.pipeline.lock();
        let ticket = p.next_ticket;
        p.next_ticket += 1;
        p.waiting.push_back((ticket, prepared));
        // With no leader waiting for it, this only reads an atomic.
        self.arrived.notify_one();
        ticket
    }

    /// Wait until `ticket` is written, leading the write of a group when no one else is:
    /// `write` writes one group's batches, in order, and publishes them (`commit/mod.rs`). `path`
    /// names the store in errors.
    pub(super) fn wait(
        &self,
        path: &Path,
        ticket: u64,
        write: impl Fn(&mut [(u64, Prepared)]) -> Result<()>,
    ) -> Result<()> {
        let mut p = self.pipeline.lock();
        loop {
            if p.done_below > ticket {
                return match (p.failed_from, self.failure.get()) {
                    (Some(first), Some(failure)) if ticket >= first => Err(Error::Rocks {
                        status: failure.status.clone(),
                        context: format!("committing to {}", path.display()),
                        message: failure.message.clone(),
                    }),
                    (Some(first), None) if ticket >= first => {
                        Err(Error::Internal("a commit group failed without a cause".into()))
                    }
                    _ => Ok(()),
                };
            }
            if p.leader {
                match p.rhythm.watch_for() {
                    Some(watch) => self.watch_groups(&mut p, watch),
                    None => self.written.wait(&mut p),
                }
                continue;
            }
            p.leader = true;
            if let Some(until) = p.rhythm.gather_until(p.waiting.len(), Instant::now()) {
                while p.waiting.len() < p.rhythm.expected_group() && !self.arrived.wait_until(&mut p, until).timed_out()
                {
                }
            }
            let mut group: Vec<(u64, Prepared)> = p.waiting.drain(..).collect();
            drop(p);
            let started = Instant::now();
            let (first, last) = (
                group.first().map_or(ticket, |g| g.0),
                group.last().map_or(ticket, |g| g.0),
            );
            // A panic here must not leave `leader` set (every later commit would wait forever):
            // it becomes a failed write like any other.
            let written =
                std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| self.write_group(&mut group, &write)))
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
            self.groups_written.fetch_add(1, Ordering::Release);
            self.written.notify_all();
        }
    }

    /// Waits, without the pipeline's lock, until the group being written ends or `watch` has
    /// passed, yielding the processor between looks: where writes are short, a committer that
    /// slept on the condition variable would spend longer being woken than the write took.
    fn watch_groups(&self, p: &mut parking_lot::MutexGuard<'_, Pipeline>, watch: Duration) {
        let group = self.groups_written.load(Ordering::Acquire);
        parking_lot::MutexGuard::unlocked(p, || {
            let until = Instant::now() + watch;
            while self.groups_written.load(Ordering::Acquire) == group && Instant::now() < until {
                std::thread::yield_now();
            }
        });
    }

    /// The next group write is to fail as a full disk does, before it reaches RocksDB.
    #[cfg(test)]
    pub(crate) fn fail_next_write(&self) {
        self.fail_next_write.store(true, std::sync::atomic::Ordering::SeqCst);
    }

    /// Whether this group write is to fail (`fail_next_write`).
    #[cfg(test)]
    pub(super) fn simulates_a_failure(&self) -> bool {
        self.fail_next_write.swap(false, std::sync::atomic::Ordering::SeqCst)
    }

    fn write_group(
        &self,
        group: &mut [(u64, Prepared)],
        write: impl Fn(&mut [(u64, Prepared)]) -> Result<()>,
    ) -> Result<()> {
        if self.failure().is_some() {
            return Err(Error::Internal("an earlier write failed".into()));
        }
        write(group)
    }
}
