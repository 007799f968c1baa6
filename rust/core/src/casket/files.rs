//! A casket on disk: a small marker file at the caller's path, the RocksDB directory beside it.
//!
//! Code written for Tokyo Cabinet treats a database as one file: it deletes it with
//! `File.delete()` and expects the next `open(..., OCREAT)` to start empty. So the path holds a
//! marker (format, kind, key order, instance id) and the data lives in `<path>.rockcask/`. A
//! directory whose marker is gone is stale: the next create at that path removes it. The
//! marker is also what processes lock (`flock`): writers exclusively, readers shared.

use std::collections::HashSet;
use std::fs::{self, File, OpenOptions};
use std::io::{Read, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};
use std::sync::{Mutex, OnceLock};

use super::error::{CasketError, CasketResult, Ecode};

const MAGIC: &str = "RockCask casket 1";
/// Written first into every data directory RockCask creates; only such a directory (or an
/// empty one) is ever removed as stale.
const DIR_TAG: &str = "CASKET";

/// What kind of database a casket holds; opening it as the other kind fails.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    Btree,
    Hash,
}

impl Kind {
    pub(crate) fn name(self) -> &'static str {
        match self {
            Kind::Btree => "bdb",
            Kind::Hash => "hdb",
        }
    }
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Marker {
    pub kind: String,
    pub order: String,
    pub id: String,
}

impl Marker {
    pub fn new(kind: Kind, order: String) -> Marker {
        Marker {
            kind: kind.name().into(),
            order,
            id: uuid::Uuid::new_v4().to_string(),
        }
    }

    fn render(&self) -> String {
        format!("{MAGIC}\nkind={}\norder={}\nid={}\n", self.kind, self.order, self.id)
    }

    pub(crate) fn parse(text: &str) -> Option<Marker> {
        let mut lines = text.lines();
        if lines.next()? != MAGIC {
            return None;
        }
        let mut field = |name: &str| lines.next()?.strip_prefix(name)?.strip_prefix('=').map(str::to_owned);
        Some(Marker {
            kind: field("kind")?,
            order: field("order")?,
            id: field("id")?,
        })
    }

    /// Refuses a casket of another kind or key order than the caller asks for.
    pub fn check(&self, path: &Path, kind: Kind, order: &str) -> CasketResult<()> {
        if self.kind != kind.name() {
            return Err(CasketError::new(
                Ecode::Meta,
                format!(
                    "{} holds a {} database, not a {}",
                    path.display(),
                    self.kind,
                    kind.name()
                ),
            ));
        }
        if self.order != order {
            return Err(CasketError::new(
                Ecode::Meta,
                format!(
                    "{} was created with key order {}, opened with {}",
                    path.display(),
                    self.order,
                    order
                ),
            ));
        }
        Ok(())
    }
}

/// The data directory of the casket at `path`.
pub fn data_dir(path: &Path) -> PathBuf {
    let mut name = path.file_name().map(|n| n.to_os_string()).unwrap_or_default();
    name.push(".rockcask");
    path.with_file_name(name)
}

/// The opened (and, unless asked otherwise, locked) marker file.
pub struct MarkerFile {
    file: File,
    path: PathBuf,
}

#[derive(Clone, Debug)]
pub enum LockMode {
    None,
    Blocking,
    NonBlocking,
}

impl MarkerFile {
    pub fn open(path: &Path, writer: bool, create: bool, lock: LockMode) -> CasketResult<MarkerFile> {
        let file = OpenOptions::new()
            .read(true)
            .write(writer)
            .create(writer && create)
            .open(path)
            .map_err(|e| CasketError::io(Ecode::Open, format!("opening {}", path.display()), e))?;
        if file.metadata().map(|m| m.is_dir()).unwrap_or(false) {
            return Err(CasketError::new(
                Ecode::Meta,
                format!("{} is a directory, not a casket", path.display()),
            ));
        }
        // Another open of this casket in this process is normally refused by the registry
        // (`OpenRegistration`) before this. A second copy of this library (loaded by another
        // Java class loader) has a registry of its own, so its locks are looked for too: a
        // conflict with one is refused at once (waiting for it could wait forever), and a
        // shared lock it also holds is not shared with it.
        let in_this_process = || {
            CasketError::new(
                Ecode::Lock,
                format!("{} is already open in this process (by another copy of the RockCask library, e.g. in another class loader)", path.display()),
            )
        };
        let try_lock = |file: &File| {
            if writer {
                file.try_lock()
            } else {
                file.try_lock_shared()
            }
        };
        let locked = match lock {
            LockMode::None => {
                if flocks_in_this_process(&file) > 0 {
                    return Err(in_this_process());
                }
                return Ok(MarkerFile {
                    file,
                    path: path.to_path_buf(),
                });
            }
            LockMode::NonBlocking => try_lock(&file),
            LockMode::Blocking => match try_lock(&file) {
                Err(std::fs::TryLockError::WouldBlock) if flocks_in_this_process(&file) > 0 => {
                    return Err(in_this_process())
                }
                Err(std::fs::TryLockError::WouldBlock) => {
                    (if writer { file.lock() } else { file.lock_shared() }).map_err(std::fs::TryLockError::Error)
                }
                other => other,
            },
        };
        match locked {
            Err(std::fs::TryLockError::WouldBlock) if flocks_in_this_process(&file) > 0 => {
                return Err(in_this_process())
            }
            Err(e) => {
                return Err(CasketError::new(
                    Ecode::Lock,
                    format!("{} is locked by another process: {e}", path.display()),
                ))
            }
            // A shared lock held here and by another copy of the library in this process.
            Ok(()) if !writer && flocks_in_this_process(&file) > 1 => return Err(in_this_process()),
            Ok(()) => {}
        }
        Ok(MarkerFile {
            file,
            path: path.to_path_buf(),
        })
    }

    /// `None` for an empty file (just created); an error for a file that is not a marker.
    pub fn read(&mut self) -> CasketResult<Option<Marker>> {
        let mut text = String::new();
        self.file
            .seek(SeekFrom::Start(0))
            .and_then(|_| (&self.file).take(4096).read_to_string(&mut text))
            .map_err(|e| {
                if e.kind() == std::io::ErrorKind::InvalidData {
                    CasketError::new(Ecode::Meta, format!("{} is not a RockCask casket", self.path.display()))
                } else {
                    CasketError::io(Ecode::Read, format!("reading {}", self.path.display()), e)
                }
            })?;
        if text.is_empty() {
            return Ok(None);
        }
        Marker::parse(&text)
            .map(Some)
            .ok_or_else(|| CasketError::new(Ecode::Meta, format!("{} is not a RockCask casket", self.path.display())))
    }

    /// Empties the marker (synced): the casket it named no longer counts, whatever state its
    /// directory is left in by a crash.
    pub fn clear(&mut self) -> CasketResult<()> {
        let io = |e| CasketError::io(Ecode::Trunc, format!("truncating {}", self.path.display()), e);
        self.file.set_len(0).map_err(io)?;
        self.file.sync_all().map_err(io)
    }

    /// Replaces the marker's content in place (the file stays the one that is locked).
    pub fn write(&mut self, marker: &Marker) -> CasketResult<()> {
        let text = marker.render();
        let io = |e| CasketError::io(Ecode::Write, format!("writing {}", self.path.display()), e);
        self.file.set_len(0).map_err(io)?;
        self.file.seek(SeekFrom::Start(0)).map_err(io)?;
        self.file.write_all(text.as_bytes()).map_err(io)?;
        self.file.sync_all().map_err(io)
    }
}

/// How many `flock` locks this process holds on the file `file` is open on (granted locks only),
/// counted per open file of the process from `/proc/self/fdinfo`, which the kernel prints under
/// the file's own lock. (`/proc/locks` would not do: it is printed a page at a time, so a lock
/// taken or dropped anywhere on the machine between two pages shows another lock twice or not at
/// all.) 0 where that cannot be read: the registry of this copy of the library is then the only
/// check.
#[cfg(target_os = "linux")]
fn flocks_in_this_process(file: &File) -> usize {
    use std::os::unix::fs::MetadataExt;
    let (Ok(meta), Ok(fds)) = (file.metadata(), fs::read_dir("/proc/self/fd")) else {
        return 0;
    };
    fds.flatten()
        // `stat` of an fd's link is a `stat` of what it has open; an fd closed meanwhile is skipped.
        .filter(|fd| matches!(fs::metadata(fd.path()), Ok(m) if m.dev() == meta.dev() && m.ino() == meta.ino()))
        .filter(|fd| {
            let info = fs::read_to_string(Path::new("/proc/self/fdinfo").join(fd.file_name()));
            info.is_ok_and(|info| holds_flock(&info))
        })
        .count()
}

/// Other systems list no process's locks: the registry of this copy of the library is the only
/// check there (a second copy's lock is then refused as another process's would be).
#[cfg(not(target_os = "linux"))]
fn flocks_in_this_process(_file: &File) -> usize {
    0
}

/// Whether the `/proc/<pid>/fdinfo/<fd>` text of an open file shows a `flock` held through it
/// ("lock:\t1: FLOCK ADVISORY WRITE pid maj:min:inode start end"; requests still waiting are
/// not listed there).
#[cfg_attr(not(target_os = "linux"), allow(dead_code))]
fn holds_flock(fdinfo: &str) -> bool {
    fdinfo.lines().any(|line| {
        matches!(
            line.split_whitespace().collect::<Vec<_>>().as_slice(),
            ["lock:", _, "FLOCK", ..]
        )
    })
}

/// Writes a marker for a copy at `path` (not locked: the copy is not open).
pub fn write_marker(path: &Path, marker: &Marker) -> CasketResult<()> {
    fs::write(path, marker.render())
        .map_err(|e| CasketError::io(Ecode::Write, format!("writing {}", path.display()), e))
}

/// Whether a RocksDB database in `dir` is open, in any process: RocksDB holds a POSIX record
/// lock on `dir/LOCK` while open. Probed with an open-file-description lock, which conflicts
/// with it (also when this process holds it) and whose release touches no other lock.
#[cfg(unix)]
pub fn dir_in_use(dir: &Path) -> CasketResult<bool> {
    use std::os::unix::io::AsRawFd;
    let lock = dir.join("LOCK");
    let file = match OpenOptions::new().read(true).write(true).open(&lock) {
        Ok(f) => f,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(false),
        Err(e) => return Err(CasketError::io(Ecode::Lock, format!("opening {}", lock.display()), e)),
    };
    // SAFETY: a zeroed flock is a valid value; the fields are set below.
    let mut probe: libc::flock = unsafe { std::mem::zeroed() };
    probe.l_type = libc::F_WRLCK as libc::c_short;
    probe.l_whence = libc::SEEK_SET as libc::c_short;
    // SAFETY: `file` is open for the duration of the call; `probe` is a valid flock.
    if unsafe { libc::fcntl(file.as_raw_fd(), libc::F_OFD_SETLK, &mut probe) } == 0 {
        return Ok(false); // Released when `file` closes.
    }
    let e = std::io::Error::last_os_error();
    match e.raw_os_error() {
        Some(libc::EAGAIN) | Some(libc::EACCES) => Ok(true),
        _ => Err(CasketError::io(Ecode::Lock, format!("probing {}", lock.display()), e)),
    }
}

/// Whether a RocksDB database in `dir` is open, in any process: on Windows RocksDB holds
/// `dir/LOCK` open with no sharing while open, so opening it fails with a sharing violation.
#[cfg(windows)]
pub fn dir_in_use(dir: &Path) -> CasketResult<bool> {
    /// ERROR_SHARING_VIOLATION: another handle has the file open and shares nothing.
    const SHARING_VIOLATION: i32 = 32;
    let lock = dir.join("LOCK");
    match OpenOptions::new().read(true).write(true).open(&lock) {
        Ok(_) => Ok(false),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(false),
        Err(e) if e.raw_os_error() == Some(SHARING_VIOLATION) => Ok(true),
        Err(e) => Err(CasketError::io(Ecode::Lock, format!("opening {}", lock.display()), e)),
    }
}

/// Removes a stale data directory: one RockCask created (tagged) or an empty one, and never
/// one a process still has open (a process may still use a database whose marker was deleted,
/// as it could a deleted Tokyo Cabinet file).
pub fn remove_stale_dir(dir: &Path) -> CasketResult<()> {
    if dir_in_use(dir)? {
        return Err(CasketError::new(
            Ecode::Lock,
            format!("{} is still open in another process", dir.display()),
        ));
    }
    match fs::read_dir(dir) {
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(()),
        Err(e) => return Err(CasketError::io(Ecode::Rmdir, format!("reading {}", dir.display()), e)),
        Ok(mut entries) => {
            if !dir.join(DIR_TAG).exists() && entries.next().is_some() {
                return Err(CasketError::new(
                    Ecode::Rmdir,
                    format!(
                        "{} exists and was not created by RockCask; not removing it",
                        dir.display()
                    ),
                ));
            }
        }
    }
    fs::remove_dir_all(dir).map_err(|e| CasketError::io(Ecode::Rmdir, format!("removing {}", dir.display()), e))
}

/// Creates an empty, tagged data directory.
pub fn create_dir(dir: &Path) -> CasketResult<()> {
    fs::create_dir(dir).map_err(|e| CasketError::io(Ecode::Mkdir, format!("creating {}", dir.display()), e))?;
    fs::write(dir.join(DIR_TAG), "RockCask casket data directory\n")
        .map_err(|e| CasketError::io(Ecode::Write, format!("writing {}", dir.join(DIR_TAG).display()), e))
}

/// Tags a directory made by a RocksDB checkpoint.
pub fn tag_dir(dir: &Path) -> CasketResult<()> {
    fs::write(dir.join(DIR_TAG), "RockCask casket data directory\n")
        .map_err(|e| CasketError::io(Ecode::Write, format!("writing {}", dir.join(DIR_TAG).display()), e))
}

/// Copies the data directory of a casket open read-only, file by file (SST files, which never
/// change, hard-linked where possible). RocksDB's checkpoint of a read-only database leaves out
/// the write-ahead log, which holds the newest records. The lock file is not copied.
pub fn copy_dir(src: &Path, dest: &Path) -> CasketResult<()> {
    fs::create_dir(dest).map_err(|e| CasketError::io(Ecode::Mkdir, format!("creating {}", dest.display()), e))?;
    let read = |e| CasketError::io(Ecode::Read, format!("reading {}", src.display()), e);
    for entry in fs::read_dir(src).map_err(read)? {
        let entry = entry.map_err(read)?;
        let name = entry.file_name();
        if name == "LOCK" || !entry.file_type().map_err(read)?.is_file() {
            continue;
        }
        let (from, to) = (entry.path(), dest.join(&name));
        let linked = name.to_string_lossy().ends_with(".sst") && fs::hard_link(&from, &to).is_ok();
        if !linked {
            fs::copy(&from, &to).map_err(|e| {
                CasketError::io(
                    Ecode::Write,
                    format!("copying {} to {}", from.display(), to.display()),
                    e,
                )
            })?;
        }
    }
    Ok(())
}

/// Bytes the casket occupies: the marker and every file under its directory.
pub fn disk_bytes(path: &Path) -> u64 {
    fn walk(dir: &Path) -> u64 {
        let Ok(entries) = fs::read_dir(dir) else { return 0 };
        entries
            .flatten()
            .map(|e| match e.metadata() {
                Ok(m) if m.is_dir() => walk(&e.path()),
                Ok(m) => m.len(),
                Err(_) => 0,
            })
            .sum()
    }
    fs::metadata(path).map(|m| m.len()).unwrap_or(0) + walk(&data_dir(path))
}

/// Caskets open in this process, by absolute path: a second open of the same casket is
/// refused at once (Tokyo Cabinet forbids it; `flock` between two handles of one process would
/// otherwise wait forever).
pub struct OpenRegistration(PathBuf);

impl OpenRegistration {
    pub fn register(path: &Path) -> CasketResult<OpenRegistration> {
        let key =
            identity(path).map_err(|e| CasketError::io(Ecode::Invalid, format!("resolving {}", path.display()), e))?;
        let mut open = registry().lock().unwrap_or_else(|p| p.into_inner());
        if !open.insert(key.clone()) {
            return Err(CasketError::new(
                Ecode::Lock,
                format!("{} is already open in this process", path.display()),
            ));
        }
        Ok(OpenRegistration(key))
    }
}

impl Drop for OpenRegistration {
    fn drop(&mut self) {
        registry().lock().unwrap_or_else(|p| p.into_inner()).remove(&self.0);
    }
}

/// What names a casket in the registry: its absolute path with symlinks resolved (those of the
/// directory if the file does not exist yet), so every spelling of one path is the same casket.
fn identity(path: &Path) -> std::io::Result<PathBuf> {
    if let Ok(p) = fs::canonicalize(path) {
        return Ok(p);
    }
    let abs = std::path::absolute(path)?;
    Ok(match (abs.parent(), abs.file_name()) {
        (Some(dir), Some(name)) => fs::canonicalize(dir).map(|d| d.join(name)).unwrap_or(abs),
        _ => abs,
    })
}

fn registry() -> &'static Mutex<HashSet<PathBuf>> {
    static OPEN: OnceLock<Mutex<HashSet<PathBuf>>> = OnceLock::new();
    OPEN.get_or_init(Default::default)
}

#[cfg(test)]
mod tests;
