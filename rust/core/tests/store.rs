//! Store behaviour through the public core API: the promises DESIGN.md makes, each checked.

mod common;

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::thread;
use std::time::Duration;

use rockcask_core::{Error, Store, StoreOptions, Uuid};

use common::open;

fn payloads(ms: &[rockcask_core::Message]) -> Vec<Vec<u8>> {
    ms.iter().map(|m| m.payload.clone().unwrap()).collect()
}

fn fill(store: &Store, queue: &str, items: impl IntoIterator<Item = u32>) {
    let mut tx = store.begin().unwrap();
    for i in items {
        tx.enqueue(queue, &i.to_be_bytes()).unwrap();
    }
    tx.commit().unwrap();
}

fn drain(store: &Store, queue: &str) -> Vec<u32> {
    let mut tx = store.begin().unwrap();
    let out = tx.poll(queue, 1 << 20).unwrap();
    tx.commit().unwrap();
    out.iter()
        .map(|m| u32::from_be_bytes(m.payload.clone().unwrap().try_into().unwrap()))
        .collect()
}

#[test]
fn committed_items_come_out_fifo_and_uncommitted_ones_never_appear() {
    let dir = tempfile::tempdir().unwrap();
    let store = open(dir.path());
    fill(&store, "q", 0..10);
    {
        let mut tx = store.begin().unwrap();
        tx.enqueue("q", b"never").unwrap();
        tx.rollback().unwrap();
    }
    {
        let mut tx = store.begin().unwrap();
        tx.enqueue("q", b"dropped").unwrap();
        // dropped without commit
    }
    assert_eq!(store.queue_size("q").unwrap(), 10);
    assert_eq!(drain(&store, "q"), (0..10).collect::<Vec<_>>());
    assert_eq!(store.queue_size("q").unwrap(), 0);
}

#[test]
fn rollback_returns_polled_items_to_the_head_in_their_original_order() {
    let dir = tempfile::tempdir().unwrap();
    let store = open(dir.path());
    fill(&store, "q", 0..6);
    let mut a = store.begin().unwrap();
    assert_eq!(
        payloads(&a.poll("q", 2).unwrap()),
        vec![0u32.to_be_bytes().to_vec(), 1u32.to_be_bytes().to_vec()]
    );
    let mut b = store.begin().unwrap();
    assert_eq!(b.poll("q", 2).unwrap().len(), 2); // 2, 3
    a.rollback().unwrap();
    b.rollback().unwrap();
    assert_eq!(drain(&store, "q"), vec![0, 1, 2, 3, 4, 5]);
}

#[test]
fn a_move_between_queues_is_atomic() {
    let dir = tempfile::tempdir().unwrap();
    let store = open(dir.path());
    fill(&store, "in", 0..4);
    let mut tx = store.begin().unwrap();
    for m in tx.poll("in", 4).unwrap() {
        tx.enqueue_id("out", m.id).unwrap();
    }
    // Before commit nothing moved for anyone else.
    assert_eq!(store.queue_size("in").unwrap(), 4);
    assert_eq!(store.queue_size("out").unwrap(), 0);
    tx.commit().unwrap();
    assert_eq!(store.queue_size("in").unwrap(), 0);
    assert_eq!(drain(&store, "out"), vec![0, 1, 2, 3]);
}

#[test]
fn transactions_read_their_own_writes() {
    let dir = tempfile::tempdir().unwrap();
    let store = open(dir.path());
    fill(&store, "q", [1]);
    let mut tx = store.begin().unwrap();
    let id = Uuid::new_v4();
    tx.put(id, b"mine").unwrap();
    assert_eq!(tx.get(id).unwrap().as_deref(), Some(&b"mine"[..]));
    assert_eq!(
        store.begin().unwrap().get(id).unwrap(),
        None,
        "uncommitted put is invisible to others"
    );
    tx.enqueue("q", &2u32.to_be_bytes()).unwrap();
    let peeked = tx.peek("q", 10).unwrap();
    assert_eq!(
        payloads(&peeked),
        vec![1u32.to_be_bytes().to_vec(), 2u32.to_be_bytes().to_vec()]
    );
    let polled = tx.poll("q", 10).unwrap();
    assert_eq!(
        payloads(&polled),
        vec![1u32.to_be_bytes().to_vec(), 2u32.to_be_bytes().to_vec()]
    );
    assert!(tx.delete(id).unwrap());
    assert_eq!(tx.get(id).unwrap(), None);
    tx.commit().unwrap();
    assert_eq!(store.queue_size("q").unwrap(), 0);
    assert_eq!(store.begin().unwrap().get(id).unwrap(), None);
}

#[test]
fn owned_objects_die_with_their_last_entry_and_put_objects_live_until_deleted() {
    let dir = tempfile::tempdir().unwrap();
    let store = open(dir.path());
    let (owned, explicit) = {
        let mut tx = store.begin().unwrap();
        let owned = tx.enqueue("a", b"owned").unwrap();
        tx.enqueue_id("b", owned).unwrap(); // second owning entry
        let explicit = Uuid::new_v4();
        tx.put(explicit, b"explicit").unwrap();
        tx.enqueue_id("a", explicit).unwrap();
        tx.commit().unwrap();
        (owned, explicit)
    };
    let get = |id| store.begin().unwrap().get(id).unwrap();
    let mut tx = store.begin().unwrap();
    assert_eq!(tx.poll("a", 10).unwrap().len(), 2);
    tx.commit().unwrap();
    assert_eq!(
        get(owned).as_deref(),
        Some(&b"owned"[..]),
        "still referenced by queue b"
    );
    assert_eq!(
        get(explicit).as_deref(),
        Some(&b"explicit"[..]),
        "put objects outlive their entries"
    );
    let mut tx = store.begin().unwrap();
    assert_eq!(tx.poll("b", 10).unwrap()[0].id, owned);
    tx.commit().unwrap();
    assert_eq!(get(owned), None, "last owning entry consumed");
    let mut tx = store.begin().unwrap();
    assert!(tx.delete(explicit).unwrap());
    tx.commit().unwrap();
    assert_eq!(get(explicit), None);
}

#[test]
fn an_entry_whose_object_was_deleted_is_delivered_without_payload() {
    let dir = tempfile::tempdir().unwrap();
    let store = open(dir.path());
    let id = Uuid::new_v4();
    let mut tx = store.begin().unwrap();
    tx.put(id, b"x").unwrap();
    tx.enqueue_id("q", id).unwrap();
    tx.commit().unwrap();
    let mut tx = store.begin().unwrap();
    tx.delete(id).unwrap();
    tx.commit().unwrap();
    let mut tx = store.begin().unwrap();
    let got = tx.poll("q", 1).unwrap();
    assert_eq!(got[0].id, id);
    assert_eq!(got[0].payload, None);
}

#[test]
fn enqueue_of_an_unknown_id_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let store = open(dir.path());
    let mut tx = store.begin().unwrap();
    let id = Uuid::new_v4();
    assert!(matches!(tx.enqueue_id("q", id), Err(Error::NoSuchObject(x)) if x == id));
}

#[test]
fn head_tail_and_order_survive_reopen_including_entries_consumed_out_of_order() {
    let dir = tempfile::tempdir().unwrap();
    {
        let store = open(dir.path());
        fill(&store, "q", 0..10);
        let mut holder = store.begin().unwrap();
        assert_eq!(holder.poll("q", 3).unwrap().len(), 3); // claims 0, 1, 2
        let mut consumer = store.begin().unwrap();
        assert_eq!(consumer.poll("q", 3).unwrap().len(), 3); // 3, 4, 5
        consumer.commit().unwrap(); // holes: 0..3 stay, 3..6 gone
        std::mem::forget(holder); // as if the process died holding the claim
        store.close().unwrap();
    }
    let store = open(dir.path());
    assert_eq!(store.queue_size("q").unwrap(), 7);
    assert_eq!(drain(&store, "q"), vec![0, 1, 2, 6, 7, 8, 9]);
    fill(&store, "q", [10]);
    store.close().unwrap();
    let store = open(dir.path());
    assert_eq!(
        drain(&store, "q"),
        vec![10],
        "sequence numbers continue after the consumed ones"
    );
    assert_eq!(store.queue_names().unwrap(), vec!["q".to_string()]);
}

#[test]
fn concurrent_consumers_never_receive_the_same_item_and_lose_none() {
    let dir = tempfile::tempdir().unwrap();
    let store = open(dir.path());
    fill(&store, "q", 0..2000);
    let seen = Arc::new(parking_lot::Mutex::new(Vec::new()));
    let threads: Vec<_> = (0..4)
        .map(|t| {
            let store = store.clone();
            let seen = seen.clone();
            thread::spawn(move || {
                for attempt in 0usize.. {
                    let mut tx = store.begin().unwrap();
                    let got = tx.poll("q", 7).unwrap();
                    if got.is_empty() {
                        return;
                    }
                    if (attempt + t) % 3 == 0 {
                        tx.rollback().unwrap(); // every third attempt gives its items back
                        continue;
                    }
                    tx.commit().unwrap();
                    seen.lock().extend(
                        got.iter()
                            .map(|m| u32::from_be_bytes(m.payload.clone().unwrap().try_into().unwrap())),
                    );
                }
            })
        })
        .collect();
    threads.into_iter().for_each(|t| t.join().unwrap());
    let mut seen = seen.lock().clone();
    seen.sort();
    assert_eq!(seen, (0..2000).collect::<Vec<_>>());
}

#[test]
fn take_waits_for_a_commit_and_times_out_when_none_comes() {
    let dir = tempfile::tempdir().unwrap();
    let store = open(dir.path());
    let mut tx = store.begin().unwrap();
    assert_eq!(tx.take("q", Duration::from_millis(50)).unwrap(), None);
    let producer = {
        let store = store.clone();
        thread::spawn(move || {
            thread::sleep(Duration::from_millis(100));
            fill(&store, "q", [42]);
        })
    };
    let got = tx.take("q", Duration::from_secs(10)).unwrap().expect("an item arrives");
    assert_eq!(got.payload.unwrap(), 42u32.to_be_bytes());
    producer.join().unwrap();
}

#[test]
fn close_wakes_a_blocked_take_and_later_calls_fail_cleanly() {
    let dir = tempfile::tempdir().unwrap();
    let store = open(dir.path());
    let waiting = Arc::new(AtomicBool::new(false));
    let taker = {
        let store = store.clone();
        let waiting = waiting.clone();
        thread::spawn(move || {
            let mut tx = store.begin().unwrap();
            waiting.store(true, Ordering::SeqCst);
            tx.take("q", Duration::from_secs(60))
        })
    };
    while !waiting.load(Ordering::SeqCst) {
        thread::yield_now();
    }
    thread::sleep(Duration::from_millis(50));
    store.close().unwrap();
    assert!(matches!(taker.join().unwrap(), Err(Error::Closed(_))));
    assert!(matches!(store.begin(), Err(Error::Closed(_))));
    assert!(matches!(store.queue_size("q"), Err(Error::Closed(_))));
    store.close().unwrap(); // idempotent
}

#[test]
fn a_transaction_is_finished_after_commit() {
    let dir = tempfile::tempdir().unwrap();
    let store = open(dir.path());
    let mut tx = store.begin().unwrap();
    tx.commit().unwrap();
    assert!(matches!(tx.enqueue("q", b"x"), Err(Error::TransactionFinished(_))));
    assert!(matches!(tx.commit(), Err(Error::TransactionFinished(_))));
    tx.rollback().unwrap(); // harmless
}

#[test]
fn a_restarted_transaction_rolled_back_the_old_one_and_is_new() {
    let dir = tempfile::tempdir().unwrap();
    let store = open(dir.path());
    fill(&store, "q", 0..3);
    let mut tx = store.begin().unwrap();
    assert_eq!(tx.poll("q", 2).unwrap().len(), 2);
    assert_eq!(tx.map_get("m", b"k").unwrap(), None); // takes its snapshot
    tx.enqueue("q", b"uncommitted").unwrap();
    tx.restart();

    // The claims are back, the enqueue is gone, and the snapshot is a new one.
    let mut writer = store.begin().unwrap();
    writer.map_put("m", b"k", b"v").unwrap();
    writer.commit().unwrap();
    assert_eq!(tx.map_get("m", b"k").unwrap().as_deref(), Some(&b"v"[..]));
    assert_eq!(tx.poll("q", 10).unwrap().len(), 3);
    tx.commit().unwrap();
    assert!(drain(&store, "q").is_empty());

    // A committed one starts again open, holding nothing.
    tx.restart();
    tx.enqueue("q", &7u32.to_be_bytes()).unwrap();
    tx.commit().unwrap();
    assert_eq!(drain(&store, "q"), vec![7]);
}

#[test]
fn bad_locations_and_a_second_open_are_refused_with_what_and_where() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("plain-file");
    std::fs::write(&file, b"hello").unwrap();
    assert!(matches!(
        Store::open(&file, StoreOptions::default()),
        Err(Error::NotAStore { .. })
    ));
    let junk = dir.path().join("junk");
    std::fs::create_dir(&junk).unwrap();
    std::fs::write(junk.join("x.txt"), b"x").unwrap();
    let err = Store::open(&junk, StoreOptions::default()).err().unwrap();
    assert!(matches!(err, Error::NotAStore { .. }), "{err}");
    assert!(err.to_string().contains("junk"));
    let missing = dir.path().join("missing");
    assert!(matches!(
        Store::open(
            &missing,
            StoreOptions {
                create_if_missing: false,
                ..Default::default()
            }
        ),
        Err(Error::NotAStore { .. })
    ));

    let store_dir = dir.path().join("store");
    let store = open(&store_dir);
    let err = Store::open(&store_dir, StoreOptions::default()).err().unwrap();
    assert!(matches!(err, Error::Locked { .. }), "{err}");
    store.close().unwrap();
    open(&store_dir).close().unwrap();
}

#[test]
fn a_read_only_store_reads_and_refuses_writes() {
    let dir = tempfile::tempdir().unwrap();
    {
        let store = open(dir.path());
        fill(&store, "q", [7]);
        store.close().unwrap();
    }
    let ro = Store::open(
        dir.path(),
        StoreOptions {
            read_only: true,
            ..Default::default()
        },
    )
    .unwrap();
    assert_eq!(ro.queue_size("q").unwrap(), 1);
    let mut tx = ro.begin().unwrap();
    assert_eq!(tx.peek("q", 1).unwrap().len(), 1);
    assert!(matches!(tx.enqueue("q", b"x"), Err(Error::ReadOnly(_))));
    assert!(matches!(tx.poll("q", 1), Err(Error::ReadOnly(_))));
}

#[test]
fn arguments_out_of_range_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    let store = open(dir.path());
    let mut tx = store.begin().unwrap();
    assert!(matches!(tx.enqueue("", b"x"), Err(Error::InvalidArgument(_))));
    assert!(matches!(tx.poll("q", 0), Err(Error::InvalidArgument(_))));
    assert!(matches!(tx.poll("q", usize::MAX), Err(Error::InvalidArgument(_))));
    assert!(matches!(
        tx.enqueue(&"n".repeat(5000), b"x"),
        Err(Error::InvalidArgument(_))
    ));
}

#[test]
fn consumed_entries_do_not_slow_polling_or_keep_their_space_after_compaction() {
    let dir = tempfile::tempdir().unwrap();
    let store = open(dir.path());
    let payload = vec![7u8; 256];
    for _ in 0..20 {
        let mut tx = store.begin().unwrap();
        for _ in 0..1000 {
            tx.enqueue("q", &payload).unwrap();
        }
        tx.commit().unwrap();
        let mut tx = store.begin().unwrap();
        assert_eq!(tx.poll("q", 1000).unwrap().len(), 1000);
        tx.commit().unwrap();
    }
    store.compact().unwrap();
    let stats = store.stats().unwrap();
    assert_eq!(stats.queued_items, 0);
    // The log they were written to is flushed now, and kept to be written over until close.
    let logs = log_bytes(dir.path());
    assert!(
        stats.disk_bytes - logs < 2 << 20,
        "20,000 consumed 256-byte items left {} bytes of tables",
        stats.disk_bytes - logs
    );
    store.close().unwrap();
    assert!(
        directory_bytes(dir.path()) < 2 << 20,
        "20,000 consumed 256-byte items left {} bytes after close",
        directory_bytes(dir.path())
    );
}

/// Bytes of the store's write-ahead log files.
fn log_bytes(dir: &std::path::Path) -> u64 {
    std::fs::read_dir(dir)
        .unwrap()
        .flatten()
        .filter(|e| e.path().extension().is_some_and(|x| x == "log"))
        .map(|e| e.metadata().unwrap().len())
        .sum()
}

fn directory_bytes(dir: &std::path::Path) -> u64 {
    std::fs::read_dir(dir)
        .unwrap()
        .flatten()
        .filter_map(|e| e.metadata().ok())
        .filter(|m| m.is_file())
        .map(|m| m.len())
        .sum()
}

#[test]
fn enqueueing_an_owned_object_whose_last_entry_was_consumed_meanwhile_fails_at_commit() {
    let dir = tempfile::tempdir().unwrap();
    let store = open(dir.path());
    let id = {
        let mut tx = store.begin().unwrap();
        let id = tx.enqueue("a", b"x").unwrap();
        tx.commit().unwrap();
        id
    };
    let mut referrer = store.begin().unwrap();
    referrer.enqueue_id("b", id).unwrap();
    let mut consumer = store.begin().unwrap();
    assert_eq!(consumer.poll("a", 1).unwrap()[0].id, id);
    consumer.commit().unwrap(); // last owning entry gone: object deleted
    assert!(matches!(referrer.commit(), Err(Error::NoSuchObject(x)) if x == id));
    referrer.rollback().unwrap();
    assert_eq!(
        store.queue_size("b").unwrap(),
        0,
        "nothing points at the deleted object"
    );
}

#[test]
fn enqueue_new_stores_a_queue_owned_object_under_the_given_id() {
    let dir = tempfile::tempdir().unwrap();
    let store = open(dir.path());
    let id = Uuid::now_v7();
    let mut tx = store.begin().unwrap();
    tx.enqueue_new("q", id, b"given").unwrap();
    assert_eq!(tx.get(id).unwrap().as_deref(), Some(&b"given"[..]));
    tx.commit().unwrap();
    let mut tx = store.begin().unwrap();
    let m = tx.poll("q", 1).unwrap().pop().unwrap();
    assert_eq!((m.id, m.payload.as_deref()), (id, Some(&b"given"[..])));
    tx.commit().unwrap();
    assert_eq!(
        store.begin().unwrap().get(id).unwrap(),
        None,
        "queue-owned: gone with its entry"
    );
}

#[test]
fn scattered_ids_overwrites_and_deletes_in_one_transaction_commit_to_their_final_state() {
    let dir = tempfile::tempdir().unwrap();
    let store = open(dir.path());
    let ids: Vec<Uuid> = (0..1000).map(|_| Uuid::new_v4()).collect();
    let mut tx = store.begin().unwrap();
    for (i, id) in ids.iter().enumerate() {
        tx.put(*id, format!("first {i}").as_bytes()).unwrap();
    }
    for (i, id) in ids.iter().enumerate().step_by(2) {
        tx.put(*id, format!("second {i}").as_bytes()).unwrap();
    }
    for id in ids.iter().step_by(4) {
        assert!(tx.delete(*id).unwrap());
    }
    for id in ids.iter().skip(1).step_by(4) {
        tx.enqueue_id("q", *id).unwrap();
    }
    tx.commit().unwrap();
    let tx = store.begin().unwrap();
    for (i, id) in ids.iter().enumerate() {
        let expected = match i % 4 {
            0 => None,
            2 => Some(format!("second {i}")),
            _ => Some(format!("first {i}")),
        };
        assert_eq!(
            tx.get(*id).unwrap().map(|v| String::from_utf8(v).unwrap()),
            expected,
            "object {i}"
        );
    }
    assert_eq!(store.queue_size("q").unwrap(), 250);
}

#[test]
fn concurrent_synced_commits_share_writes_yet_keep_each_threads_order_and_every_object() {
    let dir = tempfile::tempdir().unwrap();
    let store = Store::open(dir.path(), StoreOptions::default()).unwrap(); // synced commits
    fill(&store, "shared", 0..64);
    let threads: Vec<_> = (0..8u32)
        .map(|t| {
            let store = store.clone();
            thread::spawn(move || {
                for i in 0..150u32 {
                    let mut tx = store.begin().unwrap();
                    // Each thread's own sequence, one commit per item: must come out in order.
                    tx.enqueue("log", &(t << 16 | i).to_be_bytes()).unwrap();
                    // And a move by reference: the reference count changes while other commits
                    // touching the same objects are still being written.
                    for m in tx.poll("shared", 1).unwrap() {
                        tx.enqueue_id("shared", m.id).unwrap();
                    }
                    tx.commit().unwrap();
                }
            })
        })
        .collect();
    threads.into_iter().for_each(|t| t.join().unwrap());
    let log = drain(&store, "log");
    assert_eq!(log.len(), 8 * 150);
    for t in 0..8u32 {
        let mine: Vec<u32> = log.iter().filter(|v| *v >> 16 == t).map(|v| v & 0xffff).collect();
        assert_eq!(mine, (0..150).collect::<Vec<_>>(), "thread {t}'s commits out of order");
    }
    let mut shared = drain(&store, "shared");
    shared.sort();
    assert_eq!(
        shared,
        (0..64).collect::<Vec<_>>(),
        "every moved object is still there, once"
    );
}

#[test]
fn put_over_a_queue_owned_object_keeps_it_owned_even_when_enqueued_again_in_that_transaction() {
    let dir = tempfile::tempdir().unwrap();
    let store = open(dir.path());
    let id = {
        let mut tx = store.begin().unwrap();
        let id = tx.enqueue("a", b"v1").unwrap();
        tx.commit().unwrap();
        id
    };
    let fresh = Uuid::new_v4();
    {
        let mut tx = store.begin().unwrap();
        tx.put(id, b"v2").unwrap(); // stays queue-owned (the object must still exist at commit)
        tx.enqueue_id("b", id).unwrap(); // so this entry's ownership is decided there too
        tx.put(fresh, b"mine").unwrap();
        tx.enqueue_id("b", fresh).unwrap();
        tx.commit().unwrap();
    }
    let get = |id| store.begin().unwrap().get(id).unwrap();
    assert_eq!(get(id).as_deref(), Some(&b"v2"[..]));
    let mut tx = store.begin().unwrap();
    assert_eq!(tx.poll("a", 1).unwrap()[0].id, id);
    tx.commit().unwrap();
    assert_eq!(get(id).as_deref(), Some(&b"v2"[..]), "still owned by the entry in b");
    let mut tx = store.begin().unwrap();
    let polled: Vec<Uuid> = tx.poll("b", 2).unwrap().iter().map(|m| m.id).collect();
    assert_eq!(polled, vec![id, fresh]);
    tx.commit().unwrap();
    assert_eq!(get(id), None, "queue-owned: deleted with its last entry");
    assert_eq!(
        get(fresh).as_deref(),
        Some(&b"mine"[..]),
        "put object: lives until deleted"
    );
}

#[test]
fn a_poll_that_cannot_read_what_it_claimed_rolls_back_and_loses_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let damaged = {
        let store = open(dir.path());
        fill(&store, "q", 0..3);
        let id = store.begin().unwrap().peek("q", 1).unwrap()[0].id;
        store.close().unwrap();
        id
    };
    {
        // Damage the first object underneath RockCask: an ownership flag it never writes.
        let db = rocksdb::DB::open_cf(
            &rocksdb::Options::default(),
            dir.path(),
            rocksdb::DB::list_cf(&rocksdb::Options::default(), dir.path()).unwrap(),
        )
        .unwrap();
        // The column family of objects (the on-disk layout, `keys.rs`).
        db.put_cf(db.cf_handle("objects").unwrap(), damaged.as_bytes(), [9u8, 1, 2])
            .unwrap();
    }
    let store = open(dir.path());
    let mut tx = store.begin().unwrap();
    let err = tx.poll("q", 3).unwrap_err();
    assert!(
        matches!(&err, Error::RolledBack(cause) if matches!(**cause, Error::Corrupt(_))),
        "{err}"
    );
    assert!(
        matches!(tx.commit(), Err(Error::TransactionFinished(_))),
        "nothing claimed can be committed"
    );
    assert_eq!(store.queue_size("q").unwrap(), 3);
    let mut again = store.begin().unwrap();
    assert!(again.poll("q", 3).is_err(), "the same items are back at the head");
}

#[test]
fn payloads_are_compressed_per_store_and_per_queue_and_read_back_with_any_setting() {
    use rockcask_core::compress::{Compression, Policy};
    let dir = tempfile::tempdir().unwrap();
    let text = b"Dummy text ".repeat(200);
    let mut options = StoreOptions {
        compression: Policy {
            codec: Compression::Zstd,
            threshold: 64,
        },
        ..StoreOptions::default()
    };
    options.queue_compression.insert("fast".into(), Compression::Lz4);
    options.queue_compression.insert("raw".into(), Compression::None);
    let put_id = Uuid::new_v4();
    {
        let store = Store::open(dir.path(), options).unwrap();
        let mut tx = store.begin().unwrap();
        for q in ["default", "fast", "raw"] {
            tx.enqueue(q, &text).unwrap();
        }
        tx.enqueue("default", b"small").unwrap();
        tx.put(put_id, &text).unwrap();
        // Read-your-own-writes decompresses too.
        assert_eq!(tx.get(put_id).unwrap().unwrap(), text);
        tx.commit().unwrap();
        let stats = store.stats().unwrap();
        assert_eq!(stats.payload_bytes, 4 * text.len() as u64 + 5);
        // Two of five payloads compressed (zstd and lz4), the raw queue and the small one not.
        assert!(
            stats.stored_payload_bytes < 2 * text.len() as u64 + 5 + 200,
            "{stats:?}"
        );
        assert!(stats.stored_payload_bytes > text.len() as u64, "{stats:?}");
        store.close().unwrap();
    }
    // Opened without compression: every value says how it was stored.
    let store = Store::open(dir.path(), StoreOptions::default()).unwrap();
    let mut tx = store.begin().unwrap();
    for q in ["default", "fast", "raw"] {
        assert_eq!(payloads(&tx.poll(q, 1).unwrap()), vec![text.clone()], "{q}");
    }
    assert_eq!(payloads(&tx.poll("default", 1).unwrap()), vec![b"small".to_vec()]);
    assert_eq!(tx.get(put_id).unwrap().unwrap(), text);
    tx.commit().unwrap();
}

#[test]
fn enqueue_by_id_of_an_object_deleted_by_an_earlier_commit_fails_and_hands_back_its_polls() {
    let dir = tempfile::tempdir().unwrap();
    let store = open(dir.path());
    fill(&store, "in", 0..5);
    let id = Uuid::new_v4();
    {
        let mut tx = store.begin().unwrap();
        tx.put(id, b"object").unwrap();
        tx.commit().unwrap();
    }
    let mut tx1 = store.begin().unwrap();
    assert_eq!(tx1.poll("in", 2).unwrap().len(), 2);
    tx1.enqueue_id("refs", id).unwrap(); // the object exists now
    tx1.enqueue("out", b"made").unwrap();
    let mut tx2 = store.begin().unwrap();
    assert!(tx2.delete(id).unwrap());
    tx2.commit().unwrap();
    assert!(matches!(tx1.commit(), Err(Error::NoSuchObject(x)) if x == id));
    assert!(!tx1.is_open(), "a failed commit ends the transaction");
    assert!(matches!(tx1.commit(), Err(Error::TransactionFinished(_))));
    assert_eq!(store.queue_size("refs").unwrap(), 0, "no entry for the deleted object");
    assert_eq!(
        store.queue_names().unwrap(),
        vec!["in".to_string()],
        "nothing of the failed commit is there"
    );
    let peeked = store.begin().unwrap().peek("in", 10).unwrap();
    assert_eq!(
        payloads(&peeked),
        (0..5u32).map(|i| i.to_be_bytes().to_vec()).collect::<Vec<_>>(),
        "polled items back at the head"
    );
    store.close().unwrap();
    let store = open(dir.path());
    assert_eq!(store.queue_size("refs").unwrap(), 0);
    assert_eq!(drain(&store, "in"), (0..5).collect::<Vec<_>>());
}

#[test]
fn put_over_a_queue_owned_object_whose_last_entry_is_consumed_first_fails_and_leaves_no_orphan() {
    let dir = tempfile::tempdir().unwrap();
    let store = open(dir.path());
    let id = {
        let mut tx = store.begin().unwrap();
        let id = tx.enqueue("q", b"v1").unwrap();
        tx.commit().unwrap();
        id
    };
    let get = |id| store.begin().unwrap().get(id).unwrap();
    let mut writer = store.begin().unwrap();
    writer.put(id, b"v2").unwrap(); // replaces the payload; the object stays queue-owned
    let mut consumer = store.begin().unwrap();
    assert_eq!(consumer.poll("q", 1).unwrap()[0].id, id);
    consumer.commit().unwrap(); // last owning entry consumed: the object is deleted
    assert!(matches!(writer.commit(), Err(Error::NoSuchObject(x)) if x == id));
    assert_eq!(get(id), None, "no queue-owned object is left that no entry points at");

    // In the other order the put comes first and the object goes with its last entry.
    let id = {
        let mut tx = store.begin().unwrap();
        let id = tx.enqueue("q", b"v1").unwrap();
        tx.commit().unwrap();
        id
    };
    let mut writer = store.begin().unwrap();
    writer.put(id, b"v2").unwrap();
    let mut consumer = store.begin().unwrap();
    assert_eq!(consumer.poll("q", 1).unwrap()[0].payload.as_deref(), Some(&b"v1"[..]));
    writer.commit().unwrap();
    consumer.commit().unwrap();
    assert_eq!(get(id), None);
}

/// Enqueuers add entries by id for put objects (which deleters delete) and for queue-owned
/// objects (whose only other entry consumers take), all racing. Every commit's log record lands
/// in one queue, whose order is the commit order.
#[test]
fn racing_deletes_and_enqueues_by_id_never_commit_an_entry_after_its_objects_deletion() {
    const ROUNDS: usize = 1000;
    const PER_ROUND: usize = 4;
    let dir = tempfile::tempdir().unwrap();
    let store = open(dir.path());
    let put_ids: Vec<Uuid> = (0..ROUNDS * PER_ROUND).map(|_| Uuid::now_v7()).collect();
    let owned_ids: Vec<Uuid> = {
        let mut tx = store.begin().unwrap();
        for id in &put_ids {
            tx.put(*id, b"put").unwrap();
        }
        let owned = (0..ROUNDS * PER_ROUND)
            .map(|_| tx.enqueue("src", b"owned").unwrap())
            .collect();
        tx.commit().unwrap();
        owned
    };
    let barrier = Arc::new(std::sync::Barrier::new(3));
    let (put_ids, owned_ids) = (Arc::new(put_ids), Arc::new(owned_ids));
    let spawn = |work: fn(&Store, &[Uuid], &[Uuid]) -> usize| {
        let (store, barrier, put_ids, owned_ids) = (store.clone(), barrier.clone(), put_ids.clone(), owned_ids.clone());
        thread::spawn(move || {
            let mut n = 0;
            for r in 0..ROUNDS {
                barrier.wait();
                let round = r * PER_ROUND..(r + 1) * PER_ROUND;
                n += work(&store, &put_ids[round.clone()], &owned_ids[round]);
            }
            n
        })
    };
    let enqueuer = spawn(|store, puts, owned| {
        let mut refused = 0;
        for (p, o) in puts.iter().zip(owned) {
            for (id, kind) in [(p, b'E'), (o, b'O')] {
                let mut tx = store.begin().unwrap();
                let done = tx.enqueue_id("refs", *id).and_then(|()| {
                    tx.enqueue("log", &[&[kind][..], id.as_bytes()].concat())?;
                    tx.commit()
                });
                match done {
                    Ok(()) => {}
                    Err(Error::NoSuchObject(x)) if x == *id => refused += 1,
                    Err(e) => panic!("{e}"),
                }
            }
        }
        refused
    });
    let deleter = spawn(|store, puts, _| {
        for id in puts {
            let mut tx = store.begin().unwrap();
            assert!(tx.delete(*id).unwrap());
            tx.enqueue("log", &[&[b'D'][..], id.as_bytes()].concat()).unwrap();
            tx.commit().unwrap();
        }
        0
    });
    let consumer = spawn(|store, _, owned| {
        for id in owned {
            let mut tx = store.begin().unwrap();
            assert_eq!(tx.poll("src", 1).unwrap()[0].id, *id);
            tx.commit().unwrap();
        }
        0
    });
    let refused = enqueuer.join().unwrap();
    deleter.join().unwrap();
    consumer.join().unwrap();

    let mut records: Vec<Vec<u8>> = Vec::new();
    store
        .visit_queue("log", &mut |_, _, payload| {
            records.push(payload.unwrap().to_vec());
            Ok(true)
        })
        .unwrap();
    let deleted_at: std::collections::HashMap<&[u8], usize> = records
        .iter()
        .enumerate()
        .filter(|(_, r)| r[0] == b'D')
        .map(|(i, r)| (&r[1..], i))
        .collect();
    assert_eq!(deleted_at.len(), put_ids.len());
    for (i, r) in records.iter().enumerate().filter(|(_, r)| r[0] == b'E') {
        let id = Uuid::from_slice(&r[1..]).unwrap();
        assert!(
            i < deleted_at[&r[1..]],
            "entry for {id} committed after the commit that deleted it"
        );
    }
    let enqueued = records.iter().filter(|r| r[0] != b'D').count();
    assert_eq!(
        enqueued + refused,
        2 * put_ids.len(),
        "every enqueue either committed or was refused"
    );
    let mut entries = 0;
    let mut owned_with_entry = std::collections::HashSet::new();
    store
        .visit_queue("refs", &mut |_, id, payload| {
            entries += 1;
            if owned_ids.contains(&id) {
                assert!(payload.is_some(), "entry for queue-owned object {id}, which is gone");
                owned_with_entry.insert(id);
            } else {
                assert!(payload.is_some() || deleted_at.contains_key(&id.as_bytes()[..]));
            }
            Ok(true)
        })
        .unwrap();
    assert_eq!(entries, enqueued);
    let tx = store.begin().unwrap();
    for id in owned_ids.iter() {
        assert_eq!(
            tx.get(*id).unwrap().is_some(),
            owned_with_entry.contains(id),
            "queue-owned {id} lives exactly while an entry points at it"
        );
    }
}

#[test]
fn get_many_returns_each_payload_in_order_with_the_transactions_own_writes_and_none_where_there_is_none() {
    let dir = tempfile::tempdir().unwrap();
    let store = open(dir.path());
    let ids: Vec<Uuid> = (0..300).map(|_| Uuid::new_v4()).collect();
    let mut tx = store.begin().unwrap();
    for (i, id) in ids.iter().enumerate() {
        tx.put(*id, format!("stored {i}").as_bytes()).unwrap();
    }
    tx.commit().unwrap();

    let mut tx = store.begin().unwrap();
    tx.put(ids[1], b"replaced here").unwrap();
    tx.delete(ids[2]).unwrap();
    let fresh = Uuid::new_v4();
    tx.put(fresh, b"new here").unwrap();
    let absent = Uuid::new_v4();
    // Shuffled, with repeats, as a caller's lookups come.
    let wanted = [ids[299], ids[1], absent, ids[2], fresh, ids[0], ids[299], ids[150]];
    let got = tx.get_many(&wanted).unwrap();
    let text = |p: &Option<Vec<u8>>| p.as_deref().map(|b| String::from_utf8(b.to_vec()).unwrap());
    assert_eq!(
        got.iter().map(text).collect::<Vec<_>>(),
        [
            Some("stored 299"),
            Some("replaced here"),
            None,
            None,
            Some("new here"),
            Some("stored 0"),
            Some("stored 299"),
            Some("stored 150")
        ]
        .map(|s| s.map(String::from))
    );
    for (id, payload) in wanted.iter().zip(&got) {
        assert_eq!(&tx.get(*id).unwrap(), payload, "as get of {id} returns it");
    }
    assert!(tx.get_many(&[]).unwrap().is_empty());
    let all = tx.get_many(&ids).unwrap();
    assert_eq!(all.iter().filter(|p| p.is_some()).count(), 299);
    tx.rollback().unwrap();
    assert!(matches!(tx.get_many(&ids[..1]), Err(Error::TransactionFinished(_))));
}

/// A close writes memtables holding a megabyte or more to table files, so the next open has no
/// log to replay (a store of 10^6 values reopened in seconds before); a close of a nearly empty
/// store leaves its small log to be replayed. Nothing is lost either way.
#[test]
fn close_flushes_large_memtables_so_the_next_open_has_no_log_to_replay() {
    let dir = tempfile::tempdir().unwrap();
    let store = Store::open(dir.path(), StoreOptions::default()).unwrap();
    let mut tx = store.begin().unwrap();
    for i in 0..2_000u32 {
        tx.map_put("m", &i.to_be_bytes(), &[7; 1024]).unwrap();
        tx.enqueue("q", &[1; 256]).unwrap();
    }
    tx.commit().unwrap();
    assert!(log_bytes(dir.path()) > 2 << 20, "the commit is in the log");
    store.close().unwrap();
    assert!(
        log_bytes(dir.path()) < 64 << 10,
        "{} bytes of log left after close",
        log_bytes(dir.path())
    );
    let store = Store::open(dir.path(), StoreOptions::default()).unwrap();
    assert_eq!(
        store.map_get("m", &1999u32.to_be_bytes()).unwrap().as_deref(),
        Some(&[7u8; 1024][..])
    );
    assert_eq!(store.queue_size("q").unwrap(), 2_000);
    store.close().unwrap();

    let small = tempfile::tempdir().unwrap();
    let store = Store::open(small.path(), StoreOptions::default()).unwrap();
    let mut tx = store.begin().unwrap();
    tx.map_put("m", b"k", b"v").unwrap();
    tx.commit().unwrap();
    store.close().unwrap();
    assert!(log_bytes(small.path()) > 0, "a small log is left to replay");
    let store = Store::open(small.path(), StoreOptions::default()).unwrap();
    assert_eq!(store.map_get("m", b"k").unwrap().as_deref(), Some(&b"v"[..]));
}
