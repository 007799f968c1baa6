//! Point reads of a map inside Rust, without JNI: `keys` values of `value_bytes` under 8-byte
//! big-endian keys are put in transactions of 10,000, the store is closed and reopened, then every
//! key is read once with `Store::map_get`, in key order and then in a shuffled order. Shows what a
//! map read costs in the core alone (the street-graph experiment reads in an order between the
//! two: a Dijkstra wavefront over keys in a locality order).
//!
//! `cargo run --release -p rockcask-core --example map_reads -- [keys] [value_bytes] [dir] [cache_mib] [map_cache_mib]`
//! (an existing `dir` from an earlier run is read again without loading; `cache_mib` is the
//! block cache of the reading open, 64 by default; `map_cache_mib` its map cache, 32 by default).

use std::time::Instant;

use rockcask_core::{Store, StoreOptions};

/// A small deterministic generator (xorshift), so that every run reads in the same order.
struct Gen(u64);

impl Gen {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
}

const MAP: &str = "m";

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let keys: u64 = args.get(1).map_or(1_000_000, |s| s.parse().expect("keys"));
    let value_bytes: usize = args.get(2).map_or(40, |s| s.parse().expect("value_bytes"));
    let temp = tempfile::tempdir().expect("temp dir");
    let dir = args
        .get(3)
        .map_or_else(|| temp.path().join("store"), std::path::PathBuf::from);
    let cache_mib: usize = args.get(4).map_or(64, |s| s.parse().expect("cache_mib"));
    let map_cache_mib: usize = args.get(5).map_or(32, |s| s.parse().expect("map_cache_mib"));
    let value = |k: u64| {
        let mut v = vec![0u8; value_bytes.max(8)];
        v[..8].copy_from_slice(&k.to_le_bytes());
        v
    };
    if !dir.exists() {
        let t0 = Instant::now();
        let store = Store::open(&dir, StoreOptions::default()).expect("open");
        for start in (0..keys).step_by(10_000) {
            let mut tx = store.begin().expect("begin");
            for k in start..(start + 10_000).min(keys) {
                tx.map_put(MAP, &k.to_be_bytes(), &value(k)).expect("put");
            }
            tx.commit().expect("commit");
        }
        store.close().expect("close");
        println!(
            "loaded {keys} values of {value_bytes} bytes in {:.1} s",
            t0.elapsed().as_secs_f64()
        );
    }
    let t0 = Instant::now();
    let store = Store::open(
        &dir,
        StoreOptions {
            block_cache_bytes: cache_mib << 20,
            map_cache_bytes: map_cache_mib << 20,
            ..StoreOptions::default()
        },
    )
    .expect("reopen");
    println!("reopened in {:.1} ms", t0.elapsed().as_secs_f64() * 1e3);
    let mut order: Vec<u64> = (0..keys).collect();
    let mut gen = Gen(0x9E37_79B9_7F4A_7C15);
    for (name, shuffle) in [
        ("key order", false),
        ("key order again", false),
        ("shuffled", true),
        ("shuffled again", false),
    ] {
        if shuffle {
            for i in (1..order.len()).rev() {
                order.swap(i, gen.next() as usize % (i + 1));
            }
        }
        let t0 = Instant::now();
        for &k in &order {
            let v = store.map_get(MAP, &k.to_be_bytes()).expect("get").expect("stored");
            assert_eq!(v[..8], k.to_le_bytes());
        }
        let seconds = t0.elapsed().as_secs_f64();
        println!("{name}: {:.0} ns per get", seconds * 1e9 / keys as f64);
    }
    store.close().expect("close");
}
