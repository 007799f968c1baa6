//! The three-stage flow of `java/bench`'s `ThreeStageFlow` inside Rust, without JNI: a producer
//! enqueues 64-byte items on `in`, a transformer moves them to `out`, a consumer drains `out`,
//! each firing one synced transaction of `batch`. Runs the firings on one thread in turn, then
//! on three threads (one per stage), and prints both rates, so the group commit's share can be
//! told apart from what JNI and the JVM add. Each three-thread round also prints (to stderr)
//! what each stage spent per firing preparing it and waiting for its commit.
//!
//! `cargo run --release -p rockcask-core --example three_stage_flow -- [items=300000] [batch=100] [rounds=3] [inline_payload_bytes=1024]`

use std::cell::Cell;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use rockcask_core::{Store, StoreOptions, Transaction};

/// Per thread: where its last commit ended, and the nanoseconds it spent since between commits
/// (preparing a firing) and inside them, with the count, so each stage's share of a round can be
/// printed: a stage whose commit wait is short is the one bounding the flow.
#[derive(Clone, Copy, Default)]
struct StageTimes {
    last_commit_end: Option<Instant>,
    preparing_nanos: u128,
    committing_nanos: u128,
    commits: u128,
}

thread_local! {
    static STAGE_TIMES: Cell<StageTimes> = Cell::new(StageTimes::default());
}

fn commit_timed(mut tx: Transaction) {
    let started = Instant::now();
    tx.commit().expect("commit");
    let ended = Instant::now();
    STAGE_TIMES.with(|cell| {
        let mut t = cell.get();
        if let Some(last) = t.last_commit_end {
            t.preparing_nanos += (started - last).as_nanos();
            t.committing_nanos += (ended - started).as_nanos();
            t.commits += 1;
        }
        t.last_commit_end = Some(ended);
        cell.set(t);
    });
}

fn report_stage(name: &str) {
    let t = STAGE_TIMES.with(Cell::get);
    if let (Some(preparing), Some(committing)) = (
        t.preparing_nanos.checked_div(t.commits),
        t.committing_nanos.checked_div(t.commits),
    ) {
        eprintln!(
            "  {name}: {} us preparing, {} us committing per firing",
            preparing / 1000,
            committing / 1000
        );
    }
}

const PAYLOAD_BYTES: usize = 64;
/// Items the producer may run ahead of the consumer, as in the Java benchmark.
const MAX_IN_FLIGHT: u64 = 2_000;

struct Flow {
    store: Store,
    batch: usize,
    consumed: AtomicU64,
}

impl Flow {
    fn produce(&self, first: u64) {
        let mut tx = self.store.begin().expect("begin");
        for i in 0..self.batch as u64 {
            let mut payload = [0u8; PAYLOAD_BYTES];
            payload[..8].copy_from_slice(&(first + i).to_be_bytes());
            tx.enqueue("in", &payload).expect("enqueue");
        }
        commit_timed(tx);
    }

    /// Polls a firing's items from `queue`: the first waited for when `wait` is not zero.
    fn firing(&self, tx: &mut Transaction, queue: &str, wait: Duration) -> Vec<Vec<u8>> {
        let mut got = Vec::with_capacity(self.batch);
        if !wait.is_zero() {
            let first = tx.take(queue, wait).expect("take").expect("nothing arrived");
            got.push(first.payload.expect("payload"));
        }
        for m in tx.poll(queue, self.batch - got.len()).expect("poll") {
            got.push(m.payload.expect("payload"));
        }
        got
    }

    fn transform(&self, wait: Duration) -> u64 {
        let mut tx = self.store.begin().expect("begin");
        let got = self.firing(&mut tx, "in", wait);
        let moved = got.len() as u64;
        for mut p in got {
            let seq = u64::from_be_bytes(p[..8].try_into().expect("8 bytes"));
            p[..8].copy_from_slice(&(!seq).to_be_bytes());
            tx.enqueue("out", &p).expect("enqueue");
        }
        commit_timed(tx);
        moved
    }

    fn consume(&self, wait: Duration) {
        let mut tx = self.store.begin().expect("begin");
        let got = self.firing(&mut tx, "out", wait);
        let mut next = self.consumed.load(Ordering::Acquire);
        for p in &got {
            let seq = !u64::from_be_bytes(p[..8].try_into().expect("8 bytes"));
            assert_eq!(seq, next, "consumer out of order");
            next += 1;
        }
        commit_timed(tx);
        self.consumed.store(next, Ordering::Release);
    }
}

/// Items/s, the mean commits per synced write and the mean synced write (µs) of one flow on a
/// fresh store.
fn run(items: u64, batch: usize, inline_payload_bytes: usize, threaded: bool) -> (f64, f64, f64) {
    let root = tempfile::tempdir().expect("temp dir");
    let options = StoreOptions {
        inline_payload_bytes,
        ..StoreOptions::default()
    };
    let store = Store::open(root.path().join("store"), options).expect("open");
    let flow = Arc::new(Flow {
        store,
        batch,
        consumed: AtomicU64::new(0),
    });
    let started = Instant::now();
    if threaded {
        let wait = Duration::from_secs(30);
        let producer = {
            let flow = flow.clone();
            std::thread::Builder::new()
                .name("producer".into())
                .spawn(move || {
                    let mut produced = 0;
                    while produced < items {
                        while produced - flow.consumed.load(Ordering::Acquire) >= MAX_IN_FLIGHT {
                            std::thread::sleep(Duration::from_micros(50));
                        }
                        flow.produce(produced);
                        produced += batch as u64;
                    }
                    report_stage("producer");
                })
                .unwrap()
        };
        let transformer = {
            let flow = flow.clone();
            std::thread::Builder::new()
                .name("transformer".into())
                .spawn(move || {
                    let mut transformed = 0;
                    while transformed < items {
                        transformed += flow.transform(wait);
                    }
                    report_stage("transformer");
                })
                .unwrap()
        };
        let consumer = {
            let flow = flow.clone();
            std::thread::Builder::new()
                .name("consumer".into())
                .spawn(move || {
                    while flow.consumed.load(Ordering::Acquire) < items {
                        flow.consume(wait);
                    }
                    report_stage("consumer");
                })
                .unwrap()
        };
        for t in [producer, transformer, consumer] {
            t.join().expect("stage");
        }
    } else {
        let mut produced = 0;
        while produced < items {
            flow.produce(produced);
            produced += batch as u64;
            flow.transform(Duration::ZERO);
            flow.consume(Duration::ZERO);
        }
    }
    let elapsed = started.elapsed().as_secs_f64();
    assert_eq!(flow.consumed.load(Ordering::Acquire), items);
    let m = flow.store.metrics().expect("metrics");
    (
        items as f64 / elapsed,
        m.group_commit_size.mean(),
        m.synced_write_nanos.mean() / 1e3,
    )
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let items: u64 = args.get(1).map_or(300_000, |s| s.parse().expect("items"));
    let batch: usize = args.get(2).map_or(100, |s| s.parse().expect("batch"));
    let rounds: usize = args.get(3).map_or(3, |s| s.parse().expect("rounds"));
    let inline_payload_bytes: usize = args.get(4).map_or(1024, |s| s.parse().expect("inline"));
    assert!(
        batch > 0 && items.is_multiple_of(batch as u64),
        "items must be a multiple of a positive batch"
    );
    println!(
        "{:>6} {:>20} {:>6} {:>6} {:>22} {:>6} {:>6} {:>8}",
        "round", "one thread items/s", "group", "sync", "three threads items/s", "group", "sync", "ratio"
    );
    for r in 1..=rounds {
        let (one, g1, s1) = run(items, batch, inline_payload_bytes, false);
        let (three, g3, s3) = run(items, batch, inline_payload_bytes, true);
        println!(
            "{r:>6} {one:>20.0} {g1:>6.2} {s1:>6.0} {three:>22.0} {g3:>6.2} {s3:>6.0} {:>7.2}x",
            three / one
        );
    }
}
