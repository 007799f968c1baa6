//! Queue cycles inside Rust, without JNI: a queue held at `depth` entries while each synced
//! transaction polls `batch` items and enqueues `batch` new 64-byte ones. Shows what a cycle
//! costs in the core alone, split into the poll, the enqueues and the commit.
//!
//! `cargo run --release -p rockcask-core --example queue_cycles -- [transactions] [batch] [depth] [sync] [metrics] [inline] [queue_cache]`
//! (`sync` 0 leaves commits unsynced, which separates the CPU cost from the disk's; `metrics` 0
//! turns counting off, to see what it costs; `inline` N keeps payloads of up to N bytes in their
//! entries, `StoreOptions::inline_payload_bytes`, 0 by default; `queue_cache` the bytes of the queue entry cache,
//! `StoreOptions::queue_cache_bytes`, its default when left out, 0 to read every entry back.)

use std::time::{Duration, Instant};

use rockcask_core::{Store, StoreOptions};

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let transactions: usize = args.get(1).map_or(20_000, |s| s.parse().expect("transactions"));
    let batch: usize = args.get(2).map_or(100, |s| s.parse().expect("batch"));
    let depth: usize = args.get(3).map_or(1_000, |s| s.parse().expect("depth"));
    let sync = args.get(4).is_none_or(|s| s != "0");
    let metrics = args.get(5).is_none_or(|s| s != "0");
    let inline_payload_bytes: usize = args.get(6).map_or(0, |s| s.parse().expect("inline"));
    let queue_cache_bytes: usize = args.get(7).map_or(StoreOptions::default().queue_cache_bytes, |s| {
        s.parse().expect("queue_cache")
    });
    let root = tempfile::tempdir().expect("temp dir");
    let options = StoreOptions {
        sync_on_commit: sync,
        metrics,
        inline_payload_bytes,
        queue_cache_bytes,
        ..StoreOptions::default()
    };
    let store = Store::open(root.path().join("store"), options).expect("open");
    let payload = [7u8; 64];
    let mut tx = store.begin().expect("begin");
    for _ in 0..depth {
        tx.enqueue("q", &payload).expect("enqueue");
    }
    tx.commit().expect("commit");
    let (mut poll, mut enqueue, mut commit) = (Duration::ZERO, Duration::ZERO, Duration::ZERO);
    let started = Instant::now();
    for _ in 0..transactions {
        let mut tx = store.begin().expect("begin");
        let t0 = Instant::now();
        let polled = tx.poll("q", batch).expect("poll");
        assert_eq!(polled.len(), batch);
        assert!(polled.iter().all(|m| m.payload.as_deref() == Some(&payload[..])));
        let t1 = Instant::now();
        for _ in 0..batch {
            tx.enqueue("q", &payload).expect("enqueue");
        }
        let t2 = Instant::now();
        tx.commit().expect("commit");
        let t3 = Instant::now();
        poll += t1 - t0;
        enqueue += t2 - t1;
        commit += t3 - t2;
    }
    let elapsed = started.elapsed().as_secs_f64();
    let per_tx = |d: Duration| d.as_secs_f64() * 1e6 / transactions as f64;
    println!(
        "{transactions} transactions of {batch} polls + {batch} enqueues (64 B), depth {depth}, {} commits, payloads {}",
        if sync { "synced" } else { "unsynced" },
        if inline_payload_bytes >= payload.len() { "inline" } else { "in objects" }
    );
    println!(
        "cycles/s {:.0}  transactions/s {:.0}",
        (transactions * batch) as f64 / elapsed,
        transactions as f64 / elapsed
    );
    println!(
        "per transaction: poll {:.1} us, enqueues {:.1} us, commit {:.1} us",
        per_tx(poll),
        per_tx(enqueue),
        per_tx(commit)
    );
    if metrics {
        // RocksDB's write of each commit's batch, its log sync included: what any store on
        // RocksDB doing the same work pays per transaction at least.
        let w = store.metrics().expect("metrics").synced_write_nanos;
        println!(
            "RocksDB write per commit: mean {:.1} us, p50 {:.1} us",
            w.mean() / 1e3,
            w.p50 as f64 / 1e3
        );
    }
    assert_eq!(store.queue_size("q").expect("size"), depth as u64);
    store.close().expect("close");
}
