//! Option values at their extremes and results too large for one call: refused in RockCask's
//! terms, or handled, never a crash or an opaque failure.

use rockcask_core::maps::{Direction, KeyRange};
use rockcask_core::options::{
    MAX_BLOCK_CACHE_BYTES, MAX_MAP_CACHE_BYTES, MAX_OBJECT_CACHE_BYTES, MAX_QUEUE_CACHE_BYTES, MAX_WRITE_BUFFER_BYTES,
    MIN_WRITE_BUFFER_BYTES,
};
use rockcask_core::{DeadLetter, Error, QueueConfig, Store, StoreOptions};

fn options() -> StoreOptions {
    StoreOptions {
        sync_on_commit: false,
        ..StoreOptions::default()
    }
}

#[test]
fn a_block_cache_of_zero_bytes_means_no_block_cache() {
    let dir = tempfile::tempdir().unwrap();
    let store = Store::open(
        dir.path(),
        StoreOptions {
            block_cache_bytes: 0,
            ..options()
        },
    )
    .unwrap();
    let mut tx = store.begin().unwrap();
    for i in 0..1000u32 {
        tx.enqueue("q", &i.to_be_bytes()).unwrap();
    }
    tx.commit().unwrap();
    // Through table files too, where the cache would be used.
    store.compact().unwrap();
    let mut tx = store.begin().unwrap();
    assert_eq!(tx.poll("q", 1000).unwrap().len(), 1000);
    tx.commit().unwrap();
    assert_eq!(store.stats().unwrap().block_cache_bytes, 0);
}

#[test]
fn sizes_out_of_range_are_refused_before_rocksdb_sees_them() {
    let dir = tempfile::tempdir().unwrap();
    for (cache, buffers) in [
        (MAX_BLOCK_CACHE_BYTES + 1, 128 << 20),
        (usize::MAX, 128 << 20),
        (64 << 20, 0),
        (64 << 20, MIN_WRITE_BUFFER_BYTES - 1),
        (64 << 20, MAX_WRITE_BUFFER_BYTES + 1),
        (64 << 20, usize::MAX),
    ] {
        let err = Store::open(
            dir.path().join("s"),
            StoreOptions {
                block_cache_bytes: cache,
                write_buffer_bytes: buffers,
                ..options()
            },
        )
        .err()
        .unwrap();
        assert!(matches!(err, Error::InvalidArgument(_)), "{err}");
    }
    for (cache, buffers) in [
        (MAX_BLOCK_CACHE_BYTES, MIN_WRITE_BUFFER_BYTES),
        (1, MAX_WRITE_BUFFER_BYTES),
    ] {
        Store::open(
            dir.path().join("s"),
            StoreOptions {
                block_cache_bytes: cache,
                write_buffer_bytes: buffers,
                ..options()
            },
        )
        .unwrap()
        .close()
        .unwrap();
    }
}

#[test]
fn map_caches_of_zero_bytes_and_of_the_limit_open_and_above_it_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    for bytes in [MAX_MAP_CACHE_BYTES + 1, usize::MAX] {
        let err = Store::open(
            dir.path().join("s"),
            StoreOptions {
                map_cache_bytes: bytes,
                ..options()
            },
        )
        .err()
        .unwrap();
        assert!(
            matches!(&err, Error::InvalidArgument(m) if m.contains("map cache")),
            "{err}"
        );
    }
    // Below 64 KiB a map cache could keep hardly anything: it is off.
    for (bytes, caches) in [
        (0, false),
        (1, false),
        ((64 << 10) - 1, false),
        (64 << 10, true),
        (MAX_MAP_CACHE_BYTES, true),
    ] {
        let store = Store::open(
            dir.path().join("s"),
            StoreOptions {
                map_cache_bytes: bytes,
                ..options()
            },
        )
        .unwrap();
        let mut tx = store.begin().unwrap();
        tx.map_put("m", b"k", b"v").unwrap();
        tx.commit().unwrap();
        for _ in 0..3 {
            assert_eq!(store.map_get("m", b"k").unwrap().as_deref(), Some(&b"v"[..]));
        }
        assert_eq!(
            store.metrics().unwrap().map_cache_hits > 0,
            caches,
            "map cache of {bytes} bytes"
        );
        store.close().unwrap();
    }
}

#[test]
fn object_caches_of_zero_bytes_and_of_the_limit_open_and_above_it_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    for bytes in [MAX_OBJECT_CACHE_BYTES + 1, usize::MAX] {
        let err = Store::open(
            dir.path().join("s"),
            StoreOptions {
                object_cache_bytes: bytes,
                ..options()
            },
        )
        .err()
        .unwrap();
        assert!(
            matches!(&err, Error::InvalidArgument(m) if m.contains("object cache")),
            "{err}"
        );
    }
    let id = rockcask_core::Uuid::now_v7();
    // Below 64 KiB it is off; at 64 KiB it keeps only entries of at most 112 bytes (1/512 of
    // it), which an object's id, flag and overhead (113 bytes) already exceed; 128 KiB keeps it.
    for (bytes, caches) in [
        (0, false),
        (1, false),
        ((64 << 10) - 1, false),
        (64 << 10, false),
        (128 << 10, true),
        (MAX_OBJECT_CACHE_BYTES, true),
    ] {
        let store = Store::open(
            dir.path().join("s"),
            StoreOptions {
                object_cache_bytes: bytes,
                ..options()
            },
        )
        .unwrap();
        let mut tx = store.begin().unwrap();
        tx.put(id, b"v").unwrap();
        tx.commit().unwrap();
        for _ in 0..3 {
            assert_eq!(store.begin().unwrap().get(id).unwrap().as_deref(), Some(&b"v"[..]));
        }
        assert_eq!(
            store.metrics().unwrap().object_cache_hits > 0,
            caches,
            "object cache of {bytes} bytes"
        );
        store.close().unwrap();
    }
}

#[test]
fn queue_entry_caches_of_zero_bytes_to_the_limit_open_and_above_it_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    for bytes in [MAX_QUEUE_CACHE_BYTES + 1, usize::MAX] {
        let err = Store::open(
            dir.path().join("s"),
            StoreOptions {
                queue_cache_bytes: bytes,
                ..options()
            },
        )
        .err()
        .unwrap();
        assert!(
            matches!(&err, Error::InvalidArgument(m) if m.contains("queue entry cache")),
            "{err}"
        );
    }
    // 1 byte is less than any entry costs: nothing kept, every poll reads RocksDB.
    for (bytes, keeps) in [(0, false), (1, false), (MAX_QUEUE_CACHE_BYTES, true)] {
        let store = Store::open(
            dir.path().join("s"),
            StoreOptions {
                queue_cache_bytes: bytes,
                inline_payload_bytes: 64,
                ..options()
            },
        )
        .unwrap();
        let mut tx = store.begin().unwrap();
        tx.enqueue("q", b"v").unwrap();
        tx.commit().unwrap();
        assert_eq!(
            store.metrics().unwrap().queue_cache_bytes > 0,
            keeps,
            "queue entry cache of {bytes} bytes"
        );
        let mut tx = store.begin().unwrap();
        assert_eq!(
            tx.poll("q", 10)
                .unwrap()
                .into_iter()
                .map(|m| m.payload)
                .collect::<Vec<_>>(),
            vec![Some(b"v".to_vec())]
        );
        tx.commit().unwrap();
        assert_eq!(store.metrics().unwrap().queue_cache_bytes, 0);
        store.close().unwrap();
    }
}

fn fill(store: &Store, sizes: &[usize]) {
    let mut tx = store.begin().unwrap();
    for (i, &n) in sizes.iter().enumerate() {
        tx.enqueue("q", &vec![i as u8; n]).unwrap();
    }
    tx.commit().unwrap();
}

#[test]
fn a_poll_over_its_byte_budget_returns_fewer_and_leaves_the_rest_at_the_head_in_order() {
    let dir = tempfile::tempdir().unwrap();
    let store = Store::open(dir.path(), options()).unwrap();
    fill(&store, &[400, 400, 400, 10]);
    let mut tx = store.begin().unwrap();
    let first = tx.poll_within("q", 10, 1000).unwrap();
    assert_eq!(
        first.iter().map(|m| m.payload.as_ref().unwrap()[0]).collect::<Vec<_>>(),
        vec![0, 1]
    );
    // The rest is still there for this and every other transaction, in order.
    assert_eq!(tx.peek_within("q", 10, 1000).unwrap().len(), 2);
    let second = tx.poll_within("q", 10, 1000).unwrap();
    assert_eq!(
        second
            .iter()
            .map(|m| m.payload.as_ref().unwrap()[0])
            .collect::<Vec<_>>(),
        vec![2, 3]
    );
    tx.rollback().unwrap();
    // A single message larger than the budget still comes, alone.
    let mut tx = store.begin().unwrap();
    let big = tx.poll_within("q", 10, 100).unwrap();
    assert_eq!(big.len(), 1);
    tx.commit().unwrap();
    assert_eq!(store.queue_size("q").unwrap(), 3);
    let mut tx = store.begin().unwrap();
    assert_eq!(
        tx.poll("q", 10)
            .unwrap()
            .iter()
            .map(|m| m.payload.as_ref().unwrap()[0])
            .collect::<Vec<_>>(),
        vec![1, 2, 3]
    );
    tx.commit().unwrap();
}

#[test]
fn a_budgeted_poll_counts_this_transactions_own_enqueues_too() {
    let dir = tempfile::tempdir().unwrap();
    let store = Store::open(dir.path(), options()).unwrap();
    fill(&store, &[300]);
    let mut tx = store.begin().unwrap();
    tx.enqueue("q", &[7u8; 300]).unwrap();
    tx.enqueue("q", &[8u8; 300]).unwrap();
    let got = tx.poll_within("q", 10, 700).unwrap();
    assert_eq!(
        got.iter().map(|m| m.payload.as_ref().unwrap()[0]).collect::<Vec<_>>(),
        vec![0, 7]
    );
    let rest = tx.poll_within("q", 10, 700).unwrap();
    assert_eq!(
        rest.iter().map(|m| m.payload.as_ref().unwrap()[0]).collect::<Vec<_>>(),
        vec![8]
    );
    tx.commit().unwrap();
    assert_eq!(store.queue_size("q").unwrap(), 0);
}

fn map_of(store: &Store, sizes: &[usize]) {
    let mut tx = store.begin().unwrap();
    for (i, &n) in sizes.iter().enumerate() {
        tx.map_put("m", &[b'k', i as u8], &vec![i as u8; n]).unwrap();
    }
    tx.commit().unwrap();
}

fn first_bytes(pairs: &[(Vec<u8>, Vec<u8>)]) -> Vec<u8> {
    pairs.iter().map(|(k, _)| k[1]).collect()
}

#[test]
fn a_scan_over_its_byte_bound_returns_fewer_says_so_and_the_rest_is_read_from_after_its_last_key() {
    let dir = tempfile::tempdir().unwrap();
    let store = Store::open(dir.path(), options()).unwrap();
    map_of(&store, &[400, 400, 400, 10]);
    let mut tx = store.begin().unwrap();
    // Keys count too: 402 bytes a pair.
    let first = tx
        .map_scan_within("m", &KeyRange::default(), Direction::Forward, 10, 1000)
        .unwrap();
    assert_eq!((first_bytes(&first.pairs), first.cut), (vec![0, 1], true));
    let rest = KeyRange {
        from: Some([&first.pairs[1].0[..], &[0]].concat()),
        to: None,
    };
    let second = tx.map_scan_within("m", &rest, Direction::Forward, 10, 1000).unwrap();
    assert_eq!((first_bytes(&second.pairs), second.cut), (vec![2, 3], false));
    // Backwards alike; and this transaction's own writes count as they are seen.
    tx.map_put("m", b"k\x03", &[3; 300]).unwrap();
    let back = tx
        .map_scan_within("m", &KeyRange::default(), Direction::Reverse, 10, 700)
        .unwrap();
    assert_eq!((first_bytes(&back.pairs), back.cut), (vec![3], true));
    // A pair larger than the bound still comes, alone; a scan stopped by its count is not cut.
    let big = tx
        .map_scan_within("m", &KeyRange::default(), Direction::Forward, 10, 100)
        .unwrap();
    assert_eq!((first_bytes(&big.pairs), big.cut), (vec![0], true));
    let counted = tx
        .map_scan_within("m", &KeyRange::default(), Direction::Forward, 2, usize::MAX)
        .unwrap();
    assert_eq!((first_bytes(&counted.pairs), counted.cut), (vec![0, 1], false));
    assert_eq!(
        tx.map_scan("m", &KeyRange::default(), Direction::Forward, 10)
            .unwrap()
            .len(),
        4
    );
}

#[test]
fn a_batched_get_whose_values_exceed_its_byte_bound_is_refused_naming_the_total_and_the_bound() {
    let dir = tempfile::tempdir().unwrap();
    let store = Store::open(dir.path(), options()).unwrap();
    map_of(&store, &[400, 400, 400]);
    let keys: Vec<Vec<u8>> = (0..3u8).map(|i| vec![b'k', i]).collect();
    let mut tx = store.begin().unwrap();
    match tx.map_get_many_within("m", &keys, 1000) {
        Err(Error::InvalidArgument(m)) => {
            assert!(m.contains("1200 bytes") && m.contains("1000"), "{m}");
            assert!(m.contains("'m'") && m.contains("3 keys"), "{m}");
        }
        other => panic!("{other:?}"),
    }
    // The transaction stays usable; what fits is answered whole.
    let two = tx.map_get_many_within("m", &keys[..2], 1000).unwrap();
    assert_eq!(
        two.iter().map(|v| v.as_ref().unwrap().len()).collect::<Vec<_>>(),
        vec![400, 400]
    );
    assert_eq!(tx.map_get_many("m", &keys).unwrap().len(), 3);
    tx.commit().unwrap();
}

#[test]
fn a_list_of_dead_letters_over_its_byte_bound_returns_fewer_counting_names_and_reasons() {
    let dir = tempfile::tempdir().unwrap();
    let store = Store::open(dir.path(), options()).unwrap();
    store
        .configure_queue(
            "q",
            QueueConfig {
                max_deliveries: Some(1),
                ..QueueConfig::default()
            },
        )
        .unwrap();
    fill(&store, &[400, 400, 400]);
    let mut tx = store.begin().unwrap();
    assert_eq!(tx.poll("q", 3).unwrap().len(), 3);
    tx.rollback_because("r", None).unwrap();
    // 400 bytes of payload, 1 of origin queue and 1 of reason each.
    let seqs = |letters: &[DeadLetter]| {
        letters
            .iter()
            .map(|d| d.payload.as_ref().unwrap()[0])
            .collect::<Vec<_>>()
    };
    assert_eq!(seqs(&store.dead_letters_within("q", 10, 804).unwrap()), vec![0, 1]);
    assert_eq!(seqs(&store.dead_letters_within("q", 10, 803).unwrap()), vec![0]);
    assert_eq!(seqs(&store.dead_letters_within("q", 10, 1).unwrap()), vec![0]);
    assert_eq!(seqs(&store.dead_letters("q", 10).unwrap()), vec![0, 1, 2]);
}
