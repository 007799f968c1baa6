//! Poison messages: delivery counts, the delivery limit and dead letters, delayed retry.

use std::time::{Duration, Instant};

use rockcask_core::dead_letter::{Selection, PROCESS_ENDED};
use rockcask_core::options::MAX_RETRY_DELAY_MILLIS;
use rockcask_core::{Error, Message, QueueConfig, Store, StoreOptions};

fn open_with(dir: &std::path::Path, max_deliveries: u32) -> Store {
    Store::open(
        dir,
        StoreOptions {
            sync_on_commit: false,
            max_deliveries,
            ..StoreOptions::default()
        },
    )
    .unwrap()
}

fn open(dir: &std::path::Path) -> Store {
    open_with(dir, 0)
}

fn fill(store: &Store, queue: &str, items: impl IntoIterator<Item = u32>) {
    let mut tx = store.begin().unwrap();
    for i in items {
        tx.enqueue(queue, &i.to_be_bytes()).unwrap();
    }
    tx.commit().unwrap();
}

fn number(m: &Message) -> u32 {
    u32::from_be_bytes(m.payload.clone().unwrap().try_into().unwrap())
}

fn numbers(ms: &[Message]) -> Vec<u32> {
    ms.iter().map(number).collect()
}

fn limit(n: u32) -> QueueConfig {
    QueueConfig {
        max_deliveries: Some(n),
        ..QueueConfig::default()
    }
}

#[test]
fn deliveries_count_every_way_an_entry_comes_back_unconsumed() {
    let dir = tempfile::tempdir().unwrap();
    let store = open(dir.path());
    fill(&store, "q", 0..3);
    let mut tx = store.begin().unwrap();
    let first = tx.poll("q", 1).unwrap();
    assert_eq!((number(&first[0]), first[0].deliveries), (0, 1));
    tx.rollback().unwrap();
    let mut tx = store.begin().unwrap();
    assert_eq!(tx.poll("q", 1).unwrap()[0].deliveries, 2);
    drop(tx); // closed without commit
    assert_eq!(
        store
            .begin()
            .unwrap()
            .peek("q", 3)
            .unwrap()
            .iter()
            .map(|m| m.deliveries)
            .collect::<Vec<_>>(),
        vec![3, 1, 1]
    );
    let mut tx = store.begin().unwrap();
    assert_eq!(
        tx.poll("q", 2)
            .unwrap()
            .iter()
            .map(|m| m.deliveries)
            .collect::<Vec<_>>(),
        vec![3, 1]
    );
    tx.enqueue("q", b"own").unwrap();
    let own = tx.poll("q", 5).unwrap();
    assert_eq!(
        own.iter().map(|m| (m.sequence, m.deliveries)).collect::<Vec<_>>(),
        vec![(Some(2), 1), (None, 1)]
    );
    tx.commit().unwrap();
    // Consumed entries leave nothing behind: a new entry starts at 1.
    fill(&store, "q", 9..10);
    assert_eq!(store.begin().unwrap().poll("q", 1).unwrap()[0].deliveries, 1);
}

#[test]
fn an_entry_reaching_the_limit_is_dead_lettered_with_its_reason_while_the_rest_flows() {
    let dir = tempfile::tempdir().unwrap();
    let store = open(dir.path());
    store.configure_queue("in", limit(3)).unwrap();
    fill(&store, "in", 0..6);
    let mut processed = Vec::new();
    let mut attempts = 0;
    loop {
        let mut tx = store.begin().unwrap();
        let Some(m) = tx.poll("in", 1).unwrap().pop() else {
            break;
        };
        attempts += 1;
        if number(&m) == 2 {
            tx.rollback_because(&format!("cannot parse item 2 (delivery {})", m.deliveries), None)
                .unwrap();
            continue;
        }
        processed.push(number(&m));
        tx.enqueue("out", &m.payload.unwrap()).unwrap();
        tx.commit().unwrap();
    }
    assert_eq!(processed, vec![0, 1, 3, 4, 5]);
    assert_eq!(attempts, 8, "item 2 was delivered exactly 3 times");
    let dead = store.dead_letters("in", 10).unwrap();
    assert_eq!(dead.len(), 1);
    let d = &dead[0];
    assert_eq!(d.payload.as_deref(), Some(&2u32.to_be_bytes()[..]));
    assert_eq!(
        (
            d.record.origin_queue.as_str(),
            d.record.origin_sequence,
            d.record.deliveries
        ),
        ("in", 2, 3)
    );
    assert_eq!(d.record.reason, "cannot parse item 2 (delivery 3)");
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_millis() as u64;
    assert!(d.record.dead_at_millis <= now && d.record.dead_at_millis + 60_000 > now);
    assert_eq!(store.queue_size("in").unwrap(), 0);
    assert_eq!(store.queue_size("in.dead").unwrap(), 1);
    let figures = store.metrics().unwrap();
    let of = |name: &str| figures.queues.iter().find(|q| q.name == name).unwrap().counts;
    assert_eq!(of("in").dead_lettered, 1);
    assert_eq!(of("in.dead").enqueued, 1);
    // Its object moved with it (queue-owned, owned now by the dead letter).
    assert_eq!(
        store.begin().unwrap().get(d.id).unwrap().as_deref(),
        Some(&2u32.to_be_bytes()[..])
    );
    // Records and settings survive a reopen.
    store.close().unwrap();
    let store = open(dir.path());
    assert_eq!(store.dead_letters("in", 10).unwrap(), dead);
    assert_eq!(store.queue_config("in").unwrap(), limit(3));
}

#[test]
fn a_dead_letter_is_never_dead_lettered_again() {
    let dir = tempfile::tempdir().unwrap();
    let store = open_with(dir.path(), 1); // the store default applies to "in.dead" too
    fill(&store, "in", 0..1);
    let mut tx = store.begin().unwrap();
    tx.poll("in", 1).unwrap();
    tx.rollback_because("bad", None).unwrap();
    for _ in 0..3 {
        let mut tx = store.begin().unwrap();
        assert_eq!(tx.poll("in.dead", 1).unwrap().len(), 1);
        tx.rollback().unwrap();
    }
    assert_eq!(store.queue_size("in.dead").unwrap(), 1);
    assert!(store.queue_names().unwrap().iter().all(|q| q != "in.dead.dead"));
    assert_eq!(store.dead_letters("in", 10).unwrap()[0].record.reason, "bad");
}

#[test]
fn claims_that_end_with_the_process_count_and_dead_letter_at_open() {
    let dir = tempfile::tempdir().unwrap();
    let store = open(dir.path());
    store.configure_queue("in", limit(3)).unwrap();
    fill(&store, "in", 0..3);
    store.close().unwrap();
    // Each "run" takes item 0 and ends without commit or rollback, as a process killed
    // mid-delivery does.
    for run in 1..=3u32 {
        let store = open(dir.path());
        let mut tx = store.begin().unwrap();
        let m = tx.poll("in", 1).unwrap().pop().unwrap();
        assert_eq!((number(&m), m.deliveries), (0, run));
        std::mem::forget(tx);
        store.close().unwrap();
    }
    let store = open(dir.path());
    let dead = store.dead_letters("in", 10).unwrap();
    assert_eq!(dead.len(), 1, "dead-lettered as the store opened");
    assert_eq!(
        (dead[0].record.deliveries, dead[0].record.reason.as_str()),
        (3, PROCESS_ENDED)
    );
    let mut tx = store.begin().unwrap();
    assert_eq!(numbers(&tx.poll("in", 10).unwrap()), vec![1, 2]);
    tx.commit().unwrap();
    // A queue without a limit keeps no counts on disk: a crash costs nothing there.
    fill(&store, "free", 0..1);
    let mut tx = store.begin().unwrap();
    tx.poll("free", 1).unwrap();
    std::mem::forget(tx);
    store.close().unwrap();
    let store = open(dir.path());
    assert_eq!(store.begin().unwrap().poll("free", 1).unwrap()[0].deliveries, 1);
}

#[test]
fn dead_letters_are_requeued_to_their_origin_or_dropped_in_a_transaction() {
    let dir = tempfile::tempdir().unwrap();
    let store = open(dir.path());
    for q in ["a", "b"] {
        store
            .configure_queue(
                q,
                QueueConfig {
                    max_deliveries: Some(1),
                    dead_letter_queue: Some("poison".into()),
                    ..QueueConfig::default()
                },
            )
            .unwrap();
    }
    fill(&store, "a", 0..3);
    fill(&store, "b", 10..11);
    for q in ["a", "a", "b", "a"] {
        let mut tx = store.begin().unwrap();
        tx.poll(q, 1).unwrap();
        tx.rollback_because("x", None).unwrap();
    }
    let dead = store.dead_letters("a", 10).unwrap();
    assert_eq!(
        dead.iter()
            .map(|d| (d.record.origin_queue.as_str(), d.record.origin_sequence))
            .collect::<Vec<_>>(),
        vec![("a", 0), ("a", 1), ("b", 0), ("a", 2)]
    );
    assert_eq!(
        store.dead_letters("b", 10).unwrap(),
        dead,
        "one dead-letter queue for both"
    );
    assert_eq!(store.dead_letters("a", 2).unwrap().len(), 2);

    let mut tx = store.begin().unwrap();
    assert!(tx
        .requeue_dead_letters("a", Selection::Only(&[99]))
        .unwrap_err()
        .to_string()
        .contains("no such dead letter"));
    assert_eq!(
        tx.requeue_dead_letters("a", Selection::Only(&[dead[1].sequence, dead[2].sequence]))
            .unwrap(),
        2
    );
    assert_eq!(
        tx.drop_dead_letters("a", Selection::Only(&[dead[0].sequence])).unwrap(),
        1
    );
    // Held by this transaction now: another one cannot take them.
    let mut other = store.begin().unwrap();
    assert!(other
        .drop_dead_letters("a", Selection::Only(&[dead[1].sequence]))
        .unwrap_err()
        .to_string()
        .contains("another transaction"));
    assert_eq!(
        other.drop_dead_letters("a", Selection::All).unwrap(),
        1,
        "only the one nobody holds"
    );
    other.rollback().unwrap();
    tx.commit().unwrap();

    let mut tx = store.begin().unwrap();
    let a = tx.poll("a", 10).unwrap();
    assert_eq!((numbers(&a), a[0].deliveries), (vec![1], 1), "requeued as a new entry");
    assert_eq!(numbers(&tx.poll("b", 10).unwrap()), vec![10]);
    tx.commit().unwrap();
    assert_eq!(
        store
            .dead_letters("a", 10)
            .unwrap()
            .iter()
            .map(|d| d.record.origin_sequence)
            .collect::<Vec<_>>(),
        vec![2]
    );
    assert!(
        store.begin().unwrap().get(dead[0].id).unwrap().is_none(),
        "a dropped dead letter's object goes with it"
    );
    let mut tx = store.begin().unwrap();
    assert_eq!(tx.drop_dead_letters("a", Selection::All).unwrap(), 1);
    tx.commit().unwrap();
    assert!(store.dead_letters("a", 10).unwrap().is_empty());
    assert_eq!(store.queue_size("poison").unwrap(), 0);
}

#[test]
fn a_delayed_entry_is_skipped_until_due_and_then_comes_before_later_entries() {
    let dir = tempfile::tempdir().unwrap();
    let store = open(dir.path());
    fill(&store, "q", 0..6);
    let mut tx = store.begin().unwrap();
    assert_eq!(numbers(&tx.poll("q", 2).unwrap()), vec![0, 1]);
    tx.rollback_because("busy", Some(Duration::from_secs(3600))).unwrap();
    let mut tx = store.begin().unwrap();
    assert_eq!(numbers(&tx.peek("q", 10).unwrap()), vec![2, 3, 4, 5]);
    assert_eq!(numbers(&tx.poll("q", 1).unwrap()), vec![2]);
    tx.rollback().unwrap(); // not delayed: back before everything after it
    assert_eq!(
        store.queue_size("q").unwrap(),
        6,
        "delayed entries are still in the queue"
    );

    let mut tx = store.begin().unwrap();
    assert_eq!(numbers(&tx.poll("q", 2).unwrap()), vec![2, 3]);
    tx.rollback_because("soon", Some(Duration::from_millis(200))).unwrap();
    let mut tx = store.begin().unwrap();
    let started = Instant::now();
    assert_eq!(
        numbers(&tx.poll("q", 10).unwrap()),
        vec![4, 5],
        "the delayed ones are skipped"
    );
    let due = tx.take("q", Duration::from_secs(10)).unwrap().unwrap();
    assert!(
        started.elapsed() >= Duration::from_millis(200),
        "not delivered before its delay"
    );
    assert_eq!((number(&due), due.deliveries), (2, 3));
    assert_eq!(
        numbers(&tx.poll("q", 10).unwrap()),
        vec![3],
        "due entries keep their place"
    );
    tx.rollback().unwrap();
    assert_eq!(
        numbers(&store.begin().unwrap().peek("q", 10).unwrap()),
        vec![2, 3, 4, 5],
        "due ones first, in order"
    );
    assert!(store
        .begin()
        .unwrap()
        .rollback_because("x", Some(Duration::MAX))
        .is_err());
}

#[test]
fn the_store_default_limit_applies_unless_a_queue_says_otherwise() {
    let dir = tempfile::tempdir().unwrap();
    let store = open_with(dir.path(), 2);
    store.configure_queue("unlimited", limit(0)).unwrap();
    fill(&store, "limited", 0..1);
    fill(&store, "unlimited", 0..1);
    for _ in 0..5 {
        for q in ["limited", "unlimited"] {
            let mut tx = store.begin().unwrap();
            tx.poll(q, 1).unwrap();
            tx.rollback().unwrap();
        }
    }
    assert_eq!(
        store.dead_letters("limited", 10).unwrap()[0].record.reason,
        "rolled back"
    );
    assert_eq!(store.queue_size("unlimited").unwrap(), 1);
    assert_eq!(store.begin().unwrap().peek("unlimited", 1).unwrap()[0].deliveries, 6);
    // Settings back to defaults are forgotten.
    store.configure_queue("unlimited", QueueConfig::default()).unwrap();
    store.close().unwrap();
    let store = open(dir.path());
    assert_eq!(store.queue_config("unlimited").unwrap(), QueueConfig::default());
}

#[test]
fn bad_settings_and_reasons_are_refused_or_bounded() {
    let dir = tempfile::tempdir().unwrap();
    let store = open(dir.path());
    assert!(store.configure_queue("", limit(1)).is_err());
    assert!(store
        .configure_queue(
            "q",
            QueueConfig {
                dead_letter_queue: Some("q".into()),
                ..limit(1)
            }
        )
        .is_err());
    assert!(store
        .configure_queue(
            "q",
            QueueConfig {
                capacity: u64::MAX,
                ..QueueConfig::default()
            }
        )
        .is_err());
    assert!(store.dead_letters("q", 10).unwrap().is_empty());
    store.configure_queue("q", limit(1)).unwrap();
    fill(&store, "q", 0..1);
    let mut tx = store.begin().unwrap();
    tx.poll("q", 1).unwrap();
    tx.rollback_because(&"why ".repeat(10_000), None).unwrap();
    let reason = &store.dead_letters("q", 1).unwrap()[0].record.reason;
    assert_eq!(reason.len(), rockcask_core::dead_letter::MAX_REASON_BYTES);
    let read_only = Store::open(
        dir.path(),
        StoreOptions {
            read_only: true,
            ..StoreOptions::default()
        },
    );
    assert!(read_only.is_err() || read_only.unwrap().configure_queue("q", limit(2)).is_err());
}

#[test]
fn a_rollback_after_the_store_closed_ends_the_transaction_without_failing() {
    let dir = tempfile::tempdir().unwrap();
    let store = open(dir.path());
    store.configure_queue("q", limit(1)).unwrap();
    fill(&store, "q", 0..1);
    let mut tx = store.begin().unwrap();
    tx.poll("q", 1).unwrap();
    store.close().unwrap();
    tx.rollback_because("late", None).unwrap();
    assert!(!tx.is_open());
    // The count was recorded: the next open moves the entry.
    let store = open(dir.path());
    assert_eq!(store.dead_letters("q", 10).unwrap()[0].record.reason, PROCESS_ENDED);
}

#[test]
fn consumers_racing_to_roll_back_and_commit_leave_every_entry_consumed_or_dead_exactly_once() {
    use std::collections::BTreeSet;
    let dir = tempfile::tempdir().unwrap();
    let store = open(dir.path());
    store.configure_queue("in", limit(3)).unwrap();
    const ITEMS: u32 = 400;
    fill(&store, "in", 0..ITEMS);
    let workers: Vec<_> = (0..4u64)
        .map(|w| {
            let store = store.clone();
            std::thread::spawn(move || {
                // A fixed pseudo-random walk per thread: commit, roll back, or drop unclosed.
                let mut state = 0x9E37_79B9_7F4A_7C15u64 ^ w;
                loop {
                    state ^= state << 13;
                    state ^= state >> 7;
                    state ^= state << 17;
                    let mut tx = store.begin().unwrap();
                    let polled = tx.poll("in", 1 + (state % 5) as usize).unwrap();
                    if polled.is_empty() {
                        break;
                    }
                    match state % 4 {
                        0 => {
                            for m in &polled {
                                tx.enqueue("out", m.payload.as_deref().unwrap()).unwrap();
                            }
                            tx.commit().unwrap();
                        }
                        1 => drop(tx),
                        _ => tx.rollback_because(&format!("worker {w}"), None).unwrap(),
                    }
                }
            })
        })
        .collect();
    for w in workers {
        w.join().unwrap();
    }
    let mut tx = store.begin().unwrap();
    let out = numbers(&tx.poll("out", 10_000).unwrap());
    let dead = numbers(&tx.poll("in.dead", 10_000).unwrap());
    tx.rollback().unwrap();
    let out_set: BTreeSet<u32> = out.iter().copied().collect();
    let dead_set: BTreeSet<u32> = dead.iter().copied().collect();
    assert_eq!(out_set.len(), out.len(), "an entry was consumed twice");
    assert_eq!(dead_set.len(), dead.len(), "an entry was dead-lettered twice");
    assert!(
        out_set.is_disjoint(&dead_set),
        "an entry was consumed and dead-lettered"
    );
    assert_eq!(out_set.union(&dead_set).count() as u32, ITEMS, "an entry was lost");
    assert!(!dead.is_empty() && !out.is_empty(), "the walk exercised both ends");
    for d in store.dead_letters("in", 10_000).unwrap() {
        assert_eq!(d.record.deliveries, 3, "dead-lettered at exactly the limit: {d:?}");
    }
    assert_eq!(store.queue_size("in").unwrap(), 0);
}

#[test]
fn a_retry_delay_over_the_limit_is_refused_naming_it_and_the_transaction_stays_usable() {
    let dir = tempfile::tempdir().unwrap();
    let store = open(dir.path());
    fill(&store, "q", 0..2);
    let limit = Duration::from_millis(MAX_RETRY_DELAY_MILLIS);
    let mut tx = store.begin().unwrap();
    assert_eq!(numbers(&tx.poll("q", 1).unwrap()), vec![0]);
    for too_long in [
        limit + Duration::from_millis(1),
        limit + Duration::from_nanos(1),
        Duration::from_secs(i64::MAX as u64),
        Duration::MAX,
    ] {
        let e = tx.rollback_because("r", Some(too_long)).unwrap_err();
        assert!(
            matches!(&e, Error::InvalidArgument(m)
                if m.contains(&format!("{too_long:?}")) && m.contains(&MAX_RETRY_DELAY_MILLIS.to_string())),
            "{e}"
        );
        assert!(tx.is_open(), "refused before anything is handed back");
    }
    assert_eq!(numbers(&tx.poll("q", 1).unwrap()), vec![1], "still usable");
    tx.rollback_because("r", Some(limit)).unwrap();
    assert!(
        store.begin().unwrap().peek("q", 10).unwrap().is_empty(),
        "the limit itself is accepted"
    );
    assert_eq!(store.queue_size("q").unwrap(), 2);

    let mut tx = store.begin().unwrap();
    assert_eq!(tx.drop_queue("q").unwrap(), 2);
    tx.commit().unwrap();
    fill(&store, "q", [7]);
    let mut tx = store.begin().unwrap();
    tx.poll("q", 1).unwrap();
    tx.rollback_because("r", Some(Duration::ZERO)).unwrap();
    assert_eq!(
        numbers(&store.begin().unwrap().peek("q", 1).unwrap()),
        vec![7],
        "zero is no delay"
    );
}
