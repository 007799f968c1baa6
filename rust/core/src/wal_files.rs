//! The store's write-ahead log, table and MANIFEST files, as a read-only open beside a writer
//! watches them (`store/location.rs`, `open_read_only_beside_a_writer`).

use std::collections::BTreeSet;
use std::path::Path;

/// The names of the log files in `dir` (none when it cannot be read).
#[cfg(test)]
pub(crate) fn log_names(dir: &Path) -> BTreeSet<String> {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return BTreeSet::new();
    };
    entries
        .flatten()
        .filter_map(|e| e.file_name().into_string().ok())
        .filter(|name| is_log_name(name))
        .collect()
}

/// The log files among `names` (of `moving_file_names`).
pub(crate) fn logs_of(names: &BTreeSet<String>) -> BTreeSet<&str> {
    names
        .iter()
        .map(String::as_str)
        .filter(|name| is_log_name(name))
        .collect()
}

/// The names of the files in `dir` that a writer creates and deletes as it goes: logs, table
/// files and MANIFESTs (none when it cannot be read).
pub(crate) fn moving_file_names(dir: &Path) -> BTreeSet<String> {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return BTreeSet::new();
    };
    entries
        .flatten()
        .filter_map(|e| e.file_name().into_string().ok())
        .filter(|name| is_log_name(name) || is_table_name(name) || is_manifest_name(name))
        .collect()
}

/// Deletes the log files of `dir` numbered below `keep_from` (RocksDB's
/// `rocksdb.min-log-number-to-keep` of a writer that is now closed): the flushed logs a writer
/// kept to write over, which the next open would delete unread. Returns the bytes freed; a log
/// that cannot be deleted is left for that open.
pub(crate) fn delete_logs_below(dir: &Path, keep_from: u64) -> u64 {
    let Ok(entries) = std::fs::read_dir(dir) else { return 0 };
    let mut freed = 0;
    for entry in entries.flatten() {
        let Ok(name) = entry.file_name().into_string() else {
            continue;
        };
        let Some(number) = log_number(&name) else { continue };
        if number < keep_from {
            let bytes = entry.metadata().map_or(0, |m| m.len());
            if std::fs::remove_file(entry.path()).is_ok() {
                freed += bytes;
            }
        }
    }
    freed
}

/// The number of a RocksDB log file (`000123.log` is 123).
fn log_number(name: &str) -> Option<u64> {
    if is_log_name(name) {
        name.strip_suffix(".log")?.parse().ok()
    } else {
        None
    }
}

/// Whether `name` is a RocksDB log file's (`000123.log`).
fn is_log_name(name: &str) -> bool {
    numbered(name, ".log")
}

fn is_table_name(name: &str) -> bool {
    numbered(name, ".sst")
}

fn is_manifest_name(name: &str) -> bool {
    name.strip_prefix("MANIFEST-").is_some_and(is_a_number)
}

fn numbered(name: &str, suffix: &str) -> bool {
    name.strip_suffix(suffix).is_some_and(is_a_number)
}

fn is_a_number(digits: &str) -> bool {
    !digits.is_empty() && digits.bytes().all(|b| b.is_ascii_digit())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_rocksdb_log_files_count_as_logs() {
        let dir = tempfile::tempdir().unwrap();
        let names = [
            "000007.log",
            "000012.log",
            "MANIFEST-000005",
            "000003.sst",
            "x.log",
            "+1.log",
            ".log",
            "000004.log.bak",
            "LOG",
            "LOG.old.1",
        ];
        for name in names {
            std::fs::write(dir.path().join(name), b"").unwrap();
        }
        assert_eq!(
            log_names(dir.path()).into_iter().collect::<Vec<_>>(),
            ["000007.log", "000012.log"]
        );
    }

    #[test]
    fn logs_tables_and_manifests_are_the_files_a_writer_moves() {
        let dir = tempfile::tempdir().unwrap();
        let names = [
            "000007.log",
            "000012.sst",
            "MANIFEST-000005",
            "MANIFEST-",
            "CURRENT",
            "OPTIONS-000009",
            "LOCK",
            "LOG",
            "x.sst",
            "rockcask.lock",
        ];
        for name in names {
            std::fs::write(dir.path().join(name), b"").unwrap();
        }
        assert_eq!(
            moving_file_names(dir.path()).into_iter().collect::<Vec<_>>(),
            ["000007.log", "000012.sst", "MANIFEST-000005"]
        );
    }

    #[test]
    fn only_logs_numbered_below_the_first_to_keep_are_deleted() {
        let dir = tempfile::tempdir().unwrap();
        let names = [
            "000007.log",
            "000012.log",
            "000013.log",
            "000003.sst",
            "MANIFEST-000005",
            "x.log",
            "LOG",
        ];
        for name in names {
            std::fs::write(dir.path().join(name), b"12345").unwrap();
        }
        assert_eq!(delete_logs_below(dir.path(), 13), 10);
        let mut left: Vec<String> = std::fs::read_dir(dir.path())
            .unwrap()
            .flatten()
            .map(|e| e.file_name().into_string().unwrap())
            .collect();
        left.sort();
        assert_eq!(left, ["000003.sst", "000013.log", "LOG", "MANIFEST-000005", "x.log"]);
        assert_eq!(delete_logs_below(dir.path(), 0), 0);
        assert_eq!(delete_logs_below(&dir.path().join("gone"), u64::MAX), 0);
    }

    #[test]
    fn a_missing_directory_has_no_logs() {
        let dir = tempfile::tempdir().unwrap();
        assert!(log_names(&dir.path().join("gone")).is_empty());
    }
}
