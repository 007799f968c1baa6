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

use std::fs::{File, OpenOptions, TryLockError};
use std::io::{Read, Seek, Write};
use std::path::Path;
use std::time::{SystemTime, UNIX_EPOCH};

use crate::error::{Error, Result};

/// The lock file's name inside a store directory (beside RocksDB's own files).
pub const LOCK_FILE: &str = "rockcask.lock";

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
            "pid {} ({program}) has it open for writing as {} since unix time {since}\n",
            std::process::id(),
            shown.display()
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
        t if t.starts_with(&this_process) => {
            format!(
                "{t} — this very process: another Store handle, another class loader, or another spelling of the path"
            )
        }
        t => t.to_string(),
    };
    Error::Locked {
        path: shown.to_path_buf(),
        detail: format!("{holder} (lock file {})", canonical.join(LOCK_FILE).display()),
    }
}
