//! A store whose own files are damaged is reported as damaged (`Corruption` or RocksDB's
//! status, naming the file), never as "not a store": a user told that might delete it.

use std::path::{Path, PathBuf};

use rockcask_core::{Error, Store, StoreOptions};

fn make_store(dir: &Path) {
    let store = Store::open(dir, StoreOptions::default()).unwrap();
    let mut tx = store.begin().unwrap();
    for i in 0..100u32 {
        tx.enqueue("q", &i.to_be_bytes()).unwrap();
    }
    tx.commit().unwrap();
    // Table files and a MANIFEST that describes them.
    store.compact().unwrap();
    store.close().unwrap();
}

fn manifest(dir: &Path) -> PathBuf {
    dir.join(std::fs::read_to_string(dir.join("CURRENT")).unwrap().trim())
}

fn check_reported_as_damaged(dir: &Path, how: &str) {
    match Store::open(dir, StoreOptions::default()) {
        Ok(_) => panic!("{how}: opened as if intact"),
        Err(e @ Error::NotAStore { .. }) => panic!("{how}: reported as not a store: {e}"),
        Err(e @ Error::Rocks { .. }) => {
            let message = e.to_string();
            assert!(
                message.contains("MANIFEST"),
                "{how}: does not name the MANIFEST: {message}"
            );
            assert!(message.contains("do not delete it"), "{how}: {message}");
            eprintln!("{how}: {message}");
        }
        Err(e) => panic!("{how}: unexpected error {e}"),
    }
}

/// A way of damaging the MANIFEST (given its path), named.
type Damage = (&'static str, fn(&Path));

#[test]
fn a_damaged_manifest_is_reported_as_a_damaged_store_naming_it() {
    let cases: [Damage; 5] = [
        ("emptied", |m| std::fs::write(m, b"").unwrap()),
        ("truncated to half", |m| {
            let len = std::fs::metadata(m).unwrap().len();
            std::fs::OpenOptions::new()
                .write(true)
                .open(m)
                .unwrap()
                .set_len(len / 2)
                .unwrap();
        }),
        ("overwritten with zeros", |m| {
            let len = std::fs::metadata(m).unwrap().len() as usize;
            std::fs::write(m, vec![0u8; len]).unwrap();
        }),
        ("bytes flipped in the middle", |m| {
            let mut bytes = std::fs::read(m).unwrap();
            let mid = bytes.len() / 2;
            for b in &mut bytes[mid..mid + 8] {
                *b ^= 0x5A;
            }
            std::fs::write(m, bytes).unwrap();
        }),
        ("deleted", |m| std::fs::remove_file(m).unwrap()),
    ];
    for (how, damage) in cases {
        let dir = tempfile::tempdir().unwrap();
        make_store(dir.path());
        damage(&manifest(dir.path()));
        check_reported_as_damaged(dir.path(), how);
    }
}

#[test]
fn opening_a_store_whose_manifest_lost_its_last_records_deletes_none_of_its_files() {
    let dir = tempfile::tempdir().unwrap();
    make_store(dir.path());
    let m = manifest(dir.path());
    let len = std::fs::metadata(&m).unwrap().len();
    // Cut at half: RocksDB takes the torn tail for an unfinished write and recovers an older
    // version of the store, in which the table files written later are not referenced. A
    // writable open would delete them as obsolete.
    std::fs::OpenOptions::new()
        .write(true)
        .open(&m)
        .unwrap()
        .set_len(len / 2)
        .unwrap();
    let tables = |p: &Path| -> Vec<String> {
        let mut names: Vec<String> = std::fs::read_dir(p)
            .unwrap()
            .flatten()
            .map(|e| e.file_name().to_string_lossy().into_owned())
            .filter(|n| n.ends_with(".sst") || n.starts_with("MANIFEST-"))
            .collect();
        names.sort();
        names
    };
    let before = tables(dir.path());
    check_reported_as_damaged(dir.path(), "manifest cut at half");
    assert_eq!(tables(dir.path()), before, "the refused open removed files");
    // Refused again, the same way, and still nothing is lost.
    check_reported_as_damaged(dir.path(), "manifest cut at half, second open");
    assert_eq!(tables(dir.path()), before);
}

#[test]
fn a_foreign_rocksdb_database_opened_for_writing_is_not_a_store_and_keeps_no_lock_file() {
    let dir = tempfile::tempdir().unwrap();
    {
        let mut o = rocksdb::Options::default();
        o.create_if_missing(true);
        let db = rocksdb::DB::open(&o, dir.path()).unwrap();
        db.put(b"k", b"v").unwrap();
    }
    // The writer's own lock file, taken before the directory is looked at, must not make a
    // foreign database look like a damaged store.
    let err = Store::open(dir.path(), StoreOptions::default()).err().unwrap();
    assert!(matches!(err, Error::NotAStore { .. }), "{err}");
    assert!(!dir.path().join(rockcask_core::LOCK_FILE).exists());
}

/// A store opened again lives in a MANIFEST that starts with its whole layout at that open.
/// When that MANIFEST loses only what came after (here its last byte, so its last record, of
/// the close), the older layout it still describes has RockCask's column families, its format
/// marker and every file it names, and RocksDB opens it: only the length the last writer
/// recorded shows the loss (and what the lost records held is not known to the open).
#[test]
fn a_reopened_store_whose_manifest_lost_its_last_record_is_refused_with_its_files_in_place() {
    let dir = tempfile::tempdir().unwrap();
    make_store(dir.path());
    let store = Store::open(dir.path(), StoreOptions::default()).unwrap();
    let mut tx = store.begin().unwrap();
    // Over `close`'s flush threshold: the close writes the memtables to a new table file.
    for i in 0..4_000u32 {
        tx.enqueue("later", &[(i % 251) as u8; 1024]).unwrap();
    }
    tx.commit().unwrap();
    store.close().unwrap();
    let m = manifest(dir.path());
    let len = std::fs::metadata(&m).unwrap().len();
    std::fs::OpenOptions::new()
        .write(true)
        .open(&m)
        .unwrap()
        .set_len(len - 1)
        .unwrap();
    let files = |p: &Path| -> Vec<String> {
        let mut names: Vec<String> = std::fs::read_dir(p)
            .unwrap()
            .flatten()
            .map(|e| e.file_name().to_string_lossy().into_owned())
            .collect();
        names.sort();
        names
    };
    let before = files(dir.path());
    check_reported_as_damaged(dir.path(), "a reopened store's manifest without its last byte");
    assert_eq!(files(dir.path()), before, "the refused open changed the directory");
}
