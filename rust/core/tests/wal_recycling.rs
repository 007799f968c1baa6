//! The write-ahead log is recycled (a synced commit overwrites an old log file instead of growing
//! a new one, which is what makes it cheap: `store.rs`, `db_options`), and what recycling keeps
//! does not outlive a clean close (`wal_files.rs`).

use std::collections::BTreeSet;
use std::os::unix::fs::MetadataExt;
use std::path::Path;

use rockcask_core::{Store, StoreOptions};

/// (name, inode) of each write-ahead log file in `dir`.
fn logs(dir: &Path) -> BTreeSet<(String, u64)> {
    std::fs::read_dir(dir)
        .unwrap()
        .flatten()
        .filter(|e| e.file_name().to_string_lossy().ends_with(".log") && e.file_name() != "LOG")
        .map(|e| (e.file_name().to_string_lossy().into_owned(), e.metadata().unwrap().ino()))
        .collect()
}

/// A store with 1 MiB memtables, so a few megabytes of commits free several logs.
fn small_memtables() -> StoreOptions {
    StoreOptions { write_buffer_bytes: rockcask_core::options::MIN_WRITE_BUFFER_BYTES * 4, ..StoreOptions::default() }
}

/// Commits `rounds` transactions that enqueue 64 payloads of 4 KiB and consume as many.
fn churn(store: &Store, rounds: usize, mut each: impl FnMut()) {
    let payload = vec![0x5Au8; 4096];
    for _ in 0..rounds {
        let mut tx = store.begin().unwrap();
        tx.poll("q", 64).unwrap();
        for _ in 0..64 {
            tx.enqueue("q", &payload).unwrap();
        }
        tx.commit().unwrap();
        each();
    }
}

#[test]
fn new_logs_reuse_the_files_of_old_ones() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("s");
    let store = Store::open(&path, small_memtables()).unwrap();
    let mut seen = BTreeSet::new();
    churn(&store, 200, || seen.extend(logs(&path)));
    let names: BTreeSet<&String> = seen.iter().map(|(name, _)| name).collect();
    let inodes: BTreeSet<u64> = seen.iter().map(|&(_, inode)| inode).collect();
    assert!(names.len() >= 4, "50 MiB of commits over 1 MiB memtables should have switched logs often: {seen:?}");
    assert!(inodes.len() < names.len(), "no log file was reused under a new number: {seen:?}");
    store.close().unwrap();
}

#[test]
fn a_clean_close_leaves_no_log_older_than_the_store_needs_and_reopens_with_every_commit() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("s");
    let store = Store::open(&path, small_memtables()).unwrap();
    churn(&store, 200, || {});
    // Items that stay in the queue: the reopened store must have each.
    let mut tx = store.begin().unwrap();
    for i in 0..1000u32 {
        tx.enqueue("kept", &i.to_be_bytes()).unwrap();
    }
    tx.commit().unwrap();
    store.close().unwrap();
    let left = logs(&path);
    assert!(left.len() <= 1, "a clean close after a flush leaves at most the log RocksDB writes next: {left:?}");

    let store = Store::open(&path, small_memtables()).unwrap();
    assert_eq!(store.queue_size("kept").unwrap(), 1000);
    let mut tx = store.begin().unwrap();
    let kept = tx.poll("kept", 1000).unwrap();
    assert!(kept.iter().enumerate().all(|(i, m)| m.payload.as_deref() == Some(&(i as u32).to_be_bytes()[..])));
    tx.rollback().unwrap();
    store.close().unwrap();
}
