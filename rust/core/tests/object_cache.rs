//! The object cache (`read_cache.rs`): `get` and `get_many` of objects created by `put` read
//! through it, and it never answers with anything but what RocksDB would.

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;

use rockcask_core::{Store, StoreOptions, Uuid};

fn open(dir: &std::path::Path, object_cache_bytes: usize) -> Store {
    Store::open(
        dir,
        StoreOptions {
            sync_on_commit: false,
            object_cache_bytes,
            ..StoreOptions::default()
        },
    )
    .unwrap()
}

fn get(store: &Store, id: Uuid) -> Option<Vec<u8>> {
    let tx = store.begin().unwrap();
    tx.get(id).unwrap()
}

/// Reads through the object cache while another thread keeps replacing (and now and then
/// deleting and putting again) the object: no read returns a payload older than the last
/// commit that had returned before the read began, and none goes backwards.
#[test]
fn object_cache_never_serves_a_payload_older_than_a_returned_commit() {
    let dir = tempfile::tempdir().unwrap();
    let store = Arc::new(open(dir.path(), 1 << 20));
    let id = Uuid::now_v7();
    let returned = Arc::new(AtomicU64::new(0));
    let done = Arc::new(AtomicBool::new(false));
    let mut tx = store.begin().unwrap();
    tx.put(id, &0u64.to_le_bytes()).unwrap();
    tx.commit().unwrap();
    let readers: Vec<_> = (0..2)
        .map(|reader| {
            let (store, returned, done) = (store.clone(), returned.clone(), done.clone());
            std::thread::spawn(move || {
                let (mut last, mut reads) = (0, 0u64);
                while !done.load(Ordering::SeqCst) {
                    let floor = returned.load(Ordering::SeqCst);
                    let tx = store.begin().unwrap();
                    let payload = if reader == 0 {
                        tx.get(id).unwrap()
                    } else {
                        tx.get_many(&[id, Uuid::now_v7()]).unwrap().swap_remove(0)
                    };
                    // Absent only between a delete and the put after it, both of commit `floor + 1` on.
                    let Some(payload) = payload else { continue };
                    let v = u64::from_le_bytes(payload.try_into().unwrap());
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
        if i % 100 == 0 {
            let mut tx = store.begin().unwrap();
            tx.delete(id).unwrap();
            tx.commit().unwrap();
        }
        let mut tx = store.begin().unwrap();
        tx.put(id, &i.to_le_bytes()).unwrap();
        // Other objects in the same commits, so that writes end in many shards.
        tx.put(Uuid::from_u64_pair(7, i % 50), b"x").unwrap();
        tx.commit().unwrap();
        returned.store(i, Ordering::SeqCst);
    }
    done.store(true, Ordering::SeqCst);
    for r in readers {
        assert!(r.join().unwrap() > 100, "the readers ran beside the writer");
    }
    // And the cache serves the last payload once the writer has stopped.
    let hits = store.metrics().unwrap().object_cache_hits;
    for _ in 0..2 {
        assert_eq!(get(&store, id), Some(20_000u64.to_le_bytes().to_vec()));
    }
    assert!(
        store.metrics().unwrap().object_cache_hits > hits,
        "read through the cache"
    );
}

/// Objects put, replaced, deleted, enqueued by id, replaced while queue-owned, and consumed,
/// read one by one and batched after each round: a store with no object cache, one that
/// evicts all along and one that holds everything answer alike, and as the rounds say.
#[test]
fn reads_with_and_without_the_object_cache_agree_through_puts_deletes_enqueues_and_polls() {
    let dir = tempfile::tempdir().unwrap();
    let ids: Vec<Uuid> = (0..2_000u64).map(|i| Uuid::from_u64_pair(1, i)).collect();
    let mut answers: Vec<Vec<Vec<Option<Vec<u8>>>>> = Vec::new();
    for (name, cache) in [("none", 0), ("small", 256 << 10), ("ample", 64 << 20)] {
        let store = open(&dir.path().join(name), cache);
        let mut owned = Vec::new();
        let mut seen = Vec::new();
        for round in 0..4u8 {
            let mut tx = store.begin().unwrap();
            for (i, &id) in ids.iter().enumerate() {
                match (i + round as usize) % 5 {
                    0 => tx.put(id, &[round; 40]).unwrap(),
                    1 => {
                        tx.delete(id).unwrap();
                    }
                    2 => {
                        // Put again (it was deleted the round before) and enqueued by id.
                        tx.put(id, &[round; 30]).unwrap();
                        tx.enqueue_id("refs", id).unwrap();
                    }
                    _ => {}
                }
            }
            // Queue-owned objects, and a put over one committed earlier (it stays queue-owned).
            owned.push(tx.enqueue("owned", &[round; 20]).unwrap());
            if let Some(&first) = owned.first() {
                tx.put(first, &[round + 100; 20]).unwrap();
            }
            tx.commit().unwrap();
            // Three reads of everything: the second and third come from the cache where there is one.
            for _ in 0..3 {
                let tx = store.begin().unwrap();
                let all: Vec<Uuid> = ids.iter().chain(&owned).copied().collect();
                let many: Vec<Option<Vec<u8>>> = all.chunks(500).flat_map(|c| tx.get_many(c).unwrap()).collect();
                let one: Vec<Option<Vec<u8>>> = all.iter().map(|&id| tx.get(id).unwrap()).collect();
                assert_eq!(one, many, "{name}: round {round}");
                seen.push(one);
            }
            // Consume the refs queue: its objects (put) stay.
            let mut tx = store.begin().unwrap();
            while !tx.poll("refs", 1_000).unwrap().is_empty() {}
            tx.commit().unwrap();
        }
        let m = store.metrics().unwrap();
        assert_eq!(
            m.object_cache_hits > 0,
            cache > 0,
            "{name}: {} hits",
            m.object_cache_hits
        );
        assert!(
            m.object_cache_bytes as usize <= cache,
            "{name}: {} bytes in a cache of {cache}",
            m.object_cache_bytes
        );
        answers.push(seen);
        store.close().unwrap();
    }
    assert_eq!(answers[0], answers[1], "no cache and a small one");
    assert_eq!(answers[0], answers[2], "no cache and an ample one");
    // And as the rounds say, in the last one: the latest put, or nothing after a delete.
    let last = answers[0].last().unwrap();
    for (i, got) in last.iter().take(ids.len()).enumerate() {
        let expected = (0..4u8).rev().find_map(|r| match (i + r as usize) % 5 {
            0 => Some(Some(vec![r; 40])),
            1 => Some(None),
            2 => Some(Some(vec![r; 30])),
            _ => None,
        });
        assert_eq!(got, &expected.flatten(), "object {i}");
    }
}

#[test]
fn queue_owned_objects_are_read_but_not_kept() {
    let dir = tempfile::tempdir().unwrap();
    let store = open(dir.path(), 1 << 20);
    let mut tx = store.begin().unwrap();
    let owned = tx.enqueue("q", b"owned").unwrap();
    let put = Uuid::now_v7();
    tx.put(put, b"put").unwrap();
    tx.commit().unwrap();
    let before = store.metrics().unwrap();
    for _ in 0..3 {
        assert_eq!(get(&store, owned).as_deref(), Some(&b"owned"[..]));
        assert_eq!(get(&store, put).as_deref(), Some(&b"put"[..]));
    }
    let m = store.metrics().unwrap();
    let counted = (
        m.object_cache_hits - before.object_cache_hits,
        m.object_cache_misses - before.object_cache_misses,
    );
    assert_eq!(
        counted,
        (2, 4),
        "the put object kept at its first miss, the queue-owned one never"
    );
    // One entry: the id, the flag byte and 3 payload bytes, and its overhead.
    assert!(
        (16 + 4..16 + 4 + 256).contains(&(m.object_cache_bytes as usize)),
        "{} bytes",
        m.object_cache_bytes
    );
}

/// An object deleted while a queue entry still points at it, then put again under its id: the
/// consumption of that entry leaves the object put (see `Buffered::decide_references`), and a
/// store with the cache answers `get` as one without it does.
#[test]
fn an_object_put_again_under_the_id_of_one_deleted_from_a_queue_outlives_the_entry_with_and_without_the_cache() {
    let dir = tempfile::tempdir().unwrap();
    for (name, cache) in [("none", 0), ("cached", 1 << 20)] {
        let store = open(&dir.path().join(name), cache);
        let mut tx = store.begin().unwrap();
        let id = tx.enqueue("q", b"owned").unwrap();
        tx.commit().unwrap();
        let mut tx = store.begin().unwrap();
        tx.delete(id).unwrap();
        tx.commit().unwrap();
        let mut tx = store.begin().unwrap();
        tx.put(id, b"put again").unwrap();
        tx.commit().unwrap();
        let before = (get(&store, id), get(&store, id));
        let mut tx = store.begin().unwrap();
        assert_eq!(tx.poll("q", 10).unwrap().len(), 1);
        tx.commit().unwrap();
        let put = Some(b"put again".to_vec());
        assert_eq!(
            (before, get(&store, id), get(&store, id)),
            ((put.clone(), put.clone()), put.clone(), put),
            "{name}"
        );
        if cache > 0 {
            assert!(
                store.metrics().unwrap().object_cache_hits > 0,
                "the put object was kept"
            );
        }
    }
}
