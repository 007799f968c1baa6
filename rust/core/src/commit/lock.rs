//! The commit lock and what it guards. Commits are prepared one at a time under it, which fixes
//! their order: each is checked and decided against the store as it will be once the commits
//! prepared before it are written, which is the disk plus what those commits marked here (the
//! objects they delete or put, the map keys they write). Only the commit (`commit/mod.rs`) takes
//! it; a queue's settings change between two commits (`CommitLock::between_commits`).

use std::collections::HashMap;

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

/// What the commit lock guards for maps: the values commits prepared but not yet written give
/// keys (so `add` resolves against them). Conflicts are found in `key_writes.rs`.
#[derive(Default)]
pub(super) struct MapCommitState {
    /// (map, key) -> (value once written, or `None` for deleted; ticket of the commit).
    pub(super) pending: HashMap<MapKey, (Option<Vec<u8>>, u64)>,
}

/// A key of a map: the map's id and the key.
pub(super) type MapKey = (MapId, Vec<u8>);
