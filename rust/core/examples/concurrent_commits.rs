//! Synced commits per second from several threads at once, each transaction moving one item
//! between two queues (an engine's firing), to show how commits share fsyncs.
//!
//! `cargo run --release -p rockcask-core --example concurrent_commits -- [threads] [seconds]`

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use rockcask_core::{Store, StoreOptions};

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let threads: usize = args.get(1).map_or(4, |s| s.parse().expect("threads"));
    let seconds: u64 = args.get(2).map_or(5, |s| s.parse().expect("seconds"));
    let dir = tempfile::tempdir().expect("temp dir");
    let store = Store::open(dir.path(), StoreOptions::default()).expect("open");
    {
        let mut tx = store.begin().expect("begin");
        for i in 0..(threads * 100) as u32 {
            tx.enqueue(if i % 2 == 0 { "a" } else { "b" }, &i.to_be_bytes())
                .expect("enqueue");
        }
        tx.commit().expect("commit");
    }
    let stop = Arc::new(AtomicBool::new(false));
    let commits = Arc::new(AtomicU64::new(0));
    let started = Instant::now();
    let workers: Vec<_> = (0..threads)
        .map(|t| {
            let (store, stop, commits) = (store.clone(), stop.clone(), commits.clone());
            std::thread::spawn(move || {
                let (from, to) = if t % 2 == 0 { ("a", "b") } else { ("b", "a") };
                while !stop.load(Ordering::Relaxed) {
                    let mut tx = store.begin().expect("begin");
                    for m in tx.poll(from, 1).expect("poll") {
                        tx.enqueue_id(to, m.id).expect("enqueue");
                    }
                    tx.commit().expect("commit");
                    commits.fetch_add(1, Ordering::Relaxed);
                }
            })
        })
        .collect();
    std::thread::sleep(Duration::from_secs(seconds));
    stop.store(true, Ordering::Relaxed);
    workers.into_iter().for_each(|w| w.join().expect("worker"));
    let n = commits.load(Ordering::Relaxed);
    let total = store.queue_size("a").expect("size") + store.queue_size("b").expect("size");
    assert_eq!(total, (threads * 100) as u64, "items conserved");
    println!(
        "{threads} threads: {n} synced commits in {:.1} s = {:.0} commits/s",
        started.elapsed().as_secs_f64(),
        n as f64 / started.elapsed().as_secs_f64()
    );
}
