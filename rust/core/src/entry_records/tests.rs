use std::collections::BTreeSet;

use rockcask_codec::compress::Compression;

use super::*;

fn inline(n: usize, len: usize) -> VecDeque<Entry> {
    (0..n)
        .map(|_| Entry::inline(uuid::Uuid::nil(), Compression::None, vec![7; len]))
        .collect()
}

#[test]
fn a_commit_lays_out_blocks_up_to_their_bounds_and_a_lone_entry_as_a_single_record() {
    assert!(plan_records(&VecDeque::new()).is_empty());
    assert_eq!(plan_records(&inline(1, 10)), vec![1]);
    assert_eq!(plan_records(&inline(100, 64)), vec![100]);
    let max = MAX_BLOCK_ENTRIES as usize;
    assert_eq!(plan_records(&inline(max, 0)), vec![MAX_BLOCK_ENTRIES]);
    assert_eq!(
        plan_records(&inline(2 * max + 1, 0)),
        vec![MAX_BLOCK_ENTRIES, MAX_BLOCK_ENTRIES, 1]
    );
    // 40 KiB payloads: three fill a block's bytes, the fourth starts the next.
    let big = 40 << 10;
    let per = (MAX_BLOCK_BYTES / (big + 21)) as u32;
    assert_eq!(per, 3);
    assert_eq!(plan_records(&inline(8, big)), vec![3, 3, 2]);
    // An entry larger than a block's bytes is a record of its own.
    assert_eq!(plan_records(&inline(3, MAX_BLOCK_BYTES)), vec![1, 1, 1]);
    let runs = plan_records(&inline(10_000, 53));
    assert_eq!(runs.iter().sum::<u32>(), 10_000);
    assert!(runs
        .iter()
        .all(|&n| keys::block_value_len(&inline(n as usize, 53)) <= MAX_BLOCK_BYTES));
}

#[test]
fn a_record_gives_each_entry_in_order_and_refuses_bytes_past_its_last() {
    let entries = inline(3, 5);
    let mut v = vec![0u8; keys::block_value_len(&entries)];
    keys::encode_block_into(&entries, &mut v);
    let mut r = RecordEntries::new(true, 10, 3);
    let mut seqs = Vec::new();
    while let Some((seq, range)) = r.next(&v).unwrap() {
        assert_eq!(keys::decode_entry(&v[range]).unwrap(), entries[0]);
        seqs.push(seq);
    }
    assert_eq!(seqs, vec![10, 11, 12]);
    let mut longer = v.clone();
    longer.push(0);
    let mut r = RecordEntries::new(true, 10, 3);
    assert!((0..4).try_for_each(|_| r.next(&longer).map(drop)).is_err());
    let mut r = RecordEntries::new(true, 10, 4);
    assert!(
        (0..4).try_for_each(|_| r.next(&v).map(drop)).is_err(),
        "fewer entries than its key says"
    );
    let mut single = RecordEntries::new(false, 4, 1);
    assert_eq!(single.next(b"value").unwrap(), Some((4, 0..5)));
    assert_eq!(single.next(b"value").unwrap(), None);
}

fn open(dir: &std::path::Path, inline_payload_bytes: usize) -> crate::Store {
    let options = crate::StoreOptions {
        sync_on_commit: false,
        inline_payload_bytes,
        ..crate::StoreOptions::default()
    };
    crate::Store::open(dir, options).unwrap()
}

/// The records of the `entries` family: (first sequence, entries) of each.
fn records(store: &crate::Store) -> Vec<(u64, u32)> {
    let db = store.shared.db().unwrap();
    db.db()
        .iterator_cf(db.cf(CF_ENTRIES), rocksdb::IteratorMode::Start)
        .map(|kv| keys::record_span(&kv.unwrap().0).unwrap())
        .collect()
}

fn enqueue(store: &crate::Store, numbers: std::ops::Range<u32>) {
    let mut tx = store.begin().unwrap();
    for i in numbers {
        tx.enqueue("q", &i.to_be_bytes()).unwrap();
    }
    tx.commit().unwrap();
}

fn numbers(messages: &[crate::Message]) -> Vec<u32> {
    messages
        .iter()
        .map(|m| u32::from_be_bytes(m.payload.as_deref().unwrap().try_into().unwrap()))
        .collect()
}

/// `got == expected`, reported by the first difference (the lists run to thousands).
fn assert_same(got: &[u32], expected: &[u32], what: &str) {
    if let Some(i) = (0..got.len().max(expected.len())).find(|&i| got.get(i) != expected.get(i)) {
        panic!(
            "{what}: {} items, {} expected; at {i}: {:?} instead of {:?}",
            got.len(),
            expected.len(),
            got.get(i),
            expected.get(i)
        );
    }
}

fn peek_all(store: &crate::Store) -> Vec<u32> {
    numbers(&store.begin().unwrap().peek("q", 1 << 20).unwrap())
}

#[test]
fn a_commit_of_many_entries_writes_blocks_and_the_consumption_of_each_last_entry_deletes_one() {
    for inline in [0, 64] {
        let dir = tempfile::tempdir().unwrap();
        let store = open(dir.path(), inline);
        enqueue(&store, 0..2500);
        enqueue(&store, 2500..2501);
        assert_eq!(records(&store), vec![(0, 1024), (1024, 1024), (2048, 452), (2500, 1)]);
        let mut tx = store.begin().unwrap();
        assert_eq!(numbers(&tx.poll("q", 1500).unwrap()), (0..1500).collect::<Vec<_>>());
        tx.commit().unwrap();
        assert_eq!(
            records(&store),
            vec![(1024, 1024), (2048, 452), (2500, 1)],
            "the first block is consumed, the second not yet"
        );
        store.close().unwrap();

        // After a reopen the blocks are learned from the reads.
        let store = open(dir.path(), inline);
        assert_eq!(store.queue_size("q").unwrap(), 1001);
        assert_eq!(peek_all(&store), (1500..2501).collect::<Vec<_>>());
        let mut tx = store.begin().unwrap();
        assert_eq!(numbers(&tx.poll("q", 600).unwrap()), (1500..2100).collect::<Vec<_>>());
        tx.commit().unwrap();
        assert_eq!(records(&store), vec![(2048, 452), (2500, 1)]);
        let mut tx = store.begin().unwrap();
        assert_eq!(numbers(&tx.poll("q", 1000).unwrap()), (2100..2501).collect::<Vec<_>>());
        tx.commit().unwrap();
        assert_eq!(records(&store), vec![], "inline {inline}");
    }
}

/// The head inside a block, entries below it held by a transaction when the store closed: a
/// reopen finds the tail past the block's end and hands the held entries out first.
#[test]
fn a_head_inside_a_block_with_entries_held_below_it_survives_a_reopen() {
    let dir = tempfile::tempdir().unwrap();
    let store = open(dir.path(), 64);
    enqueue(&store, 0..10);
    let mut held = store.begin().unwrap();
    assert_eq!(numbers(&held.poll("q", 3).unwrap()), vec![0, 1, 2]);
    let mut tx = store.begin().unwrap();
    assert_eq!(numbers(&tx.poll("q", 3).unwrap()), vec![3, 4, 5]);
    tx.commit().unwrap();
    // What is on disk once `tx` committed, whether `held` rolls back or the process dies.
    drop(held);
    store.close().unwrap();
    let store = open(dir.path(), 64);
    assert_eq!(store.queue_size("q").unwrap(), 7);
    assert_eq!(peek_all(&store), vec![0, 1, 2, 6, 7, 8, 9]);
    let mut dumped = Vec::new();
    store
        .visit_queue("q", &mut |_, _, payload| {
            dumped.push(u32::from_be_bytes(payload.unwrap().try_into().unwrap()));
            Ok(true)
        })
        .unwrap();
    assert_eq!(dumped, vec![0, 1, 2, 6, 7, 8, 9], "a dump shows only what is present");
    enqueue(&store, 10..12);
    let mut tx = store.begin().unwrap();
    assert_eq!(numbers(&tx.poll("q", 100).unwrap()), vec![0, 1, 2, 6, 7, 8, 9, 10, 11]);
    tx.commit().unwrap();
    assert_eq!(records(&store), vec![]);
}

/// A queue's entries under every kind of use — commits of 1 to 3,000 entries, polls of 1 to
/// 700, two transactions interleaved, rollbacks, reopens, an export and import — come out
/// in FIFO order as a model queue says, and once all are consumed no record is left.
#[test]
fn entries_in_blocks_and_single_records_stay_fifo_through_rollbacks_reopens_and_snapshots() {
    for inline in [0, 64] {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("store");
        let mut store = open(&path, inline);
        let mut model: BTreeSet<u32> = BTreeSet::new();
        let mut next = 0u32;
        let mut rng = 0x9E37_79B9_7F4A_7C15u64 ^ inline as u64;
        let mut random = |n: usize| {
            rng ^= rng << 13;
            rng ^= rng >> 7;
            rng ^= rng << 17;
            (rng % n as u64) as usize
        };
        for step in 0..150 {
            match random(10) {
                0..=3 => {
                    let n = [1, 2, 3, 50, 1023, 1024, 1025, 3000][random(8)];
                    enqueue(&store, next..next + n);
                    model.extend(next..next + n);
                    next += n;
                }
                4..=6 => {
                    let (m1, m2) = ([1, 2, 5, 100, 700][random(5)], [1, 3, 100][random(3)]);
                    let mut a = store.begin().unwrap();
                    let got_a = numbers(&a.poll("q", m1).unwrap());
                    let mut b = store.begin().unwrap();
                    let got_b = numbers(&b.poll("q", m2).unwrap());
                    let expected: Vec<u32> = model.iter().copied().take(m1 + m2).collect();
                    assert_same(
                        &[&got_a[..], &got_b[..]].concat(),
                        &expected,
                        &format!("step {step}: two polls"),
                    );
                    b.commit().unwrap();
                    got_b.iter().for_each(|n| assert!(model.remove(n)));
                    if random(2) == 0 {
                        a.commit().unwrap();
                        got_a.iter().for_each(|n| assert!(model.remove(n)));
                    } else {
                        a.rollback().unwrap();
                    }
                }
                7 => {
                    store.close().unwrap();
                    store = open(&path, inline);
                    assert_same(
                        &peek_all(&store),
                        &model.iter().copied().collect::<Vec<_>>(),
                        &format!("step {step}: after a reopen"),
                    );
                }
                8 => {
                    // A commit behind a transaction still holding entries: they are on disk
                    // below the head when the store closes.
                    let mut held = store.begin().unwrap();
                    held.poll("q", [2, 200][random(2)]).unwrap();
                    let mut tx = store.begin().unwrap();
                    let got = numbers(&tx.poll("q", 1).unwrap());
                    tx.commit().unwrap();
                    got.iter().for_each(|n| assert!(model.remove(n)));
                    drop(held);
                    store.close().unwrap();
                    store = open(&path, inline);
                }
                _ => {
                    let file = dir.path().join("snapshot.rcs");
                    let options = crate::snapshot::ExportOptions {
                        overwrite: true,
                        ..crate::snapshot::ExportOptions::default()
                    };
                    store.export_to(&file, &options, &mut |_| Ok(())).unwrap();
                    store.close().unwrap();
                    let imported = dir.path().join(format!("imported-{step}"));
                    let import = crate::snapshot::ImportOptions {
                        workers: 2,
                        store: crate::StoreOptions {
                            sync_on_commit: false,
                            ..crate::StoreOptions::default()
                        },
                    };
                    crate::snapshot::import_store(&file, &imported, &import, &mut |_| Ok(())).unwrap();
                    let copy = open(&imported, inline);
                    assert_same(
                        &peek_all(&copy),
                        &model.iter().copied().collect::<Vec<_>>(),
                        &format!("step {step}: the import"),
                    );
                    copy.close().unwrap();
                    store = open(&path, inline);
                }
            }
        }
        let mut tx = store.begin().unwrap();
        assert_same(
            &numbers(&tx.poll("q", 1 << 20).unwrap()),
            &model.iter().copied().collect::<Vec<_>>(),
            "the last poll",
        );
        tx.commit().unwrap();
        assert_eq!(records(&store), vec![], "inline {inline}");
    }
}

/// Entries of a block that reach their delivery limit move to the dead-letter queue as
/// single records (each beside its record), the block goes with the last of them, and
/// requeued they come back to their queue in a block again.
#[test]
fn entries_dead_lettered_out_of_a_block_leave_no_record_behind_and_requeue_in_order() {
    let dir = tempfile::tempdir().unwrap();
    let store = open(dir.path(), 64);
    store
        .configure_queue(
            "q",
            crate::QueueConfig {
                max_deliveries: Some(1),
                ..crate::QueueConfig::default()
            },
        )
        .unwrap();
    enqueue(&store, 0..10);
    let mut tx = store.begin().unwrap();
    assert_eq!(numbers(&tx.poll("q", 4).unwrap()), vec![0, 1, 2, 3]);
    tx.rollback_because("cannot parse", None).unwrap();
    let dead: Vec<u32> = store
        .dead_letters("q", 100)
        .unwrap()
        .iter()
        .map(|d| u32::from_be_bytes(d.payload.as_deref().unwrap().try_into().unwrap()))
        .collect();
    assert_eq!(dead, vec![0, 1, 2, 3]);
    assert_eq!(
        records(&store).iter().filter(|(_, n)| *n == 1).count(),
        4,
        "one single record per dead letter"
    );
    let mut tx = store.begin().unwrap();
    assert_eq!(numbers(&tx.poll("q", 6).unwrap()), (4..10).collect::<Vec<_>>());
    tx.commit().unwrap();
    assert_eq!(
        records(&store),
        vec![(0, 1), (1, 1), (2, 1), (3, 1)],
        "the block went with its last entry"
    );
    store.close().unwrap();
    let store = open(dir.path(), 64);
    let mut tx = store.begin().unwrap();
    assert_eq!(
        tx.requeue_dead_letters("q", crate::dead_letter::Selection::All)
            .unwrap(),
        4
    );
    tx.commit().unwrap();
    assert_eq!(records(&store).len(), 1, "requeued in one block");
    let mut tx = store.begin().unwrap();
    assert_eq!(numbers(&tx.poll("q", 10).unwrap()), vec![0, 1, 2, 3]);
    tx.commit().unwrap();
    assert_eq!(records(&store), vec![]);
}
