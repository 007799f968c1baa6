//! Committed queue entries kept in memory from the moment their commit is published until a
//! transaction claims them, so that a poll of a queue whose consumer keeps up takes its entries
//! from here instead of reading them back from RocksDB (an iterator over the head: about 0.5 µs
//! an entry, most of a poll's cost when the payloads are inline).
//!
//! It can never return anything but what is on disk: an entry's key (queue id, sequence) is
//! written once with one value and never again (sequences only grow, a forgotten queue's id is
//! not reused, a store whose write failed writes nothing more), so a copy of the value a commit
//! wrote stays true for as long as the entry exists. Entries go in when their commit is
//! published (`Queues::publish`, in commit order, under the lock consumers claim under) and come
//! out when claimed (`Queues::claim`, `Queues::claim_exact`): a claimed entry is never claimed
//! again unless a rollback hands it back, and then it is read from RocksDB like any entry not
//! kept here.
//!
//! Per queue, the kept entries are one run of sequences, a ring indexed by `sequence - first`:
//! publication appends to its end, claims at the head take from its front. An entry claimed out
//! of order (a dead letter) leaves a hole, dropped once it reaches the front. A commit whose
//! entries do not continue the run (some were not kept, for want of room) starts a new run only
//! once the old one is empty; until then its entries are read from RocksDB when claimed.
//!
//! The store-wide capacity bounds what the rings charge: each slot (hole or entry) and each
//! inline payload with its allocation.

use std::collections::{HashMap, VecDeque};

use crate::keys::{Entry, QueueId};

/// What a ring slot costs beside an inline payload: the slot itself and the payload's
/// allocation header and rounding.
pub const SLOT_BYTES: usize = std::mem::size_of::<Option<Entry>>() + 16;

#[derive(Debug, Default)]
pub(crate) struct EntryCache {
    rings: HashMap<QueueId, Ring>,
    capacity: usize,
    bytes: usize,
}

#[derive(Debug, Default)]
struct Ring {
    /// Sequence of `slots[0]`.
    first: u64,
    /// Never starts with a hole.
    slots: VecDeque<Option<Entry>>,
}

fn charge(entry: &Entry) -> usize {
    SLOT_BYTES + entry.inline.as_ref().map_or(0, |i| i.stored.len())
}

impl EntryCache {
    pub fn new(capacity: usize) -> EntryCache {
        EntryCache { capacity, ..EntryCache::default() }
    }

    /// Bytes charged for the entries and holes kept now.
    pub fn bytes(&self) -> usize {
        self.bytes
    }

    /// Keeps the entries a commit published in queue `queue` from sequence `first` on, as many
    /// as there is room for, if they continue what the queue keeps (or it keeps nothing).
    pub fn publish(&mut self, queue: QueueId, first: u64, entries: impl IntoIterator<Item = Entry>) {
        if self.capacity.saturating_sub(self.bytes) < SLOT_BYTES {
            return;
        }
        let ring = self.rings.entry(queue).or_default();
        if ring.slots.is_empty() {
            ring.first = first;
        } else if ring.first.checked_add(ring.slots.len() as u64) != Some(first) {
            return;
        }
        for entry in entries {
            let cost = charge(&entry);
            if self.bytes + cost > self.capacity {
                break;
            }
            self.bytes += cost;
            ring.slots.push_back(Some(entry));
        }
        if ring.slots.is_empty() {
            self.rings.remove(&queue);
        }
    }

    /// Takes entry `seq` of `queue` out, if it is kept.
    pub fn take(&mut self, queue: QueueId, seq: u64) -> Option<Entry> {
        self.take_all(queue, &[seq]).pop().flatten()
    }

    /// `take` of each of `seqs` (one lookup of the queue for them all).
    pub fn take_all(&mut self, queue: QueueId, seqs: &[u64]) -> Vec<Option<Entry>> {
        let Some(ring) = self.rings.get_mut(&queue) else { return vec![None; seqs.len()] };
        let mut taken = Vec::with_capacity(seqs.len());
        for &seq in seqs {
            let at = seq.checked_sub(ring.first).and_then(|at| usize::try_from(at).ok());
            let entry = at.and_then(|at| ring.slots.get_mut(at)).and_then(Option::take);
            if let Some(e) = &entry {
                self.bytes -= charge(e) - SLOT_BYTES;
            }
            taken.push(entry);
        }
        while let Some(None) = ring.slots.front() {
            ring.slots.pop_front();
            ring.first += 1;
            self.bytes -= SLOT_BYTES;
        }
        if ring.slots.is_empty() {
            self.rings.remove(&queue);
        }
        taken
    }

    /// Drops whatever queue `queue` keeps (it is forgotten).
    pub fn forget(&mut self, queue: QueueId) {
        if let Some(ring) = self.rings.remove(&queue) {
            self.bytes -= ring.slots.iter().map(|s| s.as_ref().map_or(SLOT_BYTES, charge)).sum::<usize>();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::compress::Compression;

    fn entry(n: u8) -> Entry {
        Entry::inline(uuid::Uuid::from_bytes([n; 16]), Compression::None, vec![n; 10])
    }

    fn charged(n: usize) -> usize {
        n * (SLOT_BYTES + 10)
    }

    #[test]
    fn entries_published_are_taken_once_each_and_release_their_bytes() {
        let mut c = EntryCache::new(1 << 20);
        c.publish(7, 0, (0..3).map(entry));
        c.publish(7, 3, (3..5).map(entry));
        assert_eq!(c.bytes(), charged(5));
        for seq in 0..5u8 {
            assert_eq!(c.take(7, u64::from(seq)), Some(entry(seq)));
            assert_eq!(c.take(7, u64::from(seq)), None, "taken already");
        }
        assert_eq!(c.bytes(), 0);
        assert!(c.rings.is_empty());
    }

    #[test]
    fn an_entry_taken_out_of_order_leaves_a_hole_charged_until_it_reaches_the_front() {
        let mut c = EntryCache::new(1 << 20);
        c.publish(1, 10, (0..3).map(entry));
        assert_eq!(c.take(1, 11), Some(entry(1)));
        assert_eq!(c.bytes(), charged(2) + SLOT_BYTES);
        assert_eq!(c.take(1, 10), Some(entry(0)));
        assert_eq!(c.bytes(), charged(1), "the hole went with the front");
        assert_eq!(c.take(1, 9), None);
        assert_eq!(c.take(1, 13), None);
        assert_eq!(c.take(2, 12), None, "another queue");
        assert_eq!(c.take(1, 12), Some(entry(2)));
        assert_eq!(c.bytes(), 0);
    }

    #[test]
    fn entries_beyond_the_capacity_are_not_kept_and_a_gap_waits_for_the_run_to_empty() {
        let mut c = EntryCache::new(charged(3));
        c.publish(1, 0, (0..5).map(entry));
        assert_eq!(c.bytes(), charged(3), "the first three");
        assert_eq!(c.take(1, 0), Some(entry(0)));
        // Entries 3 and 4 were not kept: 5 does not continue the run.
        c.publish(1, 5, [entry(5)]);
        assert_eq!(c.bytes(), charged(2));
        assert_eq!((c.take(1, 1), c.take(1, 2)), (Some(entry(1)), Some(entry(2))));
        assert_eq!((c.take(1, 3), c.take(1, 4), c.take(1, 5)), (None, None, None));
        c.publish(1, 6, [entry(6)]);
        assert_eq!(c.take(1, 6), Some(entry(6)), "an empty queue starts a new run");
    }

    #[test]
    fn no_capacity_keeps_nothing_and_a_forgotten_queue_releases_everything() {
        let mut c = EntryCache::new(0);
        c.publish(1, 0, (0..3).map(entry));
        assert_eq!((c.bytes(), c.take(1, 0)), (0, None));
        let mut c = EntryCache::new(1 << 20);
        c.publish(1, 0, (0..3).map(entry));
        c.take(1, 1);
        c.forget(1);
        assert_eq!(c.bytes(), 0);
        assert_eq!(c.take(1, 0), None);
    }

    #[test]
    fn a_batch_taken_at_once_is_what_single_takes_give() {
        let mut c = EntryCache::new(1 << 20);
        c.publish(1, 5, (0..4).map(entry));
        assert_eq!(c.take_all(1, &[4, 6, 5, 9, 6]), vec![None, Some(entry(1)), Some(entry(0)), None, None]);
        assert_eq!(c.bytes(), charged(2));
        assert_eq!(c.take_all(2, &[5, 6]), vec![None, None]);
        assert_eq!(c.take_all(1, &[8, 7]), vec![Some(entry(3)), Some(entry(2))]);
        assert_eq!(c.bytes(), 0);
        assert!(c.rings.is_empty());
    }

    #[test]
    fn sequences_far_from_the_run_are_misses() {
        let mut c = EntryCache::new(1 << 20);
        c.publish(1, u64::MAX - 2, (0..2).map(entry));
        assert_eq!(c.take(1, 0), None);
        assert_eq!(c.take(1, u64::MAX), None);
        assert_eq!(c.take(1, u64::MAX - 1), Some(entry(1)));
    }
}
