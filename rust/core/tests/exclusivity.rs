//! A store directory is open at most once, whatever path spells it and whoever asks: RockCask's
//! own lock (`lock.rs`) is taken before RocksDB opens and conflicts between any two opens.

use std::path::{Path, PathBuf};

use rockcask_core::{Error, Store, StoreOptions, LOCK_FILE};

fn writer() -> StoreOptions {
    StoreOptions {
        sync_on_commit: false,
        ..StoreOptions::default()
    }
}

fn reader() -> StoreOptions {
    StoreOptions {
        read_only: true,
        create_if_missing: false,
        ..StoreOptions::default()
    }
}

fn expect_locked(path: &Path, options: StoreOptions) -> String {
    match Store::open(path, options) {
        Err(e @ Error::Locked { .. }) => e.to_string(),
        Err(e) => panic!("expected Locked for {}, got {e}", path.display()),
        Ok(_) => panic!("a second handle was opened on {}", path.display()),
    }
}

fn committed(store: &Store, queue: &str, item: &[u8]) {
    let mut tx = store.begin().unwrap();
    tx.enqueue(queue, item).unwrap();
    tx.commit().unwrap();
}

#[test]
fn a_second_open_through_a_symlink_is_refused_and_names_this_process() {
    let dir = tempfile::tempdir().unwrap();
    let store_dir = dir.path().join("s");
    let store = Store::open(&store_dir, writer()).unwrap();
    let link = dir.path().join("link");
    std::os::unix::fs::symlink(&store_dir, &link).unwrap();
    let message = expect_locked(&link, writer());
    assert!(message.contains(&format!("pid {} ", std::process::id())), "{message}");
    assert!(message.contains("this very process"), "{message}");
    assert!(message.contains(LOCK_FILE), "{message}");
    // A read-only open writes nothing, so it may look beside the writer, by any path.
    let peek = Store::open(&link, reader()).unwrap();
    peek.close().unwrap();
    store.close().unwrap();
    Store::open(&link, writer()).unwrap().close().unwrap();
}

#[test]
fn a_second_open_through_dot_dot_or_proc_self_root_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let store_dir = dir.path().join("s");
    std::fs::create_dir(dir.path().join("x")).unwrap();
    let store = Store::open(&store_dir, writer()).unwrap();
    committed(&store, "q", b"one");
    let spellings: Vec<PathBuf> = vec![
        dir.path().join("x").join("..").join("s"),
        dir.path().join("s").join("."),
        Path::new("/proc/self/root").join(store_dir.strip_prefix("/").unwrap()),
    ];
    for other in &spellings {
        expect_locked(other, writer());
    }
    // The first handle is unharmed by the refused opens.
    committed(&store, "q", b"two");
    store.close().unwrap();
    let again = Store::open(&spellings[0], writer()).unwrap();
    assert_eq!(again.queue_size("q").unwrap(), 2);
}

#[test]
fn read_only_opens_work_beside_a_writer_and_each_other_and_never_block_it() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("s");
    let w = Store::open(&path, writer()).unwrap();
    committed(&w, "q", b"x");
    let r1 = Store::open(&path, reader()).unwrap();
    let r2 = Store::open(&path, reader()).unwrap();
    // Each sees what was committed when it opened.
    assert_eq!(r1.queue_size("q").unwrap(), 1);
    assert_eq!(r2.queue_size("q").unwrap(), 1);
    w.close().unwrap();
    // A writer opens beside readers; a second writer still does not.
    let w = Store::open(&path, writer()).unwrap();
    expect_locked(&path, writer());
    committed(&w, "q", b"y");
    r1.close().unwrap();
    r2.close().unwrap();
    w.close().unwrap();
    assert_eq!(Store::open(&path, reader()).unwrap().queue_size("q").unwrap(), 2);
}

#[test]
fn a_dropped_store_that_was_never_closed_releases_its_lock() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("s");
    drop(Store::open(&path, writer()).unwrap());
    Store::open(&path, writer()).unwrap().close().unwrap();
}

#[test]
fn a_refused_or_failed_open_leaves_the_location_as_it_was() {
    let dir = tempfile::tempdir().unwrap();
    // A creation that fails (write buffers out of range) leaves no directory behind.
    let never = dir.path().join("never");
    let bad = StoreOptions {
        write_buffer_bytes: 0,
        ..writer()
    };
    assert!(matches!(Store::open(&never, bad), Err(Error::InvalidArgument(_))));
    assert!(!never.exists());
    // Nor does a failure after the directory was made (a file where a store's CURRENT goes).
    let empty = dir.path().join("empty");
    std::fs::create_dir(&empty).unwrap();
    std::fs::create_dir(empty.join("CURRENT")).unwrap();
    assert!(Store::open(&empty, writer()).is_err());
    assert!(!empty.join(LOCK_FILE).exists());

    // A directory holding only a lock file left behind is still an empty directory.
    let leftover = dir.path().join("leftover");
    std::fs::create_dir(&leftover).unwrap();
    std::fs::write(
        leftover.join(LOCK_FILE),
        b"pid 1 (gone) has it open for writing as /x since unix time 0\n",
    )
    .unwrap();
    let store = Store::open(&leftover, writer()).unwrap();
    committed(&store, "q", b"x");
    store.close().unwrap();
}

#[test]
fn racing_creators_of_one_store_get_one_handle() {
    for _ in 0..20 {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("s");
        let barrier = std::sync::Barrier::new(4);
        let opened: Vec<bool> = std::thread::scope(|scope| {
            let handles: Vec<_> = (0..4)
                .map(|_| {
                    scope.spawn(|| {
                        barrier.wait();
                        match Store::open(&path, writer()) {
                            Ok(store) => {
                                // Held until every racer has tried.
                                std::thread::sleep(std::time::Duration::from_millis(200));
                                store.close().unwrap();
                                true
                            }
                            Err(Error::Locked { .. }) => false,
                            Err(e) => panic!("unexpected: {e}"),
                        }
                    })
                })
                .collect();
            handles.into_iter().map(|h| h.join().unwrap()).collect()
        });
        assert_eq!(opened.iter().filter(|&&o| o).count(), 1, "{opened:?}");
        Store::open(&path, writer()).unwrap().close().unwrap();
    }
}
