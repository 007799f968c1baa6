//! The queue entry cache (`StoreOptions::queue_cache_bytes`) never changes what a poll returns:
//! the same random mix of enqueues (inline payloads, payloads in objects, objects enqueued by
//! id), polls, bounded polls, rollbacks, dead letters and reopens gives the same deliveries with
//! no cache, with one far too small for the backlog, and with a large one; and what it charges
//! stays within its capacity and goes back to 0 once every entry is consumed.

use std::path::Path;

use rockcask_core::dead_letter::Selection;
use rockcask_core::{QueueConfig, Store, StoreOptions, Uuid};

const QUEUES: [&str; 3] = ["a", "b", "limited"];

/// Small enough that a backlog of a few dozen entries overflows it.
const TINY_CACHE: usize = 2 << 10;

fn open(dir: &Path, queue_cache_bytes: usize) -> Store {
    let options = StoreOptions {
        sync_on_commit: false,
        inline_payload_bytes: 64,
        queue_cache_bytes,
        ..StoreOptions::default()
    };
    let store = Store::open(dir, options).unwrap();
    store
        .configure_queue(
            "limited",
            QueueConfig {
                max_deliveries: Some(3),
                ..QueueConfig::default()
            },
        )
        .unwrap();
    store
}

/// xorshift64*: the same sequence of operations for every store.
struct Rng(u64);

impl Rng {
    fn below(&mut self, n: u64) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D) % n
    }
}

/// What one poll delivered: payload, position and delivery count of each message.
type Delivery = Vec<(Vec<u8>, Option<u64>, u32)>;

fn payload(n: u64, len: usize) -> Vec<u8> {
    let mut p = format!("{n}:").into_bytes();
    p.resize(len.max(p.len()), b'x');
    p
}

/// Runs `steps` random operations on a store opened with `queue_cache_bytes`; returns every
/// delivery in order, then the dead letters and depths left.
fn run(queue_cache_bytes: usize, seed: u64, steps: usize) -> (Vec<Delivery>, Vec<String>) {
    let dir = tempfile::tempdir().unwrap();
    let mut store = open(dir.path(), queue_cache_bytes);
    let mut rng = Rng(seed);
    let mut deliveries = Vec::new();
    let mut made = 0u64;
    let mut max_charged = 0u64;
    let mut dropped = 0u64;
    for step in 0..steps {
        let queue = QUEUES[rng.below(3) as usize];
        let mut tx = store.begin().unwrap();
        match rng.below(10) {
            0..=3 => {
                for _ in 0..rng.below(40) {
                    made += 1;
                    match rng.below(6) {
                        0 => {
                            let id = Uuid::from_u128(u128::from(made));
                            tx.put(id, &payload(made, 200)).unwrap();
                            tx.enqueue_id(queue, id).unwrap();
                        }
                        1 => {
                            tx.enqueue(queue, &payload(made, 100)).unwrap();
                        }
                        _ => {
                            tx.enqueue(queue, &payload(made, rng.below(64) as usize)).unwrap();
                        }
                    }
                }
            }
            4 => {
                // The messages past the byte budget go back to the head, out of the cache.
                let polled = tx
                    .poll_within(queue, 1 + rng.below(30) as usize, 1 + rng.below(600) as usize)
                    .unwrap();
                deliveries.push(
                    polled
                        .iter()
                        .map(|m| (m.payload.clone().unwrap(), m.sequence, m.deliveries))
                        .collect(),
                );
            }
            _ => {
                let polled = tx.poll(queue, 1 + rng.below(30) as usize).unwrap();
                deliveries.push(
                    polled
                        .iter()
                        .map(|m| (m.payload.clone().unwrap(), m.sequence, m.deliveries))
                        .collect(),
                );
            }
        }
        match rng.below(8) {
            0 | 1 => tx.rollback_because("test", None).unwrap(),
            _ => tx.commit().unwrap(),
        }
        if rng.below(40) == 0 {
            // Dead letters claimed out of order from the middle of their queue.
            let mut tx = store.begin().unwrap();
            dropped += tx.drop_dead_letters("limited", Selection::All).unwrap();
            tx.commit().unwrap();
        }
        let charged = store.metrics().unwrap().queue_cache_bytes;
        assert!(
            charged as usize <= queue_cache_bytes,
            "step {step}: {charged} bytes charged in a cache of {queue_cache_bytes}"
        );
        max_charged = max_charged.max(charged);
        if rng.below(100) == 0 {
            store.close().unwrap();
            store = open(dir.path(), queue_cache_bytes);
        }
    }
    if queue_cache_bytes > 0 {
        assert!(max_charged > 0, "the cache kept something");
    }
    let mut left = vec![format!("{dropped} dead letters dropped")];
    for queue in QUEUES {
        left.push(format!("{queue}: {} entries", store.queue_size(queue).unwrap()));
        for d in store.dead_letters(queue, 1000).unwrap() {
            left.push(format!(
                "{queue} dead letter {} {:?} after {}",
                d.sequence, d.payload, d.record.deliveries
            ));
        }
    }
    // Drain everything: the cache charges nothing once no entry is left.
    for queue in QUEUES.iter().copied().chain(["limited.dead"]) {
        loop {
            let mut tx = store.begin().unwrap();
            let n = tx.poll(queue, 1000).unwrap().len();
            tx.commit().unwrap();
            if n == 0 {
                break;
            }
        }
    }
    assert_eq!(
        store.metrics().unwrap().queue_cache_bytes,
        0,
        "nothing charged once every entry is consumed"
    );
    (deliveries, left)
}

#[test]
fn polls_deliver_the_same_with_no_cache_a_tiny_one_and_a_large_one() {
    for seed in [1, 0x9E37_79B9_7F4A_7C15, 42] {
        let none = run(0, seed, 400);
        assert!(
            none.0.iter().any(|d| d.iter().any(|(_, _, n)| *n > 1)),
            "some entries were delivered again"
        );
        assert!(none.1[0] != "0 dead letters dropped", "seed {seed}: {:?}", none.1);
        assert_eq!(run(TINY_CACHE, seed, 400), none, "tiny cache, seed {seed}");
        assert_eq!(run(16 << 20, seed, 400), none, "large cache, seed {seed}");
    }
}

#[test]
fn a_consumer_keeping_up_takes_every_entry_from_the_cache_and_leaves_nothing_charged() {
    let dir = tempfile::tempdir().unwrap();
    let store = open(dir.path(), 1 << 20);
    for round in 0..50u64 {
        let mut tx = store.begin().unwrap();
        for i in 0..20 {
            tx.enqueue("a", &payload(round * 100 + i, 32)).unwrap();
        }
        tx.commit().unwrap();
        assert!(
            store.metrics().unwrap().queue_cache_bytes >= 20 * 32,
            "round {round}: the entries just committed are kept"
        );
        let mut tx = store.begin().unwrap();
        let polled = tx.poll("a", 100).unwrap();
        let expected: Vec<Vec<u8>> = (0..20).map(|i| payload(round * 100 + i, 32)).collect();
        assert_eq!(
            polled.into_iter().map(|m| m.payload.unwrap()).collect::<Vec<_>>(),
            expected
        );
        tx.commit().unwrap();
        assert_eq!(store.metrics().unwrap().queue_cache_bytes, 0, "round {round}");
    }
}
