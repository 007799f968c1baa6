//! A read cache: committed values of one column family kept in native memory, so that a point
//! read that hits it costs a hash lookup and a copy instead of RocksDB's read path (memtables,
//! then per level a filter, an index and a data block search: about 2 µs per read on a 2-core
//! machine even when every block is cached, see `examples/map_reads`, and 4–5 µs for objects of
//! 256 bytes under random ids, `examples/random_reads`). A store has two: the map cache (keys of
//! the maps family) and the object cache (objects created by `put`, under their ids).
//!
//! It holds only what is committed and written, and it is never stale:
//! - A commit that writes a key marks the key as being written before its batch is queued for
//!   writing (`begin_writes`, under the commit lock) and unmarks it once the batch is written
//!   or failed (`end_writes`, before the commit's ticket counts as written). Marking drops the
//!   cached value; unmarking drops it again and counts a write in the key's shard.
//! - A read that misses reads RocksDB and keeps the value only if, between before its read and
//!   now, the key was not being written and no write ended in its shard (`Fill`). A value read
//!   while a write could land beside it is used once and not kept.
//!
//! So a hit returns what a RocksDB read at that moment would: the value of the last commit
//! that wrote the key, written. Reads in transactions note the written tickets before they look
//! (as they do before reading RocksDB), so their commit-time check is unchanged.
//!
//! Admission: until a shard first has to evict to keep a value, a missed key is kept at once.
//! From then on a key is kept only at its second miss within a while (a doorkeeper, one bit per
//! hash, cleared when half its bits are set), so that reads of far more keys than the cache
//! holds, each read once or rarely, do not pay for filling and evicting at every miss. The doorkeeper has about 8 bits per entry of 64 bytes a shard could hold, at most
//! 2^24 (2 MiB) a shard, and its bytes count against the capacity.
//!
//! Eviction is CLOCK per shard: a hit sets the entry's bit, the hand clears set bits and evicts
//! the first clear one. A new entry starts with its bit set. Each entry is charged its key and
//! value plus `ENTRY_OVERHEAD_BYTES`. Values larger than an eighth of a shard (1/512 of the cache) are never kept.
//!
//! One structure with its admission and eviction, and their tests: a little over 500 lines.

use std::collections::HashMap;
use std::hash::{BuildHasher, BuildHasherDefault, Hasher, RandomState};
use std::sync::Arc;

use parking_lot::Mutex;

/// Shards: concurrent readers of different keys rarely meet on one lock.
const SHARDS: usize = 64;

/// What an entry costs beyond its key and value: its index bucket (at the table's load), ring
/// slot, shared allocation's header and malloc's rounding.
pub const ENTRY_OVERHEAD_BYTES: usize = 96;

/// Below this a cache could keep hardly any entry in a shard: such a capacity means none.
pub const MIN_CAPACITY_BYTES: usize = 64 << 10;

pub(crate) struct ReadCache {
    shards: Box<[Mutex<Shard>]>,
    /// Bytes of entries a shard keeps (its doorkeeper's bytes taken off); 0 when off.
    shard_capacity: usize,
    doorkeeper_bits: usize,
    hasher: RandomState,
}

/// One shard. Entries are indexed by their key's 64-bit hash: a lookup then touches the index
/// and the entry's one allocation (key and value together), and compares the key. A key whose
/// hash another cached key has is not kept (about one chance in 10^7 with 10^6 keys).
#[derive(Default)]
struct Shard {
    index: HashMap<u64, Entry, BuildHasherDefault<Prehashed>>,
    /// The hashes of the entries in CLOCK order.
    ring: Vec<u64>,
    hand: usize,
    bytes: usize,
    /// Hashes of the keys commits queued for writing write, with how many such commits. By
    /// hash, so that marking allocates nothing; a key sharing the hash of one being written is
    /// merely not kept meanwhile.
    being_written: HashMap<u64, u32, BuildHasherDefault<Prehashed>>,
    /// Set once a fill has had to evict: from then on the doorkeeper decides admission.
    full: bool,
    /// Writes ended in this shard (a fill started before one is not kept).
    writes_ended: u64,
    /// Counted here, under the lock a lookup takes anyway, rather than in counters every
    /// reading thread would write.
    hits: u64,
    misses: u64,
    /// Hashes missed once since the last clearing (allocated at the first miss).
    doorkeeper: Vec<u64>,
    doorkeeper_set: usize,
}

struct Entry {
    /// The key, then the value; shared so that a hit reads it after the shard is unlocked.
    data: Arc<[u8]>,
    key_len: u32,
    ring_at: u32,
    referenced: bool,
}

impl Entry {
    fn key(&self) -> &[u8] {
        &self.data[..self.key_len as usize]
    }
    fn charge(&self) -> usize {
        self.data.len() + ENTRY_OVERHEAD_BYTES
    }
}

/// The index's keys are hashes already.
#[derive(Default)]
struct Prehashed(u64);

impl Hasher for Prehashed {
    fn write(&mut self, _: &[u8]) {
        unreachable!("only u64 keys")
    }
    fn write_u64(&mut self, v: u64) {
        self.0 = v;
    }
    fn finish(&self) -> u64 {
        self.0
    }
}

/// A cached value, read after the shard is unlocked (the entry's allocation is shared), so that
/// whoever reads it may call back into the store.
pub(crate) struct Hit {
    data: Arc<[u8]>,
    key_len: usize,
}

impl Hit {
    pub fn value(&self) -> &[u8] {
        &self.data[self.key_len..]
    }
}

/// A read that missed, to be kept with `ReadCache::fill` once its value is read.
pub(crate) struct Fill {
    hash: u64,
    writes_ended: u64,
}

/// Hits and misses since the store opened, and the bytes charged now (entries and doorkeepers).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct CacheCounts {
    pub hits: u64,
    pub misses: u64,
    pub bytes: usize,
}

/// The keys one commit writes, marked as being written from `ReadCache::begin_writes` until this
/// is dropped: after the commit's group write, written, failed or refused, and before its
/// ticket counts as written (`GroupCommit::wait` drops the group first), so no path leaves a
/// key marked.
#[derive(Default)]
pub(crate) struct WriteMarks {
    cache: Option<Arc<ReadCache>>,
    /// The keys' hashes: what marks and unmarks them.
    hashes: Vec<u64>,
}

impl Drop for WriteMarks {
    fn drop(&mut self) {
        if let Some(cache) = self.cache.take() {
            cache.end_writes(&self.hashes);
        }
    }
}

impl ReadCache {
    /// A cache of at most `capacity` bytes (below `MIN_CAPACITY_BYTES`: keeps nothing).
    pub fn new(capacity: usize) -> ReadCache {
        let shard = if capacity < MIN_CAPACITY_BYTES {
            0
        } else {
            capacity / SHARDS
        };
        let doorkeeper_bits = (shard / 8).next_power_of_two().clamp(1 << 10, 1 << 24);
        ReadCache {
            shards: (0..SHARDS).map(|_| Mutex::new(Shard::default())).collect(),
            shard_capacity: shard.saturating_sub(doorkeeper_bits / 8),
            doorkeeper_bits,
            hasher: RandomState::new(),
        }
    }

    pub fn enabled(&self) -> bool {
        self.shard_capacity > 0
    }

    fn shard(&self, hash: u64) -> &Mutex<Shard> {
        // Bits 40..46: the index's buckets use the low bits and its tags the top 7 (hashbrown),
        // the doorkeeper bits 16..36; each must vary within a shard.
        &self.shards[(hash >> 40) as usize % SHARDS]
    }

    /// The cached value of `key`, or, on a miss, the ticket for keeping the value read instead
    /// (`None` when it may not be kept).
    pub fn lookup(&self, key: &[u8]) -> Result<Hit, Option<Fill>> {
        if !self.enabled() {
            return Err(None);
        }
        let hash = self.hasher.hash_one(key);
        let mut s = self.shard(hash).lock();
        if let Some(e) = s.index.get_mut(&hash).filter(|e| e.key() == key) {
            e.referenced = true;
            let hit = Hit {
                data: e.data.clone(),
                key_len: key.len(),
            };
            s.hits += 1;
            return Ok(hit);
        }
        s.misses += 1;
        if s.being_written.contains_key(&hash) || (s.full && !s.admits(hash, self.doorkeeper_bits)) {
            return Err(None);
        }
        Err(Some(Fill {
            hash,
            writes_ended: s.writes_ended,
        }))
    }

    /// Keeps `value` (`None`: the key is absent, which is not kept) read for `key` after the
    /// miss that gave `fill`, unless a write of the shard ended or the key is being written.
    pub fn fill(&self, fill: Fill, key: &[u8], value: Option<&[u8]>) {
        let Some(value) = value else { return };
        if key.len() + value.len() + ENTRY_OVERHEAD_BYTES > self.shard_capacity / 8 {
            return;
        }
        // Its bit set: an eviction moves the ring's last entry into the hand's slot, so a new
        // entry (pushed last) would otherwise be the first the hand takes.
        let entry = Entry {
            data: [key, value].concat().into(),
            key_len: key.len() as u32,
            ring_at: 0,
            referenced: true,
        };
        let mut s = self.shard(fill.hash).lock();
        if s.writes_ended != fill.writes_ended
            || s.being_written.contains_key(&fill.hash)
            || s.index.contains_key(&fill.hash)
        {
            return;
        }
        while s.bytes + entry.charge() > self.shard_capacity && !s.ring.is_empty() {
            s.full = true;
            s.evict_one();
        }
        s.bytes += entry.charge();
        let ring_at = s.ring.len() as u32;
        s.ring.push(fill.hash);
        s.index.insert(fill.hash, Entry { ring_at, ..entry });
    }

    /// Marks `keys` as being written by a commit about to be queued, dropping their values,
    /// until the marks returned are dropped.
    pub fn begin_writes<K: AsRef<[u8]>>(self: &Arc<Self>, keys: impl IntoIterator<Item = K>) -> WriteMarks {
        if !self.enabled() {
            return WriteMarks::default();
        }
        let mut hashes = Vec::new();
        for key in keys {
            let hash = self.hasher.hash_one(key.as_ref());
            let mut s = self.shard(hash).lock();
            s.remove_hash(hash);
            *s.being_written.entry(hash).or_insert(0) += 1;
            hashes.push(hash);
        }
        WriteMarks {
            cache: (!hashes.is_empty()).then(|| self.clone()),
            hashes,
        }
    }

    /// Unmarks the keys hashed `hashes` once the commit that `begin_writes` marked them for is
    /// written (or failed).
    fn end_writes(&self, hashes: &[u64]) {
        for &hash in hashes {
            let mut s = self.shard(hash).lock();
            s.remove_hash(hash);
            s.writes_ended += 1;
            match s.being_written.get_mut(&hash) {
                Some(n) if *n > 1 => *n -= 1,
                Some(_) => {
                    s.being_written.remove(&hash);
                }
                None => {}
            }
        }
    }

    /// Hits and misses so far (none counted when the cache is off), and the bytes charged now.
    pub fn counts(&self) -> CacheCounts {
        self.shards.iter().fold(CacheCounts::default(), |c, s| {
            let s = s.lock();
            let doorkeeper = s.doorkeeper.len() * 8;
            CacheCounts {
                hits: c.hits + s.hits,
                misses: c.misses + s.misses,
                bytes: c.bytes + s.bytes + doorkeeper,
            }
        })
    }
}

impl Shard {
    /// Whether a missed `hash` may be kept now: it was missed once since the last clearing.
    fn admits(&mut self, hash: u64, bits: usize) -> bool {
        if self.doorkeeper.is_empty() {
            self.doorkeeper = vec![0; bits / 64];
        }
        // Bits 16..36 (at most 2^20 bits): not the shard's.
        let bit = ((hash >> 16) as usize) & (bits - 1);
        let (word, mask) = (bit / 64, 1u64 << (bit % 64));
        if self.doorkeeper[word] & mask != 0 {
            return true;
        }
        self.doorkeeper[word] |= mask;
        self.doorkeeper_set += 1;
        if self.doorkeeper_set >= bits / 2 {
            self.doorkeeper.iter_mut().for_each(|w| *w = 0);
            self.doorkeeper_set = 0;
        }
        false
    }

    /// Drops the entry under `hash` if there is one: the key written's, or (rarely) another
    /// key's of the same hash, which is only read from RocksDB again.
    fn remove_hash(&mut self, hash: u64) {
        if self.index.contains_key(&hash) {
            self.remove_entry(hash);
        }
    }

    /// Drops the entry under `hash`, moving the last of the ring into its place there.
    fn remove_entry(&mut self, hash: u64) {
        let e = self.index.remove(&hash).expect("the entry is indexed");
        self.bytes -= e.charge();
        let at = e.ring_at as usize;
        self.ring.swap_remove(at);
        if let Some(&moved) = self.ring.get(at) {
            self.index.get_mut(&moved).expect("every ring hash is indexed").ring_at = at as u32;
        }
    }

    /// CLOCK: clears referenced bits from the hand on and evicts the first unreferenced entry.
    fn evict_one(&mut self) {
        loop {
            if self.hand >= self.ring.len() {
                self.hand = 0;
            }
            let hash = self.ring[self.hand];
            let e = self.index.get_mut(&hash).expect("every ring hash is indexed");
            if e.referenced {
                e.referenced = false;
                self.hand += 1;
                continue;
            }
            self.remove_entry(hash);
            return;
        }
    }
}

#[cfg(test)]
mod tests;
