//! What opening a store costs, beside a bare RocksDB open of the same column families: the
//! median of `rounds` creations of a fresh store, closes, and reopens of the empty store.
//!
//! `cargo run --release -p rockcask-core --example open_times -- [rounds] [dir]` (`dir`: where
//! the stores are made, a temporary directory by default; use the disk the stores will live on).
//! Run it under `strace -f -c -e trace=fsync,fdatasync,rename,openat` to count what each open
//! asks of the file system.

use std::path::Path;
use std::time::{Duration, Instant};

use rockcask_core::{Store, StoreOptions};

fn median(mut v: Vec<Duration>) -> f64 {
    v.sort();
    v[v.len() / 2].as_secs_f64() * 1e3
}

fn time<T>(f: impl FnOnce() -> T) -> (T, Duration) {
    let t0 = Instant::now();
    let out = f();
    (out, t0.elapsed())
}

/// RocksDB alone: the five column families a store has, created, with RocksDB's defaults.
fn bare_rocksdb(dir: &Path, create: bool) -> rocksdb::DB {
    let mut o = rocksdb::Options::default();
    o.create_if_missing(create);
    o.create_missing_column_families(create);
    rocksdb::DB::open_cf(&o, dir, ["meta", "entries", "objects", "refs", "maps"]).expect("bare RocksDB open")
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let rounds: usize = args.get(1).map_or(20, |s| s.parse().expect("rounds"));
    let temp = tempfile::tempdir().expect("temp dir");
    let root = args
        .get(2)
        .map_or_else(|| temp.path().to_path_buf(), std::path::PathBuf::from);
    let (mut create, mut close, mut reopen) = (Vec::new(), Vec::new(), Vec::new());
    let (mut bare_create, mut bare_reopen) = (Vec::new(), Vec::new());
    for i in 0..rounds {
        let dir = root.join(format!("store-{i}"));
        let (store, t) = time(|| Store::open(&dir, StoreOptions::default()).expect("create"));
        create.push(t);
        close.push(time(|| store.close().expect("close")).1);
        let (store, t) = time(|| Store::open(&dir, StoreOptions::default()).expect("reopen"));
        reopen.push(t);
        store.close().expect("close");

        let dir = root.join(format!("bare-{i}"));
        let (db, t) = time(|| bare_rocksdb(&dir, true));
        bare_create.push(t);
        drop(db);
        let (db, t) = time(|| bare_rocksdb(&dir, false));
        bare_reopen.push(t);
        drop(db);
    }
    println!("medians of {rounds} rounds, ms (in {}):", root.display());
    println!(
        "  RockCask: create {:.2}, close {:.2}, reopen {:.2}",
        median(create),
        median(close),
        median(reopen)
    );
    println!(
        "  bare RocksDB, same 5 column families: create {:.2}, reopen {:.2}",
        median(bare_create),
        median(bare_reopen)
    );
}
