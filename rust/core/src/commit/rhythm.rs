//! When a group commit's leader should wait for more commits before it writes.
//!
//! Committers that run in turn (a flow's stages, each on its own thread) fall into step with the
//! writes: the commits of one group are released together, prepare their next firing while the
//! next group is written, and so miss it and join the one after. Groups then alternate between
//! the threads, about 1.5 commits a write for three of them, each commit waiting for about one
//! and a half writes. A leader that waits for the committers about to come back writes them all
//! at once, one write each. So a leader that finds fewer commits waiting than the largest of the
//! last few groups held waits until that many are waiting, for at most half a group write.
//! One committer alone never waits (its groups hold one commit), and committers that stop are
//! no longer waited for once a few groups of one have been written.
//!
//! Where writes are short (unsynced), none of this pays: a sleep and a wake-up cost more than
//! the write. Then no leader waits, and a committer whose commit another is writing watches for
//! the write's end, yielding the processor, instead of sleeping (`watch_for`); measured with
//! `examples/kv_ops` (4 threads each committing one unsynced update at a time): 45,000
//! commits/s sleeping and gathering, 150,000 watching.

use std::time::{Duration, Instant};

/// Groups whose sizes a leader remembers.
const GROUPS_REMEMBERED: usize = 8;

/// The longest a leader waits: a disk that stalled once must not hold every later group back
/// for half of the stall.
const LONGEST_WAIT: Duration = Duration::from_millis(5);

/// Writes shorter than this on average (unsynced ones, or synced ones on a RAM disk) cost less
/// than putting a thread to sleep and waking it: a committer waiting for one checks for it,
/// yielding the processor between checks, before it sleeps, and a leader does not wait for more
/// commits. A synced write on a real disk takes longer (40 µs
/// and more: 25,000 syncs/s is a fast disk), and keeps both.
const SHORTEST_SLEEPY_WRITE: Duration = Duration::from_micros(30);

/// A running mean of durations that weighs the newest by 1/8.
#[derive(Clone, Copy, Default, Debug)]
struct Mean {
    nanos: Option<u64>,
}

impl Mean {
    fn add(&mut self, sample: Duration) {
        let x = u64::try_from(sample.as_nanos()).unwrap_or(u64::MAX);
        self.nanos = Some(match self.nanos {
            None => x,
            Some(m) => m - m / 8 + x / 8,
        });
    }

    fn get(self) -> Option<Duration> {
        self.nanos.map(Duration::from_nanos)
    }
}

#[derive(Default, Debug)]
pub(crate) struct Rhythm {
    recent_groups: [usize; GROUPS_REMEMBERED],
    next_group: usize,
    write: Mean,
}

impl Rhythm {
    /// A group of `commits` was written in `took`.
    pub fn written(&mut self, commits: usize, took: Duration) {
        self.recent_groups[self.next_group] = commits;
        self.next_group = (self.next_group + 1) % GROUPS_REMEMBERED;
        self.write.add(took);
    }

    /// As many commits as the largest recent group held.
    pub fn expected_group(&self) -> usize {
        self.recent_groups.iter().copied().max().unwrap_or(0)
    }

    /// How long a committer waiting for a group write should keep checking for it before it
    /// sleeps: `None` when writes take long enough (a synced write) that sleeping costs little
    /// beside them; else twice the mean write, within `SHORTEST_SLEEPY_WRITE`.
    pub fn watch_for(&self) -> Option<Duration> {
        let write = self.write.get()?;
        (write < SHORTEST_SLEEPY_WRITE).then(|| (write * 2).min(SHORTEST_SLEEPY_WRITE))
    }

    /// Until when a leader that finds `waiting` commits (its own among them) at `now` should
    /// wait for more, if at all.
    pub fn gather_until(&self, waiting: usize, now: Instant) -> Option<Instant> {
        let expected = self.expected_group();
        if expected <= 1 || waiting >= expected {
            return None;
        }
        let write = self.write.get()?;
        if write < SHORTEST_SLEEPY_WRITE {
            // Waiting would cost a sleep and a wake-up, more than writing a second group.
            return None;
        }
        now.checked_add((write / 2).min(LONGEST_WAIT))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const US: Duration = Duration::from_micros(1);

    fn after_groups(groups: &[usize], write: Duration) -> Rhythm {
        let mut r = Rhythm::default();
        for &g in groups {
            r.written(g, write);
        }
        r
    }

    #[test]
    fn one_committer_alone_never_waits() {
        let r = after_groups(&[1; 20], 300 * US);
        assert_eq!(r.gather_until(1, Instant::now()), None);
    }

    #[test]
    fn a_leader_waits_half_a_write_for_as_many_commits_as_the_largest_recent_group() {
        let now = Instant::now();
        let r = after_groups(&[2, 1, 2, 1, 3, 1, 2, 1], 300 * US);
        assert_eq!(r.expected_group(), 3);
        assert_eq!(r.gather_until(1, now), Some(now + 150 * US));
        assert_eq!(r.gather_until(2, now), Some(now + 150 * US));
        assert_eq!(r.gather_until(3, now), None, "as many as the largest group are waiting");
        assert_eq!(r.gather_until(usize::MAX, now), None);
    }

    #[test]
    fn the_wait_follows_the_mean_write_time() {
        let now = Instant::now();
        let mut r = after_groups(&[3; 8], 300 * US);
        for _ in 0..100 {
            r.written(3, 1000 * US);
        }
        let until = r.gather_until(1, now).unwrap();
        assert!(until > now + 490 * US && until <= now + 500 * US, "{:?}", until - now);
        r.written(3, Duration::MAX);
        assert_eq!(
            r.gather_until(1, now),
            Some(now + LONGEST_WAIT),
            "a stalled write bounds the wait"
        );
    }

    #[test]
    fn short_writes_are_watched_for_and_no_leader_waits_for_more_commits() {
        let now = Instant::now();
        let r = after_groups(&[2, 1, 3, 1, 2, 1, 2, 1], 10 * US);
        assert_eq!(r.watch_for(), Some(20 * US), "twice the mean write");
        assert_eq!(r.gather_until(1, now), None, "a wake-up would cost more than the write");
        let r = after_groups(&[3; 8], 25 * US);
        assert_eq!(r.watch_for(), Some(SHORTEST_SLEEPY_WRITE), "at most the bound");
    }

    #[test]
    fn committers_sleep_through_synced_writes_and_no_one_watches_before_a_write_was_measured() {
        let r = after_groups(&[3; 8], 40 * US);
        assert_eq!(r.watch_for(), None, "a synced write on a fast disk");
        assert!(r.gather_until(1, Instant::now()).is_some());
        assert_eq!(Rhythm::default().watch_for(), None);
    }

    #[test]
    fn without_measurements_no_one_waits_and_old_groups_are_forgotten() {
        let now = Instant::now();
        assert_eq!(Rhythm::default().gather_until(1, now), None);
        let mut r = after_groups(&[3; 8], 300 * US);
        assert!(r.gather_until(1, now).is_some());
        for _ in 0..GROUPS_REMEMBERED {
            r.written(1, 300 * US);
        }
        assert_eq!(
            r.gather_until(1, now),
            None,
            "committers that stopped are no longer expected"
        );
    }
}
