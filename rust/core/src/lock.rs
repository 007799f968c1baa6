//! RockCask's own lock on a store directory, taken before RocksDB opens it and held until
//! RocksDB has closed it.
//!
//! RocksDB's `LOCK` file does not keep a store to one open handle: its `fcntl` lock belongs to
//! the process (a second open in the same process never conflicts with it), and its in-process
//! table of locked files is keyed by the path string (a symlink or `x/../s` gets past it), and
//! exists once per copy of the native library (each Java class loader that loads RockCask has
//! its own). Two RocksDB instances on one directory destroy it. So RockCask takes an `flock` on
//! a file of its own: `flock` locks belong to the open file description, so they conflict
//! between two opens of the same inode by any path, any copy of the library and any process.
//!
//! Only opens for writing take it (exclusively), and a writer writes who it is into the file, so
//! a refused open can name the holder. Read-only opens do not take it: RocksDB's read-only mode
//! writes nothing to the store, so any number of them may open beside a writer and each other.
//!
//! Who it is includes the process id and a token drawn once per loaded copy of this library
//! (statics are not shared between copies), so a refusal inside one process tells a second
//! handle of the same copy from a copy loaded by another Java class loader: the usual cause of
//! the latter is a job jar that bundles RockCask (docs/FLINK.md, "Setup").

use std::fs::{File, OpenOptions, TryLockError};
use std::io::{Read, Seek, Write};
use std::path::Path;
use std::sync::OnceLock;
use std::time::{SystemTime, UNIX_EPOCH};

use crate::error::{Error, Result};

/// The lock file's name inside a store directory (beside RocksDB's own files).
pub const LOCK_FILE: &str = "rockcask.lock";

/// This copy of the library's token, as written into the lock file: `library copy <32 hex digits>`.
fn library_copy() -> &'static str {
    static COPY: OnceLock<String> = OnceLock::new();
    COPY.get_or_init(|| format!("library copy {}", uuid::Uuid::new_v4().simple()))
}

/// A held lock; released (and its holder text cleared) when dropped.
#[derive(Debug)]
pub struct StoreLock {
    file: File,
    /// The lock file was created by this open (so a failed create can remove it again).
    pub created: bool,
}

impl StoreLock {
    /// Takes the lock on the store directory `dir` (which must exist), or fails at once with
    /// `Error::Locked` naming the holder. `shown` is the path as the caller spelled it.
    pub fn acquire(dir: &Path, shown: &Path) -> Result<StoreLock> {
        let path = dir.join(LOCK_FILE);
        let existed = path.exists();
        let file = OpenOptions::new()
            .read(true)
            .write(true)
            .create(true)
            .truncate(false)
            .open(&path)
            .map_err(Error::io(format!("opening the lock file {}", path.display())))?;
        match file.try_lock() {
            Ok(()) => {}
            Err(TryLockError::WouldBlock) => return Err(locked(dir, shown, &file)),
            Err(TryLockError::Error(e)) => return Err(Error::io(format!("locking {}", path.display()))(e)),
        }
        let mut lock = StoreLock {
            file,
            created: !existed,
        };
        lock.write_holder(shown)
            .map_err(Error::io(format!("writing the lock file {}", path.display())))?;
        Ok(lock)
    }

    fn write_holder(&mut self, shown: &Path) -> std::io::Result<()> {
        let since = SystemTime::now().duration_since(UNIX_EPOCH).map_or(0, |d| d.as_secs());
        let program = std::env::current_exe().map_or_else(|_| "?".to_string(), |p| p.display().to_string());
        let text = format!(
            "pid {} ({program}) has it open for writing as {} since unix time {since}, {}\n",
            std::process::id(),
            shown.display(),
            library_copy()
        );
        self.file.set_len(0)?;
        self.file.rewind()?;
        self.file.write_all(text.as_bytes())
    }
}

impl Drop for StoreLock {
    fn drop(&mut self) {
        // The holder text describes a live holder only. A lock left by a killed process is
        // released by the kernel; its stale text is never shown (it is read only while the lock
        // is held) and the next writer replaces it.
        let _ = self.file.set_len(0);
        let _ = self.file.unlock();
    }
}

/// The refusal of an open, naming who holds the lock where that can be known.
fn locked(dir: &Path, shown: &Path, file: &File) -> Error {
    let canonical = std::fs::canonicalize(dir).unwrap_or_else(|_| dir.to_path_buf());
    let mut text = String::new();
    let _ = (&*file).read_to_string(&mut text);
    let text = text.trim();
    let this_process = format!("pid {} ", std::process::id());
    let holder = match text {
        "" => "another open holds it for writing".to_string(),
        t if t.starts_with(&this_process) && t.ends_with(library_copy()) => {
            format!("{t} — this very process, through this copy of the RockCask library: another Store handle, or another spelling of the path")
        }
        t if t.starts_with(&this_process) => format!(
            "{t} — this very process, through another copy of the RockCask native library (another class loader: \
             a job jar that bundles RockCask, or RockCask not loaded parent-first?) — see docs/FLINK.md, \"Setup\""
        ),
        t => t.to_string(),
    };
    Error::Locked {
        path: shown.to_path_buf(),
        detail: format!("{holder} (lock file {})", canonical.join(LOCK_FILE).display()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Holds `dir`'s lock through a file description of its own, as another copy of the library
    /// in this process would, with `holder` as the text it wrote.
    fn held_as(dir: &Path, holder: &str) -> File {
        let file = OpenOptions::new()
            .read(true)
            .write(true)
            .create(true)
            .truncate(true)
            .open(dir.join(LOCK_FILE))
            .unwrap();
        file.try_lock().unwrap();
        (&file).write_all(holder.as_bytes()).unwrap();
        file
    }

    fn refusal(dir: &Path) -> String {
        match StoreLock::acquire(dir, dir) {
            Err(e @ Error::Locked { .. }) => e.to_string(),
            Err(e) => panic!("expected Locked, got {e}"),
            Ok(_) => panic!("the lock was taken twice"),
        }
    }

    #[test]
    fn a_holder_in_this_process_through_another_library_copy_is_named_as_such() {
        let dir = tempfile::tempdir().unwrap();
        let other = "library copy 0123456789abcdef0123456789abcdef";
        assert_ne!(other, library_copy());
        let _held = held_as(
            dir.path(),
            &format!(
                "pid {} (java) has it open for writing as /s since unix time 1, {other}\n",
                std::process::id()
            ),
        );
        let message = refusal(dir.path());
        assert!(
            message.contains("another copy of the RockCask native library (another class loader"),
            "{message}"
        );
        assert!(message.contains("docs/FLINK.md"), "{message}");
    }

    #[test]
    fn a_holder_through_this_library_copy_is_another_handle_and_another_process_is_just_named() {
        let dir = tempfile::tempdir().unwrap();
        let held = StoreLock::acquire(dir.path(), dir.path()).unwrap();
        let message = refusal(dir.path());
        assert!(
            message.contains("through this copy of the RockCask library"),
            "{message}"
        );
        assert!(!message.contains("another copy"), "{message}");
        drop(held);

        let pid = std::process::id() + 1;
        let _held = held_as(
            dir.path(),
            &format!("pid {pid} (java) has it open for writing as /s since unix time 1, library copy 00\n"),
        );
        let message = refusal(dir.path());
        assert!(message.contains(&format!("pid {pid} (java)")), "{message}");
        assert!(!message.contains("this very process"), "{message}");
    }
}
