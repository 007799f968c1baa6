//! The map conflict table: for each map key a recent commit wrote, the ticket of the last commit
//! prepared that writes it, and the snapshots that still need those tickets.
//!
//! A transaction reads maps from one snapshot (`map_reads::ReadView`), taken when every commit
//! below some ticket W was written. A key it read conflicts at its commit if the table holds a
//! ticket at or above W for it: a commit not in its snapshot wrote it. Keys are exact (map id
//! and key bytes), so only a real write of a key read is a conflict. The same test tells a
//! snapshot read whether the map cache's value (always the latest) is its snapshot's.
//!
//! Commits note their keys under the commit lock, before they are queued for writing; reads and
//! commits look keys up from any thread. An entry below the oldest live snapshot's W can answer
//! nothing any more: once the table has grown, such entries are dropped (`prune`), so its size
//! follows the keys written since the oldest live snapshot was taken.

use std::collections::hash_map::RandomState;
use std::collections::{BTreeMap, HashMap};
use std::hash::BuildHasher;
use std::sync::atomic::{AtomicUsize, Ordering};

use parking_lot::Mutex;

const SHARDS: usize = 64;

/// Entries below which the table is never pruned (pruning reads every entry).
const PRUNE_FLOOR: usize = 4096;

pub(crate) struct KeyWrites {
    shards: Vec<Mutex<HashMap<Vec<u8>, u64>>>,
    hasher: RandomState,
    entries: AtomicUsize,
    /// Entries left by the last prune: the next one waits until there are twice as many.
    after_prune: AtomicUsize,
    /// W of every live snapshot, with how many share it.
    live: Mutex<BTreeMap<u64, usize>>,
}

impl Default for KeyWrites {
    fn default() -> Self {
        KeyWrites {
            shards: (0..SHARDS).map(|_| Mutex::new(HashMap::new())).collect(),
            hasher: RandomState::new(),
            entries: AtomicUsize::new(0),
            after_prune: AtomicUsize::new(0),
            live: Mutex::new(BTreeMap::new()),
        }
    }
}

impl KeyWrites {
    fn shard(&self, key: &[u8]) -> &Mutex<HashMap<Vec<u8>, u64>> {
        &self.shards[(self.hasher.hash_one(key) as usize) % SHARDS]
    }

    /// Whether a commit from ticket `since` on writes `key` (a key of the maps family): every
    /// commit that writes it is noted before it is queued, and no entry at or above a live
    /// snapshot's W is dropped.
    pub fn written_since(&self, key: &[u8], since: u64) -> bool {
        self.shard(key).lock().get(key).is_some_and(|&t| t >= since)
    }

    /// The commit with `ticket` writes `keys` (keys of the maps family). Called under the commit
    /// lock, before it is queued, so tickets only grow per key.
    pub fn note(&self, keys: impl IntoIterator<Item = Vec<u8>>, ticket: u64) {
        let mut added = 0;
        for key in keys {
            if self.shard(&key).lock().insert(key, ticket).is_none() {
                added += 1;
            }
        }
        self.entries.fetch_add(added, Ordering::Relaxed);
    }

    /// Registers a snapshot: `written_below` (every commit below it is written) is read under
    /// the lock a prune reads it under, so no prune can drop what the snapshot needs. Returns W.
    pub fn register(&self, written_below: impl FnOnce() -> u64) -> u64 {
        let mut live = self.live.lock();
        let w = written_below();
        *live.entry(w).or_insert(0) += 1;
        w
    }

    /// The snapshot registered with `w` is gone.
    pub fn unregister(&self, w: u64) {
        let mut live = self.live.lock();
        if let Some(n) = live.get_mut(&w) {
            *n -= 1;
            if *n == 0 {
                live.remove(&w);
            }
        }
    }

    /// Whether it is time to `prune`: the table has doubled since the last prune (and holds at
    /// least `PRUNE_FLOOR`).
    pub fn wants_pruning(&self) -> bool {
        self.entries.load(Ordering::Relaxed) >= PRUNE_FLOOR.max(2 * self.after_prune.load(Ordering::Relaxed))
    }

    /// Drops every entry below the oldest live snapshot's W (or, with none live, below
    /// `written_below`: a snapshot registered later has at least that).
    pub fn prune(&self, written_below: impl FnOnce() -> u64) {
        let below = {
            let live = self.live.lock();
            let w = written_below();
            live.keys().next().map_or(w, |&oldest| oldest.min(w))
        };
        let mut kept = 0;
        for shard in &self.shards {
            let mut s = shard.lock();
            s.retain(|_, t| *t >= below);
            kept += s.len();
        }
        self.entries.store(kept, Ordering::Relaxed);
        self.after_prune.store(kept, Ordering::Relaxed);
    }

    /// Entries held.
    #[cfg(test)]
    pub fn len(&self) -> usize {
        self.entries.load(Ordering::Relaxed)
    }

    /// The W of the oldest live snapshot.
    #[cfg(test)]
    pub fn oldest_live(&self) -> Option<u64> {
        self.live.lock().keys().next().copied()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_key_is_written_since_a_ticket_only_by_its_own_writes() {
        let t = KeyWrites::default();
        t.note([b"\0\0\0\x01a".to_vec()], 7);
        assert!(t.written_since(b"\0\0\0\x01a", 7));
        assert!(t.written_since(b"\0\0\0\x01a", 3));
        assert!(!t.written_since(b"\0\0\0\x01a", 8));
        assert!(
            !t.written_since(b"\0\0\0\x01b", 0),
            "exact keys: no neighbour conflicts"
        );
    }

    #[test]
    fn pruning_keeps_what_the_oldest_live_snapshot_needs() {
        let t = KeyWrites::default();
        for i in 0..10u64 {
            t.note([i.to_be_bytes().to_vec()], i);
        }
        let w = t.register(|| 4);
        t.prune(|| 9);
        assert_eq!(t.len(), 6, "tickets 4..=9 kept for the snapshot at 4");
        assert!(t.written_since(&4u64.to_be_bytes(), w));
        t.unregister(w);
        assert_eq!(t.oldest_live(), None);
        t.prune(|| 9);
        assert_eq!(t.len(), 1, "with no snapshot live, only what is not written yet");
        let later = t.register(|| 9);
        assert!(t.written_since(&9u64.to_be_bytes(), later));
    }
}
