//! Write-ahead log files kept for reuse must not outlive a clean close.
//!
//! With `recycle_log_file_num` (`store.rs` says why it makes synced commits cheaper) RocksDB keeps
//! log files it no longer needs, to overwrite them later, and they still hold what they logged.
//! The next open replays only the logs its MANIFEST asks for, from the oldest with unflushed data
//! on. But a MANIFEST that lost its last records recovers an older state of the store that asks
//! for older logs: without recycling those are gone, the recovered store lacks its format marker
//! and the open refuses it as damaged (`probe_read_only`); with a kept log it would replay that
//! instead and pass for intact. So a clean close deletes every log older than the oldest RocksDB
//! still needs (`rocksdb.min-log-number-to-keep`, raised by each flush), as RocksDB itself would
//! without recycling.

use std::path::Path;

use rocksdb::DB;

/// The number of the oldest log file `db` still needs: those below it hold nothing unflushed.
pub(crate) fn oldest_needed_log(db: &DB) -> Option<u64> {
    db.property_int_value("rocksdb.min-log-number-to-keep").ok().flatten()
}

/// Deletes the log files (`NNNNNN.log`) of `dir` numbered below `oldest_needed`, once RocksDB
/// has closed. Returns how many it deleted; one that cannot be deleted is left (the next open
/// ignores it and RocksDB deletes it then).
pub(crate) fn delete_logs_below(dir: &Path, oldest_needed: u64) -> usize {
    let Ok(entries) = std::fs::read_dir(dir) else { return 0 };
    entries
        .flatten()
        .filter(|e| log_number(&e.file_name().to_string_lossy()).is_some_and(|n| n < oldest_needed))
        .filter(|e| std::fs::remove_file(e.path()).is_ok())
        .count()
}

/// The number of a RocksDB log file's name (`000123.log`), or `None` for any other name.
fn log_number(name: &str) -> Option<u64> {
    let digits = name.strip_suffix(".log")?;
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    digits.parse().ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_log_files_numbered_below_the_oldest_needed_are_deleted() {
        let dir = tempfile::tempdir().unwrap();
        let names = ["000007.log", "000012.log", "000009.log", "MANIFEST-000005", "000003.sst", "x.log", "+1.log", ".log", "000004.log.bak", "LOG", "LOG.old.1"];
        for name in names {
            std::fs::write(dir.path().join(name), b"").unwrap();
        }
        assert_eq!(delete_logs_below(dir.path(), 12), 2);
        let mut left: Vec<String> = std::fs::read_dir(dir.path()).unwrap().map(|e| e.unwrap().file_name().into_string().unwrap()).collect();
        left.sort();
        assert_eq!(left, ["+1.log", ".log", "000003.sst", "000004.log.bak", "000012.log", "LOG", "LOG.old.1", "MANIFEST-000005", "x.log"]);
        assert_eq!(delete_logs_below(dir.path(), 0), 0);
    }

    #[test]
    fn a_missing_directory_deletes_nothing() {
        let dir = tempfile::tempdir().unwrap();
        assert_eq!(delete_logs_below(&dir.path().join("gone"), u64::MAX), 0);
    }
}
