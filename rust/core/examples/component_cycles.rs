//! Concurrent components inside Rust, without JNI: `threads` threads, each cycling a queue of its
//! own in one store (held at `depth` entries; each synced transaction polls `batch` items and
//! enqueues `batch` new 64-byte ones), in one of the forms a flow writes:
//! - `enqueue`: `enqueue(q, bytes)`, objects owned by their queue (the defaults);
//! - `inline`: the same with payloads kept in their entries (`inline_payload_bytes` 1024);
//! - `putid`: `put(id, bytes)` under a random id, `enqueue_id(q, id)`, and a `delete` of each
//!   object consumed (objects shared by id, as the seeds' flows name them).
//!
//! Prints the rate and, per transaction, where a thread's time went (poll, writes, commit) beside
//! RocksDB's synced write of a group, to show what serializes the threads.
//!
//! `cargo run --release -p rockcask-core --example component_cycles -- [form] [threads] [seconds] [batch] [depth] [sync] [dir] [write_buffer_bytes]`

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use rockcask_core::{Store, StoreOptions, Transaction};
use uuid::Uuid;

#[derive(Clone, Copy, PartialEq)]
enum Form {
    Enqueue,
    Inline,
    PutId,
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let form = match args.get(1).map_or("enqueue", String::as_str) {
        "enqueue" => Form::Enqueue,
        "inline" => Form::Inline,
        "putid" => Form::PutId,
        other => panic!("form is enqueue, inline or putid, not {other}"),
    };
    let threads: usize = args.get(2).map_or(4, |s| s.parse().expect("threads"));
    let seconds: f64 = args.get(3).map_or(5.0, |s| s.parse().expect("seconds"));
    let batch: usize = args.get(4).map_or(100, |s| s.parse().expect("batch"));
    let depth: usize = args.get(5).map_or(1_000, |s| s.parse().expect("depth"));
    let sync = args.get(6).is_none_or(|s| s != "0");
    let root = tempfile::tempdir_in(args.get(7).map_or(std::env::temp_dir(), Into::into)).expect("temp dir");
    let write_buffer_bytes = args.get(8).map_or(StoreOptions::default().write_buffer_bytes, |s| {
        s.parse().expect("write_buffer_bytes")
    });
    let options = StoreOptions {
        sync_on_commit: sync,
        write_buffer_bytes,
        inline_payload_bytes: if form == Form::Inline { 1024 } else { 0 },
        ..StoreOptions::default()
    };
    let store = Store::open(root.path().join("store"), options).expect("open");
    let payload = [7u8; 64];
    for t in 0..threads {
        let mut tx = store.begin().expect("begin");
        for _ in 0..depth {
            append(&mut tx, form, &queue(t), &payload);
        }
        tx.commit().expect("commit");
    }
    let stop = Arc::new(AtomicBool::new(false));
    let started = Instant::now();
    let workers: Vec<_> = (0..threads)
        .map(|t| {
            let (store, stop) = (store.clone(), stop.clone());
            std::thread::spawn(move || {
                let q = queue(t);
                let mut phases = [Duration::ZERO; 3];
                let mut transactions = 0u64;
                while !stop.load(Ordering::Relaxed) {
                    let mut tx = store.begin().expect("begin");
                    let t0 = Instant::now();
                    let polled = tx.poll(&q, batch).expect("poll");
                    assert_eq!(polled.len(), batch);
                    let t1 = Instant::now();
                    for m in &polled {
                        if form == Form::PutId {
                            tx.delete(m.id).expect("delete");
                        }
                    }
                    for _ in 0..batch {
                        append(&mut tx, form, &q, &payload);
                    }
                    let t2 = Instant::now();
                    tx.commit().expect("commit");
                    let t3 = Instant::now();
                    phases[0] += t1 - t0;
                    phases[1] += t2 - t1;
                    phases[2] += t3 - t2;
                    transactions += 1;
                }
                (transactions, phases)
            })
        })
        .collect();
    std::thread::sleep(Duration::from_secs_f64(seconds));
    stop.store(true, Ordering::Relaxed);
    let mut transactions = 0;
    let mut phases = [Duration::ZERO; 3];
    for w in workers {
        let (n, p) = w.join().expect("worker");
        transactions += n;
        for (sum, d) in phases.iter_mut().zip(p) {
            *sum += d;
        }
    }
    let elapsed = started.elapsed().as_secs_f64();
    let per_tx = |d: Duration| d.as_secs_f64() * 1e6 / transactions.max(1) as f64;
    let m = store.metrics().expect("metrics");
    println!(
        "{} form, {threads} threads, {batch} polls + {batch} writes (64 B) per {} transaction, depth {depth}",
        match form {
            Form::Enqueue => "enqueue",
            Form::Inline => "inline",
            Form::PutId => "put+id",
        },
        if sync { "synced" } else { "unsynced" }
    );
    println!(
        "cycles/s {:.0}  transactions/s {:.0}  group size mean {:.2}",
        (transactions as usize * batch) as f64 / elapsed,
        transactions as f64 / elapsed,
        m.group_commit_size.mean()
    );
    println!(
        "per transaction (a thread's time): poll {:.1} us, writes {:.1} us, commit {:.1} us; RocksDB write per group: mean {:.1} us, p50 {:.1} us",
        per_tx(phases[0]),
        per_tx(phases[1]),
        per_tx(phases[2]),
        m.synced_write_nanos.mean() / 1e3,
        m.synced_write_nanos.p50 as f64 / 1e3
    );
    store.close().expect("close");
}

fn queue(thread: usize) -> String {
    format!("component-{thread}")
}

fn append(tx: &mut Transaction, form: Form, queue: &str, payload: &[u8]) {
    if form == Form::PutId {
        let id = Uuid::new_v4();
        tx.put(id, payload).expect("put");
        tx.enqueue_id(queue, id).expect("enqueue by id");
    } else {
        tx.enqueue(queue, payload).expect("enqueue");
    }
}
