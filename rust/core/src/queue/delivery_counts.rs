//! A queue's delivery counts: how often each present entry was delivered without being
//! consumed, when a handed-back one may be delivered again, and, for queues with a delivery
//! limit, which delivery record on disk (`deliveries.rs`) holds each count.

use std::time::Instant;

use super::state::QueueState;

impl QueueState {
    /// `give_back` of an entry that was delivered (its `deliveries`-th delivery, counted in
    /// delivery record `record` if the queue keeps them) and is not to be claimed again before
    /// `not_before`.
    pub fn give_back_delivered(&mut self, seq: u64, deliveries: u32, record: Option<u64>, not_before: Option<Instant>) {
        if self.in_flight.remove(&seq) {
            self.returned.insert(seq);
            self.note_failed_deliveries(seq, deliveries);
            if let Some(r) = record {
                self.record_of.insert(seq, r);
            }
            match not_before {
                Some(t) => {
                    self.claimed_delays.remove(&seq);
                    self.not_before.insert(seq, t);
                }
                None => self.resume_delay(seq),
            }
        }
    }

    /// Entry `seq` is counted in delivery record `record` (again, after a failed write; or as
    /// found at open), no longer in the one it had.
    pub fn give_back_record(&mut self, seq: u64, record: u64) {
        if let Some(old) = self.record_of.insert(seq, record) {
            self.release_record(old);
        }
        self.attach_record(record, 1);
    }

    /// Delivery record `record` now holds the counts of `entries` entries (just delivered, or
    /// found at open).
    pub fn attach_record(&mut self, record: u64, entries: u32) {
        if entries > 0 {
            *self.record_live.entry(record).or_insert(0) += entries;
        }
    }

    /// One entry of delivery record `record` is consumed or counted in a newer record; returns
    /// whether the record counts none any more (and is to be deleted).
    pub fn release_record(&mut self, record: u64) -> bool {
        match self.record_live.get_mut(&record) {
            Some(n) if *n > 1 => {
                *n -= 1;
                false
            }
            Some(_) => {
                self.record_live.remove(&record);
                true
            }
            None => false,
        }
    }

    /// Entry `seq` leaves the record that held its count (it is delivered again, counted in a
    /// new record, or consumed); returns that record when it counts nothing any more.
    pub fn detach_record(&mut self, seq: u64) -> Option<u64> {
        if self.record_of.is_empty() {
            return None;
        }
        let record = self.record_of.remove(&seq)?;
        self.release_record(record).then_some(record)
    }

    /// At open: entry `seq` (if still present) had `deliveries` by delivery record `record`,
    /// read in record order, so a later record's count replaces an earlier one's.
    pub fn recover_deliveries(&mut self, seq: u64, deliveries: u32, record: u64) {
        if !self.is_claimable(seq) {
            return; // consumed since: the record is stale for it
        }
        self.note_failed_deliveries(seq, deliveries);
        self.give_back_record(seq, record);
    }

    /// Whether delivery record `record` counts no present entry (it is then to be deleted).
    pub fn record_counts_nothing(&self, record: u64) -> bool {
        !self.record_live.contains_key(&record)
    }

    /// Entry `seq` has come back unconsumed from `deliveries` deliveries so far.
    pub fn note_failed_deliveries(&mut self, seq: u64, deliveries: u32) {
        self.failed_deliveries.insert(seq, deliveries);
    }

    /// Deliveries of `seq` that ended without it being consumed.
    pub fn failed_deliveries(&self, seq: u64) -> u32 {
        self.failed_deliveries.get(&seq).copied().unwrap_or(0)
    }

    /// Entries over the delivery limit (none unless a crash left them so): to be dead-lettered.
    pub fn over_limit(&self) -> Vec<(u64, u32)> {
        if self.max_deliveries == 0 {
            return Vec::new();
        }
        let mut over: Vec<(u64, u32)> = self
            .failed_deliveries
            .iter()
            .filter(|&(seq, &n)| n >= self.max_deliveries && !self.dead_letters.contains(seq))
            .map(|(&seq, &n)| (seq, n))
            .collect();
        over.sort_unstable();
        over
    }
}
