//! Per-queue counts, kept beside the queues' state (`Queues::metrics_mut`) and updated only where
//! the queues' lock is already held (claims, commits being prepared, group writes published,
//! hand-backs), so counting takes no lock of its own.
//!
//! Entries carry no time on disk, so the age of a queue's oldest entry comes from memory: each
//! group write records when the sequence numbers it published became visible (one mark per
//! millisecond at most), and marks below the queue's lowest entry still present are dropped as
//! the head moves. Entries handed back by a rollback sit below the head and keep their marks.
//! Entries already in a queue when the store opened count as enqueued at open: their age is a
//! lower bound.

use std::collections::{HashMap, VecDeque};
use std::time::Duration;

use crate::keys::QueueId;
use crate::metrics::{Clock, RateCounter};

use super::{QueueState, Queues};

/// The counts of every queue of one store, by queue id.
#[derive(Debug, Default)]
pub(crate) struct QueueMetrics {
    /// `None` when the store counts nothing (`StoreOptions::metrics` off).
    clock: Option<Clock>,
    by_queue: HashMap<QueueId, QueueCounters>,
    /// Changes whenever a queue appears (its first publish) or is forgotten, so that a reader
    /// keeping one view per queue (the JMX beans) knows cheaply when to look again.
    version: u64,
}

#[derive(Debug, Default)]
struct QueueCounters {
    enqueued: RateCounter,
    polled: RateCounter,
    consumed: RateCounter,
    returned: u64,
    dead_lettered: u64,
    /// Entries below this sequence were in the queue when the store opened.
    present_at_open_below: u64,
    /// `(end, at)`: the entries below `end` not covered by an earlier mark became visible at
    /// `at` (milliseconds since open). Ordered by both.
    published: VecDeque<(u64, u64)>,
}

/// One queue's counts since the store opened, as read (all 0 when the store does not count).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct QueueCounts {
    /// Entries committed to the queue (counted once written and visible), and per second over
    /// the last minute.
    pub enqueued: u64,
    pub enqueued_per_second: f64,
    /// Entries claimed by polls, takes, drops and moves (counted at the claim).
    pub polled: u64,
    pub polled_per_second: f64,
    /// Claimed entries removed by commits (counted when the commit is ordered for writing,
    /// and taken back out if that write fails).
    pub consumed: u64,
    pub consumed_per_second: f64,
    /// Claimed entries handed back: by a rollback, a failed commit, or past a poll's byte budget.
    pub returned: u64,
    /// Entries moved to the queue's dead-letter queue.
    pub dead_lettered: u64,
    /// Milliseconds since the oldest entry present became visible; `None` for an empty queue.
    pub oldest_entry_age_millis: Option<u64>,
    /// The oldest entry was already in the queue when the store opened: its age counts from
    /// then, so it is a lower bound.
    pub oldest_age_is_lower_bound: bool,
}

impl QueueCounters {
    /// Drops the marks of entries no longer present (all below `lowest`).
    fn prune(&mut self, lowest: Option<u64>) {
        match lowest {
            Some(lowest) => {
                while self.published.front().is_some_and(|&(end, _)| end <= lowest) {
                    self.published.pop_front();
                }
            }
            None => self.published.clear(),
        }
    }
}

fn millis(d: Duration) -> u64 {
    d.as_millis().min(u64::MAX as u128) as u64
}

impl QueueMetrics {
    /// Counting (or not) for a store just opened with these queues in it.
    pub fn at_open(enabled: bool, clock: Clock, states: &HashMap<QueueId, QueueState>) -> QueueMetrics {
        if !enabled {
            return QueueMetrics::default();
        }
        let by_queue = states
            .iter()
            .map(|(&id, q)| {
                (
                    id,
                    QueueCounters {
                        present_at_open_below: q.tail(),
                        ..QueueCounters::default()
                    },
                )
            })
            .collect();
        QueueMetrics {
            clock: Some(clock),
            by_queue,
            version: 0,
        }
    }

    fn counters(&mut self, queue: QueueId) -> Option<(&mut QueueCounters, Clock)> {
        let clock = self.clock?;
        Some((self.by_queue.entry(queue).or_default(), clock))
    }

    /// `n` entries of `queue` claimed by a poll, take, drop or move.
    pub fn count_claimed(&mut self, queue: QueueId, n: u64) {
        if let Some((c, clock)) = self.counters(queue) {
            c.polled.add(clock.now(), n);
        }
    }

    /// `n` claimed entries of `queue` consumed by a commit now ordered for writing.
    pub fn count_consumed(&mut self, queue: QueueId, n: u64) {
        if let Some((c, clock)) = self.counters(queue) {
            c.consumed.add(clock.now(), n);
        }
    }

    /// A commit whose consumption was counted failed to write: its entries were not consumed
    /// (they are handed back, and counted as returned, by `count_returned`).
    pub fn uncount_consumed(&mut self, queue: QueueId, n: u64) {
        if let Some((c, _)) = self.counters(queue) {
            c.consumed.take_back(n);
        }
    }

    /// `n` claimed entries of `queue` handed back (rollback, failed commit, or claimed past a
    /// poll's byte budget).
    pub fn count_returned(&mut self, queue: QueueId, n: u64) {
        if let Some((c, _)) = self.counters(queue) {
            c.returned += n;
        }
    }

    /// `n` entries of `queue` moved to its dead-letter queue.
    pub fn count_dead_lettered(&mut self, queue: QueueId, n: u64) {
        if let Some((c, _)) = self.counters(queue) {
            c.dead_lettered += n;
        }
    }

    /// `queue` was forgotten (dropped, nothing left): its counts go with it.
    pub fn forget(&mut self, queue: QueueId) {
        if self.by_queue.remove(&queue).is_some() {
            self.version += 1;
        }
    }

    /// How many age marks `queue` holds.
    #[cfg(test)]
    pub(super) fn marks(&self, queue: QueueId) -> usize {
        self.by_queue.get(&queue).map_or(0, |c| c.published.len())
    }

    pub fn version(&self) -> u64 {
        self.version
    }

    /// `n` entries of `q` just published (written and visible).
    fn published(&mut self, q: &QueueState, n: u64) {
        if let Some(clock) = self.clock {
            self.published_at(q, n, clock.now());
        }
    }

    /// `published` at `now` (time since open).
    pub(super) fn published_at(&mut self, q: &QueueState, n: u64, now: Duration) {
        if self.clock.is_none() {
            return;
        }
        let appeared = !self.by_queue.contains_key(&q.id);
        let c = self.by_queue.entry(q.id).or_default();
        if appeared {
            self.version += 1;
        }
        c.enqueued.add(now, n);
        c.prune(q.lowest_present());
        let at = millis(now);
        match c.published.back_mut() {
            Some((end, when)) if *when == at => *end = q.tail(),
            _ => c.published.push_back((q.tail(), at)),
        }
    }

    /// The counts of `q` as of now.
    fn read(&mut self, q: &QueueState) -> QueueCounts {
        match self.clock {
            Some(clock) => self.read_at(q, clock.now()),
            None => QueueCounts::default(),
        }
    }

    /// `read` at `now` (time since open).
    pub(super) fn read_at(&mut self, q: &QueueState, now: Duration) -> QueueCounts {
        let Some(c) = self.by_queue.get_mut(&q.id) else {
            return QueueCounts::default();
        };
        let lowest = q.lowest_present();
        c.prune(lowest);
        let (oldest_entry_age_millis, oldest_age_is_lower_bound) = match lowest {
            None => (None, false),
            Some(seq) if seq < c.present_at_open_below => (Some(millis(now)), true),
            Some(_) => (
                c.published.front().map(|&(_, at)| millis(now).saturating_sub(at)),
                false,
            ),
        };
        QueueCounts {
            enqueued: c.enqueued.total(),
            enqueued_per_second: c.enqueued.per_second(now),
            polled: c.polled.total(),
            polled_per_second: c.polled.per_second(now),
            consumed: c.consumed.total(),
            consumed_per_second: c.consumed.per_second(now),
            returned: c.returned,
            dead_lettered: c.dead_lettered,
            oldest_entry_age_millis,
            oldest_age_is_lower_bound,
        }
    }
}

impl Queues {
    /// Counts a group write's `n` entries of `queue` as enqueued, once published.
    pub(crate) fn count_published(&mut self, queue: QueueId, n: u64) {
        let Queues { states, metrics, .. } = self;
        if let Some(q) = states.get(&queue) {
            metrics.published(q, n);
        }
    }

    /// The counts of the queue with id `queue`, if it exists.
    pub(crate) fn counts_of(&mut self, queue: QueueId) -> Option<QueueCounts> {
        let Queues { states, metrics, .. } = self;
        states.get(&queue).map(|q| metrics.read(q))
    }
}

#[cfg(test)]
mod tests {
    use std::collections::HashMap;
    use std::time::Duration;

    use super::*;
    use crate::{Store, StoreOptions};

    #[test]
    fn dead_lettered_entries_are_counted_per_queue() {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::open(
            dir.path(),
            StoreOptions {
                sync_on_commit: false,
                metrics: true,
                ..StoreOptions::default()
            },
        )
        .unwrap();
        let mut tx = store.begin().unwrap();
        for i in 0..3 {
            tx.enqueue("in", format!("{i}").as_bytes()).unwrap();
        }
        tx.commit().unwrap();
        let id = store.shared.queues().id("in").unwrap();
        store.shared.queues().metrics.count_dead_lettered(id, 2);
        store.shared.queues().metrics.count_dead_lettered(id, 1);
        assert_eq!(store.queue_metrics("in").unwrap().unwrap().counts.dead_lettered, 3);
        assert_eq!(store.metrics().unwrap().queues[0].counts.dead_lettered, 3);
    }

    fn ms(n: u64) -> Duration {
        Duration::from_millis(n)
    }

    /// Publishes `n` entries of `q` at `at` ms, as a group write does.
    fn publish(m: &mut QueueMetrics, q: &mut QueueState, n: u64, at: u64) {
        q.reserve(n, 0);
        q.publish(n, 0);
        m.published_at(q, n, ms(at));
    }

    fn consume(q: &mut QueueState, n: usize) {
        let mut seqs = Vec::new();
        q.claim(n, &mut seqs);
        seqs.iter().for_each(|&s| q.consumed(s));
    }

    #[test]
    fn the_oldest_age_follows_the_head_and_entries_handed_back_keep_theirs() {
        let mut q = QueueState::new(0, 0, 0);
        let mut m = QueueMetrics::at_open(true, Clock::start(), &HashMap::new());
        publish(&mut m, &mut q, 5, 1_000); // 0..5
        publish(&mut m, &mut q, 5, 2_000); // 5..10
        assert_eq!(m.read_at(&q, ms(3_000)).oldest_entry_age_millis, Some(2_000));

        // Claimed and handed back: below the head, still the oldest.
        let mut claimed = Vec::new();
        q.claim(3, &mut claimed);
        claimed.iter().rev().for_each(|&s| q.give_back(s));
        publish(&mut m, &mut q, 1, 2_500); // 10..11, prunes nothing below entry 0
        assert_eq!(m.read_at(&q, ms(3_000)).oldest_entry_age_millis, Some(2_000));

        consume(&mut q, 5); // 0..5 gone
        let c = m.read_at(&q, ms(3_000));
        assert_eq!(
            (c.oldest_entry_age_millis, c.oldest_age_is_lower_bound),
            (Some(1_000), false)
        );
        consume(&mut q, 5);
        assert_eq!(m.read_at(&q, ms(3_000)).oldest_entry_age_millis, Some(500));
        consume(&mut q, 1);
        assert_eq!(m.read_at(&q, ms(3_000)).oldest_entry_age_millis, None);
        assert_eq!(m.marks(0), 0, "marks of consumed entries are dropped");
    }

    #[test]
    fn marks_of_one_millisecond_are_merged_so_memory_follows_time_not_commits() {
        let mut q = QueueState::new(0, 0, 0);
        let mut m = QueueMetrics::at_open(true, Clock::start(), &HashMap::new());
        for _ in 0..1_000 {
            publish(&mut m, &mut q, 1, 7);
        }
        publish(&mut m, &mut q, 1, 8);
        assert_eq!(m.marks(0), 2);
        consume(&mut q, 1_000);
        assert_eq!(m.read_at(&q, ms(10)).oldest_entry_age_millis, Some(2));
    }

    #[test]
    fn entries_there_at_open_have_the_time_since_open_as_their_age() {
        let mut states = HashMap::new();
        states.insert(0, QueueState::new(0, 0, 4));
        let mut m = QueueMetrics::at_open(true, Clock::start(), &states);
        let mut q = states.remove(&0).unwrap();
        let c = m.read_at(&q, ms(500));
        assert_eq!(
            (c.oldest_entry_age_millis, c.oldest_age_is_lower_bound, c.enqueued),
            (Some(500), true, 0)
        );
        publish(&mut m, &mut q, 2, 600);
        consume(&mut q, 4);
        let c = m.read_at(&q, ms(700));
        assert_eq!(
            (c.oldest_entry_age_millis, c.oldest_age_is_lower_bound, c.enqueued),
            (Some(100), false, 2)
        );
    }
}
