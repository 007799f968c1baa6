//! Options a store is opened with. Defaults favour durability: every commit is synced.

use std::collections::HashMap;

use rockcask_codec::compress::{Compression, Policy};

use crate::error::{Error, Result};

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
    /// Delivery limit of every queue whose settings give none (0: no limit): an entry delivered
    /// this many times without being consumed goes to its dead-letter queue.
    pub max_deliveries: u32,
    /// Count commits, latencies and per-queue figures (`Store::metrics`). Off, nothing is
    /// counted (RocksDB's own figures are still read, and the map and object caches count
    /// their hits and misses either way, under a lock they take anyway).
    pub metrics: bool,
    /// Bytes of the map cache (`read_cache.rs`): committed map values kept in memory for point
    /// reads, beside the block cache. Below 64 KiB (0 included) it keeps none.
    pub map_cache_bytes: usize,
    /// Bytes of the object cache (`read_cache.rs`): committed objects created by `put` kept in
    /// memory for `get`, beside the block cache. Queue-owned objects (`enqueue(queue, bytes)`)
    /// are not kept: a queue reads each once, and commits consuming them mark nothing in it.
    /// Below 64 KiB (0 included) it keeps none. Off by default.
    pub object_cache_bytes: usize,
    /// Bytes of the queue entry cache (`entry_cache.rs`): entries committed and not yet
    /// claimed, kept in memory from their commit, so that a consumer keeping up with its
    /// producers polls them without reading RocksDB. Each entry is charged its inline payload's
    /// buffer plus about 80 bytes (its slot and allocation); when it is full the queue holding
    /// the most gives way if it holds more than the one publishing. 0 keeps none.
    pub queue_cache_bytes: usize,
    /// Payloads of `enqueue(queue, bytes)` up to this many bytes (at most
    /// `MAX_INLINE_PAYLOAD_BYTES`; 0, the default, for none) are kept in their queue entry: one
    /// record per item instead of an entry and an object, so enqueues, polls and commits write
    /// and read about half as much. Such a payload has no object of its own: `get`, `put`,
    /// `delete` and `enqueue_id` of its id see no object (a flow forwards it by enqueueing its
    /// bytes). Applies to enqueues from now on; every store reads both kinds of entry.
    pub inline_payload_bytes: usize,
}

impl StoreOptions {
    /// The policy for objects created by `enqueue(queue, bytes)`.
    pub fn policy_for_queue(&self, queue: &str) -> Policy {
        match self.queue_compression.get(queue) {
            Some(&codec) => Policy {
                codec,
                ..self.compression
            },
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
            max_deliveries: 0,
            metrics: true,
            map_cache_bytes: 32 << 20,
            object_cache_bytes: 0,
            queue_cache_bytes: 16 << 20,
            inline_payload_bytes: 0,
        }
    }
}

/// Largest payload accepted for one object. RocksDB itself allows up to 4 GiB per value, but a
/// single value this large already defeats the block cache; bigger data belongs in a file.
pub const MAX_PAYLOAD_BYTES: usize = 1 << 30;

/// Upper bound on items returned by one poll or peek, so one call cannot ask for an absurd
/// allocation.
pub const MAX_BATCH_ITEMS: usize = 1 << 20;

/// Longest delay a rollback may put on the entries it hands back
/// (`Transaction::rollback_because`): 365 days. Delays live in memory and end with the process,
/// so a longer one cannot be what a caller means, and refusing it keeps every not-before time a
/// point in time on every platform.
pub const MAX_RETRY_DELAY_MILLIS: u64 = 365 * 24 * 60 * 60 * 1000;

/// How long `Transaction::map_get_for_update` waits for a map key another transaction holds
/// for update before it gives up (`Error::KeyHeld`): 10 s, the time `RetryPolicy.defaults()`
/// (Java) retries a transaction for. A holder commits or rolls back within milliseconds in a
/// read-modify-write; a wait this long means it stalled (a deadlock is refused at once).
pub const KEY_HOLD_WAIT_MILLIS: u64 = 10_000;

/// Most bytes of keys, values, payloads and dead letters' names and reasons that one read of
/// many items returns (a poll, peek, map scan or `getAll`, a list of dead letters): each such
/// result crosses to Java as one array, and a Java array holds less than 2 GiB. This bound
/// leaves room inside one for the per-item framing of `MAX_BATCH_ITEMS` items, and exceeds the
/// largest single item (a `MAX_PAYLOAD_BYTES` value with its key, or a dead letter with its
/// names), so a read that returns fewer still returns at least one.
pub const MAX_RESULT_BYTES: usize = 3 << 29;

/// Most worker threads one export, import or verification may use (a value from a caller is
/// refused above this, never turned into that many threads).
pub const MAX_WORKERS: usize = 64;

/// Bounds of `StoreOptions::write_buffer_bytes`: RocksDB needs at least one small memtable, and
/// clips a memtable to 64 GiB.
pub const MIN_WRITE_BUFFER_BYTES: usize = 1 << 20;
pub const MAX_WRITE_BUFFER_BYTES: usize = 64 << 30;

/// Largest `StoreOptions::inline_payload_bytes`: an entry is read whole with its neighbours
/// when a queue is polled, so large payloads stay in objects of their own.
pub const MAX_INLINE_PAYLOAD_BYTES: usize = 64 << 10;

/// Largest block cache (0 means none): more than any machine this runs on has memory.
pub const MAX_BLOCK_CACHE_BYTES: usize = 1 << 40;

/// Largest map cache, object cache and queue entry cache (0 means none), for the same reason.
pub const MAX_MAP_CACHE_BYTES: usize = 1 << 40;
pub const MAX_OBJECT_CACHE_BYTES: usize = 1 << 40;
pub const MAX_QUEUE_CACHE_BYTES: usize = 1 << 40;

impl StoreOptions {
    /// Refuses sizes no store can be opened with, in RockCask's terms (before RocksDB sees them).
    pub fn validate(&self) -> Result<()> {
        for (cache, bytes, max) in [
            ("block cache", self.block_cache_bytes, MAX_BLOCK_CACHE_BYTES),
            ("map cache", self.map_cache_bytes, MAX_MAP_CACHE_BYTES),
            ("object cache", self.object_cache_bytes, MAX_OBJECT_CACHE_BYTES),
            ("queue entry cache", self.queue_cache_bytes, MAX_QUEUE_CACHE_BYTES),
        ] {
            if bytes > max {
                return Err(Error::InvalidArgument(format!(
                    "{cache} of {bytes} bytes is more than the limit of {max} bytes (0 means no {cache})"
                )));
            }
        }
        if self.inline_payload_bytes > MAX_INLINE_PAYLOAD_BYTES {
            return Err(Error::InvalidArgument(format!(
                "inline payloads of up to {} bytes are more than the limit of {MAX_INLINE_PAYLOAD_BYTES} bytes (0 means none)",
                self.inline_payload_bytes
            )));
        }
        if !(MIN_WRITE_BUFFER_BYTES..=MAX_WRITE_BUFFER_BYTES).contains(&self.write_buffer_bytes) {
            return Err(Error::InvalidArgument(format!(
                "write buffers of {} bytes are outside {MIN_WRITE_BUFFER_BYTES}..={MAX_WRITE_BUFFER_BYTES} bytes",
                self.write_buffer_bytes
            )));
        }
        Ok(())
    }
}
