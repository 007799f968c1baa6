//! A fast hasher for maps keyed by object ids: one multiply per 8 bytes, then murmur3's 64-bit
//! finalizer so every output bit depends on every input bit. The finalizer matters: UUIDv7
//! starts with a timestamp and a counter, and without it the low bits (the bucket index)
//! followed that counter and inserts probed long runs. The maps live only inside one
//! transaction, so hash flooding is not a concern, and SipHash's cost showed per item.

use std::collections::{HashMap, HashSet};
use std::hash::{BuildHasherDefault, Hasher};

#[derive(Default, Clone, Copy)]
pub(crate) struct IdHasher(u64);

const SEED: u64 = 0x51_7c_c1_b7_27_22_0a_95;

impl Hasher for IdHasher {
    fn write(&mut self, bytes: &[u8]) {
        for chunk in bytes.chunks(8) {
            let mut word = [0u8; 8];
            word[..chunk.len()].copy_from_slice(chunk);
            self.write_u64(u64::from_le_bytes(word));
        }
    }

    fn write_u64(&mut self, v: u64) {
        self.0 = (self.0.rotate_left(5) ^ v).wrapping_mul(SEED);
    }

    fn write_usize(&mut self, v: usize) {
        self.write_u64(v as u64);
    }

    fn finish(&self) -> u64 {
        let mut h = self.0;
        h ^= h >> 33;
        h = h.wrapping_mul(0xff51_afd7_ed55_8ccd);
        h ^= h >> 33;
        h = h.wrapping_mul(0xc4ce_b9fe_1a85_ec53);
        h ^ (h >> 33)
    }
}

pub(crate) type IdMap<K, V> = HashMap<K, V, BuildHasherDefault<IdHasher>>;
pub(crate) type IdSet<K> = HashSet<K, BuildHasherDefault<IdHasher>>;

#[cfg(test)]
mod tests {
    use super::*;
    use std::hash::BuildHasher;

    #[test]
    fn sequential_uuid_v7_ids_spread_over_the_low_bits() {
        let build = BuildHasherDefault::<IdHasher>::default();
        let mut buckets = [0u32; 256];
        for _ in 0..25_600 {
            buckets[(build.hash_one(uuid::Uuid::now_v7()) & 0xff) as usize] += 1;
        }
        // 100 expected per bucket; a counter-driven hash would fill a few buckets only.
        assert!(buckets.iter().all(|&n| (40..200).contains(&n)), "{buckets:?}");
    }
}
