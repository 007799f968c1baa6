//! Counters with a per-second rate over the last minute, and the clock they count seconds by.
//!
//! A counter keeps its total and a ring of 60 per-second counts. Each slot packs the second it
//! counts (since the store opened) with its count in one atomic word, so adding is one
//! compare-and-swap on one word, with no lock: a slot still holding an older second is started
//! over. The rate is the events of the seconds that began within the last minute divided by the
//! time they cover (the time since open, when that is shorter; at least one second).

use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

pub(crate) const WINDOW_SECS: u64 = 60;

/// Time since the store opened, which every figure of one store counts from.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Clock {
    opened: Instant,
}

impl Clock {
    pub fn start() -> Clock {
        Clock { opened: Instant::now() }
    }

    pub fn since_open(&self, at: Instant) -> Duration {
        at.saturating_duration_since(self.opened)
    }

    pub fn now(&self) -> Duration {
        self.since_open(Instant::now())
    }
}

#[derive(Debug)]
pub(crate) struct RateCounter {
    total: AtomicU64,
    slots: [AtomicU64; WINDOW_SECS as usize],
}

fn pack(second: u64, count: u64) -> u64 {
    (second << 32) | count.min(u32::MAX as u64)
}

fn unpack(word: u64) -> (u64, u64) {
    (word >> 32, word & u32::MAX as u64)
}

impl Default for RateCounter {
    fn default() -> Self {
        // Second 0 with count 0 is an empty slot.
        RateCounter {
            total: AtomicU64::new(0),
            slots: std::array::from_fn(|_| AtomicU64::new(0)),
        }
    }
}

impl RateCounter {
    /// Counts `n` events at `at` (time since open).
    pub fn add(&self, at: Duration, n: u64) {
        if n == 0 {
            return;
        }
        self.total.fetch_add(n, Ordering::Relaxed);
        let second = at.as_secs() & u32::MAX as u64;
        let slot = &self.slots[(second % WINDOW_SECS) as usize];
        let mut word = slot.load(Ordering::Relaxed);
        loop {
            let (held, count) = unpack(word);
            let next = match held.cmp(&second) {
                std::cmp::Ordering::Equal => pack(second, count.saturating_add(n)),
                std::cmp::Ordering::Less => pack(second, n),
                // A later second already took the slot: this second is out of any window read
                // from now on.
                std::cmp::Ordering::Greater => return,
            };
            match slot.compare_exchange_weak(word, next, Ordering::Relaxed, Ordering::Relaxed) {
                Ok(_) => return,
                Err(seen) => word = seen,
            }
        }
    }

    /// Takes back `n` events counted earlier (from the total only: its second may be gone).
    pub fn take_back(&self, n: u64) {
        let _ = self
            .total
            .fetch_update(Ordering::Relaxed, Ordering::Relaxed, |t| Some(t.saturating_sub(n)));
    }

    pub fn total(&self) -> u64 {
        self.total.load(Ordering::Relaxed)
    }

    /// Events per second over the last minute as of `now` (time since open).
    pub fn per_second(&self, now: Duration) -> f64 {
        let second = now.as_secs();
        let first = second.saturating_sub(WINDOW_SECS - 1);
        let events: u64 = self
            .slots
            .iter()
            .map(|s| unpack(s.load(Ordering::Relaxed)))
            .filter(|&(held, count)| count > 0 && (first..=second).contains(&held))
            .map(|(_, count)| count)
            .sum();
        let covered = if second < WINDOW_SECS - 1 {
            now.as_secs_f64()
        } else {
            (WINDOW_SECS - 1) as f64 + now.subsec_nanos() as f64 / 1e9
        };
        events as f64 / covered.max(1.0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(secs: f64) -> Duration {
        Duration::from_secs_f64(secs)
    }

    #[test]
    fn the_rate_counts_the_seconds_that_began_within_the_last_minute() {
        let c = RateCounter::default();
        for s in 0..120u64 {
            c.add(Duration::from_secs(s), 10);
        }
        assert_eq!(c.total(), 1200);
        // Seconds 60..=119 counted, over 59.5 s (59 whole seconds and the half begun).
        assert!((c.per_second(at(119.5)) - 600.0 / 59.5).abs() < 1e-9);
        // A minute of silence later, nothing is left in the window.
        assert_eq!(c.per_second(at(185.0)), 0.0);
        assert_eq!(c.total(), 1200);
    }

    #[test]
    fn before_a_minute_has_passed_the_rate_is_over_the_time_since_open() {
        let c = RateCounter::default();
        c.add(at(0.2), 5);
        c.add(at(1.7), 15);
        assert!((c.per_second(at(4.0)) - 5.0).abs() < 1e-9);
        // Less than a second since open counts as one second.
        assert!((c.per_second(at(0.5)) - 5.0).abs() < 1e-9);
    }

    #[test]
    fn a_slot_taken_by_a_later_second_is_not_counted_into_by_an_earlier_one() {
        let c = RateCounter::default();
        c.add(Duration::from_secs(61), 3);
        c.add(Duration::from_secs(1), 100); // late: same slot, a minute earlier
        assert_eq!(c.total(), 103);
        assert!((c.per_second(at(61.0)) - 3.0 / 59.0).abs() < 1e-9);
        c.take_back(100);
        assert_eq!(c.total(), 3);
    }

    #[test]
    fn counts_added_from_many_threads_at_once_are_all_kept() {
        let c = RateCounter::default();
        std::thread::scope(|scope| {
            for _ in 0..4 {
                scope.spawn(|| (0..10_000).for_each(|_| c.add(Duration::from_secs(7), 1)));
            }
        });
        assert_eq!(c.total(), 40_000);
        assert!((c.per_second(at(7.5)) - 40_000.0 / 7.5).abs() < 1e-6);
    }
}
