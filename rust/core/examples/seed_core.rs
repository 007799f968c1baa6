//! Seed experiment 1 inside Rust, without JNI: where a transaction's time goes (buffering the
//! items vs. the synced commit), beside one naive RocksDB WriteBatch with two puts per item.
//!
//! `cargo run --release -p rockcask-core --example seed_core -- [N] [reps] [enqueue|put|inline] [queue_cache] [noraw] [same]`
//! (`put`: `put(id, bytes)` + `enqueue_id(queue, id)` with random ids, the object under its own id;
//! `inline`: `enqueue` with each payload kept in its entry, `StoreOptions::inline_payload_bytes`;
//! `queue_cache`: `StoreOptions::queue_cache_bytes`, its default when left out; `noraw`: without
//! the naive batch, so that a profile shows RockCask's transaction alone; `same`: every rep in one
//! store, drained (untimed) after each, as the peer benchmark runs it, instead of a new store per rep)

use std::time::Instant;

use rockcask_core::{Store, StoreOptions, Uuid};
use rocksdb::{Options, WriteBatch, WriteOptions, DB};

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let n: usize = args.get(1).map_or(100_000, |s| s.parse().expect("N"));
    let reps: usize = args.get(2).map_or(4, |s| s.parse().expect("reps"));
    let put_mode = args.get(3).is_some_and(|m| m == "put");
    let inline_payload_bytes = if args.get(3).is_some_and(|m| m == "inline") {
        1024
    } else {
        0
    };
    let queue_cache_bytes: usize = args.get(4).map_or(StoreOptions::default().queue_cache_bytes, |s| {
        s.parse().expect("queue_cache")
    });
    let raw = args.get(5).is_none_or(|m| m != "noraw");
    let same_store = args.get(6).is_some_and(|m| m == "same");
    let root = tempfile::tempdir().expect("temp dir");
    let options = StoreOptions {
        inline_payload_bytes,
        queue_cache_bytes,
        ..StoreOptions::default()
    };
    let mut kept = same_store.then(|| Store::open(root.path().join("rc"), options.clone()).expect("open"));
    println!(
        "{:>9} {:>12} {:>12} {:>12} {:>14} {:>14}",
        "N", "buffer ms", "commit ms", "items/s", "raw batch ms", "raw items/s"
    );
    for rep in 0..reps {
        let payloads: Vec<Vec<u8>> = (0..n).map(|_| Uuid::new_v4().to_string().into_bytes()).collect();
        let store = match kept.take() {
            Some(store) => store,
            None => Store::open(root.path().join(format!("rc{rep}")), options.clone()).expect("open"),
        };
        let mut tx = store.begin().expect("begin");
        let t0 = Instant::now();
        for p in &payloads {
            if put_mode {
                let id = Uuid::new_v4();
                tx.put(id, p).expect("put");
                tx.enqueue_id("queue", id).expect("enqueue id");
            } else {
                tx.enqueue("queue", p).expect("enqueue");
            }
        }
        let t1 = Instant::now();
        tx.commit().expect("commit");
        let t2 = Instant::now();
        if same_store {
            let mut drain = store.begin().expect("begin drain");
            assert_eq!(drain.poll("queue", n).expect("drain").len(), n, "drained items");
            drain.commit().expect("commit drain");
            kept = Some(store);
        } else {
            store.close().expect("close");
        }
        let ms = |a: Instant, b: Instant| (b - a).as_secs_f64() * 1e3;
        if !raw {
            println!(
                "{:>9} {:>12.2} {:>12.2} {:>12.0}",
                n,
                ms(t0, t1),
                ms(t1, t2),
                n as f64 / (t2 - t0).as_secs_f64()
            );
            continue;
        }

        let mut opts = Options::default();
        opts.create_if_missing(true);
        let db = DB::open(&opts, root.path().join(format!("raw{rep}"))).expect("open raw");
        let t3 = Instant::now();
        let mut batch = WriteBatch::default();
        for (i, p) in payloads.iter().enumerate() {
            let id = Uuid::new_v4();
            batch.put(id.as_bytes(), p);
            let mut k = [0u8; 12];
            k[4..].copy_from_slice(&(i as u64).to_be_bytes());
            batch.put(k, id.as_bytes());
        }
        let mut wo = WriteOptions::default();
        wo.set_sync(true);
        db.write_opt(batch, &wo).expect("write");
        let t4 = Instant::now();
        println!(
            "{:>9} {:>12.2} {:>12.2} {:>12.0} {:>14.2} {:>14.0}",
            n,
            ms(t0, t1),
            ms(t1, t2),
            n as f64 / (t2 - t0).as_secs_f64(),
            ms(t3, t4),
            n as f64 / (t4 - t3).as_secs_f64()
        );
    }
}
