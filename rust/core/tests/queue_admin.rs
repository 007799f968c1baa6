//! Entry positions, and the operations on whole queues: listing by prefix, dropping, moving.

mod common;

use std::time::{Duration, Instant};

use rockcask_core::{Error, Message, QueueConfig, Store, StoreOptions, Uuid};

use common::open;

fn fill(store: &Store, queue: &str, items: impl IntoIterator<Item = u32>) -> Vec<Uuid> {
    let mut tx = store.begin().unwrap();
    let ids = items
        .into_iter()
        .map(|i| tx.enqueue(queue, &i.to_be_bytes()).unwrap())
        .collect();
    tx.commit().unwrap();
    ids
}

fn numbers(ms: &[Message]) -> Vec<u32> {
    ms.iter()
        .map(|m| u32::from_be_bytes(m.payload.clone().unwrap().try_into().unwrap()))
        .collect()
}

fn sequences(ms: &[Message]) -> Vec<Option<u64>> {
    ms.iter().map(|m| m.sequence).collect()
}

fn peek_all(store: &Store, queue: &str) -> Vec<Message> {
    store.begin().unwrap().peek(queue, 1 << 20).unwrap()
}

#[test]
fn sequences_are_positions_kept_across_rollback_and_reopen_and_none_for_own_enqueues() {
    let dir = tempfile::tempdir().unwrap();
    let store = open(dir.path());
    fill(&store, "q", 0..3);
    fill(&store, "q", 3..5);
    let mut tx = store.begin().unwrap();
    assert_eq!(sequences(&tx.poll("q", 2).unwrap()), vec![Some(0), Some(1)]);
    tx.rollback().unwrap();
    assert_eq!(sequences(&peek_all(&store, "q")), (0..5).map(Some).collect::<Vec<_>>());

    let mut tx = store.begin().unwrap();
    tx.poll("q", 1).unwrap();
    tx.commit().unwrap();
    store.close().unwrap();
    let store = open(dir.path());
    let mut tx = store.begin().unwrap();
    tx.enqueue("q", &9u32.to_be_bytes()).unwrap();
    let polled = tx.poll("q", 10).unwrap();
    assert_eq!(numbers(&polled), vec![1, 2, 3, 4, 9]);
    assert_eq!(
        sequences(&polled),
        vec![Some(1), Some(2), Some(3), Some(4), None],
        "its own enqueue has no position yet"
    );
    tx.rollback().unwrap();
    fill(&store, "q", [10]);
    assert_eq!(
        sequences(&peek_all(&store, "q")).last(),
        Some(&Some(5)),
        "numbering goes on after the last committed entry"
    );
}

#[test]
fn queue_names_with_a_prefix_are_listed_sorted_and_a_prefix_longer_than_a_name_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let store = open(dir.path());
    for q in ["job.staging/b", "job.staging/a", "job", "other", "job.stagin"] {
        fill(&store, q, [1]);
    }
    assert_eq!(
        store.queue_names_with_prefix("job.staging/").unwrap(),
        vec!["job.staging/a", "job.staging/b"]
    );
    assert_eq!(store.queue_names_with_prefix("").unwrap(), store.queue_names().unwrap());
    assert!(store.queue_names_with_prefix("nothing").unwrap().is_empty());
    let e = store.queue_names_with_prefix(&"x".repeat(1025)).unwrap_err();
    assert!(matches!(&e, Error::InvalidArgument(m) if m.contains("prefix")), "{e}");
}

#[test]
fn a_dropped_queue_loses_its_entries_its_objects_and_its_name_for_good() {
    let dir = tempfile::tempdir().unwrap();
    let store = open(dir.path());
    let owned = fill(&store, "q", 0..10);
    let kept = Uuid::now_v7();
    let mut tx = store.begin().unwrap();
    tx.put(kept, b"lives on").unwrap();
    tx.enqueue_id("q", kept).unwrap();
    tx.commit().unwrap();
    fill(&store, "other", [7]);

    let mut tx = store.begin().unwrap();
    tx.enqueue("q", b"own").unwrap();
    assert_eq!(
        tx.drop_queue("q").unwrap(),
        12,
        "ten owned entries, one reference, one own enqueue"
    );
    tx.commit().unwrap();

    assert_eq!(store.queue_names().unwrap(), vec!["other"]);
    assert_eq!(store.queue_size("q").unwrap(), 0);
    let reader = store.begin().unwrap();
    assert!(
        owned.iter().all(|id| reader.get(*id).unwrap().is_none()),
        "queue-owned objects go with their entries"
    );
    assert_eq!(
        reader.get(kept).unwrap().as_deref(),
        Some(&b"lives on"[..]),
        "an object put on its own stays"
    );
    drop(reader);

    store.close().unwrap();
    let store = open(dir.path());
    assert_eq!(store.queue_names().unwrap(), vec!["other"]);
    fill(&store, "q", [42]);
    let again = peek_all(&store, "q");
    assert_eq!(
        (numbers(&again), sequences(&again)),
        (vec![42], vec![Some(0)]),
        "created anew, numbering from 0"
    );
    store.close().unwrap();
    let store = open(dir.path());
    assert_eq!(numbers(&peek_all(&store, "q")), vec![42]);
    assert_eq!(numbers(&peek_all(&store, "other")), vec![7]);
}

#[test]
fn a_rolled_back_drop_leaves_the_queue_as_it_was() {
    let dir = tempfile::tempdir().unwrap();
    let store = open(dir.path());
    fill(&store, "q", 0..5);
    let mut tx = store.begin().unwrap();
    tx.drop_queue("q").unwrap();
    let mut other = store.begin().unwrap();
    assert!(
        other.poll("q", 10).unwrap().is_empty(),
        "claimed while the drop is open"
    );
    assert_eq!(
        numbers(&other.peek("q", 10).unwrap()),
        (0..5).collect::<Vec<_>>(),
        "and still committed: a peek reads the snapshot"
    );
    other.rollback().unwrap();
    tx.rollback().unwrap();
    assert_eq!(numbers(&peek_all(&store, "q")), (0..5).collect::<Vec<_>>());
    assert_eq!(store.queue_names().unwrap(), vec!["q"]);
}

#[test]
fn entries_another_transaction_holds_survive_a_drop_which_then_keeps_the_name() {
    let dir = tempfile::tempdir().unwrap();
    let store = open(dir.path());
    fill(&store, "q", 0..6);
    let mut holder = store.begin().unwrap();
    assert_eq!(numbers(&holder.poll("q", 2).unwrap()), vec![0, 1]);
    let mut tx = store.begin().unwrap();
    assert_eq!(tx.drop_queue("q").unwrap(), 4);
    tx.commit().unwrap();
    assert_eq!(store.queue_names().unwrap(), vec!["q"]);
    assert_eq!(store.queue_size("q").unwrap(), 2);
    holder.rollback().unwrap();
    assert_eq!(numbers(&peek_all(&store, "q")), vec![0, 1]);
}

#[test]
fn entries_committed_while_a_drop_is_open_stay_and_keep_the_name() {
    let dir = tempfile::tempdir().unwrap();
    let store = open(dir.path());
    fill(&store, "q", 0..3);
    let mut dropper = store.begin().unwrap();
    dropper.drop_queue("q").unwrap();
    fill(&store, "q", [100, 101]);
    dropper.commit().unwrap();
    assert_eq!(numbers(&peek_all(&store, "q")), vec![100, 101]);
    store.close().unwrap();
    let store = open(dir.path());
    assert_eq!(numbers(&peek_all(&store, "q")), vec![100, 101]);
}

#[test]
fn a_commit_prepared_after_a_drop_creates_the_queue_anew() {
    let dir = tempfile::tempdir().unwrap();
    let store = open(dir.path());
    fill(&store, "q", 0..3);
    let mut dropper = store.begin().unwrap();
    dropper.drop_queue("q").unwrap();
    let mut writer = store.begin().unwrap();
    writer.enqueue("q", &50u32.to_be_bytes()).unwrap();
    dropper.commit().unwrap();
    writer.commit().unwrap();
    let after = peek_all(&store, "q");
    assert_eq!((numbers(&after), sequences(&after)), (vec![50], vec![Some(0)]));
    store.close().unwrap();
    let store = open(dir.path());
    assert_eq!(numbers(&peek_all(&store, "q")), vec![50]);
}

#[test]
fn an_object_in_two_queues_survives_the_drop_of_one() {
    let dir = tempfile::tempdir().unwrap();
    let store = open(dir.path());
    let ids = fill(&store, "a", [1, 2]);
    let mut tx = store.begin().unwrap();
    tx.enqueue_id("b", ids[0]).unwrap();
    tx.commit().unwrap();
    let mut tx = store.begin().unwrap();
    tx.drop_queue("a").unwrap();
    tx.commit().unwrap();
    let reader = store.begin().unwrap();
    assert_eq!(reader.get(ids[0]).unwrap(), Some(1u32.to_be_bytes().to_vec()));
    assert_eq!(reader.get(ids[1]).unwrap(), None);
    drop(reader);
    let mut tx = store.begin().unwrap();
    assert_eq!(numbers(&tx.poll("b", 10).unwrap()), vec![1]);
    tx.commit().unwrap();
    assert_eq!(
        store.begin().unwrap().get(ids[0]).unwrap(),
        None,
        "its last owning entry consumed"
    );
}

#[test]
fn moving_a_queue_appends_its_entries_in_order_and_the_objects_follow_without_a_copy() {
    let dir = tempfile::tempdir().unwrap();
    let store = open(dir.path());
    fill(&store, "target", [1, 2]);
    let staged = fill(&store, "staging", 10..15);
    let mut tx = store.begin().unwrap();
    tx.enqueue("staging", &15u32.to_be_bytes()).unwrap();
    assert_eq!(tx.move_queue("staging", "target").unwrap(), 6);
    assert!(tx.peek("staging", 10).unwrap().is_empty());
    tx.commit().unwrap();

    assert_eq!(store.queue_names().unwrap(), vec!["target"]);
    let moved = peek_all(&store, "target");
    assert_eq!(numbers(&moved), vec![1, 2, 10, 11, 12, 13, 14, 15]);
    assert_eq!(
        moved[2..7].iter().map(|m| m.id).collect::<Vec<_>>(),
        staged,
        "the same objects"
    );
    assert_eq!(sequences(&moved), (0..8).map(Some).collect::<Vec<_>>());

    let mut tx = store.begin().unwrap();
    tx.poll("target", 10).unwrap();
    tx.commit().unwrap();
    let reader = store.begin().unwrap();
    assert!(
        staged.iter().all(|id| reader.get(*id).unwrap().is_none()),
        "owned by their entries in the target, consumed there"
    );
}

#[test]
fn a_rolled_back_move_changes_nothing_and_a_move_into_itself_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let store = open(dir.path());
    fill(&store, "s", 0..3);
    let mut tx = store.begin().unwrap();
    tx.move_queue("s", "t").unwrap();
    tx.rollback().unwrap();
    assert_eq!(numbers(&peek_all(&store, "s")), vec![0, 1, 2]);
    assert!(peek_all(&store, "t").is_empty());
    assert_eq!(store.queue_names().unwrap(), vec!["s"]);

    let mut tx = store.begin().unwrap();
    let e = tx.move_queue("s", "s").unwrap_err();
    assert!(
        matches!(&e, Error::InvalidArgument(m) if m.contains("into itself")),
        "{e}"
    );
    assert!(matches!(tx.move_queue("s", ""), Err(Error::InvalidArgument(_))));
    assert!(matches!(
        tx.drop_queue(&"x".repeat(1025)),
        Err(Error::InvalidArgument(_))
    ));
    assert_eq!(tx.drop_queue("never-used").unwrap(), 0);
    tx.commit().unwrap();
    assert_eq!(numbers(&peek_all(&store, "s")), vec![0, 1, 2]);
}

#[test]
fn dropping_and_moving_need_a_writable_open_transaction() {
    let dir = tempfile::tempdir().unwrap();
    let store = open(dir.path());
    fill(&store, "q", [1]);
    let mut tx = store.begin().unwrap();
    tx.commit().unwrap();
    assert!(matches!(tx.drop_queue("q"), Err(Error::TransactionFinished(_))));
    assert!(matches!(tx.move_queue("q", "r"), Err(Error::TransactionFinished(_))));
    store.close().unwrap();
    let ro = Store::open(
        dir.path(),
        StoreOptions {
            read_only: true,
            ..StoreOptions::default()
        },
    )
    .unwrap();
    let mut tx = ro.begin().unwrap();
    assert!(matches!(tx.drop_queue("q"), Err(Error::ReadOnly(_))));
}

/// Three entries in `queue`, the first polled and handed back with a delay of `delay`.
fn three_with_the_first_delayed(store: &Store, queue: &str, delay: Duration) {
    fill(store, queue, 0..3);
    let mut tx = store.begin().unwrap();
    assert_eq!(numbers(&tx.poll(queue, 1).unwrap()), vec![0]);
    tx.rollback_because("later", Some(delay)).unwrap();
    assert_eq!(numbers(&peek_all(store, queue)), vec![1, 2], "the first one waits");
    let figures = store
        .metrics()
        .unwrap()
        .queues
        .into_iter()
        .find(|f| f.name == queue)
        .unwrap();
    assert_eq!(
        (figures.depth, figures.available, figures.claimed),
        (3, 2, 0),
        "a delayed entry counts in the depth, not as available"
    );
    assert_eq!(store.queue_size(queue).unwrap(), 3);
}

#[test]
fn a_drop_takes_entries_handed_back_with_a_delay_and_the_queue_never_delivers_again() {
    let dir = tempfile::tempdir().unwrap();
    let store = open(dir.path());
    three_with_the_first_delayed(&store, "q", Duration::from_millis(500));
    let mut tx = store.begin().unwrap();
    assert_eq!(tx.drop_queue("q").unwrap(), 3, "the delayed entry too");
    tx.commit().unwrap();
    assert_eq!(store.queue_size("q").unwrap(), 0);
    assert!(store.queue_names().unwrap().is_empty(), "no longer listed");
    let mut tx = store.begin().unwrap();
    assert!(
        tx.take("q", Duration::from_millis(900)).unwrap().is_none(),
        "nothing is delivered once the delay has passed"
    );
    tx.rollback().unwrap();
    assert!(store.queue_names().unwrap().is_empty());
}

#[test]
fn a_rolled_back_drop_hands_a_delayed_entry_back_with_its_delay() {
    let dir = tempfile::tempdir().unwrap();
    let store = open(dir.path());
    let started = Instant::now();
    three_with_the_first_delayed(&store, "q", Duration::from_millis(400));
    let mut tx = store.begin().unwrap();
    assert_eq!(tx.drop_queue("q").unwrap(), 3);
    tx.rollback().unwrap();
    assert_eq!(store.queue_size("q").unwrap(), 3);
    let mut tx = store.begin().unwrap();
    assert_eq!(numbers(&tx.poll("q", 10).unwrap()), vec![1, 2], "still delayed");
    let due = tx.take("q", Duration::from_secs(10)).unwrap().unwrap();
    assert!(started.elapsed() >= Duration::from_millis(400), "not before its time");
    assert_eq!((numbers(std::slice::from_ref(&due)), due.deliveries), (vec![0], 2));
    tx.commit().unwrap();
}

#[test]
fn a_move_takes_entries_handed_back_with_a_delay_and_they_are_due_at_once_in_the_target() {
    let dir = tempfile::tempdir().unwrap();
    let store = open(dir.path());
    three_with_the_first_delayed(&store, "s", Duration::from_secs(3600));
    let mut tx = store.begin().unwrap();
    assert_eq!(tx.move_queue("s", "t").unwrap(), 3, "the delayed entry too");
    tx.commit().unwrap();
    assert_eq!(store.queue_size("s").unwrap(), 0);
    assert_eq!(store.queue_names().unwrap(), vec!["t"]);
    let mut tx = store.begin().unwrap();
    let moved = tx.poll("t", 10).unwrap();
    assert_eq!(
        (numbers(&moved), moved.iter().map(|m| m.deliveries).collect::<Vec<_>>()),
        (vec![0, 1, 2], vec![1, 1, 1]),
        "a new entry in its turn, with no delay and a count from 1"
    );
    tx.commit().unwrap();
}

#[test]
fn a_drop_takes_delayed_entries_of_a_queue_with_a_delivery_limit() {
    let dir = tempfile::tempdir().unwrap();
    let store = open(dir.path());
    store
        .configure_queue(
            "q",
            QueueConfig {
                max_deliveries: Some(5),
                ..QueueConfig::default()
            },
        )
        .unwrap();
    three_with_the_first_delayed(&store, "q", Duration::from_secs(3600));
    let mut tx = store.begin().unwrap();
    assert_eq!(tx.drop_queue("q").unwrap(), 3);
    tx.commit().unwrap();
    assert!(store.queue_names().unwrap().is_empty());
    store.close().unwrap();
    let store = open(dir.path());
    assert!(store.queue_names().unwrap().is_empty(), "nor after a reopen");
    assert!(peek_all(&store, "q").is_empty());
}
