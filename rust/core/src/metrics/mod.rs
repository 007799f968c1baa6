//! Runtime figures of a store: commits and their latency, group-commit writes, and per-queue
//! counts (`queues.rs`), read with RocksDB's own figures by `Store::metrics` (`figures.rs`).
//!
//! Cost on the commit path: relaxed atomic additions and two clock reads per commit, one per
//! group write; the per-queue counts are plain additions under the queues' lock, where the
//! commit path already holds it. Nothing is allocated per commit. With
//! `StoreOptions::metrics` off nothing is counted and no clock is read.

mod figures;
mod histogram;
mod queues;
mod rate;
#[cfg(test)]
mod tests;

use std::time::Instant;

pub use figures::{QueueFigures, StoreMetrics};
pub use histogram::Summary;
pub use queues::QueueCounts;
pub(crate) use queues::QueueMetrics;
pub(crate) use rate::Clock;

use histogram::Histogram;
use rate::RateCounter;

/// The store-wide counts of one open store.
pub(crate) struct Metrics {
    enabled: bool,
    clock: Clock,
    commits: RateCounter,
    /// From `commit()` called to written and published, in nanoseconds.
    commit_latency: Histogram,
    /// The synced RocksDB write of one group (WAL append and fsync), in nanoseconds.
    synced_write: Histogram,
    /// Commits per group write.
    group_size: Histogram,
}

fn nanos(from: Instant, to: Instant) -> u64 {
    to.saturating_duration_since(from).as_nanos().min(u64::MAX as u128) as u64
}

impl Metrics {
    pub fn new(enabled: bool, clock: Clock) -> Metrics {
        Metrics {
            enabled,
            clock,
            commits: RateCounter::default(),
            commit_latency: Histogram::default(),
            synced_write: Histogram::default(),
            group_size: Histogram::default(),
        }
    }

    /// When a commit or a group write starts (`None` when nothing is counted).
    pub fn start(&self) -> Option<Instant> {
        self.enabled.then(Instant::now)
    }

    /// A commit that started at `started` is written and published.
    pub fn count_commit(&self, started: Option<Instant>) {
        if let Some(started) = started {
            let now = Instant::now();
            self.commit_latency.record(nanos(started, now));
            self.commits.add(self.clock.since_open(now), 1);
        }
    }

    /// A group write of `commits` commits that started at `started` is on disk.
    pub fn count_group_write(&self, started: Option<Instant>, commits: usize) {
        if let Some(started) = started {
            self.synced_write.record(nanos(started, Instant::now()));
            self.group_size.record(commits as u64);
        }
    }
}

/// A commit whose write failed consumed nothing: takes its claims back out of the consumed
/// counts (the failure path; they are then handed back, and counted as returned).
pub(crate) fn uncount_consumed(store: &crate::shared::Shared, claims: &[crate::buffered::Claim]) {
    let mut queues = store.queues();
    for c in claims {
        queues.metrics.uncount_consumed(c.queue, 1);
    }
}
