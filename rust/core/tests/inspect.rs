//! `Store::visit_queue`: every committed entry of one queue, in the order a consumer would take
//! them, one at a time, as of one point in time, on writable and read-only stores.

mod common;

use rockcask_core::compress::{Compression, Policy};
use rockcask_core::{Error, Store, StoreOptions, Uuid};

use common::open;

/// Every (position, id, payload) `visit_queue` reports for `queue`.
fn visit_all(store: &Store, queue: &str) -> Vec<(u64, Uuid, Option<Vec<u8>>)> {
    let mut seen = Vec::new();
    let count = store
        .visit_queue(queue, &mut |position, id, payload| {
            seen.push((position, id, payload.map(<[u8]>::to_vec)));
            Ok(true)
        })
        .unwrap();
    assert_eq!(count, seen.len() as u64);
    seen
}

fn payloads(seen: &[(u64, Uuid, Option<Vec<u8>>)]) -> Vec<Option<Vec<u8>>> {
    seen.iter().map(|(_, _, p)| p.clone()).collect()
}

#[test]
fn visits_committed_entries_in_fifo_order_with_positions_from_the_head() {
    let dir = tempfile::tempdir().unwrap();
    let store = open(dir.path());
    let mut tx = store.begin().unwrap();
    let ids: Vec<Uuid> = (0..10u8).map(|i| tx.enqueue("q", &[i]).unwrap()).collect();
    tx.enqueue("other", b"not in q").unwrap();
    tx.commit().unwrap();
    // Consumed entries are gone; a rolled-back poll puts its entries back at the head.
    let mut tx = store.begin().unwrap();
    tx.poll("q", 3).unwrap();
    tx.commit().unwrap();
    let mut tx = store.begin().unwrap();
    tx.poll("q", 2).unwrap();
    tx.rollback().unwrap();
    // Uncommitted enqueues are not there.
    let mut pending = store.begin().unwrap();
    pending.enqueue("q", b"uncommitted").unwrap();

    let seen = visit_all(&store, "q");
    assert_eq!(
        seen.iter().map(|s| s.0).collect::<Vec<_>>(),
        (0..7).collect::<Vec<u64>>()
    );
    assert_eq!(seen.iter().map(|s| s.1).collect::<Vec<_>>(), ids[3..].to_vec());
    assert_eq!(payloads(&seen), (3..10u8).map(|i| Some(vec![i])).collect::<Vec<_>>());
    // The same order a consumer gets.
    let mut tx = store.begin().unwrap();
    let peeked: Vec<Uuid> = tx.peek("q", 100).unwrap().into_iter().map(|m| m.id).collect();
    assert_eq!(peeked, ids[3..].to_vec());
    assert_eq!(store.queue_size("q").unwrap(), seen.len() as u64);
    pending.rollback().unwrap();
}

#[test]
fn reports_deleted_objects_as_none_and_decompresses_payloads() {
    let dir = tempfile::tempdir().unwrap();
    let store = Store::open(
        dir.path(),
        StoreOptions {
            sync_on_commit: false,
            compression: Policy {
                codec: Compression::Zstd,
                threshold: 0,
            },
            ..StoreOptions::default()
        },
    )
    .unwrap();
    let big = b"compressible ".repeat(500);
    let put = Uuid::now_v7();
    let mut tx = store.begin().unwrap();
    tx.enqueue("q", &big).unwrap();
    tx.put(put, b"put, then deleted").unwrap();
    tx.enqueue_id("q", put).unwrap();
    tx.enqueue("q", b"").unwrap();
    tx.commit().unwrap();
    let mut tx = store.begin().unwrap();
    assert!(tx.delete(put).unwrap());
    tx.commit().unwrap();

    let seen = visit_all(&store, "q");
    assert_eq!(payloads(&seen), vec![Some(big), None, Some(Vec::new())]);
    assert_eq!(seen[1].1, put);
}

#[test]
fn stops_when_the_visitor_says_so_and_passes_its_errors_through() {
    let dir = tempfile::tempdir().unwrap();
    let store = open(dir.path());
    let mut tx = store.begin().unwrap();
    for i in 0..100u32 {
        tx.enqueue("q", &i.to_be_bytes()).unwrap();
    }
    tx.commit().unwrap();

    let mut calls = 0;
    let visited = store
        .visit_queue("q", &mut |position, _, _| {
            calls += 1;
            Ok(position < 4)
        })
        .unwrap();
    assert_eq!((visited, calls), (5, 5));

    let err = store
        .visit_queue("q", &mut |_, _, _| {
            Err(Error::InvalidArgument("visitor gave up".into()))
        })
        .unwrap_err();
    assert!(err.to_string().contains("visitor gave up"), "{err}");
}

#[test]
fn an_unknown_queue_is_an_error_and_an_emptied_one_is_empty() {
    let dir = tempfile::tempdir().unwrap();
    let store = open(dir.path());
    let mut tx = store.begin().unwrap();
    tx.enqueue("emptied", b"x").unwrap();
    tx.commit().unwrap();
    let mut tx = store.begin().unwrap();
    tx.poll("emptied", 1).unwrap();
    tx.commit().unwrap();

    assert!(visit_all(&store, "emptied").is_empty());
    let err = store.visit_queue("never-used", &mut |_, _, _| Ok(true)).unwrap_err();
    assert!(matches!(err, Error::InvalidArgument(_)), "{err:?}");
    assert!(err.to_string().contains("never-used"), "{err}");
    assert!(matches!(
        store.visit_queue("", &mut |_, _, _| Ok(true)),
        Err(Error::InvalidArgument(_))
    ));
}

#[test]
fn sees_one_point_in_time_while_commits_go_on() {
    let dir = tempfile::tempdir().unwrap();
    let store = open(dir.path());
    let mut tx = store.begin().unwrap();
    for i in 0..50u32 {
        tx.enqueue("q", &i.to_be_bytes()).unwrap();
    }
    tx.commit().unwrap();

    // Halfway through the walk, another transaction consumes the head and appends more.
    let writer = store.clone();
    let seen = {
        let mut seen = Vec::new();
        store
            .visit_queue("q", &mut |position, _, payload| {
                seen.push(payload.unwrap().to_vec());
                if position == 25 {
                    let mut tx = writer.begin()?;
                    tx.poll("q", 10)?;
                    tx.enqueue("q", b"late")?;
                    tx.commit()?;
                }
                Ok(true)
            })
            .unwrap();
        seen
    };
    assert_eq!(seen, (0..50u32).map(|i| i.to_be_bytes().to_vec()).collect::<Vec<_>>());
    assert_eq!(visit_all(&store, "q").len(), 41);
}

#[test]
fn works_on_a_store_opened_read_only() {
    let dir = tempfile::tempdir().unwrap();
    {
        let store = open(dir.path());
        let mut tx = store.begin().unwrap();
        tx.enqueue("q", b"one").unwrap();
        tx.enqueue("q", b"two").unwrap();
        tx.commit().unwrap();
        store.close().unwrap();
    }
    let reader = Store::open(
        dir.path(),
        StoreOptions {
            read_only: true,
            create_if_missing: false,
            ..StoreOptions::default()
        },
    )
    .unwrap();
    assert_eq!(
        payloads(&visit_all(&reader, "q")),
        vec![Some(b"one".to_vec()), Some(b"two".to_vec())]
    );
}

#[test]
fn finds_objects_whatever_the_order_of_their_ids() {
    // Objects are found by walking forward through them when ids ascend (UUIDs v7 in FIFO
    // order); random ids, ids going backwards, long gaps of other queues' objects and deleted
    // objects must all still come out right.
    let dir = tempfile::tempdir().unwrap();
    let store = open(dir.path());
    let mut expected = Vec::new();
    let mut deleted = Vec::new();
    let mut tx = store.begin().unwrap();
    for i in 0..400u32 {
        match i % 5 {
            0 => {
                let id = Uuid::new_v4();
                tx.put(id, &i.to_be_bytes()).unwrap();
                tx.enqueue_id("mixed", id).unwrap();
                expected.push((id, Some(i.to_be_bytes().to_vec())));
            }
            1 => {
                let id = Uuid::new_v4();
                tx.put(id, b"to be deleted").unwrap();
                tx.enqueue_id("mixed", id).unwrap();
                deleted.push(id);
                expected.push((id, None));
            }
            _ => {
                let id = tx.enqueue("mixed", &i.to_be_bytes()).unwrap();
                expected.push((id, Some(i.to_be_bytes().to_vec())));
            }
        }
        // Objects of another queue between each of these, more than a short walk steps over.
        for j in 0..(i % 40) {
            tx.enqueue("noise", &j.to_be_bytes()).unwrap();
        }
    }
    tx.commit().unwrap();
    let mut tx = store.begin().unwrap();
    for id in deleted {
        assert!(tx.delete(id).unwrap());
    }
    tx.commit().unwrap();
    // Once from the memtable, once from table files.
    for round in 0..2 {
        let seen: Vec<(Uuid, Option<Vec<u8>>)> = visit_all(&store, "mixed")
            .into_iter()
            .map(|(_, id, p)| (id, p))
            .collect();
        assert_eq!(seen, expected, "round {round}");
        store.compact().unwrap();
    }
}
