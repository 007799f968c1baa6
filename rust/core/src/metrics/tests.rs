use std::collections::HashMap;
use std::sync::atomic::Ordering;
use std::time::Duration;

use crate::queue::QueueState;
use crate::{QueueFigures, Store, StoreOptions};

use super::{Clock, QueueMetrics};

fn open(dir: &std::path::Path, metrics: bool) -> Store {
    Store::open(dir, StoreOptions { sync_on_commit: false, metrics, ..StoreOptions::default() }).unwrap()
}

fn queue(store: &Store, name: &str) -> QueueFigures {
    store.queue_metrics(name).unwrap().unwrap_or_else(|| panic!("no queue {name}"))
}

fn enqueue(store: &Store, name: &str, n: usize) {
    let mut tx = store.begin().unwrap();
    for i in 0..n {
        tx.enqueue(name, format!("{i}").as_bytes()).unwrap();
    }
    tx.commit().unwrap();
}

#[test]
fn queue_counts_follow_a_known_sequence_of_enqueues_polls_rollbacks_and_commits() {
    let dir = tempfile::tempdir().unwrap();
    let store = open(dir.path(), true);
    enqueue(&store, "a", 10);
    let a = queue(&store, "a");
    assert_eq!((a.depth, a.available, a.claimed, a.counts.enqueued, a.counts.polled), (10, 10, 0, 10, 0));

    let mut rolled_back = store.begin().unwrap();
    assert_eq!(rolled_back.poll("a", 3).unwrap().len(), 3);
    let a = queue(&store, "a");
    assert_eq!((a.depth, a.available, a.claimed, a.counts.polled, a.counts.returned), (10, 7, 3, 3, 0));
    rolled_back.rollback().unwrap();
    let a = queue(&store, "a");
    assert_eq!((a.available, a.claimed, a.counts.returned, a.counts.consumed), (10, 0, 3, 0));

    let mut tx = store.begin().unwrap();
    assert_eq!(tx.poll("a", 4).unwrap().len(), 4);
    tx.enqueue("b", b"moved").unwrap();
    tx.commit().unwrap();
    let a = queue(&store, "a");
    assert_eq!((a.depth, a.available, a.counts.polled, a.counts.consumed, a.counts.returned, a.counts.enqueued), (6, 6, 7, 4, 3, 10));
    let b = queue(&store, "b");
    assert_eq!((b.depth, b.counts.enqueued, b.counts.polled), (1, 1, 0));

    let m = store.metrics().unwrap();
    assert!(m.counting);
    assert_eq!(m.commits, 2, "a rollback is no commit");
    assert_eq!(m.commit_latency_nanos.count, 2);
    assert!(m.commit_latency_nanos.max > 0 && m.commit_latency_nanos.max >= m.commit_latency_nanos.p50);
    assert_eq!(m.group_commit_size.sum, 2, "every commit was written by some group");
    assert_eq!(m.synced_write_nanos.count, m.group_commit_size.count);
    assert!(m.commits_per_second > 0.0);
    assert_eq!(m.queues.iter().map(|q| q.name.as_str()).collect::<Vec<_>>(), ["a", "b"]);
    // The per-second rates move with the clock between the two reads (once the store is over a
    // second old); the counts do not.
    let counts = |q: &QueueFigures| (q.depth, q.available, q.claimed, q.counts.enqueued, q.counts.polled, q.counts.consumed, q.counts.returned);
    assert_eq!(counts(&m.queues[0]), counts(&a));
    assert_eq!(m.stats.queued_items, 7);
}

#[test]
fn dead_lettered_entries_are_counted_per_queue() {
    let dir = tempfile::tempdir().unwrap();
    let store = open(dir.path(), true);
    enqueue(&store, "in", 3);
    let id = *store.shared.queues().by_name.get("in").unwrap();
    store.shared.queues().metrics.count_dead_lettered(id, 2);
    store.shared.queues().metrics.count_dead_lettered(id, 1);
    assert_eq!(queue(&store, "in").counts.dead_lettered, 3);
    assert_eq!(store.metrics().unwrap().queues[0].counts.dead_lettered, 3);
}

#[test]
fn a_commit_whose_write_fails_counts_its_polls_as_returned_not_consumed() {
    let dir = tempfile::tempdir().unwrap();
    let store = open(dir.path(), true);
    enqueue(&store, "q", 5);
    let mut tx = store.begin().unwrap();
    tx.poll("q", 2).unwrap();
    store.shared.group_commit().fail_next_write.store(true, Ordering::SeqCst);
    assert!(tx.commit().is_err());
    let q = queue(&store, "q");
    assert_eq!((q.depth, q.available, q.counts.polled, q.counts.consumed, q.counts.returned), (5, 5, 2, 0, 2));
    assert_eq!(store.metrics().unwrap().commits, 1);
}

#[test]
fn with_metrics_off_nothing_is_counted_but_depths_are_read() {
    let dir = tempfile::tempdir().unwrap();
    let store = open(dir.path(), false);
    enqueue(&store, "q", 4);
    let mut tx = store.begin().unwrap();
    tx.poll("q", 1).unwrap();
    tx.commit().unwrap();
    let m = store.metrics().unwrap();
    assert!(!m.counting);
    assert_eq!((m.commits, m.commit_latency_nanos.count, m.synced_write_nanos.count), (0, 0, 0));
    let q = &m.queues[0];
    assert_eq!((q.depth, q.available), (3, 3));
    assert_eq!(q.counts, Default::default());
}

#[test]
fn the_queue_set_version_changes_when_a_queue_appears_or_is_forgotten_only() {
    let dir = tempfile::tempdir().unwrap();
    let store = open(dir.path(), true);
    let v0 = store.queue_set_version().unwrap();
    enqueue(&store, "q", 1);
    let v1 = store.queue_set_version().unwrap();
    assert_ne!(v0, v1);
    enqueue(&store, "q", 1);
    assert_eq!(store.queue_set_version().unwrap(), v1);
    let mut tx = store.begin().unwrap();
    tx.drop_queue("q").unwrap();
    tx.commit().unwrap();
    assert_ne!(store.queue_set_version().unwrap(), v1);
    assert_eq!(store.queue_metrics("q").unwrap(), None);
}

#[test]
fn entries_present_at_open_count_as_enqueued_at_open_and_their_age_is_a_lower_bound() {
    let dir = tempfile::tempdir().unwrap();
    let store = open(dir.path(), true);
    enqueue(&store, "q", 2);
    store.close().unwrap();
    let store = open(dir.path(), true);
    let q = queue(&store, "q");
    assert!(q.counts.oldest_age_is_lower_bound);
    assert_eq!(q.counts.enqueued, 0, "enqueued counts commits since open");
    assert!(q.counts.oldest_entry_age_millis.unwrap() <= store.metrics().unwrap().uptime_millis);
    enqueue(&store, "q", 1);
    let mut tx = store.begin().unwrap();
    tx.poll("q", 2).unwrap();
    tx.commit().unwrap();
    let q = queue(&store, "q");
    assert!(!q.counts.oldest_age_is_lower_bound && q.counts.oldest_entry_age_millis.is_some());
    let mut tx = store.begin().unwrap();
    tx.poll("q", 1).unwrap();
    tx.commit().unwrap();
    assert_eq!(queue(&store, "q").counts.oldest_entry_age_millis, None);
}

fn ms(n: u64) -> Duration {
    Duration::from_millis(n)
}

/// Publishes `n` entries of `q` at `at` ms, as a group write does.
fn publish(m: &mut QueueMetrics, q: &mut QueueState, n: u64, at: u64) {
    q.reserve(n, 0);
    q.publish(n, 0);
    m.published_at(q, n, ms(at));
}

fn consume(q: &mut QueueState, n: usize) {
    let mut seqs = Vec::new();
    q.claim(n, &mut seqs);
    seqs.iter().for_each(|&s| q.consumed(s));
}

#[test]
fn the_oldest_age_follows_the_head_and_entries_handed_back_keep_theirs() {
    let mut q = QueueState::new(0, 0, 0);
    let mut m = QueueMetrics::at_open(true, Clock::start(), &HashMap::new());
    publish(&mut m, &mut q, 5, 1_000); // 0..5
    publish(&mut m, &mut q, 5, 2_000); // 5..10
    assert_eq!(m.read_at(&q, ms(3_000)).oldest_entry_age_millis, Some(2_000));

    // Claimed and handed back: below the head, still the oldest.
    let mut claimed = Vec::new();
    q.claim(3, &mut claimed);
    claimed.iter().rev().for_each(|&s| q.give_back(s));
    publish(&mut m, &mut q, 1, 2_500); // 10..11, prunes nothing below entry 0
    assert_eq!(m.read_at(&q, ms(3_000)).oldest_entry_age_millis, Some(2_000));

    consume(&mut q, 5); // 0..5 gone
    let c = m.read_at(&q, ms(3_000));
    assert_eq!((c.oldest_entry_age_millis, c.oldest_age_is_lower_bound), (Some(1_000), false));
    consume(&mut q, 5);
    assert_eq!(m.read_at(&q, ms(3_000)).oldest_entry_age_millis, Some(500));
    consume(&mut q, 1);
    assert_eq!(m.read_at(&q, ms(3_000)).oldest_entry_age_millis, None);
    assert_eq!(m.marks(0), 0, "marks of consumed entries are dropped");
}

#[test]
fn marks_of_one_millisecond_are_merged_so_memory_follows_time_not_commits() {
    let mut q = QueueState::new(0, 0, 0);
    let mut m = QueueMetrics::at_open(true, Clock::start(), &HashMap::new());
    for _ in 0..1_000 {
        publish(&mut m, &mut q, 1, 7);
    }
    publish(&mut m, &mut q, 1, 8);
    assert_eq!(m.marks(0), 2);
    consume(&mut q, 1_000);
    assert_eq!(m.read_at(&q, ms(10)).oldest_entry_age_millis, Some(2));
}

#[test]
fn entries_there_at_open_have_the_time_since_open_as_their_age() {
    let mut states = HashMap::new();
    states.insert(0, QueueState::new(0, 0, 4));
    let mut m = QueueMetrics::at_open(true, Clock::start(), &states);
    let mut q = states.remove(&0).unwrap();
    let c = m.read_at(&q, ms(500));
    assert_eq!((c.oldest_entry_age_millis, c.oldest_age_is_lower_bound, c.enqueued), (Some(500), true, 0));
    publish(&mut m, &mut q, 2, 600);
    consume(&mut q, 4);
    let c = m.read_at(&q, ms(700));
    assert_eq!((c.oldest_entry_age_millis, c.oldest_age_is_lower_bound, c.enqueued), (Some(100), false, 2));
}
