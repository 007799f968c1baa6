//! Random reads inside Rust, without JNI: `objects` objects of 256 bytes under random ids are
//! put in transactions of 10,000, the store is closed and reopened, then every id is read once
//! in a shuffled order, `per_call` ids per `get_many` (1: one `get` per id). Shows what a read
//! costs in the core alone and what the store's layout does to it.
//!
//! `cargo run --release -p rockcask-core --example random_reads -- [objects] [per_call] [dir] [cache_mib] [object_cache_mib]`
//! (an existing `dir` from an earlier run is read again without loading; `cache_mib` is the
//! block cache of the reading open, 64 by default; `object_cache_mib` its object cache, the
//! store's default when not given). The payloads compress well (their id, then
//! zeros), as many real ones do.

use std::time::Instant;

use rockcask_core::{Store, StoreOptions, Uuid};

/// A small deterministic generator (xorshift), so that every run reads the same ids.
struct Ids(u64);

impl Ids {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let objects: usize = args.get(1).map_or(1_000_000, |s| s.parse().expect("objects"));
    let per_call: usize = args.get(2).map_or(1_000, |s| s.parse().expect("per_call"));
    let temp = tempfile::tempdir().expect("temp dir");
    let dir = args
        .get(3)
        .map_or_else(|| temp.path().join("store"), std::path::PathBuf::from);
    let mut gen = Ids(0x9E37_79B9_7F4A_7C15);
    let mut ids: Vec<Uuid> = (0..objects)
        .map(|_| Uuid::from_u64_pair(gen.next(), gen.next()))
        .collect();
    if !dir.exists() {
        let t0 = Instant::now();
        let store = Store::open(&dir, StoreOptions::default()).expect("open");
        let mut payload = [0u8; 256];
        for chunk in ids.chunks(10_000) {
            let mut tx = store.begin().expect("begin");
            for id in chunk {
                payload[..16].copy_from_slice(id.as_bytes());
                tx.put(*id, &payload).expect("put");
            }
            tx.commit().expect("commit");
        }
        store.close().expect("close");
        println!("loaded {objects} objects in {:.1} s", t0.elapsed().as_secs_f64());
    }
    let t0 = Instant::now();
    let cache_mib: usize = args.get(4).map_or(64, |s| s.parse().expect("cache_mib"));
    let object_cache_bytes = args.get(5).map_or(StoreOptions::default().object_cache_bytes, |s| {
        s.parse::<usize>().expect("object_cache_mib") << 20
    });
    let store = Store::open(
        &dir,
        StoreOptions {
            block_cache_bytes: cache_mib << 20,
            object_cache_bytes,
            ..StoreOptions::default()
        },
    )
    .expect("reopen");
    println!("reopened in {:.1} ms", t0.elapsed().as_secs_f64() * 1e3);
    for i in (1..ids.len()).rev() {
        ids.swap(i, gen.next() as usize % (i + 1));
    }
    for pass in ["warm-up", "measured"] {
        let t0 = Instant::now();
        let mut bytes = 0usize;
        for chunk in ids.chunks(per_call.max(1)) {
            let tx = store.begin().expect("begin");
            if per_call <= 1 {
                for id in chunk {
                    let p = tx.get(*id).expect("get").expect("stored");
                    assert_eq!(&p[..16], id.as_bytes());
                    bytes += p.len();
                }
            } else {
                for (id, p) in chunk.iter().zip(tx.get_many(chunk).expect("get_many")) {
                    let p = p.expect("stored");
                    assert_eq!(&p[..16], id.as_bytes());
                    bytes += p.len();
                }
            }
        }
        assert_eq!(bytes, ids.len() * 256);
        let seconds = t0.elapsed().as_secs_f64();
        println!(
            "{pass}: {:.0} reads/s ({} per call)",
            ids.len() as f64 / seconds,
            per_call
        );
    }
    let m = store.metrics().expect("metrics");
    println!(
        "object cache: {} hits, {} misses, {} MiB",
        m.object_cache_hits,
        m.object_cache_misses,
        m.object_cache_bytes >> 20
    );
    store.close().expect("close");
}
