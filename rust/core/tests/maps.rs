//! Named maps in transactions: every operation, isolation, counters, scans, limits.

mod common;

use std::sync::Arc;

use rockcask_core::maps::{Direction, KeyRange};
use rockcask_core::{Error, Store, StoreOptions};

use common::open;

fn counter(v: Option<Vec<u8>>) -> i64 {
    i64::from_le_bytes(v.unwrap().try_into().unwrap())
}

fn pairs(p: &[(Vec<u8>, Vec<u8>)]) -> Vec<(String, String)> {
    p.iter()
        .map(|(k, v)| {
            (
                String::from_utf8_lossy(k).into_owned(),
                String::from_utf8_lossy(v).into_owned(),
            )
        })
        .collect()
}

#[test]
fn writes_are_seen_by_their_own_transaction_and_by_others_once_committed_with_the_queue_work() {
    let dir = tempfile::tempdir().unwrap();
    let store = open(dir.path());
    let mut tx = store.begin().unwrap();
    tx.map_put("users", b"ann", b"1").unwrap();
    tx.enqueue("events", b"ann joined").unwrap();
    assert_eq!(tx.map_get("users", b"ann").unwrap().as_deref(), Some(&b"1"[..]));
    let mut other = store.begin().unwrap();
    assert_eq!(other.map_get("users", b"ann").unwrap(), None, "not before commit");
    tx.commit().unwrap();
    assert_eq!(
        other.map_get("users", b"ann").unwrap(),
        None,
        "its snapshot, taken before"
    );
    let mut later = store.begin().unwrap();
    assert_eq!(later.map_get("users", b"ann").unwrap().as_deref(), Some(&b"1"[..]));
    assert_eq!(store.map_names().unwrap(), vec!["users"]);
    assert_eq!(store.stats().unwrap().maps, 1);

    // A rollback discards map writes and queue work alike.
    let mut tx = store.begin().unwrap();
    tx.map_put("users", b"bob", b"2").unwrap();
    assert!(tx.map_delete("users", b"ann").unwrap());
    assert!(!tx.map_contains("users", b"ann").unwrap());
    tx.poll("events", 1).unwrap();
    tx.rollback().unwrap();
    let mut tx = store.begin().unwrap();
    assert!(tx.map_contains("users", b"ann").unwrap());
    assert!(!tx.map_contains("users", b"bob").unwrap());
    assert_eq!(store.queue_size("events").unwrap(), 1);
    assert!(tx.map_delete("users", b"ann").unwrap());
    assert!(!tx.map_delete("users", b"nobody").unwrap());
    tx.commit().unwrap();

    store.close().unwrap();
    let store = open(dir.path());
    let mut tx = store.begin().unwrap();
    assert_eq!(tx.map_get("users", b"ann").unwrap(), None);
    assert_eq!(store.map_names().unwrap(), vec!["users"], "names survive a reopen");
}

#[test]
fn concurrent_adds_from_eight_threads_lose_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let store = Arc::new(open(dir.path()));
    let threads: Vec<_> = (0..8)
        .map(|t| {
            let store = store.clone();
            std::thread::spawn(move || {
                for i in 0..250 {
                    let mut tx = store.begin().unwrap();
                    tx.map_add("counts", b"hits", 1).unwrap();
                    tx.map_add("counts", format!("t{t}").as_bytes(), i).unwrap();
                    tx.commit().unwrap();
                }
            })
        })
        .collect();
    for t in threads {
        t.join().unwrap();
    }
    let mut tx = store.begin().unwrap();
    assert_eq!(counter(tx.map_get("counts", b"hits").unwrap()), 2000);
    assert_eq!(counter(tx.map_get("counts", b"t3").unwrap()), (0..250).sum::<i64>());
}

#[test]
fn read_modify_write_conflicts_are_refused_so_retrying_threads_lose_no_increment() {
    let dir = tempfile::tempdir().unwrap();
    let store = Arc::new(open(dir.path()));
    let mut a = store.begin().unwrap();
    let mut b = store.begin().unwrap();
    assert_eq!(a.map_get("m", b"k").unwrap(), None);
    assert_eq!(b.map_get("m", b"k").unwrap(), None);
    a.map_put("m", b"k", b"a").unwrap();
    b.map_put("m", b"k", b"b").unwrap();
    a.commit().unwrap();
    let e = b.commit().unwrap_err();
    assert!(matches!(&e, Error::Conflict { map, .. } if map == "m"), "{e}");
    assert!(e.to_string().contains("key 'k'"), "{e}");
    assert!(!b.is_open());
    // Blind writes do not conflict.
    let mut c = store.begin().unwrap();
    let mut d = store.begin().unwrap();
    c.map_put("m", b"k", b"c").unwrap();
    d.map_put("m", b"k", b"d").unwrap();
    c.commit().unwrap();
    d.commit().unwrap();

    let threads: Vec<_> = (0..8)
        .map(|_| {
            let store = store.clone();
            std::thread::spawn(move || {
                let mut conflicts = 0;
                for _ in 0..100 {
                    loop {
                        let mut tx = store.begin().unwrap();
                        let n = tx
                            .map_get("rmw", b"n")
                            .unwrap()
                            .map_or(0, |v| i64::from_le_bytes(v.try_into().unwrap()));
                        tx.map_put("rmw", b"n", &(n + 1).to_le_bytes()).unwrap();
                        match tx.commit() {
                            Ok(()) => break,
                            Err(Error::Conflict { .. }) => conflicts += 1,
                            Err(e) => panic!("{e}"),
                        }
                    }
                }
                conflicts
            })
        })
        .collect();
    let conflicts: u32 = threads.into_iter().map(|t| t.join().unwrap()).sum();
    let mut tx = store.begin().unwrap();
    assert_eq!(
        counter(tx.map_get("rmw", b"n").unwrap()),
        800,
        "after {conflicts} conflicts retried"
    );
}

#[test]
fn an_add_over_a_value_that_is_not_a_counter_refuses_the_commit_and_writes_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let store = open(dir.path());
    let mut tx = store.begin().unwrap();
    tx.map_put("m", b"text", b"abc").unwrap();
    tx.commit().unwrap();
    let mut tx = store.begin().unwrap();
    assert!(
        tx.map_add("m", b"text", 1).is_ok(),
        "checked at commit: the value may change before"
    );
    tx.map_put("other", b"k", b"v").unwrap();
    tx.enqueue("q", b"x").unwrap();
    let e = tx.commit().unwrap_err();
    assert!(e.to_string().contains("is not a counter"), "{e}");
    assert_eq!(store.queue_size("q").unwrap(), 0);
    assert_eq!(
        store.map_names().unwrap(),
        vec!["m"],
        "the map it would have created is not there"
    );
    // Within a transaction: put then add, delete then add.
    let mut tx = store.begin().unwrap();
    tx.map_put("m", b"c", &5i64.to_le_bytes()).unwrap();
    tx.map_add("m", b"c", 2).unwrap();
    tx.map_delete("m", b"text").unwrap();
    tx.map_add("m", b"text", 3).unwrap();
    assert!(tx.map_add("m", b"bad", 1).is_ok());
    tx.map_put("m", b"bad", b"x").unwrap();
    assert!(
        tx.map_add("m", b"bad", 1).is_err(),
        "over this transaction's own non-counter"
    );
    tx.commit().unwrap();
    let mut tx = store.begin().unwrap();
    assert_eq!(
        (
            counter(tx.map_get("m", b"c").unwrap()),
            counter(tx.map_get("m", b"text").unwrap())
        ),
        (7, 3)
    );
}

#[test]
fn scans_merge_own_writes_respect_bounds_direction_and_limit() {
    let dir = tempfile::tempdir().unwrap();
    let store = open(dir.path());
    let mut tx = store.begin().unwrap();
    for k in ["a", "b", "c", "d", "e"] {
        tx.map_put("m", k.as_bytes(), k.to_uppercase().as_bytes()).unwrap();
    }
    tx.map_put("other", b"a", b"not this map").unwrap();
    tx.commit().unwrap();
    let mut tx = store.begin().unwrap();
    tx.map_delete("m", b"b").unwrap();
    tx.map_put("m", b"bb", b"new").unwrap();
    tx.map_put("m", b"d", b"changed").unwrap();
    tx.map_put("m", b"z", b"last").unwrap();
    let all = tx.map_scan("m", &KeyRange::default(), Direction::Forward, 100).unwrap();
    let expect: Vec<(String, String)> = [
        ("a", "A"),
        ("bb", "new"),
        ("c", "C"),
        ("d", "changed"),
        ("e", "E"),
        ("z", "last"),
    ]
    .iter()
    .map(|(k, v)| (k.to_string(), v.to_string()))
    .collect();
    assert_eq!(pairs(&all), expect);
    let mut reversed = expect.clone();
    reversed.reverse();
    assert_eq!(
        pairs(&tx.map_scan("m", &KeyRange::default(), Direction::Reverse, 100).unwrap()),
        reversed
    );
    let range = KeyRange {
        from: Some(b"b".to_vec()),
        to: Some(b"e".to_vec()),
    };
    assert_eq!(
        pairs(&tx.map_scan("m", &range, Direction::Forward, 2).unwrap()),
        expect[1..3].to_vec()
    );
    assert_eq!(
        pairs(&tx.map_scan("m", &range, Direction::Reverse, 10).unwrap()),
        vec![expect[3].clone(), expect[2].clone(), expect[1].clone()]
    );
    assert_eq!(
        pairs(
            &tx.map_scan("m", &KeyRange::prefix(b"b"), Direction::Forward, 10)
                .unwrap()
        ),
        vec![expect[1].clone()]
    );
    assert!(tx
        .map_scan("nothing", &KeyRange::default(), Direction::Forward, 10)
        .unwrap()
        .is_empty());
    assert!(tx
        .map_scan("m", &KeyRange::default(), Direction::Forward, 0)
        .unwrap()
        .is_empty());
}

#[test]
fn batched_gets_answer_as_gets_do_and_limits_are_checked() {
    let dir = tempfile::tempdir().unwrap();
    let store = open(dir.path());
    let mut tx = store.begin().unwrap();
    tx.map_put("m", b"a", b"1").unwrap();
    tx.map_add("m", b"n", 4).unwrap();
    tx.commit().unwrap();
    let mut tx = store.begin().unwrap();
    tx.map_add("m", b"n", 1).unwrap();
    tx.map_put("m", b"own", b"2").unwrap();
    let got = tx
        .map_get_many(
            "m",
            &[b"a".to_vec(), b"missing".to_vec(), b"n".to_vec(), b"own".to_vec()],
        )
        .unwrap();
    assert_eq!(
        got,
        vec![
            Some(b"1".to_vec()),
            None,
            Some(5i64.to_le_bytes().to_vec()),
            Some(b"2".to_vec())
        ]
    );
    assert!(tx.map_get("m", b"").is_err());
    assert!(tx
        .map_put("m", &vec![0; rockcask_core::maps::MAX_MAP_KEY_BYTES + 1], b"v")
        .is_err());
    assert!(tx.map_put("", b"k", b"v").is_err());
    assert!(tx
        .map_scan("m", &KeyRange::default(), Direction::Forward, usize::MAX)
        .is_err());
    tx.rollback().unwrap();
    let read_only = Store::open(
        dir.path(),
        StoreOptions {
            read_only: true,
            ..StoreOptions::default()
        },
    )
    .unwrap();
    let mut tx = read_only.begin().unwrap();
    assert_eq!(tx.map_get("m", b"a").unwrap().as_deref(), Some(&b"1"[..]));
    assert!(tx.map_put("m", b"a", b"2").is_err());
}

/// Reads through the map cache (`read_cache.rs`) while another thread keeps overwriting the key:
/// no read returns a value older than the last commit that had returned before the read began,
/// and none goes backwards, outside transactions or in them.
#[test]
fn map_cache_never_serves_a_value_older_than_a_returned_commit() {
    use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
    let dir = tempfile::tempdir().unwrap();
    let store = Arc::new(open(dir.path()));
    let returned = Arc::new(AtomicU64::new(0));
    let done = Arc::new(AtomicBool::new(false));
    let value =
        |v: Option<Vec<u8>>| u64::from_le_bytes(v.expect("written before the readers start").try_into().unwrap());
    let mut tx = store.begin().unwrap();
    tx.map_put("m", b"k", &0u64.to_le_bytes()).unwrap();
    tx.commit().unwrap();
    let readers: Vec<_> = (0..2)
        .map(|reader| {
            let (store, returned, done) = (store.clone(), returned.clone(), done.clone());
            std::thread::spawn(move || {
                let (mut last, mut reads) = (0, 0u64);
                while !done.load(Ordering::SeqCst) {
                    let floor = returned.load(Ordering::SeqCst);
                    let v = if reader == 0 {
                        value(store.map_get("m", b"k").unwrap())
                    } else {
                        let mut tx = store.begin().unwrap();
                        let v = value(tx.map_get("m", b"k").unwrap());
                        tx.rollback().unwrap();
                        v
                    };
                    assert!(v >= floor, "read {v} after commit {floor} had returned");
                    assert!(v >= last, "read {v} after having read {last}");
                    last = v;
                    reads += 1;
                }
                reads
            })
        })
        .collect();
    for i in 1..=20_000u64 {
        let mut tx = store.begin().unwrap();
        tx.map_put("m", b"k", &i.to_le_bytes()).unwrap();
        // Other keys in the same commits, so that writes end in many shards.
        tx.map_put("m", format!("other{}", i % 50).as_bytes(), b"x").unwrap();
        tx.commit().unwrap();
        returned.store(i, Ordering::SeqCst);
    }
    done.store(true, Ordering::SeqCst);
    for r in readers {
        assert!(r.join().unwrap() > 100, "the readers ran beside the writer");
    }
    assert_eq!(value(store.map_get("m", b"k").unwrap()), 20_000);
    assert!(
        store.metrics().unwrap().map_cache_hits > 0,
        "the readers read through the cache"
    );
}

#[test]
fn reads_with_and_without_the_map_cache_agree_through_puts_deletes_adds_and_batched_gets() {
    let dir = tempfile::tempdir().unwrap();
    // "small" holds a few hundred of the 2,000 values: it evicts all along.
    for (name, cache) in [("none", 0), ("small", 64 << 10), ("ample", 64 << 20)] {
        let store = Store::open(
            dir.path().join(name),
            StoreOptions {
                sync_on_commit: false,
                map_cache_bytes: cache,
                ..StoreOptions::default()
            },
        )
        .unwrap();
        let keys: Vec<Vec<u8>> = (0..2_000u32).map(|i| i.to_be_bytes().to_vec()).collect();
        for round in 0..4u8 {
            let mut tx = store.begin().unwrap();
            for (i, k) in keys.iter().enumerate() {
                match (i + round as usize) % 4 {
                    0 => tx.map_put("m", k, &[round; 40]).unwrap(),
                    1 => {
                        tx.map_delete("m", k).unwrap();
                    }
                    2 => tx.map_add("c", k, i64::from(round) + 1).unwrap(),
                    _ => {}
                }
            }
            tx.commit().unwrap();
            // Three times: the third read comes from the cache where there is one.
            for _ in 0..3 {
                let mut tx = store.begin().unwrap();
                let many = tx.map_get_many("m", &keys).unwrap();
                for (i, k) in keys.iter().enumerate() {
                    let got = store.map_get("m", k).unwrap();
                    assert_eq!(got, many[i], "{name}: key {i} round {round}");
                    let expected = (0..=round).rev().find_map(|r| match (i + r as usize) % 4 {
                        0 => Some(Some(vec![r; 40])),
                        1 => Some(None),
                        _ => None,
                    });
                    assert_eq!(got, expected.flatten(), "{name}: key {i} round {round}");
                    let adds: i64 = (0..=round)
                        .filter(|r| (i + *r as usize) % 4 == 2)
                        .map(|r| i64::from(r) + 1)
                        .sum();
                    let c = tx.map_get("c", k).unwrap();
                    assert_eq!(
                        c.map(|v| counter(Some(v))).unwrap_or(0),
                        adds,
                        "{name}: counter {i} round {round}"
                    );
                }
                tx.rollback().unwrap();
            }
        }
        let m = store.metrics().unwrap();
        assert_eq!(m.map_cache_hits > 0, cache > 0, "{name}: {} hits", m.map_cache_hits);
        assert!(
            m.map_cache_bytes as usize <= cache,
            "{name}: {} bytes in a cache of {cache}",
            m.map_cache_bytes
        );
        store.close().unwrap();
    }
}
