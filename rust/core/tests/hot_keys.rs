//! Keys taken for update (`Transaction::map_get_for_update`): read-modify-writes of one hot key
//! wait their turn instead of conflicting, none starves and none is lost; a deadlock is refused
//! at once; a blind write still makes the holder's commit conflict.

use std::sync::{Arc, Barrier};
use std::time::{Duration, Instant};

use rockcask_core::{Error, Store, StoreOptions};

fn long(v: Option<Vec<u8>>) -> i64 {
    v.map_or(0, |v| i64::from_le_bytes(v.try_into().unwrap()))
}

/// 8 threads increment one key by read-modify-write for a while (10 s by default,
/// `ROCKCASK_HOT_KEY_SECONDS`), every commit synced: none fails, every thread commits at least
/// once in every second, and the end value is the number of commits.
#[test]
fn eight_threads_incrementing_one_key_for_update_none_starves_none_is_lost() {
    let seconds: u64 = std::env::var("ROCKCASK_HOT_KEY_SECONDS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(10);
    let dir = tempfile::tempdir().unwrap();
    let store = Arc::new(Store::open(dir.path(), StoreOptions::default()).unwrap());
    let start = Arc::new(Barrier::new(8));
    let threads: Vec<_> = (0..8)
        .map(|_| {
            let (store, start) = (store.clone(), start.clone());
            std::thread::spawn(move || {
                start.wait();
                let began = Instant::now();
                let (mut commits, mut longest_gap, mut last) = (0u64, Duration::ZERO, began);
                while began.elapsed() < Duration::from_secs(seconds) {
                    let mut tx = store.begin().unwrap();
                    let v = long(tx.map_get_for_update("counters", b"hot").unwrap());
                    tx.map_put("counters", b"hot", &(v + 1).to_le_bytes()).unwrap();
                    tx.commit().unwrap();
                    commits += 1;
                    longest_gap = longest_gap.max(last.elapsed());
                    last = Instant::now();
                }
                (commits, longest_gap.max(last.elapsed()))
            })
        })
        .collect();
    let results: Vec<(u64, Duration)> = threads.into_iter().map(|t| t.join().unwrap()).collect();
    for (i, (commits, gap)) in results.iter().enumerate() {
        assert!(
            *gap < Duration::from_secs(1),
            "thread {i} went {gap:?} without a commit ({commits} in all): {results:?}"
        );
    }
    let total: u64 = results.iter().map(|r| r.0).sum();
    let mut tx = store.begin().unwrap();
    assert_eq!(
        long(tx.map_get("counters", b"hot").unwrap()),
        total as i64,
        "{results:?}"
    );
}

/// The second holder reads the first one's committed value, though its snapshot is older,
/// and commits on it.
#[test]
fn a_key_taken_for_update_reads_the_last_holders_commit_not_the_snapshot() {
    let dir = tempfile::tempdir().unwrap();
    let store = Store::open(dir.path(), StoreOptions::default()).unwrap();
    let mut setup = store.begin().unwrap();
    setup.map_put("m", b"k", &1i64.to_le_bytes()).unwrap();
    setup.commit().unwrap();

    let mut late = store.begin().unwrap();
    assert_eq!(long(late.map_get("m", b"other").unwrap()), 0, "its snapshot: k = 1");
    let mut first = store.begin().unwrap();
    assert_eq!(long(first.map_get_for_update("m", b"k").unwrap()), 1);
    first.map_put("m", b"k", &2i64.to_le_bytes()).unwrap();
    first.commit().unwrap();
    assert_eq!(
        long(late.map_get_for_update("m", b"k").unwrap()),
        2,
        "for update: the latest"
    );
    late.map_put("m", b"k", &3i64.to_le_bytes()).unwrap();
    late.commit().unwrap();
    let mut check = store.begin().unwrap();
    assert_eq!(long(check.map_get("m", b"k").unwrap()), 3);
}

/// A plain `get` of the key before taking it saw the snapshot's value; once another commit
/// has changed the key, that read is stale and the commit fails as after any stale read.
#[test]
fn a_plain_read_of_the_key_before_taking_it_still_fails_the_commit_when_it_went_stale() {
    let dir = tempfile::tempdir().unwrap();
    let store = Store::open(dir.path(), StoreOptions::default()).unwrap();
    let mut setup = store.begin().unwrap();
    setup.map_put("m", b"k", &1i64.to_le_bytes()).unwrap();
    setup.commit().unwrap();

    let mut late = store.begin().unwrap();
    assert_eq!(long(late.map_get("m", b"k").unwrap()), 1);
    let mut first = store.begin().unwrap();
    first.map_get_for_update("m", b"k").unwrap();
    first.map_put("m", b"k", &2i64.to_le_bytes()).unwrap();
    first.commit().unwrap();
    assert_eq!(
        long(late.map_get("m", b"k").unwrap()),
        1,
        "a plain read sees the snapshot"
    );
    assert_eq!(long(late.map_get_for_update("m", b"k").unwrap()), 2);
    late.map_put("m", b"k", &3i64.to_le_bytes()).unwrap();
    assert!(matches!(late.commit(), Err(Error::Conflict { .. })));
    let mut check = store.begin().unwrap();
    assert_eq!(
        long(check.map_get("m", b"k").unwrap()),
        2,
        "nothing of the failed commit written"
    );
}

/// Two transactions each holding a key the other asks for: the second to ask is refused at
/// once with `KeyHeld` and ends, releasing its key, so the first one goes on.
#[test]
fn a_deadlock_is_refused_at_once_and_the_other_transaction_goes_on() {
    let dir = tempfile::tempdir().unwrap();
    let store = Arc::new(Store::open(dir.path(), StoreOptions::default()).unwrap());
    let mut a = store.begin().unwrap();
    a.map_get_for_update("m", b"x").unwrap();
    let b_holds_y = Arc::new(Barrier::new(2));
    let b = {
        let (store, b_holds_y) = (store.clone(), b_holds_y.clone());
        std::thread::spawn(move || {
            let mut b = store.begin().unwrap();
            b.map_get_for_update("m", b"y").unwrap();
            b_holds_y.wait();
            // Waits for a's x, until a asks for y.
            b.map_get_for_update("m", b"x").unwrap();
            b.map_put("m", b"x", b"b").unwrap();
            b.commit().unwrap();
        })
    };
    b_holds_y.wait();
    // Let b start waiting for x, then close the cycle.
    std::thread::sleep(Duration::from_millis(100));
    let started = Instant::now();
    let e = a.map_get_for_update("m", b"y").unwrap_err();
    assert!(started.elapsed() < Duration::from_secs(2), "refused at once");
    assert!(matches!(&e, Error::KeyHeld { map, .. } if map == "m"), "{e}");
    assert!(e.to_string().contains("deadlock"), "{e}");
    assert!(!a.is_open(), "a ended, releasing x");
    assert!(matches!(a.map_get("m", b"x"), Err(Error::TransactionFinished(_))));
    b.join().unwrap();
    let mut check = store.begin().unwrap();
    assert_eq!(check.map_get("m", b"x").unwrap().as_deref(), Some(&b"b"[..]));
}

/// A blind write of a held key is not held back, and the holder's commit then conflicts, as
/// after any read.
#[test]
fn a_blind_write_of_a_held_key_makes_the_holders_commit_conflict() {
    let dir = tempfile::tempdir().unwrap();
    let store = Store::open(dir.path(), StoreOptions::default()).unwrap();
    let mut holder = store.begin().unwrap();
    holder.map_get_for_update("m", b"k").unwrap();
    let mut blind = store.begin().unwrap();
    blind.map_put("m", b"k", b"blind").unwrap();
    blind.commit().unwrap();
    holder.map_put("m", b"k", b"holder").unwrap();
    assert!(matches!(holder.commit(), Err(Error::Conflict { .. })));
}

/// A key is released however its transaction ends: commit, rollback, a failed commit, drop.
#[test]
fn a_key_is_released_by_every_end_of_its_transaction() {
    let dir = tempfile::tempdir().unwrap();
    let store = Store::open(dir.path(), StoreOptions::default()).unwrap();
    let take_at_once = |store: &Store| {
        let mut tx = store.begin().unwrap();
        let started = Instant::now();
        tx.map_get_for_update("m", b"k").unwrap();
        assert!(started.elapsed() < Duration::from_secs(1), "the key was free");
        tx
    };
    let mut tx = take_at_once(&store);
    tx.map_put("m", b"k", b"1").unwrap();
    tx.commit().unwrap();
    let mut tx = take_at_once(&store);
    tx.rollback().unwrap();
    drop(take_at_once(&store));
    let mut read_only = take_at_once(&store);
    read_only.commit().unwrap();
    let mut failing = take_at_once(&store);
    let mut blind = store.begin().unwrap();
    blind.map_put("m", b"k", b"2").unwrap();
    // Not held back by `failing`'s hold.
    blind.commit().unwrap();
    failing.map_put("m", b"k", b"3").unwrap();
    assert!(failing.commit().is_err());
    take_at_once(&store).commit().unwrap();
}
