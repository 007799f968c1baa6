//! A queue peek reads the transaction's snapshot, the one its map reads see: entries enqueued
//! after it are not there, entries consumed after it still are, with their payloads, and a
//! move between queues is never seen half done.

mod common;

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use rockcask_core::{Message, Store};

use common::open;

fn numbers(messages: &[Message]) -> Vec<u32> {
    messages
        .iter()
        .map(|m| u32::from_be_bytes(m.payload.as_deref().unwrap().try_into().unwrap()))
        .collect()
}

fn fill(store: &Store, queue: &str, numbers: std::ops::Range<u32>) {
    let mut tx = store.begin().unwrap();
    for i in numbers {
        tx.enqueue(queue, &i.to_be_bytes()).unwrap();
    }
    tx.commit().unwrap();
}

#[test]
fn a_peek_sees_the_snapshot_taken_by_the_first_map_read() {
    let dir = tempfile::tempdir().unwrap();
    let store = open(dir.path());
    fill(&store, "q", 0..3);
    let mut reader = store.begin().unwrap();
    assert_eq!(reader.map_get("m", b"k").unwrap(), None);

    // After the snapshot: one commit consumes two entries and adds two, another writes the map.
    let mut tx = store.begin().unwrap();
    assert_eq!(numbers(&tx.poll("q", 2).unwrap()), vec![0, 1]);
    tx.enqueue("q", &3u32.to_be_bytes()).unwrap();
    tx.enqueue("q", &4u32.to_be_bytes()).unwrap();
    tx.map_put("m", b"k", b"v").unwrap();
    tx.commit().unwrap();

    assert_eq!(
        numbers(&reader.peek("q", 10).unwrap()),
        vec![0, 1, 2],
        "the snapshot's entries"
    );
    assert_eq!(reader.map_get("m", b"k").unwrap(), None);
    reader.commit().unwrap();
    assert_eq!(numbers(&store.begin().unwrap().peek("q", 10).unwrap()), vec![2, 3, 4]);
}

#[test]
fn a_first_peek_takes_the_snapshot_later_map_reads_see() {
    let dir = tempfile::tempdir().unwrap();
    let store = open(dir.path());
    fill(&store, "q", 0..1);
    let mut reader = store.begin().unwrap();
    assert_eq!(numbers(&reader.peek("q", 10).unwrap()), vec![0]);
    let mut tx = store.begin().unwrap();
    tx.poll("q", 1).unwrap();
    tx.map_put("m", b"k", b"moved").unwrap();
    tx.commit().unwrap();
    assert_eq!(reader.map_get("m", b"k").unwrap(), None, "not in the snapshot");
    assert_eq!(numbers(&reader.peek("q", 10).unwrap()), vec![0]);
}

#[test]
fn a_peek_leaves_out_what_its_transaction_polled_and_adds_what_it_enqueued() {
    let dir = tempfile::tempdir().unwrap();
    let store = open(dir.path());
    fill(&store, "q", 0..4);
    let mut tx = store.begin().unwrap();
    assert_eq!(numbers(&tx.poll("q", 2).unwrap()), vec![0, 1]);
    tx.enqueue("q", &9u32.to_be_bytes()).unwrap();
    let peeked = tx.peek("q", 10).unwrap();
    assert_eq!(numbers(&peeked), vec![2, 3, 9]);
    assert_eq!(peeked[2].sequence, None, "its own enqueue has no position yet");
    assert_eq!(numbers(&tx.peek("q", 2).unwrap()), vec![2, 3], "at most max");
    tx.rollback().unwrap();
}

/// Entries another open transaction polled are still committed: a peek shows them, a poll
/// does not get them.
#[test]
fn a_peek_shows_entries_another_open_transaction_polled() {
    let dir = tempfile::tempdir().unwrap();
    let store = open(dir.path());
    fill(&store, "q", 0..3);
    let mut holder = store.begin().unwrap();
    holder.poll("q", 1).unwrap();
    let mut reader = store.begin().unwrap();
    assert_eq!(numbers(&reader.peek("q", 10).unwrap()), vec![0, 1, 2]);
    assert_eq!(numbers(&reader.poll("q", 10).unwrap()), vec![1, 2]);
    reader.rollback().unwrap();
    holder.rollback().unwrap();
}

#[test]
fn a_queue_created_after_the_snapshot_is_empty_and_one_dropped_after_it_is_still_there() {
    let dir = tempfile::tempdir().unwrap();
    let store = open(dir.path());
    fill(&store, "old", 0..2);
    let mut reader = store.begin().unwrap();
    assert!(reader.peek("new", 10).unwrap().is_empty());
    fill(&store, "new", 0..2);
    let mut dropper = store.begin().unwrap();
    assert_eq!(dropper.drop_queue("old").unwrap(), 2);
    dropper.commit().unwrap();
    assert!(store.queue_names().unwrap().iter().all(|n| n != "old"));
    assert!(reader.peek("new", 10).unwrap().is_empty(), "created after the snapshot");
    assert_eq!(
        numbers(&reader.peek("old", 10).unwrap()),
        vec![0, 1],
        "dropped after it"
    );
    // Created again under a new id: the snapshot still has the old one's entries.
    fill(&store, "old", 7..8);
    assert_eq!(numbers(&reader.peek("old", 10).unwrap()), vec![0, 1]);
    reader.commit().unwrap();
    assert_eq!(numbers(&store.begin().unwrap().peek("old", 10).unwrap()), vec![7]);
}

/// The object a peeked entry points at is read from the snapshot too: deleted or replaced
/// after it, the peek still gives the payload it had.
#[test]
fn a_peeked_entrys_object_is_read_from_the_snapshot() {
    let dir = tempfile::tempdir().unwrap();
    let store = open(dir.path());
    let id = uuid::Uuid::now_v7();
    let mut tx = store.begin().unwrap();
    tx.put(id, &1u32.to_be_bytes()).unwrap();
    tx.enqueue_id("q", id).unwrap();
    tx.commit().unwrap();
    let mut reader = store.begin().unwrap();
    assert_eq!(numbers(&reader.peek("q", 1).unwrap()), vec![1]);
    let mut tx = store.begin().unwrap();
    tx.put(id, &2u32.to_be_bytes()).unwrap();
    tx.commit().unwrap();
    assert_eq!(
        numbers(&reader.peek("q", 1).unwrap()),
        vec![1],
        "replaced after the snapshot"
    );
    let mut tx = store.begin().unwrap();
    assert!(tx.delete(id).unwrap());
    tx.commit().unwrap();
    assert_eq!(
        numbers(&reader.peek("q", 1).unwrap()),
        vec![1],
        "deleted after the snapshot"
    );
    reader.commit().unwrap();
    assert_eq!(store.begin().unwrap().peek("q", 1).unwrap()[0].payload, None);
}

/// Two threads move entries one at a time between two queues, each move one transaction, while
/// readers peek both queues in one read-only transaction: every reader must count every entry
/// once, never one in both queues or in neither. Peeks that read the latest state instead of
/// one snapshot count a move half done.
#[test]
fn peeks_of_two_queues_in_one_transaction_never_see_a_move_half_done() {
    const ITEMS: u32 = 50;
    let dir = tempfile::tempdir().unwrap();
    let store = Arc::new(open(dir.path()));
    fill(&store, "a", 0..ITEMS);
    let stop = Arc::new(AtomicBool::new(false));
    let moves = Arc::new(AtomicU64::new(0));
    let movers: Vec<_> = [("a", "b"), ("b", "a")]
        .into_iter()
        .map(|(from, to)| {
            let (store, stop, moves) = (store.clone(), stop.clone(), moves.clone());
            std::thread::spawn(move || {
                while !stop.load(Ordering::Relaxed) {
                    let mut tx = store.begin().unwrap();
                    for m in tx.poll(from, 1).unwrap() {
                        tx.enqueue(to, m.payload.as_deref().unwrap()).unwrap();
                    }
                    tx.commit().unwrap();
                    moves.fetch_add(1, Ordering::Relaxed);
                }
            })
        })
        .collect();
    let deadline = Instant::now() + Duration::from_secs(2);
    let mut reads = 0u64;
    while Instant::now() < deadline {
        let mut tx = store.begin().unwrap();
        let mut seen = numbers(&tx.peek("a", ITEMS as usize + 1).unwrap());
        std::thread::yield_now();
        seen.extend(numbers(&tx.peek("b", ITEMS as usize + 1).unwrap()));
        tx.commit().unwrap();
        seen.sort_unstable();
        assert_eq!(seen, (0..ITEMS).collect::<Vec<_>>(), "after {reads} reads");
        reads += 1;
    }
    stop.store(true, Ordering::Relaxed);
    for m in movers {
        m.join().unwrap();
    }
    assert!(moves.load(Ordering::Relaxed) > 100, "the movers ran");
    assert!(reads > 100, "the readers ran");
}
