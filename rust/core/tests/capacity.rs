//! Bounded queues: a commit that would overfill a queue is refused (or waits for room), checked
//! inside the commit so that concurrent producers never push a queue past its capacity.

mod common;

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Duration;

use rockcask_core::{Error, QueueConfig, Store, StoreOptions};

use common::open;

fn bounded(capacity: u64) -> QueueConfig {
    QueueConfig {
        capacity,
        ..QueueConfig::default()
    }
}

#[test]
fn a_commit_over_capacity_is_refused_and_leaves_the_transaction_open() {
    let dir = tempfile::tempdir().unwrap();
    let store = open(dir.path());
    store.configure_queue("q", bounded(3)).unwrap();
    let mut tx = store.begin().unwrap();
    for i in 0..4u8 {
        tx.enqueue("q", &[i]).unwrap();
    }
    let full = tx.commit().unwrap_err();
    assert!(
        matches!(full, Error::QueueFull { ref queue, capacity: 3, depth: 0, adding: 4, unit: "entries" } if queue == "q"),
        "{full}"
    );
    assert!(full.to_string().contains("queue 'q' is full"), "{full}");
    assert!(tx.is_open());
    assert_eq!(tx.poll("q", 1).unwrap().len(), 1, "its own enqueue, taken back");
    tx.commit().unwrap();
    assert_eq!(store.queue_size("q").unwrap(), 3);

    // Consuming in the same commit makes room; entries claimed elsewhere still count.
    let mut holder = store.begin().unwrap();
    holder.poll("q", 1).unwrap();
    let mut tx = store.begin().unwrap();
    tx.poll("q", 1).unwrap();
    tx.enqueue("q", b"x").unwrap();
    tx.commit().unwrap();
    let mut tx = store.begin().unwrap();
    tx.enqueue("q", b"y").unwrap();
    assert!(matches!(tx.commit(), Err(Error::QueueFull { depth: 3, .. })));
    tx.rollback().unwrap();
    holder.rollback().unwrap();
    // Only what is enqueued is bounded: a commit that only consumes always passes.
    store.configure_queue("q", bounded(1)).unwrap();
    let mut tx = store.begin().unwrap();
    tx.poll("q", 1).unwrap();
    tx.commit().unwrap();
    assert_eq!(store.queue_size("q").unwrap(), 2);
}

#[test]
fn a_waiting_commit_resumes_when_a_consumer_makes_room() {
    let dir = tempfile::tempdir().unwrap();
    let store = open(dir.path());
    store.configure_queue("q", bounded(2)).unwrap();
    let mut tx = store.begin().unwrap();
    tx.enqueue("q", b"1").unwrap();
    tx.enqueue("q", b"2").unwrap();
    tx.commit().unwrap();
    let mut timed_out = store.begin().unwrap();
    timed_out.enqueue("q", b"late").unwrap();
    assert!(matches!(
        timed_out.commit_waiting(Duration::from_millis(50)),
        Err(Error::QueueFull { .. })
    ));
    assert!(timed_out.is_open());
    timed_out.rollback().unwrap();

    let resumed = Arc::new(AtomicBool::new(false));
    let producer = {
        let (store, resumed) = (store.clone(), resumed.clone());
        std::thread::spawn(move || {
            let mut tx = store.begin().unwrap();
            tx.enqueue("q", b"3").unwrap();
            tx.commit_waiting(Duration::from_secs(30)).unwrap();
            resumed.store(true, Ordering::SeqCst);
        })
    };
    std::thread::sleep(Duration::from_millis(100));
    assert!(!resumed.load(Ordering::SeqCst), "blocked while the queue is full");
    let mut consumer = store.begin().unwrap();
    consumer.poll("q", 1).unwrap();
    consumer.commit().unwrap();
    producer.join().unwrap();
    assert!(resumed.load(Ordering::SeqCst));
    assert_eq!(store.queue_size("q").unwrap(), 2);
}

#[test]
fn concurrent_producers_never_push_a_queue_past_its_capacity() {
    let dir = tempfile::tempdir().unwrap();
    let store = open(dir.path());
    const CAPACITY: u64 = 50;
    store.configure_queue("q", bounded(CAPACITY)).unwrap();
    let producers: Vec<_> = (0..4)
        .map(|p| {
            let store = store.clone();
            std::thread::spawn(move || {
                for i in 0..100u32 {
                    let mut tx = store.begin().unwrap();
                    for j in 0..7u32 {
                        tx.enqueue("q", &(p * 100_000 + i * 10 + j).to_be_bytes()).unwrap();
                    }
                    tx.commit_waiting(Duration::from_secs(60)).unwrap();
                }
            })
        })
        .collect();
    let mut consumed = 0;
    let mut most = 0;
    while consumed < 4 * 100 * 7 {
        most = most.max(store.queue_size("q").unwrap());
        let mut tx = store.begin().unwrap();
        consumed += tx.poll("q", 13).unwrap().len();
        tx.commit().unwrap();
    }
    for p in producers {
        p.join().unwrap();
    }
    assert!(
        most <= CAPACITY,
        "the queue held {most} entries, over its capacity of {CAPACITY}"
    );
    assert_eq!(store.queue_size("q").unwrap(), 0);
}

#[test]
fn capacity_counts_moves_and_holds_for_queues_created_by_the_commit() {
    let dir = tempfile::tempdir().unwrap();
    let store = open(dir.path());
    store.configure_queue("new", bounded(1)).unwrap();
    let mut tx = store.begin().unwrap();
    tx.enqueue("new", b"a").unwrap();
    tx.enqueue("new", b"b").unwrap();
    assert!(matches!(tx.commit(), Err(Error::QueueFull { .. })));
    tx.rollback().unwrap();
    assert!(store.queue_names().unwrap().is_empty());
    let mut tx = store.begin().unwrap();
    tx.enqueue("from", b"a").unwrap();
    tx.enqueue("from", b"b").unwrap();
    tx.commit().unwrap();
    let mut tx = store.begin().unwrap();
    tx.move_queue("from", "new").unwrap();
    assert!(matches!(tx.commit(), Err(Error::QueueFull { adding: 2, .. })));
    tx.rollback().unwrap();
    assert_eq!(store.queue_size("from").unwrap(), 2);
}

fn bounded_bytes(capacity_bytes: u64) -> QueueConfig {
    QueueConfig {
        capacity_bytes,
        ..QueueConfig::default()
    }
}

#[test]
fn a_byte_capacity_bounds_the_payload_bytes_and_consuming_frees_them() {
    let dir = tempfile::tempdir().unwrap();
    let store = open(dir.path());
    store.configure_queue("q", bounded_bytes(100)).unwrap();
    let mut tx = store.begin().unwrap();
    tx.enqueue("q", &[0; 60]).unwrap();
    tx.enqueue("q", &[0; 40]).unwrap();
    tx.commit().unwrap();
    let mut tx = store.begin().unwrap();
    tx.enqueue("q", &[1]).unwrap();
    let full = tx.commit().unwrap_err();
    assert!(
        matches!(
            full,
            Error::QueueFull {
                capacity: 100,
                depth: 100,
                adding: 1,
                ..
            }
        ),
        "{full}"
    );
    assert!(
        full.to_string()
            .contains("holds 100 of its 100 payload bytes and this commit adds 1"),
        "{full}"
    );
    // Taking the 60-byte one in the same commit makes room.
    assert_eq!(tx.poll("q", 1).unwrap()[0].payload.as_ref().unwrap().len(), 60);
    tx.enqueue("q", &[2; 59]).unwrap();
    tx.commit().unwrap();
    // Counted again from the entries at the next open: still 40 + 1 + 59.
    store.close().unwrap();
    let store = open(dir.path());
    let mut tx = store.begin().unwrap();
    tx.enqueue("q", &[3]).unwrap();
    assert!(matches!(tx.commit(), Err(Error::QueueFull { depth: 100, .. })));
    tx.rollback().unwrap();
    // Every way out frees them: a drop here.
    let mut tx = store.begin().unwrap();
    tx.drop_queue("q").unwrap();
    tx.commit().unwrap();
    let mut tx = store.begin().unwrap();
    tx.enqueue("q", &[4; 100]).unwrap();
    tx.commit().unwrap();
}

#[test]
fn a_byte_capacity_set_on_a_queue_with_entries_counts_them_and_moves_count_what_they_carry() {
    let dir = tempfile::tempdir().unwrap();
    let store = open(dir.path());
    let mut tx = store.begin().unwrap();
    let id = tx.enqueue("src", &[0; 30]).unwrap();
    tx.enqueue("dst", &[0; 30]).unwrap();
    tx.commit().unwrap();
    store.configure_queue("dst", bounded_bytes(50)).unwrap();
    // An entry by id counts its object's size; so does a moved one.
    let mut tx = store.begin().unwrap();
    tx.enqueue_id("dst", id).unwrap();
    assert!(matches!(
        tx.commit(),
        Err(Error::QueueFull {
            depth: 30,
            adding: 30,
            ..
        })
    ));
    tx.rollback().unwrap();
    let mut tx = store.begin().unwrap();
    tx.move_queue("src", "dst").unwrap();
    assert!(matches!(
        tx.commit(),
        Err(Error::QueueFull {
            depth: 30,
            adding: 30,
            ..
        })
    ));
    tx.rollback().unwrap();
    store.configure_queue("dst", bounded_bytes(60)).unwrap();
    let mut tx = store.begin().unwrap();
    tx.move_queue("src", "dst").unwrap();
    tx.commit().unwrap();
    assert_eq!(store.queue_size("dst").unwrap(), 2);
    // Without a bound nothing is counted, and a bound back counts what is there.
    store.configure_queue("dst", QueueConfig::default()).unwrap();
    let mut tx = store.begin().unwrap();
    tx.enqueue("dst", &[0; 500]).unwrap();
    tx.commit().unwrap();
    store.configure_queue("dst", bounded_bytes(561)).unwrap();
    let mut tx = store.begin().unwrap();
    tx.enqueue("dst", &[0; 2]).unwrap();
    assert!(matches!(
        tx.commit(),
        Err(Error::QueueFull {
            depth: 560,
            adding: 2,
            ..
        })
    ));
}

#[test]
fn compressed_payloads_count_the_bytes_they_take_on_disk() {
    use rockcask_core::compress::{Compression, Policy};
    let dir = tempfile::tempdir().unwrap();
    let options = StoreOptions {
        sync_on_commit: false,
        compression: Policy {
            codec: Compression::Zstd,
            threshold: 0,
        },
        ..StoreOptions::default()
    };
    let store = Store::open(dir.path(), options).unwrap();
    store.configure_queue("q", bounded_bytes(1000)).unwrap();
    let mut tx = store.begin().unwrap();
    for _ in 0..10 {
        tx.enqueue("q", &[7u8; 10_000]).unwrap(); // 100,000 bytes given, a few hundred stored
    }
    tx.commit().unwrap();
}

#[test]
fn entries_imported_from_a_snapshot_count_their_objects_bytes() {
    use rockcask_core::snapshot::{self, no_progress, ExportOptions, ImportOptions};
    let dir = tempfile::tempdir().unwrap();
    let store = open(&dir.path().join("a"));
    let mut tx = store.begin().unwrap();
    tx.enqueue("q", &[1; 70]).unwrap();
    tx.enqueue("q", &[2; 20]).unwrap();
    tx.commit().unwrap();
    let file = dir.path().join("s.snap");
    let export = ExportOptions {
        workers: 1,
        ..ExportOptions::default()
    };
    store.export_to(&file, &export, &mut no_progress()).unwrap();
    let imported = dir.path().join("b");
    let options = StoreOptions {
        sync_on_commit: false,
        ..StoreOptions::default()
    };
    snapshot::import_store(
        &file,
        &imported,
        &ImportOptions {
            workers: 1,
            store: options,
        },
        &mut no_progress(),
    )
    .unwrap();
    let store = open(&imported);
    store.configure_queue("q", bounded_bytes(100)).unwrap();
    let mut tx = store.begin().unwrap();
    tx.enqueue("q", &[3; 11]).unwrap();
    assert!(matches!(
        tx.commit(),
        Err(Error::QueueFull {
            depth: 90,
            adding: 11,
            ..
        })
    ));
    assert_eq!(tx.poll("q", 1).unwrap()[0].payload.as_ref().unwrap().len(), 70);
    tx.commit().unwrap();
}
