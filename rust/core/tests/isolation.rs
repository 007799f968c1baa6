//! What a transaction's map reads see and when its commit is refused: one snapshot, read-only
//! commits that write nothing, conflicts only on keys really written, and the anomalies
//! docs/MAPS.md's table names (each test below is one row of it).

mod common;

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use rockcask_core::maps::{Direction, KeyRange};
use rockcask_core::{Error, Store, StoreOptions};

use common::open;

fn long(v: Option<Vec<u8>>) -> i64 {
    v.map_or(0, |v| i64::from_le_bytes(v.try_into().unwrap()))
}

/// A commit that wrote nothing makes no write: 10,000 of them, reading maps, peeking a queue and
/// reading an object, leave the count of group writes where it was, in a store that syncs.
#[test]
fn read_only_commits_write_nothing_and_never_sync() {
    let dir = tempfile::tempdir().unwrap();
    let store = Store::open(dir.path(), StoreOptions::default()).unwrap();
    let mut tx = store.begin().unwrap();
    tx.map_put("m", b"k", b"v").unwrap();
    tx.enqueue("q", b"item").unwrap();
    let id = uuid::Uuid::now_v7();
    tx.put(id, b"object").unwrap();
    tx.commit().unwrap();
    let before = store.metrics().unwrap().synced_write_nanos.count;
    assert!(before >= 1);
    for _ in 0..10_000 {
        let mut tx = store.begin().unwrap();
        assert_eq!(tx.map_get("m", b"k").unwrap().as_deref(), Some(&b"v"[..]));
        assert_eq!(
            tx.map_scan("m", &KeyRange::default(), Direction::Forward, 10)
                .unwrap()
                .len(),
            1
        );
        assert_eq!(tx.peek("q", 1).unwrap().len(), 1);
        assert_eq!(tx.get(id).unwrap().as_deref(), Some(&b"object"[..]));
        tx.commit().unwrap();
        assert!(!tx.is_open());
    }
    assert_eq!(
        store.metrics().unwrap().synced_write_nanos.count,
        before,
        "no group write"
    );
    assert_eq!(store.queue_size("q").unwrap(), 1);
}

/// A read-only transaction whose keys are written by others meanwhile commits: it read one
/// snapshot, so there is nothing to refuse.
#[test]
fn a_read_only_transaction_never_conflicts() {
    let dir = tempfile::tempdir().unwrap();
    let store = open(dir.path());
    let mut tx = store.begin().unwrap();
    tx.map_put("m", b"k", b"1").unwrap();
    tx.commit().unwrap();
    let mut reader = store.begin().unwrap();
    assert_eq!(reader.map_get("m", b"k").unwrap().as_deref(), Some(&b"1"[..]));
    let mut writer = store.begin().unwrap();
    writer.map_put("m", b"k", b"2").unwrap();
    writer.commit().unwrap();
    assert_eq!(
        reader.map_get("m", b"k").unwrap().as_deref(),
        Some(&b"1"[..]),
        "its snapshot"
    );
    reader.commit().unwrap();
}

/// Anomaly "read skew": excluded. A transaction reads x, another moves 5 from x to y and
/// commits, the first reads y: it sees y as it was (total 100), by `get`, `getAll` and scan,
/// with the map cache answering the latest values to everyone else.
#[test]
fn read_skew_is_excluded_every_read_sees_the_snapshot_of_the_first() {
    let dir = tempfile::tempdir().unwrap();
    let store = open(dir.path());
    let mut tx = store.begin().unwrap();
    tx.map_put("bank", b"x", &50i64.to_le_bytes()).unwrap();
    tx.map_put("bank", b"y", &50i64.to_le_bytes()).unwrap();
    tx.commit().unwrap();
    // Cached: the latest values are in the map cache.
    for _ in 0..3 {
        store.map_get("bank", b"x").unwrap();
        store.map_get("bank", b"y").unwrap();
    }
    let mut reader = store.begin().unwrap();
    let x = long(reader.map_get("bank", b"x").unwrap());
    let mut mover = store.begin().unwrap();
    mover.map_put("bank", b"x", &45i64.to_le_bytes()).unwrap();
    mover.map_put("bank", b"y", &55i64.to_le_bytes()).unwrap();
    mover.commit().unwrap();
    for _ in 0..3 {
        assert_eq!(long(store.map_get("bank", b"y").unwrap()), 55, "latest, outside");
    }
    assert_eq!(x + long(reader.map_get("bank", b"y").unwrap()), 100, "get");
    let all = reader.map_get_many("bank", &[b"x".to_vec(), b"y".to_vec()]).unwrap();
    assert_eq!(all.into_iter().map(long).sum::<i64>(), 100, "getAll");
    let scanned = reader
        .map_scan("bank", &KeyRange::default(), Direction::Forward, 10)
        .unwrap();
    assert_eq!(
        scanned.into_iter().map(|(_, v)| long(Some(v))).sum::<i64>(),
        100,
        "scan"
    );
    reader.commit().unwrap();
    let mut after = store.begin().unwrap();
    assert_eq!(long(after.map_get("bank", b"y").unwrap()), 55);
}

/// Anomaly "lost update": excluded. Two read-modify-writes of one key: the second to commit is
/// refused (and a retry then sees the first's value).
#[test]
fn lost_update_is_excluded_the_second_read_modify_write_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let store = open(dir.path());
    let mut a = store.begin().unwrap();
    let mut b = store.begin().unwrap();
    let va = long(a.map_get("m", b"n").unwrap());
    let vb = long(b.map_get("m", b"n").unwrap());
    a.map_put("m", b"n", &(va + 1).to_le_bytes()).unwrap();
    b.map_put("m", b"n", &(vb + 1).to_le_bytes()).unwrap();
    a.commit().unwrap();
    assert!(matches!(b.commit(), Err(Error::Conflict { .. })));
    let mut c = store.begin().unwrap();
    assert_eq!(long(c.map_get("m", b"n").unwrap()), 1);
}

/// Anomaly "write skew": excluded for point reads. Two transactions each read both keys (a
/// constraint: x + y >= 1) and each clears a different one; the second to commit is refused,
/// because a key it read was written after its snapshot.
#[test]
fn write_skew_is_excluded_for_keys_read_by_get() {
    let dir = tempfile::tempdir().unwrap();
    let store = open(dir.path());
    let mut tx = store.begin().unwrap();
    tx.map_put("on-call", b"x", &1i64.to_le_bytes()).unwrap();
    tx.map_put("on-call", b"y", &1i64.to_le_bytes()).unwrap();
    tx.commit().unwrap();
    let mut a = store.begin().unwrap();
    let mut b = store.begin().unwrap();
    for t in [&mut a, &mut b] {
        let total = long(t.map_get("on-call", b"x").unwrap()) + long(t.map_get("on-call", b"y").unwrap());
        assert_eq!(total, 2);
    }
    a.map_put("on-call", b"x", &0i64.to_le_bytes()).unwrap();
    b.map_put("on-call", b"y", &0i64.to_le_bytes()).unwrap();
    a.commit().unwrap();
    assert!(matches!(b.commit(), Err(Error::Conflict { .. })));
}

/// Anomaly "phantom": NOT excluded. Scanned ranges are not checked at commit: a transaction that
/// counted a range by scan and wrote its count commits although another commit added a key to
/// the range after its snapshot. (Its scans themselves do not see the new key: they read the
/// snapshot.)
#[test]
fn phantoms_are_not_excluded_scanned_ranges_are_not_checked() {
    let dir = tempfile::tempdir().unwrap();
    let store = open(dir.path());
    let mut tx = store.begin().unwrap();
    tx.map_put("m", b"item/1", b"a").unwrap();
    tx.commit().unwrap();
    let mut counter = store.begin().unwrap();
    let n = counter
        .map_scan("m", &KeyRange::prefix(b"item/"), Direction::Forward, 100)
        .unwrap()
        .len();
    let mut inserter = store.begin().unwrap();
    inserter.map_put("m", b"item/2", b"b").unwrap();
    inserter.commit().unwrap();
    let again = counter
        .map_scan("m", &KeyRange::prefix(b"item/"), Direction::Forward, 100)
        .unwrap()
        .len();
    assert_eq!((n, again), (1, 1), "the snapshot, twice");
    counter.map_put("m", b"count", &(n as i64).to_le_bytes()).unwrap();
    counter.commit().unwrap();
    let mut check = store.begin().unwrap();
    let items = check
        .map_scan("m", &KeyRange::prefix(b"item/"), Direction::Forward, 100)
        .unwrap()
        .len();
    assert_eq!(
        (long(check.map_get("m", b"count").unwrap()), items),
        (1, 2),
        "the phantom"
    );
}

/// Exact keys: three threads, each writing keys no other thread writes (its own, read and
/// rewritten, plus ten random ones of its own), never conflict.
#[test]
fn disjoint_keys_never_conflict() {
    let dir = tempfile::tempdir().unwrap();
    let store = Arc::new(open(dir.path()));
    let threads: Vec<_> = (0..3u8)
        .map(|t| {
            let store = store.clone();
            std::thread::spawn(move || {
                let mut seed = 0x9E37_79B9_7F4A_7C15u64 ^ u64::from(t);
                let mut conflicts = 0;
                for i in 0..2_000u32 {
                    let mut tx = store.begin().unwrap();
                    let own = [t, b'/', 0];
                    let n = long(tx.map_get("m", &own).unwrap());
                    tx.map_put("m", &own, &(n + 1).to_le_bytes()).unwrap();
                    for _ in 0..10 {
                        seed ^= seed << 13;
                        seed ^= seed >> 7;
                        seed ^= seed << 17;
                        let key = [&[t, b'/', 1][..], &(seed % 100_000).to_be_bytes()].concat();
                        let old = tx.map_get("m", &key).unwrap();
                        tx.map_put("m", &key, &i.to_le_bytes()).unwrap();
                        drop(old);
                    }
                    match tx.commit() {
                        Ok(()) => {}
                        Err(Error::Conflict { .. }) => conflicts += 1,
                        Err(e) => panic!("{e}"),
                    }
                }
                conflicts
            })
        })
        .collect();
    let conflicts: u32 = threads.into_iter().map(|t| t.join().unwrap()).sum();
    assert_eq!(conflicts, 0);
    let mut tx = store.begin().unwrap();
    for t in 0..3u8 {
        assert_eq!(long(tx.map_get("m", &[t, b'/', 0]).unwrap()), 2_000);
    }
}

/// The bank: 8 threads move random amounts between 100 accounts (read-modify-write, retried on
/// conflict) while 4 readers read all of them by get, by getAll and by scan in one read-only
/// transaction: every read sees the same total, no reader is refused, and the end total is
/// exact. `ROCKCASK_BANK_SECONDS` makes it run longer (a soak).
#[test]
fn bank_transfers_keep_the_total_for_every_snapshot_reader() {
    const ACCOUNTS: u32 = 100;
    const TOTAL: i64 = 100 * 1_000;
    let seconds: u64 = std::env::var("ROCKCASK_BANK_SECONDS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(2);
    let dir = tempfile::tempdir().unwrap();
    let store = Arc::new(open(dir.path()));
    let key = |i: u32| format!("acct/{i:03}").into_bytes();
    let mut tx = store.begin().unwrap();
    for i in 0..ACCOUNTS {
        tx.map_put("bank", &key(i), &1_000i64.to_le_bytes()).unwrap();
    }
    tx.commit().unwrap();
    let stop = Arc::new(AtomicBool::new(false));
    let moved = Arc::new(AtomicU64::new(0));
    let movers: Vec<_> = (0..8u64)
        .map(|t| {
            let (store, stop, moved) = (store.clone(), stop.clone(), moved.clone());
            std::thread::spawn(move || {
                let mut seed = 0x2545_F491_4F6C_DD1Du64.wrapping_mul(t + 1);
                let mut next = || {
                    seed ^= seed << 13;
                    seed ^= seed >> 7;
                    seed ^= seed << 17;
                    seed
                };
                while !stop.load(Ordering::Relaxed) {
                    let (from, to) = ((next() % 100) as u32, (next() % 100) as u32);
                    if from == to {
                        continue;
                    }
                    let amount = (next() % 50) as i64;
                    let mut tx = store.begin().unwrap();
                    let a = long(tx.map_get("bank", &key(from)).unwrap());
                    let b = long(tx.map_get("bank", &key(to)).unwrap());
                    tx.map_put("bank", &key(from), &(a - amount).to_le_bytes()).unwrap();
                    tx.map_put("bank", &key(to), &(b + amount).to_le_bytes()).unwrap();
                    match tx.commit() {
                        Ok(()) => {
                            moved.fetch_add(1, Ordering::Relaxed);
                        }
                        Err(Error::Conflict { .. }) => {}
                        Err(e) => panic!("{e}"),
                    }
                }
            })
        })
        .collect();
    let readers: Vec<_> = (0..4)
        .map(|_| {
            let (store, stop) = (store.clone(), stop.clone());
            std::thread::spawn(move || {
                let keys: Vec<Vec<u8>> = (0..ACCOUNTS).map(key).collect();
                let mut reads = 0u64;
                while !stop.load(Ordering::Relaxed) {
                    let mut tx = store.begin().unwrap();
                    let by_get: i64 = keys.iter().map(|k| long(tx.map_get("bank", k).unwrap())).sum();
                    let by_get_all: i64 = tx.map_get_many("bank", &keys).unwrap().into_iter().map(long).sum();
                    let by_scan: i64 = tx
                        .map_scan("bank", &KeyRange::prefix(b"acct/"), Direction::Forward, 1_000)
                        .unwrap()
                        .into_iter()
                        .map(|(_, v)| long(Some(v)))
                        .sum();
                    assert_eq!((by_get, by_get_all, by_scan), (TOTAL, TOTAL, TOTAL));
                    tx.commit().expect("a read-only transaction is never refused");
                    reads += 1;
                }
                reads
            })
        })
        .collect();
    let started = Instant::now();
    while started.elapsed() < Duration::from_secs(seconds) {
        std::thread::sleep(Duration::from_millis(50));
    }
    stop.store(true, Ordering::Relaxed);
    for m in movers {
        m.join().unwrap();
    }
    let reads: u64 = readers.into_iter().map(|r| r.join().unwrap()).sum();
    assert!(moved.load(Ordering::Relaxed) > 0 && reads > 0);
    let mut tx = store.begin().unwrap();
    let end: i64 = (0..ACCOUNTS).map(|i| long(tx.map_get("bank", &key(i)).unwrap())).sum();
    assert_eq!(end, TOTAL);
}
