//! The commit lock and what it guards. Commits are prepared one at a time under it, which fixes
//! their order: each is checked and decided against the store as it will be once the commits
//! prepared before it are written, which is the disk plus what those commits marked here (the
//! objects they delete or put, the map keys they write). Only the commit (`commit/mod.rs`) takes
//! it; a queue's settings change between two commits (`CommitLock::between_commits`).
//!
//! Map conflicts are found with a table of stripes (a key's stripe is a hash of its map and
//! key): each stripe holds the ticket of the last commit prepared that writes a key in it; a
//! key read when every ticket below R was written conflicts if its stripe is at R or above. Two
//! keys sharing a stripe can make a conflict that is not one (the commit is refused, and
//! retrying it succeeds); a conflict is never missed.

use std::collections::HashMap;
use std::hash::{BuildHasher, Hasher};

use parking_lot::{Mutex, MutexGuard};
use uuid::Uuid;

use crate::hash::IdMap;
use crate::maps::MapId;

/// The lock commits are prepared under, owning what it guards.
pub(crate) struct CommitLock {
    state: Mutex<CommitState>,
}

impl Default for CommitLock {
    fn default() -> Self {
        let state = CommitState {
            pending_objects: IdMap::default(),
            last_delete: None,
            maps: MapCommitState::default(),
            spare_batch: Vec::new(),
        };
        CommitLock {
            state: Mutex::new(state),
        }
    }
}

/// The commit lock held: what it guards, and the proof, for the registries (`registry.rs`), that a
/// change is made under it. Only the commit can get one (`CommitLock::lock`).
pub(crate) type Serial<'a> = MutexGuard<'a, CommitState>;

impl CommitLock {
    /// Taken by a commit being prepared, and by a group write dropping its marks.
    pub(super) fn lock(&self) -> Serial<'_> {
        self.state.lock()
    }

    /// Runs `change` between two commits: every commit is prepared wholly before it or wholly
    /// after it (a queue's settings change so).
    pub(crate) fn between_commits<R>(&self, change: impl FnOnce() -> R) -> R {
        let _serial = self.state.lock();
        change()
    }
}

/// State guarded by the commit lock (made only by `CommitLock`, so that a `Serial` is the proof
/// that the lock is held).
pub(crate) struct CommitState {
    pub(super) pending_objects: IdMap<Uuid, (PendingObject, u64)>,
    /// Ticket of the last commit prepared that deletes objects with `delete`: a transaction
    /// that read its entries' objects before that commit was written re-reads, at commit,
    /// whether the objects it consumes are still queue-owned (`references.rs`).
    pub(super) last_delete: Option<u64>,
    pub(super) maps: MapCommitState,
    /// The memory of the last written batch (`BatchRep::reusing`), for the next commit's
    /// entries: a large commit in fresh memory pays a page fault per 4 KiB on top of the copy.
    pub(super) spare_batch: Vec<u8>,
}

/// What commits prepared but not yet written have done to objects, so that the next commit
/// prepared under the commit lock reads the state it will be written after, not the disk's.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum PendingObject {
    /// Deleted (explicitly or with its last owning entry).
    Deleted,
    /// Alive and queue-owned, with this many owning entries.
    Count(u64),
    /// Alive and written by `put` after a delete: owned by no entry, so consuming an entry
    /// written for the object deleted before it leaves it alone.
    Put,
}

/// A written batch's memory is kept for the next commit up to this size (a commit of 10^5
/// small entries is about 6 MB).
pub(super) const MAX_SPARE_BATCH_BYTES: usize = 16 << 20;

impl CommitState {
    /// Keeps `buffer` for the next commit, unless it is larger than `MAX_SPARE_BATCH_BYTES` or
    /// smaller than the one kept; returns the buffer not kept, for the caller to free once it
    /// has released the commit lock (freeing megabytes is an `munmap`).
    pub(super) fn keep_spare_batch(&mut self, buffer: Vec<u8>) -> Vec<u8> {
        if buffer.capacity() <= MAX_SPARE_BATCH_BYTES && buffer.capacity() > self.spare_batch.capacity() {
            return std::mem::replace(&mut self.spare_batch, buffer);
        }
        buffer
    }
}

/// Stripes of the conflict table.
const STRIPES: usize = 1 << 16;

/// What the commit lock guards for maps: the conflict table and the values commits prepared but
/// not yet written give keys (so `add` resolves against them).
#[derive(Default)]
pub(super) struct MapCommitState {
    stripes: Vec<u64>,
    hasher: std::collections::hash_map::RandomState,
    /// (map, key) -> (value once written, or `None` for deleted; ticket of the commit).
    pub(super) pending: HashMap<MapKey, (Option<Vec<u8>>, u64)>,
}

/// A key of a map: the map's id and the key.
pub(super) type MapKey = (MapId, Vec<u8>);

impl MapCommitState {
    pub(super) fn stripe_of(&self, map: MapId, key: &[u8]) -> usize {
        let mut h = self.hasher.build_hasher();
        h.write_u32(map);
        h.write(key);
        (h.finish() as usize) % STRIPES
    }

    /// Ticket of the last commit prepared that writes a key in `stripe` (0: none).
    pub(super) fn last_write(&self, stripe: usize) -> u64 {
        self.stripes.get(stripe).copied().unwrap_or(0)
    }

    pub(super) fn note_write(&mut self, stripe: usize, ticket: u64) {
        if self.stripes.is_empty() {
            self.stripes = vec![0; STRIPES];
        }
        self.stripes[stripe] = self.stripes[stripe].max(ticket);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stripes_keep_the_latest_ticket_of_each() {
        let mut s = MapCommitState::default();
        let a = s.stripe_of(1, b"a");
        assert_eq!(s.last_write(a), 0);
        s.note_write(a, 7);
        s.note_write(a, 5);
        assert_eq!(s.last_write(a), 7);
        assert_eq!(s.stripe_of(1, b"a"), a, "a key's stripe is stable");
    }
}
