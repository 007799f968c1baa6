//! A queue-owned object deleted while entries still point at it, then put again under the same
//! id: consuming those entries (by poll, dropping the queue, dropping dead letters; before or
//! after the delete is written, before or after a reopen) must never delete the object put
//! since. And consuming the entries of objects that were never deleted still deletes them.

mod common;

use rockcask_core::dead_letter::Selection;
use rockcask_core::{QueueConfig, Store, Uuid};

use common::open;

/// A queue-owned object in `queue` (and by id in each of `also`), committed.
fn enqueue_owned(store: &Store, queue: &str, also: &[&str]) -> Uuid {
    let mut tx = store.begin().unwrap();
    let id = tx.enqueue(queue, b"owned").unwrap();
    for q in also {
        tx.enqueue_id(q, id).unwrap();
    }
    tx.commit().unwrap();
    id
}

fn delete(store: &Store, id: Uuid) {
    let mut tx = store.begin().unwrap();
    assert!(tx.delete(id).unwrap());
    tx.commit().unwrap();
}

fn put(store: &Store, id: Uuid, payload: &[u8]) {
    let mut tx = store.begin().unwrap();
    tx.put(id, payload).unwrap();
    tx.commit().unwrap();
}

fn poll_one(store: &Store, queue: &str) -> Option<Vec<u8>> {
    let mut tx = store.begin().unwrap();
    let got = tx.poll(queue, 1).unwrap();
    tx.commit().unwrap();
    assert_eq!(got.len(), 1, "one entry in {queue}");
    got[0].payload.clone()
}

fn get(store: &Store, id: Uuid) -> Option<Vec<u8>> {
    store.begin().unwrap().get(id).unwrap()
}

#[test]
fn consuming_the_entry_of_a_deleted_object_keeps_the_object_put_under_its_id_since() {
    let dir = tempfile::tempdir().unwrap();
    let store = open(dir.path());
    let id = enqueue_owned(&store, "q", &[]);
    delete(&store, id);
    put(&store, id, b"new");
    assert_eq!(
        poll_one(&store, "q").as_deref(),
        Some(&b"new"[..]),
        "the entry reads what is under its id"
    );
    assert_eq!(get(&store, id).as_deref(), Some(&b"new"[..]));
    store.close().unwrap();
    assert_eq!(get(&open(dir.path()), id).as_deref(), Some(&b"new"[..]));
}

#[test]
fn every_entry_of_a_shared_deleted_object_can_be_consumed_without_deleting_its_successor() {
    let dir = tempfile::tempdir().unwrap();
    let store = open(dir.path());
    let id = enqueue_owned(&store, "a", &["b", "c"]);
    delete(&store, id);
    put(&store, id, b"new");
    for q in ["a", "b", "c"] {
        assert_eq!(poll_one(&store, q).as_deref(), Some(&b"new"[..]));
        assert_eq!(
            get(&store, id).as_deref(),
            Some(&b"new"[..]),
            "after consuming from {q}"
        );
    }
}

#[test]
fn a_poll_that_read_the_object_before_it_was_deleted_and_put_again_does_not_delete_the_new_one() {
    let dir = tempfile::tempdir().unwrap();
    let store = open(dir.path());
    let id = enqueue_owned(&store, "q", &[]);
    let mut consumer = store.begin().unwrap();
    assert_eq!(
        consumer.poll("q", 1).unwrap()[0].payload.as_deref(),
        Some(&b"owned"[..])
    );
    delete(&store, id);
    put(&store, id, b"new");
    consumer.commit().unwrap();
    assert_eq!(get(&store, id).as_deref(), Some(&b"new"[..]));
    assert_eq!(store.queue_size("q").unwrap(), 0);
}

#[test]
fn entries_consumed_unread_by_dropping_the_queue_or_dead_letters_keep_the_new_object() {
    let dir = tempfile::tempdir().unwrap();
    let store = open(dir.path());
    let dropped = enqueue_owned(&store, "dropped", &[]);
    store
        .configure_queue(
            "poisoned",
            QueueConfig {
                max_deliveries: Some(1),
                dead_letter_queue: Some("dead".into()),
                ..QueueConfig::default()
            },
        )
        .unwrap();
    let poisoned = enqueue_owned(&store, "poisoned", &[]);
    let mut tx = store.begin().unwrap();
    tx.poll("poisoned", 1).unwrap();
    tx.rollback_because("fails", None).unwrap();
    assert_eq!(store.dead_letters("poisoned", 10).unwrap().len(), 1);
    for id in [dropped, poisoned] {
        delete(&store, id);
        put(&store, id, b"new");
    }
    let mut tx = store.begin().unwrap();
    assert_eq!(tx.drop_queue("dropped").unwrap(), 1);
    assert_eq!(tx.drop_dead_letters("poisoned", Selection::All).unwrap(), 1);
    tx.commit().unwrap();
    assert!(store.dead_letters("poisoned", 10).unwrap().is_empty());
    for id in [dropped, poisoned] {
        assert_eq!(get(&store, id).as_deref(), Some(&b"new"[..]));
    }
}

#[test]
fn a_put_over_a_queue_owned_object_that_was_deleted_and_put_again_meanwhile_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let store = open(dir.path());
    let id = enqueue_owned(&store, "q", &[]);
    let mut late = store.begin().unwrap();
    late.put(id, b"late").unwrap(); // over the queue-owned object: stays queue-owned
    delete(&store, id);
    put(&store, id, b"new");
    assert!(matches!(late.commit(), Err(rockcask_core::Error::NoSuchObject(x)) if x == id));
    assert_eq!(get(&store, id).as_deref(), Some(&b"new"[..]));
}

#[test]
fn entries_of_objects_never_deleted_still_take_their_objects_with_them() {
    let dir = tempfile::tempdir().unwrap();
    let store = open(dir.path());
    let single = enqueue_owned(&store, "q", &[]);
    let shared = enqueue_owned(&store, "a", &["b"]);
    // A delete of another object in between makes the consumers read ownership again.
    let other = enqueue_owned(&store, "other", &[]);
    let mut consumer = store.begin().unwrap();
    consumer.poll("q", 1).unwrap();
    consumer.poll("a", 1).unwrap();
    delete(&store, other);
    consumer.commit().unwrap();
    assert_eq!(get(&store, single), None);
    assert_eq!(
        get(&store, shared).as_deref(),
        Some(&b"owned"[..]),
        "still owned by its entry in b"
    );
    assert_eq!(poll_one(&store, "b").as_deref(), Some(&b"owned"[..]));
    assert_eq!(get(&store, shared), None);
    let mut tx = store.begin().unwrap();
    let dropped = tx.enqueue("d", b"x").unwrap();
    tx.commit().unwrap();
    let mut tx = store.begin().unwrap();
    tx.drop_queue("d").unwrap();
    tx.commit().unwrap();
    assert_eq!(get(&store, dropped), None);
}

/// Consumers polling and committing while another thread deletes queue-owned objects still in
/// the queue and puts new ones under their ids (in one transaction or two): once the queue is
/// drained, every object put is there with its payload and every other one is gone.
#[test]
fn objects_put_under_the_ids_of_deleted_queue_owned_ones_survive_concurrent_consumers() {
    use std::sync::atomic::{AtomicBool, Ordering};
    use std::sync::{Arc, Mutex};
    let dir = tempfile::tempdir().unwrap();
    let store = Arc::new(open(dir.path()));
    let produced: Arc<Mutex<Vec<Uuid>>> = Arc::default();
    let producing = Arc::new(AtomicBool::new(true));
    let producer = {
        let (store, produced, producing) = (store.clone(), produced.clone(), producing.clone());
        std::thread::spawn(move || {
            for _ in 0..100 {
                let mut tx = store.begin().unwrap();
                let ids: Vec<Uuid> = (0..20).map(|_| tx.enqueue("q", b"owned").unwrap()).collect();
                tx.commit().unwrap();
                produced.lock().unwrap().extend(ids);
            }
            producing.store(false, Ordering::SeqCst);
        })
    };
    let consumers: Vec<_> = (0..2)
        .map(|_| {
            let (store, producing) = (store.clone(), producing.clone());
            std::thread::spawn(move || loop {
                let done = !producing.load(Ordering::SeqCst);
                let mut tx = store.begin().unwrap();
                let got = tx.poll("q", 10).unwrap();
                std::thread::yield_now(); // a delete and a put may come between the poll and the commit
                tx.commit().unwrap();
                if got.is_empty() && done {
                    break;
                }
            })
        })
        .collect();
    let replacer = {
        let (store, produced, producing) = (store.clone(), produced.clone(), producing.clone());
        std::thread::spawn(move || {
            let mut replaced = Vec::new();
            let mut next = 0usize;
            while producing.load(Ordering::SeqCst) || next < produced.lock().unwrap().len() {
                let Some(id) = produced.lock().unwrap().get(next).copied() else {
                    std::thread::yield_now();
                    continue;
                };
                next += 3; // every third object
                let mut tx = store.begin().unwrap();
                tx.delete(id).unwrap();
                if next.is_multiple_of(2) {
                    tx.commit().unwrap();
                    tx = store.begin().unwrap();
                }
                tx.put(id, id.as_bytes()).unwrap();
                tx.commit().unwrap();
                replaced.push(id);
            }
            replaced
        })
    };
    producer.join().unwrap();
    let replaced = replacer.join().unwrap();
    consumers.into_iter().for_each(|c| c.join().unwrap());
    assert_eq!(store.queue_size("q").unwrap(), 0);
    assert!(replaced.len() > 500, "{} replaced", replaced.len());
    let tx = store.begin().unwrap();
    for &id in &replaced {
        assert_eq!(
            tx.get(id).unwrap().as_deref(),
            Some(&id.as_bytes()[..]),
            "object put under {id}"
        );
    }
    let replaced: std::collections::HashSet<Uuid> = replaced.into_iter().collect();
    for &id in produced.lock().unwrap().iter().filter(|id| !replaced.contains(id)) {
        assert_eq!(tx.get(id).unwrap(), None, "queue-owned {id}, consumed");
    }
}
