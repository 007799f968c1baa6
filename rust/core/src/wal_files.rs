//! The store's write-ahead log files, as a read-only open beside a writer watches them
//! (`store.rs`, `open_read_only_beside_a_writer`).

use std::collections::BTreeSet;
use std::path::Path;

/// The names of the log files in `dir` (none when it cannot be read).
pub(crate) fn log_names(dir: &Path) -> BTreeSet<String> {
    let Ok(entries) = std::fs::read_dir(dir) else { return BTreeSet::new() };
    entries.flatten().filter_map(|e| e.file_name().into_string().ok()).filter(|name| is_log_name(name)).collect()
}

/// Whether `name` is a RocksDB log file's (`000123.log`).
fn is_log_name(name: &str) -> bool {
    name.strip_suffix(".log").is_some_and(|digits| !digits.is_empty() && digits.bytes().all(|b| b.is_ascii_digit()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_rocksdb_log_files_count_as_logs() {
        let dir = tempfile::tempdir().unwrap();
        let names = ["000007.log", "000012.log", "MANIFEST-000005", "000003.sst", "x.log", "+1.log", ".log", "000004.log.bak", "LOG", "LOG.old.1"];
        for name in names {
            std::fs::write(dir.path().join(name), b"").unwrap();
        }
        assert_eq!(log_names(dir.path()).into_iter().collect::<Vec<_>>(), ["000007.log", "000012.log"]);
    }

    #[test]
    fn a_missing_directory_has_no_logs() {
        let dir = tempfile::tempdir().unwrap();
        assert!(log_names(&dir.path().join("gone")).is_empty());
    }
}
