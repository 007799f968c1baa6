//! Payloads kept in their queue entries (`StoreOptions::inline_payload_bytes`): delivered like
//! any other, in order, through every path an entry takes (polls, peeks, own enqueues, moves,
//! dead letters, snapshots, reopens with the option off), and never reachable as objects.

use std::path::Path;

use rockcask_core::compress::{Compression, Policy};
use rockcask_core::dead_letter::Selection;
use rockcask_core::options::MAX_INLINE_PAYLOAD_BYTES;
use rockcask_core::snapshot::{self, no_progress, ExportOptions, ImportOptions};
use rockcask_core::{Error, Message, QueueConfig, Store, StoreOptions, Uuid};

fn options(inline: usize) -> StoreOptions {
    StoreOptions {
        sync_on_commit: false,
        inline_payload_bytes: inline,
        ..StoreOptions::default()
    }
}

fn open(dir: &Path, inline: usize) -> Store {
    Store::open(dir, options(inline)).unwrap()
}

fn payloads(ms: &[Message]) -> Vec<Vec<u8>> {
    ms.iter().map(|m| m.payload.clone().expect("a payload")).collect()
}

fn item(i: usize, len: usize) -> Vec<u8> {
    let mut p = format!("item {i} ").into_bytes();
    p.resize(len, b'.');
    p
}

#[test]
fn inline_payloads_are_delivered_in_order_and_have_no_object() {
    let dir = tempfile::tempdir().unwrap();
    let store = open(dir.path(), 100);
    let mut tx = store.begin().unwrap();
    // At the limit: inline; one byte more: an object of its own.
    let inline = tx.enqueue("q", &item(0, 100)).unwrap();
    let object = tx.enqueue("q", &item(1, 101)).unwrap();
    tx.enqueue("q", b"").unwrap();
    tx.commit().unwrap();

    let tx = store.begin().unwrap();
    assert_eq!(tx.get(inline).unwrap(), None, "an inline payload is no object");
    assert_eq!(tx.get(object).unwrap(), Some(item(1, 101)));
    drop(tx);
    let mut tx = store.begin().unwrap();
    assert!(matches!(tx.enqueue_id("other", inline), Err(Error::NoSuchObject(id)) if id == inline));
    assert!(
        !tx.delete(inline).unwrap(),
        "nothing to delete under an inline payload's id"
    );
    tx.rollback().unwrap();

    let peeked = store.begin().unwrap().peek("q", 10).unwrap();
    assert_eq!(payloads(&peeked), vec![item(0, 100), item(1, 101), vec![]]);
    let mut tx = store.begin().unwrap();
    let polled = tx.poll("q", 10).unwrap();
    assert_eq!(
        polled.iter().map(|m| m.id).collect::<Vec<_>>(),
        peeked.iter().map(|m| m.id).collect::<Vec<_>>()
    );
    assert_eq!(payloads(&polled), payloads(&peeked));
    tx.commit().unwrap();
    // Consuming the object's entry deleted the object; the inline ones took their payload along.
    assert_eq!(store.begin().unwrap().get(object).unwrap(), None);
    assert_eq!(store.queue_size("q").unwrap(), 0);
}

#[test]
fn a_store_reads_inline_and_object_entries_alike_whatever_it_is_opened_with() {
    let dir = tempfile::tempdir().unwrap();
    let mut expected = Vec::new();
    for (round, inline) in [(0, 0), (1, 64), (2, 0), (3, MAX_INLINE_PAYLOAD_BYTES)] {
        let store = open(dir.path(), inline);
        let mut tx = store.begin().unwrap();
        for i in 0..50 {
            let p = item(round * 100 + i, 10 + i * 3);
            tx.enqueue("mixed", &p).unwrap();
            expected.push(p);
        }
        tx.commit().unwrap();
        store.close().unwrap();
    }
    let store = open(dir.path(), 0);
    let mut got = Vec::new();
    loop {
        let mut tx = store.begin().unwrap();
        let ms = tx.poll("mixed", 37).unwrap();
        if ms.is_empty() {
            break;
        }
        got.extend(payloads(&ms));
        tx.commit().unwrap();
    }
    assert_eq!(got, expected);
}

#[test]
fn own_inline_enqueues_are_polled_peeked_and_rolled_back_like_others() {
    let dir = tempfile::tempdir().unwrap();
    let store = open(dir.path(), 1024);
    let mut tx = store.begin().unwrap();
    tx.enqueue("q", b"committed").unwrap();
    tx.commit().unwrap();
    let mut tx = store.begin().unwrap();
    tx.enqueue("q", b"own 1").unwrap();
    tx.enqueue("q", b"own 2").unwrap();
    assert_eq!(
        payloads(&tx.peek("q", 5).unwrap()),
        vec![b"committed".to_vec(), b"own 1".to_vec(), b"own 2".to_vec()]
    );
    assert_eq!(
        payloads(&tx.poll("q", 2).unwrap()),
        vec![b"committed".to_vec(), b"own 1".to_vec()]
    );
    tx.commit().unwrap();
    let mut tx = store.begin().unwrap();
    assert_eq!(payloads(&tx.poll("q", 5).unwrap()), vec![b"own 2".to_vec()]);
    tx.rollback().unwrap();
    store.close().unwrap();
    let store = open(dir.path(), 0);
    assert_eq!(
        payloads(&store.begin().unwrap().peek("q", 5).unwrap()),
        vec![b"own 2".to_vec()]
    );
}

#[test]
fn compressed_inline_payloads_come_back_whole() {
    let dir = tempfile::tempdir().unwrap();
    let store = Store::open(
        dir.path(),
        StoreOptions {
            compression: Policy {
                codec: Compression::Lz4,
                threshold: 16,
            },
            ..options(4096)
        },
    )
    .unwrap();
    let big = b"a very repetitive payload ".repeat(100);
    let mut tx = store.begin().unwrap();
    tx.enqueue("q", &big).unwrap();
    tx.enqueue("q", b"short").unwrap();
    tx.commit().unwrap();
    let stats = store.stats().unwrap();
    assert!(stats.stored_payload_bytes < stats.payload_bytes, "{stats:?}");
    store.close().unwrap();
    let store = open(dir.path(), 0);
    assert_eq!(
        payloads(&store.begin().unwrap().poll("q", 5).unwrap()),
        vec![big, b"short".to_vec()]
    );
}

#[test]
fn moves_drops_and_dead_letters_carry_inline_payloads() {
    let dir = tempfile::tempdir().unwrap();
    let store = open(dir.path(), 256);
    let mut tx = store.begin().unwrap();
    for i in 0..5 {
        tx.enqueue("from", &item(i, 20)).unwrap();
    }
    tx.enqueue("doomed", b"dropped").unwrap();
    tx.commit().unwrap();
    let mut tx = store.begin().unwrap();
    tx.enqueue("from", &item(5, 20)).unwrap();
    assert_eq!(tx.move_queue("from", "to").unwrap(), 6);
    assert_eq!(tx.drop_queue("doomed").unwrap(), 1);
    tx.commit().unwrap();
    assert_eq!(
        payloads(&store.begin().unwrap().peek("to", 10).unwrap()),
        (0..6).map(|i| item(i, 20)).collect::<Vec<_>>()
    );
    assert_eq!(store.queue_size("doomed").unwrap(), 0);

    store
        .configure_queue(
            "to",
            QueueConfig {
                max_deliveries: Some(1),
                ..QueueConfig::default()
            },
        )
        .unwrap();
    let mut tx = store.begin().unwrap();
    assert_eq!(tx.poll("to", 2).unwrap().len(), 2);
    tx.rollback().unwrap();
    let letters = store.dead_letters("to", 10).unwrap();
    assert_eq!(
        letters.iter().map(|d| d.payload.clone().unwrap()).collect::<Vec<_>>(),
        vec![item(0, 20), item(1, 20)]
    );
    let mut tx = store.begin().unwrap();
    assert_eq!(tx.requeue_dead_letters("to", Selection::All).unwrap(), 2);
    tx.commit().unwrap();
    let mut tx = store.begin().unwrap();
    let order = [2, 3, 4, 5, 0, 1];
    assert_eq!(
        payloads(&tx.poll("to", 10).unwrap()),
        order.iter().map(|&i| item(i, 20)).collect::<Vec<_>>()
    );
    tx.commit().unwrap();
}

#[test]
fn a_byte_capacity_counts_inline_payloads() {
    let dir = tempfile::tempdir().unwrap();
    let store = open(dir.path(), 1024);
    store
        .configure_queue(
            "bounded",
            QueueConfig {
                capacity_bytes: 250,
                ..QueueConfig::default()
            },
        )
        .unwrap();
    let mut tx = store.begin().unwrap();
    tx.enqueue("bounded", &[1u8; 200]).unwrap();
    tx.commit().unwrap();
    let mut tx = store.begin().unwrap();
    tx.enqueue("bounded", &[2u8; 100]).unwrap();
    assert!(matches!(tx.commit(), Err(Error::QueueFull { .. })));
    store.close().unwrap();
    // Counted again from the entries at open.
    let store = open(dir.path(), 1024);
    let mut tx = store.begin().unwrap();
    tx.enqueue("bounded", &[2u8; 100]).unwrap();
    assert!(matches!(tx.commit(), Err(Error::QueueFull { .. })));
    let mut tx = store.begin().unwrap();
    tx.poll("bounded", 1).unwrap();
    tx.enqueue("bounded", &[2u8; 100]).unwrap();
    tx.commit().unwrap();
}

#[test]
fn snapshots_carry_inline_payloads_and_imports_keep_them_inline() {
    let dir = tempfile::tempdir().unwrap();
    let store = open(&dir.path().join("a"), 64);
    let mut tx = store.begin().unwrap();
    let mut expected = Vec::new();
    for i in 0..200 {
        let p = item(i, if i % 4 == 0 { 500 } else { i % 60 });
        tx.enqueue(if i % 2 == 0 { "even" } else { "odd" }, &p).unwrap();
        expected.push((i, p));
    }
    let put = Uuid::now_v7();
    tx.put(put, b"a put object").unwrap();
    tx.enqueue_id("odd", put).unwrap();
    tx.enqueue("odd", b"").unwrap();
    tx.commit().unwrap();
    let file = dir.path().join("s.rcsnap");
    let opts = ExportOptions {
        workers: 2,
        compression: Compression::None,
        frame_bytes: 1024,
        created_unix_millis: Some(1),
        overwrite: true,
    };
    let summary = store.export_to(&file, &opts, &mut no_progress()).unwrap();
    assert_eq!(summary.counts.entries, 202);
    let before: Vec<_> = ["even", "odd"]
        .iter()
        .map(|q| payloads(&store.begin().unwrap().peek(q, 1000).unwrap()))
        .collect();
    snapshot::import_store(
        &file,
        &dir.path().join("b"),
        &ImportOptions {
            workers: 2,
            store: options(0),
        },
        &mut no_progress(),
    )
    .unwrap();
    let imported = open(&dir.path().join("b"), 0);
    let after: Vec<_> = ["even", "odd"]
        .iter()
        .map(|q| payloads(&imported.begin().unwrap().peek(q, 1000).unwrap()))
        .collect();
    assert_eq!(after, before);
    assert_eq!(before[0].len(), 100);
    let mut tx = imported.begin().unwrap();
    assert_eq!(tx.get(put).unwrap(), Some(b"a put object".to_vec()));
    // The inline payloads stayed inline: their ids name no object in the imported store.
    let small = tx.peek("odd", 1).unwrap().remove(0);
    assert_eq!(tx.get(small.id).unwrap(), None);
    drop(tx);
    // A consumer takes everything out of the imported store.
    let mut tx = imported.begin().unwrap();
    assert_eq!(tx.poll("odd", 1000).unwrap().len(), 102);
    tx.commit().unwrap();
    assert_eq!(
        imported.begin().unwrap().get(put).unwrap(),
        Some(b"a put object".to_vec())
    );
}

#[test]
fn inline_limits_beyond_the_maximum_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    let e = Store::open(dir.path(), options(MAX_INLINE_PAYLOAD_BYTES + 1))
        .err()
        .expect("refused");
    assert!(
        matches!(&e, Error::InvalidArgument(m) if m.contains("inline payloads")),
        "{e}"
    );
    let e = Store::open(dir.path(), options(usize::MAX)).err().expect("refused");
    assert!(matches!(e, Error::InvalidArgument(_)));
    open(dir.path(), MAX_INLINE_PAYLOAD_BYTES);
}

#[test]
fn concurrent_producers_and_consumers_of_inline_payloads_deliver_each_item_once() {
    use std::collections::BTreeSet;
    use std::sync::{Arc, Mutex};
    let dir = tempfile::tempdir().unwrap();
    let store = open(dir.path(), 64);
    const PER_PRODUCER: u32 = 2_000;
    let producers: Vec<_> = (0..2u32)
        .map(|p| {
            let store = store.clone();
            std::thread::spawn(move || {
                for chunk in 0..PER_PRODUCER / 50 {
                    let mut tx = store.begin().unwrap();
                    for i in 0..50 {
                        let n = p * PER_PRODUCER + chunk * 50 + i;
                        // Both sides of the limit, so both kinds of entry interleave.
                        let mut payload = n.to_be_bytes().to_vec();
                        payload.resize(if n.is_multiple_of(3) { 100 } else { 8 }, 0);
                        tx.enqueue("q", &payload).unwrap();
                    }
                    tx.commit().unwrap();
                }
            })
        })
        .collect();
    let seen = Arc::new(Mutex::new(Vec::new()));
    let consumers: Vec<_> = (0..2)
        .map(|_| {
            let (store, seen) = (store.clone(), seen.clone());
            std::thread::spawn(move || {
                let mut idle = 0;
                let mut firing = 0u64;
                while idle < 200 {
                    firing += 1;
                    let mut tx = store.begin().unwrap();
                    let ms = tx.poll("q", 30).unwrap();
                    if ms.is_empty() {
                        idle += 1;
                        std::thread::sleep(std::time::Duration::from_millis(2));
                        continue;
                    }
                    idle = 0;
                    let got: Vec<u32> = ms
                        .iter()
                        .map(|m| u32::from_be_bytes(m.payload.as_ref().unwrap()[..4].try_into().unwrap()))
                        .collect();
                    // Every third firing rolls back: those items must come again.
                    if firing.is_multiple_of(3) {
                        tx.rollback().unwrap();
                    } else {
                        tx.commit().unwrap();
                        seen.lock().unwrap().extend(got);
                    }
                }
            })
        })
        .collect();
    producers.into_iter().for_each(|t| t.join().unwrap());
    consumers.into_iter().for_each(|t| t.join().unwrap());
    // Whatever the consumers left when they stopped.
    loop {
        let mut tx = store.begin().unwrap();
        let ms = tx.poll("q", 1000).unwrap();
        if ms.is_empty() {
            break;
        }
        seen.lock().unwrap().extend(
            ms.iter()
                .map(|m| u32::from_be_bytes(m.payload.as_ref().unwrap()[..4].try_into().unwrap())),
        );
        tx.commit().unwrap();
    }
    let seen = seen.lock().unwrap();
    let distinct: BTreeSet<u32> = seen.iter().copied().collect();
    assert_eq!(seen.len(), 2 * PER_PRODUCER as usize, "each item once");
    assert_eq!(distinct, (0..2 * PER_PRODUCER).collect());
}
