//! Read-only opens beside a live writer (`store.rs`, `open_read_only_beside_a_writer`).

use rockcask_core::{Store, StoreOptions};

/// 1 MiB memtables, so the writer frees a log every few commits.
fn small_memtables() -> StoreOptions {
    StoreOptions {
        write_buffer_bytes: rockcask_core::options::MIN_WRITE_BUFFER_BYTES * 4,
        ..StoreOptions::default()
    }
}

#[test]
fn read_only_opens_beside_a_busy_writer_see_every_commit_acknowledged_before_they_began() {
    use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
    use std::sync::Arc;
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("s");
    let store = Store::open(&path, small_memtables()).unwrap();
    let acknowledged = Arc::new(AtomicU64::new(0));
    let stop = Arc::new(AtomicBool::new(false));
    let writer = {
        let (store, acknowledged, stop) = (store.clone(), acknowledged.clone(), stop.clone());
        std::thread::spawn(move || {
            let payload = vec![0x33u8; 4096];
            while !stop.load(Ordering::Relaxed) {
                let mut tx = store.begin().unwrap();
                for _ in 0..16 {
                    tx.enqueue("q", &payload).unwrap();
                }
                tx.commit().unwrap();
                acknowledged.fetch_add(16, Ordering::Release);
            }
        })
    };
    let read_only = StoreOptions {
        read_only: true,
        ..small_memtables()
    };
    // An open during which the writer moved a log it was reading is refused as busy, and said
    // so ("try again"); on a loaded machine several in a row can be. Every open that succeeds
    // must see what was acknowledged before it began.
    let (mut opened, mut busy) = (0, 0);
    for open in 0..40 {
        let floor = acknowledged.load(Ordering::Acquire);
        let reader = match Store::open(&path, read_only.clone()) {
            Ok(reader) => reader,
            Err(rockcask_core::Error::Rocks {
                status: rocksdb::ErrorKind::Busy,
                ..
            }) => {
                busy += 1;
                continue;
            }
            Err(e) => panic!("read-only open {open} beside a live writer: {e}"),
        };
        let seen = reader.queue_size("q").unwrap();
        assert!(
            seen >= floor,
            "read-only open {open} saw {seen} items, {floor} were committed before it began"
        );
        reader.close().unwrap();
        opened += 1;
    }
    stop.store(true, Ordering::Relaxed);
    writer.join().unwrap();
    store.close().unwrap();
    assert!(
        opened >= 20,
        "only {opened} of 40 read-only opens succeeded ({busy} refused as busy)"
    );
}

#[test]
fn read_only_opens_beside_a_writer_that_flushes_and_compacts_all_the_time_never_report_damage() {
    use std::sync::atomic::{AtomicBool, Ordering};
    use std::sync::Arc;
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("s");
    // The smallest memtables: a flush every commit or two, compactions deleting table files
    // while the opens below read the MANIFEST that names them.
    let tiny = StoreOptions {
        write_buffer_bytes: rockcask_core::options::MIN_WRITE_BUFFER_BYTES,
        ..StoreOptions::default()
    };
    let store = Store::open(&path, tiny.clone()).unwrap();
    let stop = Arc::new(AtomicBool::new(false));
    let writer = {
        let (store, stop) = (store.clone(), stop.clone());
        std::thread::spawn(move || {
            let payload = vec![0x44u8; 4096];
            while !stop.load(Ordering::Relaxed) {
                let mut tx = store.begin().unwrap();
                for _ in 0..16 {
                    tx.enqueue("q", &payload).unwrap();
                }
                tx.poll("q", 8).unwrap();
                tx.commit().unwrap();
            }
        })
    };
    let read_only = StoreOptions {
        read_only: true,
        ..tiny
    };
    let mut busy = 0;
    for open in 0..200 {
        match Store::open(&path, read_only.clone()) {
            Ok(reader) => reader.close().unwrap(),
            // Allowed, and said so: the writer moved files during every try.
            Err(rockcask_core::Error::Rocks {
                status: rocksdb::ErrorKind::Busy,
                ..
            }) => busy += 1,
            Err(e) => panic!("read-only open {open} beside a live writer: {e}"),
        }
    }
    stop.store(true, Ordering::Relaxed);
    writer.join().unwrap();
    store.close().unwrap();
    assert!(busy < 100, "{busy} of 200 opens were refused as busy");
}
