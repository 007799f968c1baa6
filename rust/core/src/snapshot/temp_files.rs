//! Building results under temporary names beside their destination and moving them into place
//! only when complete: a snapshot file, an imported store, an imported casket. A crash or an
//! error leaves nothing at the destination (at worst a hidden temporary beside it).

use std::fs::File;
use std::path::{Path, PathBuf};
use std::time::{SystemTime, UNIX_EPOCH};

use crate::casket::files::data_dir;
use crate::error::{Error, Result};

/// The directory `target` is to appear in; it must exist.
fn parent_of(target: &Path) -> Result<PathBuf> {
    let parent = match target.parent() {
        Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
        _ => PathBuf::from("."),
    };
    if !parent.is_dir() {
        return Err(Error::Io {
            context: format!("cannot create {}", target.display()),
            source: std::io::Error::new(
                std::io::ErrorKind::NotFound,
                format!("directory {} does not exist", parent.display()),
            ),
        });
    }
    Ok(parent)
}

/// A hidden name beside `target`, unique to this process and moment.
fn temporary_beside(target: &Path, what: &str) -> Result<PathBuf> {
    let name = target
        .file_name()
        .ok_or_else(|| Error::InvalidArgument(format!("{} does not name a file or directory", target.display())))?;
    let nanos = SystemTime::now().duration_since(UNIX_EPOCH).map_or(0, |d| d.as_nanos());
    Ok(parent_of(target)?.join(format!(
        ".{}.{}-{nanos}.{what}",
        name.to_string_lossy(),
        std::process::id()
    )))
}

#[cfg(unix)]
fn sync_dir(dir: &Path) -> Result<()> {
    File::open(dir)
        .and_then(|d| d.sync_all())
        .map_err(Error::io(format!("syncing directory {}", dir.display())))
}

/// Windows has no directory sync (a directory cannot be opened as a file, and NTFS journals its
/// names itself): a rename is made durable by the file system.
#[cfg(windows)]
fn sync_dir(_dir: &Path) -> Result<()> {
    Ok(())
}

fn exists_error(target: &Path, why: &str) -> Error {
    Error::TargetExists {
        path: target.to_path_buf(),
        why: why.into(),
    }
}

/// A file being written under a temporary name; removed unless persisted.
pub(crate) struct TempFile {
    pub path: PathBuf,
    pub file: File,
    persisted: bool,
}

impl TempFile {
    pub fn create(target: &Path) -> Result<TempFile> {
        let path = temporary_beside(target, "partial")?;
        let file = File::options()
            .write(true)
            .create_new(true)
            .open(&path)
            .map_err(Error::io(format!("creating {}", path.display())))?;
        Ok(TempFile {
            path,
            file,
            persisted: false,
        })
    }

    /// Starts writing `len` bytes from `offset` to the device without waiting for it, so that
    /// the disk works while the file is still being produced and the final sync has little
    /// left to do (what RocksDB's `bytes_per_sync` does for its own files).
    #[cfg(any(target_os = "linux", target_os = "android"))]
    pub fn start_writeback(&self, offset: u64, len: u64) {
        use std::os::fd::AsRawFd;
        // SAFETY: a plain system call on a descriptor this struct owns; a failure only means
        // the final sync does all the work, so its result is ignored.
        unsafe {
            libc::sync_file_range(
                self.file.as_raw_fd(),
                offset as libc::off64_t,
                len as libc::off64_t,
                libc::SYNC_FILE_RANGE_WRITE,
            );
        }
    }

    /// Elsewhere the final sync does all the work.
    #[cfg(not(any(target_os = "linux", target_os = "android")))]
    pub fn start_writeback(&self, _offset: u64, _len: u64) {}

    /// Syncs the file's data.
    pub fn sync(&self) -> Result<()> {
        self.file
            .sync_all()
            .map_err(Error::io(format!("syncing {}", self.path.display())))
    }

    /// Gives the (synced) file its name, replacing an existing file only when `overwrite`
    /// (otherwise a file that appeared meanwhile is not touched), and syncs the directory so
    /// the name survives a power loss.
    pub fn persist(mut self, target: &Path, overwrite: bool) -> Result<()> {
        let placed = if overwrite {
            std::fs::rename(&self.path, target)
        } else {
            std::fs::hard_link(&self.path, target)
        };
        match placed {
            Ok(()) => {}
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => {
                return Err(exists_error(target, "exists; choose another name or allow overwriting"))
            }
            Err(e) => {
                return Err(Error::io(format!(
                    "naming {} {}",
                    self.path.display(),
                    target.display()
                ))(e))
            }
        }
        if !overwrite {
            let _ = std::fs::remove_file(&self.path);
        }
        self.persisted = true;
        sync_dir(&parent_of(target)?)
    }
}

impl Drop for TempFile {
    fn drop(&mut self) {
        if !self.persisted {
            let _ = std::fs::remove_file(&self.path);
        }
    }
}

/// Refuses a destination directory that exists and is not empty (or is not a directory).
pub(crate) fn check_new_dir(target: &Path) -> Result<()> {
    match std::fs::read_dir(target) {
        Ok(mut entries) => match entries.next() {
            Some(_) => Err(exists_error(
                target,
                "is not empty; a snapshot is imported into a new or empty directory",
            )),
            None => Ok(()),
        },
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => parent_of(target).map(|_| ()),
        Err(_) if target.exists() => Err(exists_error(target, "exists and is not a directory")),
        Err(e) => Err(Error::io(format!("reading {}", target.display()))(e)),
    }
}

/// A directory built beside its destination and renamed onto it when complete (replacing an
/// empty directory there); removed with its content unless installed.
pub(crate) struct TempDir {
    pub path: PathBuf,
    installed: bool,
}

impl TempDir {
    pub fn create(target: &Path) -> Result<TempDir> {
        check_new_dir(target)?;
        let path = temporary_beside(target, "importing")?;
        std::fs::create_dir(&path).map_err(Error::io(format!("creating {}", path.display())))?;
        Ok(TempDir { path, installed: false })
    }

    /// A scratch directory beside `target`, for work files; removed when dropped.
    pub fn scratch(target: &Path) -> Result<TempDir> {
        let path = temporary_beside(target, "scratch")?;
        std::fs::create_dir(&path).map_err(Error::io(format!("creating {}", path.display())))?;
        Ok(TempDir { path, installed: false })
    }

    pub fn install(mut self, target: &Path) -> Result<()> {
        match std::fs::rename(&self.path, target) {
            Ok(()) => {}
            // Someone put something there meanwhile: leave it alone.
            Err(e) if target_taken(&e) => {
                return Err(exists_error(
                    target,
                    "appeared while the import ran and is not empty; the import was not installed",
                ))
            }
            Err(e) => {
                return Err(Error::io(format!(
                    "moving {} to {}",
                    self.path.display(),
                    target.display()
                ))(e))
            }
        }
        self.installed = true;
        sync_dir(&parent_of(target)?)
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        if !self.installed {
            let _ = std::fs::remove_dir_all(&self.path);
        }
    }
}

/// A casket (marker file plus its RocksDB directory beside it) built under a temporary path
/// and moved to its destination when complete: the directory first, the marker last (the
/// marker is what makes a casket exist).
pub(crate) struct TempCasket {
    pub path: PathBuf,
    installed: bool,
}

impl TempCasket {
    pub fn create(target: &Path) -> Result<TempCasket> {
        if target.exists() || data_dir(target).exists() {
            return Err(exists_error(
                target,
                "exists; a casket snapshot is imported into a new casket",
            ));
        }
        Ok(TempCasket {
            path: temporary_beside(target, "importing")?,
            installed: false,
        })
    }

    pub fn install(mut self, target: &Path) -> Result<()> {
        let appeared = || exists_error(target, "appeared while the import ran; the import was not installed");
        if target.exists() || data_dir(target).exists() {
            return Err(appeared());
        }
        match std::fs::rename(data_dir(&self.path), data_dir(target)) {
            Ok(()) => {}
            Err(e) if target_taken(&e) => return Err(appeared()),
            Err(e) => {
                return Err(Error::io(format!(
                    "moving {} to {}",
                    data_dir(&self.path).display(),
                    data_dir(target).display()
                ))(e))
            }
        }
        // The marker goes last and never replaces one that appeared meanwhile (a hard link fails
        // where a rename would overwrite); without it, the directory goes back.
        if let Err(e) = std::fs::hard_link(&self.path, target) {
            let _ = std::fs::rename(data_dir(target), data_dir(&self.path));
            return Err(if e.kind() == std::io::ErrorKind::AlreadyExists {
                appeared()
            } else {
                Error::io(format!("naming {} {}", self.path.display(), target.display()))(e)
            });
        }
        let _ = std::fs::remove_file(&self.path);
        self.installed = true;
        sync_dir(&parent_of(target)?)
    }
}

impl Drop for TempCasket {
    fn drop(&mut self) {
        if !self.installed {
            let _ = std::fs::remove_file(&self.path);
            let _ = std::fs::remove_dir_all(data_dir(&self.path));
        }
    }
}

/// Whether a rename failed because something is already at the target (a directory that is not
/// empty, a file, or a non-directory in the way), by kind rather than by number: the numbers
/// differ between systems (ENOTEMPTY on Linux, ERROR_DIR_NOT_EMPTY on Windows).
fn target_taken(e: &std::io::Error) -> bool {
    use std::io::ErrorKind;
    matches!(
        e.kind(),
        ErrorKind::DirectoryNotEmpty | ErrorKind::AlreadyExists | ErrorKind::NotADirectory
    )
}
