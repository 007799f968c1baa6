use super::*;

#[test]
fn a_directory_with_an_open_rocksdb_counts_as_in_use() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("db");
    assert!(!dir_in_use(&dir).unwrap());
    let mut o = rocksdb::Options::default();
    o.create_if_missing(true);
    let db = rocksdb::DB::open(&o, &dir).unwrap();
    assert!(dir_in_use(&dir).unwrap());
    // The probe must not have released RocksDB's own lock.
    assert!(rocksdb::DB::open(&o, &dir).is_err());
    drop(db);
    assert!(!dir_in_use(&dir).unwrap());
    assert!(rocksdb::DB::open(&o, &dir).is_ok());
}

#[test]
fn marker_round_trips_and_rejects_other_files() {
    let m = Marker::new(Kind::Btree, "int32".into());
    assert_eq!(Marker::parse(&m.render()), Some(m.clone()));
    assert_eq!(Marker::parse("hello"), None);
    assert!(m.check(Path::new("x"), Kind::Hash, "int32").is_err());
    assert_eq!(
        m.check(Path::new("x"), Kind::Btree, "lexical").unwrap_err().code,
        Ecode::Meta
    );
}

#[test]
fn data_dir_is_beside_the_path() {
    assert_eq!(data_dir(Path::new("/a/b/q.tcb")), PathBuf::from("/a/b/q.tcb.rockcask"));
}

#[test]
fn a_directory_rockcask_did_not_create_is_never_removed() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("x.rockcask");
    fs::create_dir(&dir).unwrap();
    fs::write(dir.join("precious"), "data").unwrap();
    assert_eq!(remove_stale_dir(&dir).unwrap_err().code, Ecode::Rmdir);
    assert!(dir.join("precious").exists());
    fs::remove_file(dir.join("precious")).unwrap();
    create_dir(&tmp.path().join("y.rockcask")).unwrap();
    remove_stale_dir(&tmp.path().join("y.rockcask")).unwrap();
    remove_stale_dir(&dir).unwrap();
    assert!(!dir.exists());
}

#[test]
fn an_open_file_holds_a_flock_when_its_fdinfo_lists_one() {
    let unlocked = "pos:\t0\nflags:\t02100002\nmnt_id:\t31\nino:\t123\n";
    assert!(!holds_flock(unlocked));
    assert!(holds_flock(&format!(
        "{unlocked}lock:\t1: FLOCK  ADVISORY  WRITE 42 fe:00:123 0 EOF\n"
    )));
    assert!(!holds_flock(&format!(
        "{unlocked}lock:\t1: POSIX  ADVISORY  WRITE 42 fe:00:123 0 EOF\n"
    )));
    assert!(!holds_flock(&format!(
        "{unlocked}lock:\t1: OFDLCK ADVISORY  READ -1 fe:00:123 0 EOF\n"
    )));
}

#[test]
fn the_count_of_this_processs_flocks_stays_exact_while_other_files_are_locked_and_unlocked() {
    // Hundreds of locks taken and dropped on other files meanwhile: /proc/locks, printed a
    // page at a time, then shows some locks twice or not at all.
    use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
    let tmp = tempfile::tempdir().unwrap();
    let path = tmp.path().join("m");
    fs::write(&path, b"").unwrap();
    let held = File::open(&path).unwrap();
    held.try_lock_shared().unwrap();
    let (stop, cycles) = (
        std::sync::Arc::new(AtomicBool::new(false)),
        std::sync::Arc::new(AtomicUsize::new(0)),
    );
    let churn: Vec<_> = (0..2)
        .map(|t| {
            let (stop, cycles, dir) = (stop.clone(), cycles.clone(), tmp.path().to_path_buf());
            std::thread::spawn(move || {
                let files: Vec<File> = (0..200)
                    .map(|i| File::create(dir.join(format!("other{t}-{i}"))).unwrap())
                    .collect();
                while !stop.load(Ordering::Relaxed) {
                    files.iter().for_each(|f| f.try_lock().unwrap());
                    files.iter().for_each(|f| f.unlock().unwrap());
                    cycles.fetch_add(1, Ordering::Relaxed);
                }
            })
        })
        .collect();
    while cycles.load(Ordering::Relaxed) < 2 {
        std::thread::yield_now();
    }
    let until = std::time::Instant::now() + std::time::Duration::from_millis(500);
    let mut counts = std::collections::BTreeMap::new();
    while std::time::Instant::now() < until {
        *counts.entry(flocks_in_this_process(&held)).or_insert(0) += 1;
    }
    stop.store(true, Ordering::Relaxed);
    churn.into_iter().for_each(|t| t.join().unwrap());
    assert_eq!(
        counts.keys().copied().collect::<Vec<_>>(),
        vec![1],
        "counts seen (count: times): {counts:?}"
    );
}

#[test]
fn a_lock_held_through_another_open_file_of_this_process_is_refused_at_once() {
    // What another copy of the library (another class loader) looks like: the same marker
    // locked through another open file, with no entry in this copy's registry.
    let tmp = tempfile::tempdir().unwrap();
    let path = tmp.path().join("m");
    let first = MarkerFile::open(&path, true, true, LockMode::Blocking).unwrap();
    assert_eq!(flocks_in_this_process(&first.file), 1);
    for (writer, lock) in [
        (true, LockMode::Blocking),
        (false, LockMode::Blocking),
        (true, LockMode::NonBlocking),
        (false, LockMode::None),
    ] {
        let e = MarkerFile::open(&path, writer, false, lock).err().expect("refused");
        assert_eq!(e.code, Ecode::Lock);
        assert!(e.detail.contains("already open in this process"), "{}", e.detail);
    }
    drop(first);
    let reader = MarkerFile::open(&path, false, false, LockMode::Blocking).unwrap();
    let e = MarkerFile::open(&path, false, false, LockMode::Blocking)
        .err()
        .expect("a second shared lock is refused");
    assert_eq!(e.code, Ecode::Lock);
    drop(reader);
    MarkerFile::open(&path, true, false, LockMode::NonBlocking).unwrap();
}

#[test]
fn second_registration_of_one_path_is_refused_until_the_first_is_dropped() {
    let first = OpenRegistration::register(Path::new("/tmp/rockcask-registry-test")).unwrap();
    let again = OpenRegistration::register(Path::new("/tmp/rockcask-registry-test"));
    assert_eq!(again.err().map(|e| e.code), Some(Ecode::Lock));
    drop(first);
    OpenRegistration::register(Path::new("/tmp/rockcask-registry-test")).unwrap();
}
