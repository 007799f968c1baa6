//! Where a store is and whether RocksDB may open it: the directory prepared before it is locked,
//! a foreign or damaged directory refused with its files in place (never taken for "not a
//! store", which might get it deleted), and read-only opens beside a live writer tried again
//! when the writer moved the files they were reading.

use std::path::Path;

use rocksdb::{ColumnFamilyDescriptor, Options, DB};

use super::tuning::cf_options;
use crate::error::{Error, Result, RocksContext};
use crate::keys::{self, ALL_CFS, CF_MAPS, CF_META};
use crate::lock::LOCK_FILE;
use crate::manifest_record;
use crate::options::StoreOptions;
use crate::wal_files;

/// Makes sure the store directory exists before it is locked: creates it (and its parents) when
/// creation is allowed. Returns whether it was created here.
pub(super) fn prepare_directory(path: &Path, may_create: bool) -> Result<bool> {
    match std::fs::metadata(path) {
        Err(e) if e.kind() == std::io::ErrorKind::NotFound && may_create => {
            std::fs::create_dir_all(path)
                .map_err(Error::io(format!("creating the store directory {}", path.display())))?;
            Ok(true)
        }
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Err(Error::NotAStore {
            path: path.to_path_buf(),
            why: "the directory does not exist (and creation was not asked for)".into(),
        }),
        Err(e) => Err(Error::NotAStore {
            path: path.to_path_buf(),
            why: format!("cannot read it: {e}"),
        }),
        Ok(m) if !m.is_dir() => Err(Error::NotAStore {
            path: path.to_path_buf(),
            why: "it is a file, not a store directory".into(),
        }),
        Ok(_) => Ok(false),
    }
}

/// Decide whether the directory `path` (which `prepare_directory` made sure of) is an existing
/// store or may become a new one. Returns true to create.
pub(super) fn check_location(path: &Path, options: &StoreOptions) -> Result<bool> {
    let not_a_store = |why: &str| Error::NotAStore {
        path: path.to_path_buf(),
        why: why.to_string(),
    };
    if path.join("CURRENT").is_file() {
        // A store whose files RocksDB cannot read is damaged, not foreign: saying "not a
        // store" might get it deleted.
        let cfs =
            DB::list_cf(&Options::default(), path).map_err(|e| damaged(path, "listing its column families", e))?;
        if let Some(missing) = ALL_CFS.iter().find(|cf| !cfs.iter().any(|c| c == *cf)) {
            if was_a_store(path) {
                return Err(damaged_store(
                    path,
                    rocksdb::ErrorKind::Corruption,
                    format!("reading its column families from {}", manifest_of(path)),
                    format!("its MANIFEST lists no column family '{missing}', yet RocksDB's OPTIONS file shows it was a RockCask store"),
                ));
            }
            return Err(not_a_store(&format!(
                "a RocksDB database without RockCask's column family '{missing}'"
            )));
        }
        return Ok(false);
    }
    // RockCask's lock file alone (left by an open that failed, or just taken) is no content.
    let empty = std::fs::read_dir(path)
        .map_err(|e| not_a_store(&format!("cannot read it: {e}")))?
        .flatten()
        .all(|entry| entry.file_name() == LOCK_FILE);
    match (empty, options.create_if_missing && !options.read_only) {
        (true, true) => Ok(true),
        (true, false) => Err(not_a_store("the directory is empty (and creation was not asked for)")),
        (false, _) => Err(not_a_store("the directory holds files but no RocksDB CURRENT file")),
    }
}

/// Read-only opens tried before one is refused as unsteady (see `open_read_only_beside_a_writer`).
const READ_ONLY_OPEN_ATTEMPTS: usize = 10;

/// A read-only open beside a live writer reads the MANIFEST, then opens the table files and
/// replays the logs it names. If the writer flushes or compacts meanwhile, it deletes the logs
/// and table files that made obsolete, and an open that had yet to read one recovers an older
/// state or fails, not finding a file it listed (which RocksDB reports as a damaged MANIFEST).
/// So the open is tried again (each try takes milliseconds; a writer frees a log once per
/// memtable) when it succeeded but a log present before it is gone after it, or when it failed
/// and any log, table file or MANIFEST came or went during it. A failure while nothing moved is
/// the store's own, reported as it is.
pub(super) fn open_read_only_beside_a_writer(
    path: &Path,
    open: impl Fn() -> std::result::Result<DB, rocksdb::Error>,
) -> Result<DB> {
    for _ in 0..READ_ONLY_OPEN_ATTEMPTS {
        let before = wal_files::moving_file_names(path);
        let opened = open();
        let after = wal_files::moving_file_names(path);
        match opened {
            Ok(db) if wal_files::logs_of(&before).is_subset(&wal_files::logs_of(&after)) => return Ok(db),
            Err(e) if before == after => return Err(open_error(path, e)),
            _ => {}
        }
    }
    Err(Error::Rocks {
        status: rocksdb::ErrorKind::Busy,
        context: format!("opening {} read-only", path.display()),
        message: format!("the writer freed files the open was reading during each of {READ_ONLY_OPEN_ATTEMPTS} opens in a row; try again"),
    })
}

/// Checks an existing store in a read-only open before the writable one. A writable open deletes
/// every table file the recovered MANIFEST does not reference; when the MANIFEST lost its last
/// records (a damaged or truncated file that RocksDB takes for an unfinished write), those are
/// the store's data. RocksDB's read-only mode writes and deletes nothing, so a damaged store is
/// refused here with every file still in place, to be restored or repaired.
pub(super) fn probe_read_only(path: &Path, db_opts: &Options, options: &StoreOptions) -> Result<()> {
    let families = families_to_open(path, false, true)?;
    let cfs = families
        .iter()
        .map(|name| ColumnFamilyDescriptor::new(*name, cf_options(name, options, None)));
    let db = DB::open_cf_descriptors_read_only(db_opts, path, cfs, false).map_err(|e| open_error(path, e))?;
    check_format_marker(&db, path)
}

/// The column families to open: every one for a writer (which creates the maps family in a store
/// written before it existed), those the store has for a read-only open (which can create none).
pub(super) fn families_to_open(path: &Path, creating: bool, read_only: bool) -> Result<Vec<&'static str>> {
    let mut families = ALL_CFS.to_vec();
    let has_maps = creating
        || !read_only
        || DB::list_cf(&Options::default(), path)
            .map_err(|e| damaged(path, "listing its column families", e))?
            .iter()
            .any(|c| c == CF_MAPS);
    if has_maps {
        families.push(CF_MAPS);
    }
    Ok(families)
}

pub(super) fn check_format_marker(db: &DB, path: &Path) -> Result<()> {
    let meta = db.cf_handle(CF_META).expect("opened with all column families");
    match db
        .get_pinned_cf(meta, keys::META_FORMAT_KEY)
        .context(|| format!("reading the format of {}", path.display()))?
    {
        Some(v) if v.as_ref() == keys::META_FORMAT_VALUE => Ok(()),
        Some(v) => Err(Error::NotAStore {
            path: path.to_path_buf(),
            why: format!(
                "unknown format marker {:?} (this library reads {:?})",
                String::from_utf8_lossy(&v),
                String::from_utf8_lossy(keys::META_FORMAT_VALUE)
            ),
        }),
        // Every RockCask column family is there (checked before opening), so this was a store;
        // losing the marker means RocksDB recovered less than was written.
        None => Err(damaged_store(
            path,
            rocksdb::ErrorKind::Corruption,
            format!(
                "reading its format marker (check {} and the WAL files)",
                manifest_of(path)
            ),
            "it has RockCask's column families but no format marker, so RocksDB recovered less than was written".into(),
        )),
    }
}

/// Whether a RocksDB directory whose MANIFEST lacks RockCask's column families still shows it
/// was a store: an OPTIONS file (RocksDB's record of the options it was last opened with) naming
/// RockCask's column families. (Not the lock file: a writer has just taken it, in any directory.)
fn was_a_store(path: &Path) -> bool {
    let Ok(entries) = std::fs::read_dir(path) else {
        return false;
    };
    entries
        .flatten()
        .filter(|e| e.file_name().to_string_lossy().starts_with("OPTIONS-"))
        .any(|e| {
            std::fs::read_to_string(e.path())
                .is_ok_and(|text| ALL_CFS.iter().all(|cf| text.contains(&format!("[CFOptions \"{cf}\"]"))))
        })
}

/// The MANIFEST file CURRENT names (the file RocksDB reads the store's layout from).
pub(super) fn manifest_of(path: &Path) -> String {
    match manifest_record::current_name(path) {
        Some(name) => path.join(name).display().to_string(),
        None => format!("{} (unreadable)", path.join("CURRENT").display()),
    }
}

/// A RocksDB failure reading an existing store's own files: `Corruption` (or RocksDB's status)
/// naming the store and its MANIFEST, never `NotAStore`.
fn damaged(path: &Path, doing: &str, e: rocksdb::Error) -> Error {
    let status = match e.kind() {
        rocksdb::ErrorKind::Unknown => rocksdb::ErrorKind::Corruption,
        kind => kind,
    };
    damaged_store(
        path,
        status,
        format!("{doing} from {}", manifest_of(path)),
        e.into_string(),
    )
}

/// The one error of a damaged store: what was being read and what was wrong, and what to do (a
/// user told less might delete the store).
pub(super) fn damaged_store(path: &Path, status: rocksdb::ErrorKind, doing: String, what: String) -> Error {
    Error::Rocks {
        status,
        context: format!("opening {}: {doing}", path.display()),
        message: format!(
            "{what}; the store is damaged or unreadable: do not delete it, restore it from a snapshot or checkpoint"
        ),
    }
}

pub(super) fn open_error(path: &Path, e: rocksdb::Error) -> Error {
    if e.kind() == rocksdb::ErrorKind::Corruption {
        return damaged(path, "reading its files", e);
    }
    let message = e.clone().into_string();
    // RocksDB reports a held lock file as an IOError mentioning LOCK ("Resource temporarily
    // unavailable" from another process, "lock hold by current process" from this one).
    if message.contains("LOCK") && (message.contains("lock") || message.contains("unavailable")) {
        return Error::Locked {
            path: path.to_path_buf(),
            detail: message,
        };
    }
    Error::Rocks {
        status: e.kind(),
        context: format!("opening {}", path.display()),
        message,
    }
}

#[cfg(test)]
mod tests {
    use std::cell::Cell;

    use super::super::tuning::db_options;
    use super::*;
    use crate::store::Store;

    /// A store with a log, closed, and the options to open it read-only.
    fn closed_store(dir: &Path) -> Options {
        let store = Store::open(dir, StoreOptions::default()).unwrap();
        let mut tx = store.begin().unwrap();
        tx.enqueue("q", b"x").unwrap();
        tx.commit().unwrap();
        drop(tx);
        store.close().unwrap();
        db_options(
            &StoreOptions {
                read_only: true,
                ..StoreOptions::default()
            },
            false,
        )
    }

    fn open_read_only(dir: &Path, db_opts: &Options) -> std::result::Result<DB, rocksdb::Error> {
        let cfs = families_to_open(dir, false, true)
            .unwrap()
            .into_iter()
            .map(|name| ColumnFamilyDescriptor::new(name, cf_options(name, &StoreOptions::default(), None)));
        DB::open_cf_descriptors_read_only(db_opts, dir, cfs, false)
    }

    #[test]
    fn a_read_only_open_during_which_a_log_vanished_is_tried_again() {
        let dir = tempfile::tempdir().unwrap();
        let db_opts = closed_store(dir.path());
        let log = wal_files::log_names(dir.path()).into_iter().next().expect("a log file");
        let opens = Cell::new(0);
        let db = open_read_only_beside_a_writer(dir.path(), || {
            opens.set(opens.get() + 1);
            let db = open_read_only(dir.path(), &db_opts);
            if opens.get() == 1 {
                // What a writer's flush does to a log during the open: it vanishes (renamed
                // here rather than deleted, so that the next open still has the log to replay).
                std::fs::rename(dir.path().join(&log), dir.path().join("999999.log")).unwrap();
            }
            db
        });
        assert!(db.is_ok());
        assert_eq!(opens.get(), 2, "tried once more after the log vanished, and not again");
    }

    #[test]
    fn a_failed_read_only_open_during_which_a_table_file_vanished_is_tried_again() {
        let dir = tempfile::tempdir().unwrap();
        let db_opts = closed_store(dir.path());
        let opens = Cell::new(0);
        std::fs::write(dir.path().join("999998.sst"), b"").unwrap();
        let db = open_read_only_beside_a_writer(dir.path(), || {
            opens.set(opens.get() + 1);
            if opens.get() == 1 {
                // What a writer's compaction does while an open reads the MANIFEST: a table
                // file it names is deleted, and RocksDB reports the MANIFEST as damaged.
                std::fs::remove_file(dir.path().join("999998.sst")).unwrap();
                return DB::open_for_read_only(&db_opts, dir.path().join("nowhere"), false);
            }
            open_read_only(dir.path(), &db_opts)
        });
        assert!(db.is_ok());
        assert_eq!(opens.get(), 2);
    }

    #[test]
    fn a_read_only_open_that_fails_while_no_file_moves_is_refused_at_once() {
        let dir = tempfile::tempdir().unwrap();
        let db_opts = closed_store(dir.path());
        let opens = Cell::new(0);
        let refused = open_read_only_beside_a_writer(dir.path(), || {
            opens.set(opens.get() + 1);
            DB::open_for_read_only(&db_opts, dir.path().join("nowhere"), false)
        });
        assert!(refused.is_err());
        assert_eq!(opens.get(), 1, "a failure of the store's own is not tried again");
    }

    #[test]
    fn read_only_opens_that_never_see_the_logs_hold_still_are_refused_as_busy() {
        let dir = tempfile::tempdir().unwrap();
        let db_opts = closed_store(dir.path());
        let opens = Cell::new(0u64);
        let refused = open_read_only_beside_a_writer(dir.path(), || {
            opens.set(opens.get() + 1);
            let db = open_read_only(dir.path(), &db_opts);
            for name in wal_files::log_names(dir.path()) {
                std::fs::rename(
                    dir.path().join(&name),
                    dir.path().join(format!("{:06}.log", 900_000 + opens.get())),
                )
                .unwrap();
            }
            db
        });
        match refused {
            Err(Error::Rocks {
                status: rocksdb::ErrorKind::Busy,
                message,
                ..
            }) => assert!(message.contains("try again"), "{message}"),
            other => panic!("expected Busy, got {:?}", other.map(|_| "a database")),
        }
        assert_eq!(opens.get(), READ_ONLY_OPEN_ATTEMPTS as u64);
    }
}
