//! Key-value operations inside Rust, without JNI, each one transaction as a service writes it
//! (`begin`, map calls, `commit`): what the core alone costs for the key-value benchmark's
//! operations (`java/bench/.../kv`), per operation kind, from T threads at once, synced or not.
//! Loads `records` values of 1,000 bytes into one map, then every thread runs `op` on keys
//! drawn uniformly at random for `seconds`, and prints operations/s with latency p50/p99.
//!
//! `cargo run --release -p rockcask-core --example kv_ops -- [op] [threads] [seconds] [synced] [records]`
//! where `op` is `read` (get + commit), `storeget` (`Store::map_get`, no transaction), `update`
//! (put + commit), `rmw` (get, put, commit, retried on conflict) or `empty` (begin + commit of a
//! transaction that does nothing); defaults `read 1 5 1 100000`.

use std::sync::Arc;
use std::time::{Duration, Instant};

use rockcask_core::{Error, Store, StoreOptions};

const MAP: &str = "usertable";
const VALUE_BYTES: usize = 1_000;

/// A small deterministic generator (xorshift) per thread.
struct Gen(u64);

impl Gen {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
}

fn key(r: u64) -> [u8; 8] {
    r.to_be_bytes()
}

fn one(store: &Store, op: &str, k: &[u8], value: &[u8]) {
    if op == "storeget" {
        store.map_get(MAP, k).expect("get").expect("a loaded key");
        return;
    }
    loop {
        let mut tx = store.begin().expect("begin");
        match op {
            "empty" => {}
            "read" => {
                tx.map_get(MAP, k).expect("get").expect("a loaded key");
            }
            "update" => tx.map_put(MAP, k, value).expect("put"),
            "rmw" => {
                let mut v = tx.map_get(MAP, k).expect("get").expect("a loaded key");
                v[0] = v[0].wrapping_add(1);
                tx.map_put(MAP, k, &v).expect("put");
            }
            other => panic!("unknown op {other}: read, storeget, update, rmw or empty"),
        }
        match tx.commit() {
            Ok(_) => return,
            Err(Error::Conflict { .. }) => continue,
            Err(e) => panic!("commit: {e}"),
        }
    }
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let op = args.get(1).cloned().unwrap_or_else(|| "read".into());
    let threads: usize = args.get(2).map_or(1, |s| s.parse().expect("threads"));
    let seconds: u64 = args.get(3).map_or(5, |s| s.parse().expect("seconds"));
    let synced = args.get(4).is_none_or(|s| s != "0");
    let records: u64 = args.get(5).map_or(100_000, |s| s.parse().expect("records"));
    let dir = tempfile::tempdir().expect("temp dir");
    let options = StoreOptions {
        sync_on_commit: synced,
        ..StoreOptions::default()
    };
    let store = Arc::new(Store::open(dir.path(), options).expect("open"));
    let value = vec![7u8; VALUE_BYTES];
    for start in (0..records).step_by(10_000) {
        let mut tx = store.begin().expect("begin");
        for r in start..(start + 10_000).min(records) {
            tx.map_put(MAP, &key(r), &value).expect("put");
        }
        tx.commit().expect("commit");
    }
    let until = Instant::now() + Duration::from_secs(seconds);
    let started = Instant::now();
    let workers: Vec<_> = (0..threads)
        .map(|t| {
            let store = store.clone();
            let op = op.clone();
            let value = value.clone();
            std::thread::spawn(move || {
                let mut gen = Gen(0x9E37_79B9_7F4A_7C15 ^ (t as u64 + 1));
                let mut nanos = Vec::new();
                while Instant::now() < until {
                    let k = key(gen.next() % records);
                    let t0 = Instant::now();
                    one(&store, &op, &k, &value);
                    nanos.push(t0.elapsed().as_nanos() as u64);
                }
                nanos
            })
        })
        .collect();
    let mut all: Vec<u64> = workers.into_iter().flat_map(|w| w.join().expect("worker")).collect();
    let elapsed = started.elapsed().as_secs_f64();
    all.sort_unstable();
    let pct = |p: f64| all[((all.len() - 1) as f64 * p) as usize] as f64 / 1000.0;
    println!(
        "{op} T={threads} {}: {:.0} ops/s, p50 {:.1} µs, p99 {:.1} µs",
        if synced { "synced" } else { "unsynced" },
        all.len() as f64 / elapsed,
        pct(0.5),
        pct(0.99)
    );
}
