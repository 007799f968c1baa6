//! The store-wide runtime counts of one open store (commits and their latency, group-commit
//! writes) and the instruments they and the per-queue counts (`queue/metrics.rs`) are kept with:
//! a clock, counters with a per-second rate, histograms. `Store::metrics` reads them with
//! RocksDB's own figures (`store/figures.rs`).
//!
//! Cost on the commit path: relaxed atomic additions and two clock reads per commit, one per
//! group write; the per-queue counts are plain additions under the queues' lock, where the
//! commit path already holds it. Nothing is allocated per commit. With
//! `StoreOptions::metrics` off nothing is counted and no clock is read.

mod histogram;
mod rate;

use std::time::Instant;

pub use histogram::Summary;
pub(crate) use rate::{Clock, RateCounter};

use histogram::Histogram;

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

/// The store-wide counts at one moment (`Metrics::read`).
pub(crate) struct Counts {
    pub counting: bool,
    pub uptime: std::time::Duration,
    pub commits: u64,
    pub commits_per_second: f64,
    pub commit_latency_nanos: Summary,
    pub synced_write_nanos: Summary,
    pub group_commit_size: Summary,
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

    /// The counts as of now.
    pub fn read(&self) -> Counts {
        let now = self.clock.now();
        Counts {
            counting: self.enabled,
            uptime: now,
            commits: self.commits.total(),
            commits_per_second: self.commits.per_second(now),
            commit_latency_nanos: self.commit_latency.summary(),
            synced_write_nanos: self.synced_write.summary(),
            group_commit_size: self.group_size.summary(),
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
