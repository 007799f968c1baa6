//! A fixed log-bucketed histogram of atomics (the layout of HdrHistogram with one significant
//! hex digit): values below 32 have a bucket each; above, every power of two is cut into 16
//! buckets, so a reported percentile is at most 1/16 (6.25 %) above the true value and never
//! below it. Recording is three relaxed atomic additions, with no lock and no allocation.

use std::sync::atomic::{AtomicU64, Ordering};

/// Sub-buckets per power of two, as a power of two.
const SUB_BITS: u32 = 4;
const SUB: usize = 1 << SUB_BITS;
/// Enough buckets for every `u64`.
const BUCKETS: usize = (65 - SUB_BITS as usize) * SUB;

pub(crate) struct Histogram {
    buckets: Box<[AtomicU64]>,
    sum: AtomicU64,
    max: AtomicU64,
}

/// What a histogram held when it was read: count, sum, the usual percentiles and the maximum,
/// in the unit of the values recorded.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Summary {
    pub count: u64,
    pub sum: u64,
    pub p50: u64,
    pub p90: u64,
    pub p99: u64,
    pub p999: u64,
    pub max: u64,
}

impl Summary {
    /// The mean, or 0 for no values.
    pub fn mean(&self) -> f64 {
        if self.count == 0 {
            0.0
        } else {
            self.sum as f64 / self.count as f64
        }
    }
}

fn bucket_of(v: u64) -> usize {
    if v < SUB as u64 {
        return v as usize;
    }
    let shift = 63 - v.leading_zeros() - SUB_BITS;
    (shift as usize + 1) * SUB + ((v >> shift) as usize - SUB)
}

/// The largest value bucket `i` holds.
fn highest_in(i: usize) -> u64 {
    if i < SUB {
        return i as u64;
    }
    let shift = i / SUB - 1;
    let top = ((SUB + i % SUB + 1) as u128) << shift;
    (top - 1).min(u64::MAX as u128) as u64
}

impl Default for Histogram {
    fn default() -> Self {
        Histogram {
            buckets: (0..BUCKETS).map(|_| AtomicU64::new(0)).collect(),
            sum: AtomicU64::new(0),
            max: AtomicU64::new(0),
        }
    }
}

impl Histogram {
    pub fn record(&self, v: u64) {
        self.buckets[bucket_of(v)].fetch_add(1, Ordering::Relaxed);
        self.sum.fetch_add(v, Ordering::Relaxed);
        self.max.fetch_max(v, Ordering::Relaxed);
    }

    /// Reads every bucket once. Values recorded meanwhile may be in it or not, each whole.
    pub fn summary(&self) -> Summary {
        let counts: Vec<u64> = self.buckets.iter().map(|b| b.load(Ordering::Relaxed)).collect();
        let count: u64 = counts.iter().sum();
        let max = self.max.load(Ordering::Relaxed);
        let at = |q: f64| -> u64 {
            if count == 0 {
                return 0;
            }
            let rank = ((q * count as f64).ceil() as u64).clamp(1, count);
            let mut seen = 0;
            for (i, &n) in counts.iter().enumerate() {
                seen += n;
                if seen >= rank {
                    return highest_in(i).min(max);
                }
            }
            max
        };
        Summary {
            count,
            sum: self.sum.load(Ordering::Relaxed),
            p50: at(0.50),
            p90: at(0.90),
            p99: at(0.99),
            p999: at(0.999),
            max,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_value_falls_in_a_bucket_whose_highest_value_is_at_most_a_sixteenth_above_it() {
        let mut v = 1u64;
        while v < u64::MAX / 3 {
            for x in [v - 1, v, v + 1, v * 3 / 2] {
                let high = highest_in(bucket_of(x));
                assert!(high >= x, "{x} -> {high}");
                assert!((high - x) as f64 <= x as f64 / 16.0 + 1.0, "{x} -> {high}");
            }
            v *= 2;
        }
        assert_eq!(bucket_of(u64::MAX), BUCKETS - 1);
        assert_eq!(highest_in(BUCKETS - 1), u64::MAX);
        // Buckets are in value order.
        assert!((1..BUCKETS).all(|i| highest_in(i) > highest_in(i - 1)));
    }

    #[test]
    fn percentiles_of_a_uniform_distribution_are_within_a_sixteenth_above_the_exact_ones() {
        let h = Histogram::default();
        for v in 1..=100_000u64 {
            h.record(v);
        }
        let s = h.summary();
        assert_eq!((s.count, s.sum, s.max), (100_000, 100_000 * 100_001 / 2, 100_000));
        for (got, exact) in [(s.p50, 50_000u64), (s.p90, 90_000), (s.p99, 99_000), (s.p999, 99_900)] {
            assert!(
                got >= exact && got as f64 <= exact as f64 * (1.0 + 1.0 / 16.0),
                "{got} for {exact}"
            );
        }
        assert!((s.mean() - 50_000.5).abs() < 1e-6);
    }

    #[test]
    fn a_few_large_values_show_in_the_high_percentiles_only() {
        let h = Histogram::default();
        for _ in 0..990 {
            h.record(10);
        }
        for _ in 0..10 {
            h.record(1_000_000);
        }
        let s = h.summary();
        assert_eq!((s.p50, s.p90), (10, 10), "small values below 32 are exact");
        assert!(s.p99 == 10 && s.p999 >= 1_000_000 && s.max == 1_000_000, "{s:?}");
        assert_eq!(Histogram::default().summary(), Summary::default());
    }

    #[test]
    fn values_recorded_from_many_threads_are_all_counted() {
        let h = Histogram::default();
        std::thread::scope(|scope| {
            for t in 0..4u64 {
                let h = &h;
                scope.spawn(move || {
                    for v in 0..50_000u64 {
                        h.record(v * 4 + t);
                    }
                });
            }
        });
        let s = h.summary();
        assert_eq!(s.count, 200_000);
        assert_eq!(s.sum, (0..200_000u64).sum::<u64>());
        assert_eq!(s.max, 199_999);
        assert!(s.p50 >= 100_000 && s.p50 <= 100_000 + 100_000 / 16, "{s:?}");
    }
}
