//! Committed queue entries kept in memory from the moment their commit is published until a
//! transaction claims them, so that a poll of a queue whose consumer keeps up takes its entries
//! from here instead of reading them back from RocksDB (an iterator over the head: about 0.5 µs
//! an entry, most of a poll's cost when the payloads are inline).
//!
//! It can never return anything but what is on disk: an entry's key (queue id, sequence) is
//! written once with one value and never again while the store is open (sequences only grow, a
//! forgotten queue's id is not given again before a reopen, which starts with an empty cache,
//! and a store whose write failed writes nothing more), so a copy of the value a commit
//! wrote stays true for as long as the entry exists. Entries go in when their commit is
//! published (`Queues::publish`, in commit order, under the lock consumers claim under) and come
//! out when claimed (`Queues::claim`, `Queues::claim_exact`): a claimed entry is never claimed
//! again unless a rollback hands it back, and then it is read from RocksDB like any entry not
//! kept here.
//!
//! Per queue, the kept entries are one run of sequences, a ring indexed by `sequence - first`:
//! publication appends to its end, claims at the head take from its front. An entry claimed out
//! of order (one moved to its dead-letter queue) leaves a hole, dropped once it reaches the
//! front. A commit whose entries do not continue the run (some were not kept) starts a new run
//! only once the old one is empty; until then its entries are read from RocksDB when claimed.
//! Dead letters are not kept: only listings and explicit moves read them (`Append::entries`).
//!
//! The store-wide capacity bounds what the rings hold: each ring's slots as allocated (used or
//! not) and each inline payload with its allocation. When a commit's entries find it full, the
//! queue holding the most gives way, from its newest entries, if it holds more than the queue
//! publishing: a queue nobody consumes cannot keep the cache from the queues that are.

use std::collections::{HashMap, VecDeque};

use crate::keys::{Entry, QueueId};

/// What one ring slot costs, whether it holds an entry or not.
pub const SLOT_BYTES: usize = std::mem::size_of::<Option<Entry>>();

/// What an inline payload's allocation costs beyond its bytes (malloc's header and rounding).
pub const PAYLOAD_OVERHEAD_BYTES: usize = 16;

/// Rings keep at least this many slots allocated; below a quarter used they shrink.
const MIN_SLOTS: usize = 16;

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
    /// What this ring is charged: its slots' allocation and its entries' payloads.
    bytes: usize,
}

/// What an entry's payload costs beside its slot.
fn payload_charge(entry: &Entry) -> usize {
    entry
        .inline
        .as_ref()
        .map_or(0, |i| i.stored.capacity() + PAYLOAD_OVERHEAD_BYTES)
}

impl Ring {
    fn slot_charge(&self) -> usize {
        self.slots.capacity() * SLOT_BYTES
    }

    /// Appends `entry`, first adding `grow` slots (`grow_by`); returns the bytes this added
    /// (its payload, and the slots').
    fn push(&mut self, entry: Entry, grow: usize) -> usize {
        let grown = if grow > 0 { self.reserve(grow) } else { 0 };
        let cost = payload_charge(&entry);
        self.slots.push_back(Some(entry));
        self.bytes += cost;
        grown + cost
    }

    /// Allocates `add` more slots; returns the bytes this added.
    fn reserve(&mut self, add: usize) -> usize {
        let before = self.slot_charge();
        self.slots.reserve_exact(add);
        let added = self.slot_charge() - before;
        self.bytes += added;
        added
    }

    /// Slots to add before the next push: none while some are free; else as many as it has
    /// (at least `MIN_SLOTS`), or fewer when only `room` bytes are left, so that a ring can
    /// grow to nearly the whole capacity rather than stop at the last doubling that fit.
    fn grow_by(&self, room: usize) -> usize {
        if self.slots.len() < self.slots.capacity() {
            return 0;
        }
        self.slots
            .capacity()
            .max(MIN_SLOTS)
            .min(room / SLOT_BYTES)
            .max(MIN_SLOTS)
    }

    /// Drops the newest entry (or hole); returns the bytes released.
    fn pop_back(&mut self) -> usize {
        let released = self.slots.pop_back().flatten().map_or(0, |e| payload_charge(&e)) + self.release_slots();
        self.bytes -= released;
        released
    }

    /// Takes entry `seq` out if it is here; returns it and the bytes released.
    fn take(&mut self, seq: u64) -> (Option<Entry>, usize) {
        let at = seq.checked_sub(self.first).and_then(|at| usize::try_from(at).ok());
        let entry = at.and_then(|at| self.slots.get_mut(at)).and_then(Option::take);
        let released = entry.as_ref().map_or(0, payload_charge);
        self.bytes -= released;
        (entry, released)
    }

    /// Drops the holes at the front and, once a quarter or less of its slots is used, the
    /// allocation beyond twice what is; returns the bytes released.
    fn trim(&mut self) -> usize {
        while let Some(None) = self.slots.front() {
            self.slots.pop_front();
            self.first += 1;
        }
        let released = self.release_slots();
        self.bytes -= released;
        released
    }

    fn release_slots(&mut self) -> usize {
        let before = self.slot_charge();
        if self.slots.len() * 4 <= self.slots.capacity() && self.slots.capacity() > MIN_SLOTS {
            self.slots.shrink_to((self.slots.len() * 2).max(MIN_SLOTS));
        }
        before - self.slot_charge()
    }
}

impl EntryCache {
    pub fn new(capacity: usize) -> EntryCache {
        EntryCache {
            capacity,
            ..EntryCache::default()
        }
    }

    /// Bytes charged for the entries and slots kept now.
    pub fn bytes(&self) -> usize {
        self.bytes
    }

    /// Keeps the entries a commit published in queue `queue` from sequence `first` on, as many
    /// as there is room for, if they continue what the queue keeps (or it keeps nothing).
    pub fn publish(&mut self, queue: QueueId, first: u64, entries: impl ExactSizeIterator<Item = Entry>) {
        if self.capacity == 0 {
            return;
        }
        let mut ring = self.rings.remove(&queue).unwrap_or_default();
        if ring.slots.is_empty() {
            ring.first = first;
        }
        if ring.first.checked_add(ring.slots.len() as u64) == Some(first) {
            // One allocation for the whole commit where there is room (no copy per doubling),
            // at least doubling the ring (no copy of it per commit).
            let needed = entries.len().saturating_sub(ring.slots.capacity() - ring.slots.len());
            if needed > 0 {
                // Half of what is left at most: the rest is for the payloads.
                let room = self.capacity.saturating_sub(self.bytes) / 2 / SLOT_BYTES;
                let add = needed.max(ring.slots.capacity()).max(MIN_SLOTS).min(room);
                if add > 0 {
                    self.bytes += ring.reserve(add);
                }
            }
            for mut entry in entries {
                if let Some(inline) = &mut entry.inline {
                    // A compressed payload's buffer was sized for the uncompressed one.
                    inline.stored.shrink_to_fit();
                }
                let payload = payload_charge(&entry);
                let grow = ring.grow_by(self.capacity.saturating_sub(self.bytes + payload));
                let cost = payload + grow * SLOT_BYTES;
                if self.bytes + cost > self.capacity && !self.make_room(cost, ring.bytes) {
                    break;
                }
                self.bytes += ring.push(entry, grow);
            }
        }
        if ring.slots.is_empty() {
            self.bytes -= ring.bytes;
        } else {
            self.rings.insert(queue, ring);
        }
    }

    /// Drops the newest entries of the queues holding the most, each holding more than
    /// `holding` bytes, until `cost` more bytes fit; returns whether they do.
    fn make_room(&mut self, cost: usize, holding: usize) -> bool {
        while self.bytes + cost > self.capacity {
            let Some((&victim, _)) = self
                .rings
                .iter()
                .filter(|(_, r)| r.bytes > holding)
                .max_by_key(|(_, r)| r.bytes)
            else {
                return false;
            };
            let ring = self.rings.get_mut(&victim).expect("just found");
            while self.bytes + cost > self.capacity && ring.bytes > holding && !ring.slots.is_empty() {
                self.bytes -= ring.pop_back();
            }
            if ring.slots.is_empty() {
                self.forget(victim);
            }
        }
        true
    }

    /// Takes entry `seq` of `queue` out, if it is kept.
    pub fn take(&mut self, queue: QueueId, seq: u64) -> Option<Entry> {
        self.take_all(queue, &[seq]).pop().flatten()
    }

    /// `take` of each of `seqs` (one lookup of the queue for them all).
    pub fn take_all(&mut self, queue: QueueId, seqs: &[u64]) -> Vec<Option<Entry>> {
        let Some(ring) = self.rings.get_mut(&queue) else {
            return vec![None; seqs.len()];
        };
        let mut taken = Vec::with_capacity(seqs.len());
        for &seq in seqs {
            let (entry, released) = ring.take(seq);
            self.bytes -= released;
            taken.push(entry);
        }
        self.bytes -= ring.trim();
        if ring.slots.is_empty() {
            self.forget(queue);
        }
        taken
    }

    /// Drops whatever queue `queue` keeps (it is forgotten, or keeps nothing).
    pub fn forget(&mut self, queue: QueueId) {
        if let Some(ring) = self.rings.remove(&queue) {
            self.bytes -= ring.bytes;
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

    /// What `c` should charge, recomputed from what it holds; asserted equal to its count.
    fn audit(c: &EntryCache) -> usize {
        let mut total = 0;
        for ring in c.rings.values() {
            assert!(!ring.slots.is_empty(), "an empty ring is dropped");
            assert!(ring.slots.front().unwrap().is_some(), "a ring never starts with a hole");
            let held = ring.slot_charge() + ring.slots.iter().flatten().map(payload_charge).sum::<usize>();
            assert_eq!(ring.bytes, held);
            total += held;
        }
        assert_eq!(c.bytes(), total);
        assert!(
            c.bytes() <= c.capacity,
            "{} bytes charged in a cache of {}",
            c.bytes(),
            c.capacity
        );
        total
    }

    #[test]
    fn entries_published_are_taken_once_each_and_release_their_bytes() {
        let mut c = EntryCache::new(1 << 20);
        c.publish(7, 0, (0..3).map(entry));
        c.publish(7, 3, (3..5).map(entry));
        assert!(audit(&c) >= 5 * (SLOT_BYTES + 10 + PAYLOAD_OVERHEAD_BYTES));
        for seq in 0..5u8 {
            assert_eq!(c.take(7, u64::from(seq)), Some(entry(seq)));
            assert_eq!(c.take(7, u64::from(seq)), None, "taken already");
            audit(&c);
        }
        assert_eq!(c.bytes(), 0);
        assert!(c.rings.is_empty());
    }

    #[test]
    fn an_entry_taken_out_of_order_leaves_a_hole_until_it_reaches_the_front() {
        let mut c = EntryCache::new(1 << 20);
        c.publish(1, 10, (0..3).map(entry));
        let full = audit(&c);
        assert_eq!(c.take(1, 11), Some(entry(1)));
        assert_eq!(audit(&c), full - payload_charge(&entry(1)), "the slot stays");
        assert_eq!(c.take(1, 10), Some(entry(0)));
        assert_eq!(c.rings[&1].first, 12, "the hole went with the front");
        assert_eq!(c.take(1, 9), None);
        assert_eq!(c.take(1, 13), None);
        assert_eq!(c.take(2, 12), None, "another queue");
        assert_eq!(c.take(1, 12), Some(entry(2)));
        assert_eq!(audit(&c), 0);
    }

    #[test]
    fn entries_beyond_the_capacity_are_not_kept_and_a_gap_waits_for_the_run_to_empty() {
        // A commit reserves at most half the room left in slots: 16 here, and growing beyond
        // them does not fit.
        let mut c = EntryCache::new(2 * MIN_SLOTS * SLOT_BYTES);
        c.publish(1, 0, (0..20).map(entry));
        audit(&c);
        assert_eq!(c.rings[&1].slots.len(), MIN_SLOTS, "the first sixteen");
        assert_eq!(c.take(1, 0), Some(entry(0)));
        // Entries 16 to 19 were not kept: 20 does not continue the run.
        c.publish(1, 20, [entry(20)].into_iter());
        audit(&c);
        for seq in 1..16u8 {
            assert_eq!(c.take(1, u64::from(seq)), Some(entry(seq)));
        }
        for seq in 16..=20 {
            assert_eq!(c.take(1, seq), None);
        }
        c.publish(1, 21, [entry(21)].into_iter());
        assert_eq!(c.take(1, 21), Some(entry(21)), "an empty queue starts a new run");
        assert_eq!(audit(&c), 0);
    }

    #[test]
    fn a_full_cache_takes_room_from_the_newest_entries_of_the_queue_holding_the_most() {
        let capacity = 64 << 10;
        let mut c = EntryCache::new(capacity);
        // Queue 1 has no consumer: it fills the cache.
        for batch in 0..1000u64 {
            c.publish(1, batch * 10, (0..10).map(|i| entry(i as u8)));
        }
        audit(&c);
        let idle = c.rings[&1].slots.len();
        assert!(
            c.bytes() + SLOT_BYTES * MIN_SLOTS > capacity,
            "full: {} of {capacity}",
            c.bytes()
        );
        // Queue 2 is consumed as it is published: it is kept, at queue 1's newest entries' cost.
        for batch in 0..100u64 {
            c.publish(2, batch * 10, (0..10).map(|i| entry(i as u8)));
            audit(&c);
            let taken = c.take_all(2, &(batch * 10..batch * 10 + 10).collect::<Vec<_>>());
            assert!(taken.iter().all(Option::is_some), "batch {batch}");
        }
        let left = c.rings[&1].slots.len();
        assert!(left < idle && left > 0, "queue 1 kept {left} of {idle}, its oldest");
        assert_eq!(c.take(1, 0), Some(entry(0)));
        // A queue holding less than the publisher does not give way to it.
        let before = c.rings[&1].slots.len();
        c.publish(1, left as u64 + 1, [entry(1)].into_iter());
        assert_eq!(c.rings[&1].slots.len(), before, "not contiguous: nothing added");
        audit(&c);
    }

    #[test]
    fn a_compressed_payload_is_charged_as_held_not_as_its_buffer_was() {
        let mut c = EntryCache::new(1 << 20);
        let mut stored = Vec::with_capacity(64 << 10);
        stored.extend_from_slice(&[1u8; 100]);
        c.publish(
            1,
            0,
            [Entry::inline(uuid::Uuid::nil(), Compression::Lz4, stored)].into_iter(),
        );
        assert!(audit(&c) < 4 << 10, "{} bytes for a payload of 100", c.bytes());
    }

    #[test]
    fn a_ring_drained_below_a_quarter_gives_back_its_slots() {
        let mut c = EntryCache::new(1 << 20);
        c.publish(1, 0, (0..1000).map(|i| entry(i as u8)));
        let full = audit(&c);
        let seqs: Vec<u64> = (0..990).collect();
        c.take_all(1, &seqs);
        assert!(
            audit(&c) < full / 10,
            "{} of {full} bytes left for 10 entries",
            c.bytes()
        );
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
        assert_eq!(audit(&c), 0);
        assert_eq!(c.take(1, 0), None);
    }

    #[test]
    fn a_batch_taken_at_once_is_what_single_takes_give() {
        let mut c = EntryCache::new(1 << 20);
        c.publish(1, 5, (0..4).map(entry));
        assert_eq!(
            c.take_all(1, &[4, 6, 5, 9, 6]),
            vec![None, Some(entry(1)), Some(entry(0)), None, None]
        );
        audit(&c);
        assert_eq!(c.take_all(2, &[5, 6]), vec![None, None]);
        assert_eq!(c.take_all(1, &[8, 7]), vec![Some(entry(3)), Some(entry(2))]);
        assert_eq!(audit(&c), 0);
        assert!(c.rings.is_empty());
    }

    #[test]
    fn sequences_far_from_the_run_are_misses() {
        let mut c = EntryCache::new(1 << 20);
        c.publish(1, u64::MAX - 2, (0..2).map(entry));
        assert_eq!(c.take(1, 0), None);
        assert_eq!(c.take(1, u64::MAX), None);
        assert_eq!(c.take(1, u64::MAX - 1), Some(entry(1)));
        audit(&c);
    }
}
