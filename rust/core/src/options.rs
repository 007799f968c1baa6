//! Options a store is opened with. Defaults favour durability: every commit is synced.

use std::collections::HashMap;

use crate::compress::{Compression, Policy};

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StoreOptions {
    /// fsync the write-ahead log on every commit. On: a returned commit survives power loss.
    /// Off: it survives a process crash but the last commits may be lost with the machine.
    pub sync_on_commit: bool,
    /// Bytes of the shared block cache (uncompressed data blocks, index and filter blocks).
    pub block_cache_bytes: usize,
    /// Bytes all memtables together may use before they are flushed.
    pub write_buffer_bytes: usize,
    /// Create the store when the directory does not exist (or is empty).
    pub create_if_missing: bool,
    /// Open without the write lock; every write fails with `Error::ReadOnly`.
    pub read_only: bool,
    /// How payloads are compressed (none by default). Applies to objects written from now on;
    /// each value records its own codec, so any store reads with any setting.
    pub compression: Policy,
    /// Per-queue codecs overriding `compression.codec` for `enqueue(queue, bytes)`.
    pub queue_compression: HashMap<String, Compression>,
}

impl StoreOptions {
    /// The policy for objects created by `enqueue(queue, bytes)`.
    pub fn policy_for_queue(&self, queue: &str) -> Policy {
        match self.queue_compression.get(queue) {
            Some(&codec) => Policy { codec, ..self.compression },
            None => self.compression,
        }
    }
}

impl Default for StoreOptions {
    fn default() -> Self {
        StoreOptions {
            sync_on_commit: true,
            block_cache_bytes: 64 << 20,
            write_buffer_bytes: 128 << 20,
            create_if_missing: true,
            read_only: false,
            compression: Policy::default(),
            queue_compression: HashMap::new(),
        }
    }
}

/// Largest payload accepted for one object. RocksDB itself allows up to 4 GiB per value, but a
/// single value this large already defeats the block cache; bigger data belongs in a file.
pub const MAX_PAYLOAD_BYTES: usize = 1 << 30;

/// Upper bound on items returned by one poll or peek, so one call cannot ask for an absurd
/// allocation.
pub const MAX_BATCH_ITEMS: usize = 1 << 20;
