//! Snapshots and checkpoints through the public core API: what goes out comes back identical,
//! exports are deterministic and consistent under concurrent commits, and a damaged file is
//! always refused without leaving anything behind.

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

use rockcask_core::compress::{Compression, Policy};
use rockcask_core::snapshot::{self, no_progress, ExportOptions, ImportOptions, Progress};
use rockcask_core::{Error, Store, StoreOptions, Uuid};

fn options() -> StoreOptions {
    StoreOptions {
        sync_on_commit: false,
        ..StoreOptions::default()
    }
}

fn open(dir: &Path) -> Store {
    Store::open(dir, options()).unwrap()
}

/// Every queue with every entry (id, payload) in order, and the given objects' payloads.
type Content = (Vec<(String, Vec<(Uuid, Option<Vec<u8>>)>)>, Vec<Option<Vec<u8>>>);

fn content(store: &Store, objects: &[Uuid]) -> Content {
    let mut tx = store.begin().unwrap();
    let queues = store
        .queue_names()
        .unwrap()
        .into_iter()
        .map(|q| {
            let entries = tx
                .peek(&q, 1 << 20)
                .unwrap()
                .into_iter()
                .map(|m| (m.id, m.payload))
                .collect();
            (q, entries)
        })
        .collect();
    (queues, objects.iter().map(|id| tx.get(*id).unwrap()).collect())
}

fn export(store: &Store, file: &Path, workers: usize, compression: Compression) -> snapshot::Summary {
    let opts = ExportOptions {
        workers,
        compression,
        frame_bytes: 1024,
        created_unix_millis: Some(1_700_000_000_000),
        overwrite: true,
    };
    store.export_to(file, &opts, &mut no_progress()).unwrap()
}

fn import(file: &Path, dir: &Path) -> Result<snapshot::Summary, Error> {
    snapshot::import_store(
        file,
        dir,
        &ImportOptions {
            workers: 2,
            store: options(),
        },
        &mut no_progress(),
    )
}

/// A store with the kinds of state a snapshot must carry: several queues, consumed and
/// rolled-back entries, an entry consumed out of order, objects shared by several entries,
/// `put` objects referenced from a queue and on their own, a queue emptied, compressed values.
fn varied_store(dir: &Path) -> (Store, Vec<Uuid>) {
    let store = Store::open(
        dir,
        StoreOptions {
            compression: Policy {
                codec: Compression::Zstd,
                threshold: 64,
            },
            ..options()
        },
    )
    .unwrap();
    let mut tx = store.begin().unwrap();
    for i in 0..300u32 {
        let payload = format!("item {i} ").repeat(1 + (i as usize % 40));
        tx.enqueue(if i % 3 == 0 { "alpha" } else { "beta" }, payload.as_bytes())
            .unwrap();
    }
    let shared = tx.enqueue("gamma", b"shared by three entries").unwrap();
    tx.enqueue_id("gamma", shared).unwrap();
    tx.enqueue_id("delta", shared).unwrap();
    let put = Uuid::now_v7();
    tx.put(put, b"a put object, referenced from a queue").unwrap();
    tx.enqueue_id("alpha", put).unwrap();
    let lone = Uuid::now_v7();
    tx.put(lone, &[0u8; 5000]).unwrap();
    tx.enqueue("emptied", b"gone").unwrap();
    tx.commit().unwrap();
    let mut tx = store.begin().unwrap();
    tx.poll("beta", 7).unwrap();
    tx.poll("emptied", 1).unwrap();
    tx.commit().unwrap();
    let mut tx = store.begin().unwrap();
    tx.poll("alpha", 5).unwrap();
    tx.rollback().unwrap();
    // Out of order: a second transaction consumes behind a first one's claim, which rolls back.
    let mut first = store.begin().unwrap();
    first.poll("gamma", 1).unwrap();
    let mut second = store.begin().unwrap();
    second.poll("gamma", 1).unwrap();
    second.commit().unwrap();
    first.rollback().unwrap();
    (store, vec![shared, put, lone])
}

#[test]
fn export_then_import_gives_back_every_queue_entry_order_and_object() {
    let dir = tempfile::tempdir().unwrap();
    let (store, objects) = varied_store(&dir.path().join("src"));
    let file = dir.path().join("store.rcs");
    let exported = export(&store, &file, 2, Compression::Lz4);
    let imported = import(&file, &dir.path().join("dst")).unwrap();
    assert_eq!(imported.counts, exported.counts);
    assert_eq!(exported.counts.queues, 5);
    assert_eq!(exported.counts.entries, 300 - 7 + 3 + 1 - 1);
    let copy = open(&dir.path().join("dst"));
    assert_eq!(content(&copy, &objects), content(&store, &objects));
    assert_eq!(copy.queue_size("gamma").unwrap(), store.queue_size("gamma").unwrap());

    // The copy behaves like the original: consuming the shared object's entries deletes it
    // with the last one, put objects outlive their entries.
    for s in [&store, &copy] {
        let mut tx = s.begin().unwrap();
        assert_eq!(tx.poll("gamma", 10).unwrap().len(), 1);
        tx.commit().unwrap();
        assert!(s.begin().unwrap().get(objects[0]).unwrap().is_some());
        let mut tx = s.begin().unwrap();
        tx.poll("delta", 10).unwrap();
        tx.poll("alpha", 1000).unwrap();
        tx.commit().unwrap();
    }
    assert_eq!(content(&copy, &objects), content(&store, &objects));
    assert!(copy.begin().unwrap().get(objects[0]).unwrap().is_none());
    assert!(copy.begin().unwrap().get(objects[1]).unwrap().is_some());
}

#[test]
fn one_worker_and_four_workers_write_the_same_bytes() {
    let dir = tempfile::tempdir().unwrap();
    let (store, _) = varied_store(&dir.path().join("src"));
    for codec in [Compression::None, Compression::Zstd] {
        let one = dir.path().join("one.rcs");
        let four = dir.path().join("four.rcs");
        let s1 = export(&store, &one, 1, codec);
        let s4 = export(&store, &four, 4, codec);
        assert!(s1.counts.frames > 10, "the test needs many frames: {:?}", s1.counts);
        assert_eq!(std::fs::read(&one).unwrap(), std::fs::read(&four).unwrap());
        assert_eq!(
            s1,
            Summary {
                file: one.clone(),
                ..s4
            }
        );
    }
}

use snapshot::Summary;

#[test]
fn a_snapshot_taken_during_commits_holds_whole_transactions_only() {
    let dir = tempfile::tempdir().unwrap();
    let store = open(&dir.path().join("src"));
    const N: u32 = 4000;
    let mut tx = store.begin().unwrap();
    for i in 0..N {
        tx.enqueue("in", &i.to_be_bytes()).unwrap();
    }
    tx.commit().unwrap();
    // Each transaction moves three items from "in" to "out": a snapshot holding part of one
    // would show a total other than N, or an item twice or not at all.
    let stop = Arc::new(AtomicBool::new(false));
    let mover = {
        let (store, stop) = (store.clone(), stop.clone());
        std::thread::spawn(move || {
            let mut moved = 0;
            while !stop.load(Ordering::Relaxed) {
                let mut tx = store.begin().unwrap();
                let items = tx.poll("in", 3).unwrap();
                if items.is_empty() {
                    break;
                }
                for m in &items {
                    tx.enqueue("out", m.payload.as_ref().unwrap()).unwrap();
                }
                tx.commit().unwrap();
                moved += items.len();
            }
            moved
        })
    };
    let mut checked = 0;
    for round in 0..6 {
        let file = dir.path().join(format!("during-{round}.rcs"));
        export(&store, &file, 2, Compression::None);
        let copy_dir = dir.path().join(format!("copy-{round}"));
        import(&file, &copy_dir).unwrap();
        let copy = open(&copy_dir);
        let mut seen: Vec<u32> = Vec::new();
        for q in ["in", "out"] {
            let mut tx = copy.begin().unwrap();
            seen.extend(
                tx.peek(q, 1 << 20)
                    .unwrap()
                    .iter()
                    .map(|m| u32::from_be_bytes(m.payload.clone().unwrap().try_into().unwrap())),
            );
        }
        seen.sort_unstable();
        assert_eq!(seen, (0..N).collect::<Vec<_>>(), "round {round}");
        checked += 1;
    }
    stop.store(true, Ordering::Relaxed);
    assert!(mover.join().unwrap() > 0);
    assert_eq!(checked, 6);
}

/// A small xorshift generator: the damage tests need many positions, reproducibly.
struct Rng(u64);

impl Rng {
    fn below(&mut self, n: usize) -> usize {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        (self.0 % n as u64) as usize
    }
}

fn refused(bytes: &[u8], work: &Path, case: &str) -> String {
    let file = work.join("damaged.rcs");
    std::fs::write(&file, bytes).unwrap();
    let target = work.join("target");
    match import(&file, &target) {
        Ok(_) => panic!("{case}: a damaged snapshot was imported"),
        Err(e @ Error::Snapshot { .. }) => {
            assert!(!target.exists(), "{case}: the import left {} behind", target.display());
            e.to_string()
        }
        Err(e) => panic!("{case}: refused with an error that does not locate the damage: {e}"),
    }
}

#[test]
fn truncated_snapshots_are_refused_at_a_named_offset_and_leave_no_store() {
    let dir = tempfile::tempdir().unwrap();
    let (store, _) = varied_store(&dir.path().join("src"));
    let file = dir.path().join("good.rcs");
    export(&store, &file, 2, Compression::Zstd);
    let good = std::fs::read(&file).unwrap();
    let mut rng = Rng(0x9E37_79B9_7F4A_7C15);
    for _ in 0..100 {
        let cut = rng.below(good.len());
        let message = refused(&good[..cut], dir.path(), &format!("cut at {cut}"));
        assert!(message.contains("at byte"), "{message}");
    }
    refused(&[], dir.path(), "empty file");
}

#[test]
fn a_single_flipped_byte_anywhere_is_refused_and_leaves_no_store() {
    let dir = tempfile::tempdir().unwrap();
    let (store, _) = varied_store(&dir.path().join("src"));
    let file = dir.path().join("good.rcs");
    export(&store, &file, 2, Compression::None);
    let good = std::fs::read(&file).unwrap();
    let mut rng = Rng(0x2545_F491_4F6C_DD1D);
    let mut frames_named = 0;
    for _ in 0..1000 {
        let at = rng.below(good.len());
        let mut bad = good.clone();
        bad[at] ^= 1 + rng.below(255) as u8;
        let message = refused(&bad, dir.path(), &format!("byte {at} flipped"));
        frames_named += message.contains(", frame ") as u32;
    }
    assert!(
        frames_named > 500,
        "most damage lies inside frames, and the errors should say which ({frames_named} did)"
    );
}

#[test]
fn wrong_magic_newer_versions_and_absurd_lengths_are_refused_with_what_is_wrong() {
    let dir = tempfile::tempdir().unwrap();
    let (store, _) = varied_store(&dir.path().join("src"));
    let file = dir.path().join("good.rcs");
    export(&store, &file, 1, Compression::None);
    let good = std::fs::read(&file).unwrap();

    let mut bad = good.clone();
    bad[..8].copy_from_slice(b"PK\x03\x04zip!");
    assert!(refused(&bad, dir.path(), "magic").contains("wrong magic"));

    let mut bad = good.clone();
    bad[8..12].copy_from_slice(&5u32.to_le_bytes());
    let message = refused(&bad, dir.path(), "version");
    assert!(
        message.contains("version 5 is newer") && message.contains("versions 1 to 4"),
        "{message}"
    );

    // The first frame starts after the header; give it a stored length of 2^31 (and the head
    // CRC that goes with it, so the limit is what refuses it).
    let header_len = u32::from_le_bytes(good[12..16].try_into().unwrap()) as usize;
    let frame = 16 + header_len + 4;
    let mut bad = good.clone();
    bad[frame + 12..frame + 16].copy_from_slice(&(1u32 << 31).to_le_bytes());
    let head_crc = crc32c::crc32c(&bad[frame..frame + 16]);
    bad[frame + 16..frame + 20].copy_from_slice(&head_crc.to_le_bytes());
    let message = refused(&bad, dir.path(), "2^31 length");
    assert!(
        message.contains("exceeds the limit") && message.contains(&format!("at byte {frame}, frame 0")),
        "{message}"
    );

    // A length prefix of 2^31 for a record inside a frame whose checksum is recomputed, so
    // only the record decoder can catch it.
    let mut bad = good.clone();
    let body = frame + 20;
    bad[body..body + 5].copy_from_slice(&[0x80, 0x80, 0x80, 0x80, 0x08]);
    let stored = u32::from_le_bytes(bad[frame + 12..frame + 16].try_into().unwrap()) as usize;
    let crc = crc32c::crc32c(&bad[frame..body + stored]);
    bad[body + stored..body + stored + 4].copy_from_slice(&crc.to_le_bytes());
    let message = refused(&bad, dir.path(), "2^31 record length");
    assert!(
        message.contains("does not decode") && message.contains("frame 0"),
        "{message}"
    );
}

#[test]
fn imports_refuse_a_non_empty_directory_and_exports_an_existing_file() {
    let dir = tempfile::tempdir().unwrap();
    let (store, _) = varied_store(&dir.path().join("src"));
    let file = dir.path().join("s.rcs");
    export(&store, &file, 1, Compression::None);
    let busy = dir.path().join("busy");
    std::fs::create_dir(&busy).unwrap();
    std::fs::write(busy.join("precious"), b"keep me").unwrap();
    assert!(matches!(import(&file, &busy), Err(Error::TargetExists { .. })));
    assert_eq!(std::fs::read(busy.join("precious")).unwrap(), b"keep me");
    // An empty directory is fine, and stays (now holding the store).
    let empty = dir.path().join("empty");
    std::fs::create_dir(&empty).unwrap();
    import(&file, &empty).unwrap();
    assert!(open(&empty).queue_names().unwrap().len() == 5);

    let opts = ExportOptions::default();
    assert!(matches!(
        store.export_to(&file, &opts, &mut no_progress()),
        Err(Error::TargetExists { .. })
    ));
    assert!(matches!(
        snapshot::import_store(
            &dir.path().join("missing.rcs"),
            &dir.path().join("x"),
            &ImportOptions::default(),
            &mut no_progress()
        ),
        Err(Error::Io { .. })
    ));
    assert!(!dir.path().join("x").exists());
}

#[test]
fn progress_is_reported_and_a_listener_error_stops_the_export_without_leaving_a_file() {
    let dir = tempfile::tempdir().unwrap();
    let (store, _) = varied_store(&dir.path().join("src"));
    let file = dir.path().join("p.rcs");
    let mut seen: Vec<Progress> = Vec::new();
    let opts = ExportOptions {
        frame_bytes: 1024,
        ..ExportOptions::default()
    };
    store
        .export_to(&file, &opts, &mut |p| {
            seen.push(*p);
            Ok(())
        })
        .unwrap();
    let last = seen.last().unwrap();
    assert!(last.done && last.bytes == std::fs::metadata(&file).unwrap().len());
    let mut verified: Vec<Progress> = Vec::new();
    snapshot::verify(&file, 2, &mut |p| {
        verified.push(*p);
        Ok(())
    })
    .unwrap();
    assert!(verified.last().unwrap().done);

    let stopped = dir.path().join("stopped.rcs");
    let result = store.export_to(&stopped, &opts, &mut |_| {
        Err(Error::InvalidArgument("cancelled by the listener".into()))
    });
    assert!(matches!(result, Err(Error::InvalidArgument(_))));
    assert!(!stopped.exists());
    let leftovers: Vec<PathBuf> = std::fs::read_dir(dir.path())
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.to_string_lossy().contains("partial"))
        .collect();
    assert!(leftovers.is_empty(), "{leftovers:?}");
}

#[test]
fn a_checkpoint_opens_as_a_store_with_the_same_content() {
    let dir = tempfile::tempdir().unwrap();
    let (store, objects) = varied_store(&dir.path().join("src"));
    let cp = dir.path().join("cp");
    store.checkpoint(&cp).unwrap();
    // The original moves on; the checkpoint does not.
    let before = content(&store, &objects);
    let mut tx = store.begin().unwrap();
    tx.poll("alpha", 3).unwrap();
    tx.commit().unwrap();
    assert_eq!(content(&open(&cp), &objects), before);
    assert!(matches!(store.checkpoint(&cp), Err(Error::TargetExists { .. })));
}

#[test]
fn an_empty_store_round_trips() {
    let dir = tempfile::tempdir().unwrap();
    let store = open(&dir.path().join("src"));
    let file = dir.path().join("empty.rcs");
    let s = export(&store, &file, 3, Compression::Zstd);
    assert_eq!((s.counts.frames, s.counts.records), (0, 0));
    import(&file, &dir.path().join("dst")).unwrap();
    assert!(open(&dir.path().join("dst")).queue_names().unwrap().is_empty());
}

mod caskets {
    use super::*;
    use rockcask_core::casket::{Casket, CasketOptions, KeyOrder, Kind, PutMode};

    fn casket(path: &Path, order: KeyOrder) -> Casket {
        Casket::open(
            path,
            CasketOptions {
                order,
                create: true,
                ..CasketOptions::new(Kind::Btree, true)
            },
        )
        .unwrap()
    }

    /// Every key with its values, in the casket's order.
    fn records(c: &Casket) -> Vec<(Vec<u8>, Vec<Vec<u8>>)> {
        let mut out: Vec<(Vec<u8>, Vec<Vec<u8>>)> = Vec::new();
        c.scan(|scan| {
            while let Some((k, v)) = scan.next_value().unwrap() {
                match out.last_mut() {
                    Some((last, values)) if *last == k => values.push(v),
                    _ => out.push((k, vec![v])),
                }
            }
        })
        .unwrap();
        out
    }

    #[test]
    fn a_casket_round_trips_with_its_order_and_duplicates() {
        let dir = tempfile::tempdir().unwrap();
        let src = dir.path().join("src.tcb");
        let c = casket(&src, KeyOrder::Decimal);
        for i in (0..400).rev() {
            c.put(
                format!("{}", i * 7 % 1000).as_bytes(),
                format!("v{i}").as_bytes(),
                PutMode::Dup,
            )
            .unwrap();
        }
        c.put(b"12", b"another", PutMode::Dup).unwrap();
        c.put(b"\x00binary\xff", &[0u8; 2000], PutMode::Dup).unwrap();
        let expected = records(&c);
        c.close().unwrap();

        let file = dir.path().join("casket.rcs");
        let opts = ExportOptions {
            frame_bytes: 512,
            created_unix_millis: Some(1),
            compression: Compression::Lz4,
            ..ExportOptions::default()
        };
        let out = snapshot::export_casket(&src, &file, &opts, &mut no_progress()).unwrap();
        assert_eq!((out.counts.keys, out.counts.values), (expected.len() as u64, 402));
        assert_eq!(out.header.casket_order, "decimal");
        let copy = dir.path().join("copy.tcb");
        let back = snapshot::import_casket(&file, &copy, 2, &mut no_progress()).unwrap();
        assert_eq!(back.counts, out.counts);
        let opened = Casket::open(
            &copy,
            CasketOptions {
                order: KeyOrder::Decimal,
                ..CasketOptions::new(Kind::Btree, false)
            },
        )
        .unwrap();
        assert_eq!(records(&opened), expected);
        assert_eq!(opened.rnum().unwrap(), 402);
        assert!(snapshot::verify(&file, 2, &mut no_progress()).is_ok());

        // A store snapshot is not a casket snapshot, and the other way round.
        assert!(matches!(
            import(&file, &dir.path().join("as-store")),
            Err(Error::Snapshot { .. })
        ));
        assert!(!dir.path().join("as-store").exists());
        let damaged = dir.path().join("damaged.rcs");
        let mut bytes = std::fs::read(&file).unwrap();
        let len = bytes.len();
        bytes.truncate(len - 40);
        std::fs::write(&damaged, bytes).unwrap();
        let third = dir.path().join("third.tcb");
        assert!(matches!(
            snapshot::import_casket(&damaged, &third, 2, &mut no_progress()),
            Err(Error::Snapshot { .. })
        ));
        assert!(!third.exists() && !rockcask_core::casket::files::data_dir(&third).exists());
        assert!(matches!(
            snapshot::import_casket(&file, &copy, 2, &mut no_progress()),
            Err(Error::TargetExists { .. })
        ));
    }

    #[test]
    fn a_key_whose_values_exceed_a_frame_is_split_over_records_and_comes_back_whole() {
        let dir = tempfile::tempdir().unwrap();
        let src = dir.path().join("many.tcb");
        let c = casket(&src, KeyOrder::Lexical);
        let values: Vec<Vec<u8>> = (0..300u32)
            .map(|i| format!("value {i:04} {}", "x".repeat(40)).into_bytes())
            .collect();
        c.put_list(b"jobs", values.iter().map(Vec::as_slice)).unwrap();
        c.put(b"zzz", b"last", PutMode::Dup).unwrap();
        c.close().unwrap();
        let file = dir.path().join("many.rcs");
        let opts = ExportOptions {
            frame_bytes: 1024,
            ..ExportOptions::default()
        };
        let out = snapshot::export_casket(&src, &file, &opts, &mut no_progress()).unwrap();
        assert!(
            out.counts.keys > 10,
            "the values should span many records: {:?}",
            out.counts
        );
        assert_eq!(out.counts.values, 301);
        let copy = dir.path().join("copy.tcb");
        snapshot::import_casket(&file, &copy, 2, &mut no_progress()).unwrap();
        let back = Casket::open(
            &copy,
            CasketOptions {
                order: KeyOrder::Lexical,
                ..CasketOptions::new(Kind::Btree, false)
            },
        )
        .unwrap();
        assert_eq!(back.get_list(b"jobs").unwrap(), values);
        assert_eq!(back.rnum().unwrap(), 301);
    }

    #[test]
    fn a_casket_with_a_callers_order_is_refused_with_the_reason() {
        let dir = tempfile::tempdir().unwrap();
        let src = dir.path().join("ext.tcb");
        let order = KeyOrder::External {
            name: "Reverse".into(),
            compare: Arc::new(|a: &[u8], b: &[u8]| b.cmp(a)),
        };
        casket(&src, order).close().unwrap();
        let e = snapshot::export_casket(
            &src,
            &dir.path().join("x.rcs"),
            &ExportOptions::default(),
            &mut no_progress(),
        )
        .unwrap_err();
        assert!(e.to_string().contains("comparator"), "{e}");
        assert!(!dir.path().join("x.rcs").exists());
    }
}

#[test]
fn a_header_naming_unknown_content_is_refused_at_the_header() {
    let dir = tempfile::tempdir().unwrap();
    let store = open(&dir.path().join("src"));
    let file = dir.path().join("s.rcs");
    export(&store, &file, 1, Compression::None);
    let good = std::fs::read(&file).unwrap();
    let header_len = u32::from_le_bytes(good[12..16].try_into().unwrap()) as usize;
    let mut header = snapshot::read_header(&file).unwrap();
    header.content = 7;
    let mut bad = snapshot::format::encode_header(&header);
    bad.extend_from_slice(&good[16 + header_len + 4..]);
    std::fs::write(&file, &bad).unwrap();
    let e = snapshot::verify(&file, 1, &mut no_progress()).unwrap_err();
    assert!(
        matches!(&e, Error::Snapshot { offset: 16, .. }) && e.to_string().contains("unknown content"),
        "{e}"
    );
}

#[test]
fn two_imports_into_one_directory_leave_exactly_one_whole_store() {
    let dir = tempfile::tempdir().unwrap();
    let (store, objects) = varied_store(&dir.path().join("src"));
    let file = dir.path().join("s.rcs");
    export(&store, &file, 2, Compression::None);
    let target = dir.path().join("target");
    let results: Vec<Result<Summary, Error>> = std::thread::scope(|s| {
        let runs: Vec<_> = (0..2).map(|_| s.spawn(|| import(&file, &target))).collect();
        runs.into_iter().map(|r| r.join().unwrap()).collect()
    });
    assert_eq!(results.iter().filter(|r| r.is_ok()).count(), 1, "{results:?}");
    assert!(
        results.iter().any(|r| matches!(r, Err(Error::TargetExists { .. }))),
        "{results:?}"
    );
    assert_eq!(content(&open(&target), &objects), content(&store, &objects));
    let leftovers: Vec<_> = std::fs::read_dir(dir.path())
        .unwrap()
        .flatten()
        .filter(|e| e.file_name().to_string_lossy().starts_with('.'))
        .collect();
    assert!(leftovers.is_empty(), "{leftovers:?}");
}

#[test]
fn a_listener_may_use_the_store_while_another_thread_closes_it() {
    let dir = tempfile::tempdir().unwrap();
    let (store, _) = varied_store(&dir.path().join("src"));
    let file = dir.path().join("s.rcs");
    let closer = store.clone();
    let mut closing: Option<std::thread::JoinHandle<()>> = None;
    let opts = ExportOptions {
        frame_bytes: 256,
        ..ExportOptions::default()
    };
    let result = store.export_to(&file, &opts, &mut |_| {
        if closing.is_none() {
            let c = closer.clone();
            closing = Some(std::thread::spawn(move || c.close().unwrap()));
            std::thread::sleep(std::time::Duration::from_millis(50));
        }
        // Before the close: works; once it has begun: refused at once, never a hang.
        match store.stats() {
            Ok(_) | Err(Error::Closed(_)) => Ok(()),
            Err(e) => Err(e),
        }
    });
    assert!(result.is_ok(), "{result:?}");
    closing.unwrap().join().unwrap();
    assert!(store.is_closed());
}

#[test]
fn a_listener_failing_on_the_last_report_leaves_no_store_and_no_file() {
    let dir = tempfile::tempdir().unwrap();
    let (store, _) = varied_store(&dir.path().join("src"));
    let fail_when_done = |p: &Progress| {
        if p.done {
            Err(Error::InvalidArgument("stopped at the end".into()))
        } else {
            Ok(())
        }
    };
    let file = dir.path().join("s.rcs");
    assert!(store
        .export_to(&file, &ExportOptions::default(), &mut fail_when_done.clone())
        .is_err());
    assert!(!file.exists());
    export(&store, &file, 1, Compression::None);
    let target = dir.path().join("target");
    let options = ImportOptions {
        workers: 1,
        store: options(),
    };
    assert!(snapshot::import_store(&file, &target, &options, &mut fail_when_done.clone()).is_err());
    assert!(!target.exists());
    let entries: Vec<_> = std::fs::read_dir(dir.path())
        .unwrap()
        .flatten()
        .map(|e| e.file_name())
        .collect();
    assert_eq!(
        entries.len(),
        2,
        "only the source store and the file remain: {entries:?}"
    );
}

#[test]
fn maps_round_trip_through_a_snapshot_with_their_names_and_pairs_in_order() {
    let dir = tempfile::tempdir().unwrap();
    let store = open(&dir.path().join("a"));
    let mut tx = store.begin().unwrap();
    tx.map_put("zeta", b"k", b"last map").unwrap();
    tx.map_put("alpha", &[0xFF, 0x00], &vec![7u8; 70_000]).unwrap();
    tx.map_put("alpha", b"a", b"").unwrap();
    tx.map_add("counts", b"hits", 41).unwrap();
    tx.enqueue("q", b"an entry").unwrap();
    tx.commit().unwrap();
    let file = dir.path().join("s.snap");
    let summary = export(&store, &file, 2, Compression::Zstd);
    assert_eq!(
        (summary.counts.maps, summary.counts.map_entries, summary.format_version),
        (3, 4, 4)
    );
    let verified = snapshot::verify(&file, 2, &mut no_progress()).unwrap();
    assert_eq!(verified.counts, summary.counts);
    import(&file, &dir.path().join("b")).unwrap();
    let copy = open(&dir.path().join("b"));
    assert_eq!(copy.map_names().unwrap(), vec!["alpha", "counts", "zeta"]);
    let mut tx = copy.begin().unwrap();
    let alpha = tx
        .map_scan(
            "alpha",
            &Default::default(),
            rockcask_core::maps::Direction::Forward,
            10,
        )
        .unwrap();
    assert_eq!(
        alpha,
        vec![(b"a".to_vec(), vec![]), (vec![0xFF, 0x00], vec![7u8; 70_000])]
    );
    tx.map_add("counts", b"hits", 1).unwrap();
    tx.map_put("new", b"k", b"v").unwrap();
    tx.commit().unwrap();
    let mut tx = copy.begin().unwrap();
    assert_eq!(
        tx.map_get("counts", b"hits").unwrap(),
        Some(42i64.to_le_bytes().to_vec())
    );
    assert_eq!(tx.map_get("zeta", b"k").unwrap().as_deref(), Some(&b"last map"[..]));
    assert_eq!(
        copy.map_names().unwrap(),
        vec!["alpha", "counts", "new", "zeta"],
        "ids continue after the imported ones"
    );
    assert_eq!(copy.queue_size("q").unwrap(), 1);
}

#[test]
fn entries_waiting_out_a_delay_are_exported_and_checkpointed_and_due_at_once_there() {
    let dir = tempfile::tempdir().unwrap();
    let store = open(&dir.path().join("src"));
    let mut tx = store.begin().unwrap();
    for i in 0u8..4 {
        tx.enqueue("q", &[i]).unwrap();
    }
    tx.commit().unwrap();
    let mut tx = store.begin().unwrap();
    tx.poll("q", 2).unwrap();
    tx.rollback_because("later", Some(std::time::Duration::from_secs(3600)))
        .unwrap();
    // A commit after the rollback writes the head layout with the delayed entries below the head.
    let mut tx = store.begin().unwrap();
    assert_eq!(tx.poll("q", 1).unwrap()[0].payload.as_deref(), Some(&[2u8][..]));
    tx.commit().unwrap();
    assert_eq!(store.queue_size("q").unwrap(), 3);
    let payloads = |s: &Store| -> Vec<Vec<u8>> {
        let mut tx = s.begin().unwrap();
        tx.peek("q", 10)
            .unwrap()
            .into_iter()
            .map(|m| m.payload.unwrap())
            .collect()
    };
    assert_eq!(payloads(&store), vec![vec![3]], "0 and 1 wait");

    let file = dir.path().join("snap");
    let summary = export(&store, &file, 2, Compression::None);
    assert_eq!(summary.counts.entries, 3, "the delayed entries are exported");
    import(&file, &dir.path().join("imported")).unwrap();
    let imported = open(&dir.path().join("imported"));
    assert_eq!(
        payloads(&imported),
        vec![vec![0], vec![1], vec![3]],
        "in order, due at once"
    );
    store.checkpoint(&dir.path().join("cp")).unwrap();
    let cp = open(&dir.path().join("cp"));
    assert_eq!(payloads(&cp), vec![vec![0], vec![1], vec![3]]);
}
