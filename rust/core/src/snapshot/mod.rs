//! Whole-store snapshots: one checksummed file holding a consistent point-in-time copy of a
//! store (queues in order, objects) or of a casket (key/values), written by several threads yet
//! byte-identical to a single-threaded export, and read back as a stream that is verified as it
//! goes. The file format is in `format.rs` and docs/SNAPSHOT_FORMAT.md.
//!
//! Also checkpoints: a RocksDB checkpoint of an open store (hard links where possible).

mod casket;
mod export;
pub mod format;
mod import;
mod parallel;
mod read;
mod record_order;
mod records;
mod temp_files;
mod write;

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use rockcask_codec::compress::Compression;
pub use rockcask_codec::snapshot_pb::{Content, Header, Trailer as Counts};

use crate::error::{Error, Result, RocksContext};
use crate::options::StoreOptions;
use crate::store::Store;

pub use casket::{export_casket, import_casket};
pub use import::import_store;
pub use read::{read_header, verify};

/// How to write a snapshot.
#[derive(Clone, Debug)]
pub struct ExportOptions {
    /// Threads encoding and compressing frames (the calling thread reads the store and writes
    /// the file). The bytes written do not depend on it.
    pub workers: usize,
    /// Compression of frame bodies (a frame that does not shrink is stored raw).
    pub compression: Compression,
    /// Target size of a frame before compression.
    pub frame_bytes: usize,
    /// The creation time recorded in the header; `None` for now. Fixing it makes two exports
    /// of the same data byte-identical.
    pub created_unix_millis: Option<i64>,
    /// Replace an existing file (otherwise refused).
    pub overwrite: bool,
}

impl Default for ExportOptions {
    fn default() -> Self {
        ExportOptions {
            workers: std::thread::available_parallelism().map_or(1, |n| n.get()).min(8),
            compression: Compression::None,
            frame_bytes: 1 << 20,
            created_unix_millis: None,
            overwrite: false,
        }
    }
}

/// How to read a snapshot into a new store.
#[derive(Clone, Debug)]
pub struct ImportOptions {
    /// Threads checking, decompressing and decoding frames.
    pub workers: usize,
    /// Options of the store created (its payload compression applies to every imported object).
    pub store: StoreOptions,
}

impl Default for ImportOptions {
    fn default() -> Self {
        ImportOptions {
            workers: ExportOptions::default().workers,
            store: StoreOptions::default(),
        }
    }
}

/// Where a long export, import or verification is. Sent at most every `PROGRESS_INTERVAL`
/// and once more when done; a listener that returns an error stops the work.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Progress {
    /// Records written or read so far.
    pub records: u64,
    /// Records expected in all (an estimate when exporting; 0 when unknown).
    pub records_expected: u64,
    /// Bytes of the file written or read so far.
    pub bytes: u64,
    /// Bytes of the file in all (0 while exporting: unknown until done).
    pub bytes_expected: u64,
    pub done: bool,
}

pub const PROGRESS_INTERVAL: Duration = Duration::from_millis(100);

/// What a snapshot file holds: its header and the counts of its trailer.
#[derive(Clone, Debug, PartialEq)]
pub struct Summary {
    pub file: PathBuf,
    pub header: Header,
    pub counts: Counts,
    pub file_bytes: u64,
    /// The file's format version (what an export wrote: `format::FORMAT_VERSION`).
    pub format_version: u32,
}

impl Summary {
    /// The last progress report of work on this file.
    pub(crate) fn done_progress(&self) -> Progress {
        Progress {
            records: self.counts.records,
            records_expected: self.counts.records,
            bytes: self.file_bytes,
            bytes_expected: self.file_bytes,
            done: true,
        }
    }
}

/// Calls a progress listener at most every `PROGRESS_INTERVAL`.
pub(crate) struct Throttle<'a> {
    listener: &'a mut dyn FnMut(&Progress) -> Result<()>,
    last: Option<Instant>,
}

impl<'a> Throttle<'a> {
    pub fn new(listener: &'a mut dyn FnMut(&Progress) -> Result<()>) -> Self {
        Throttle { listener, last: None }
    }

    pub fn tick(&mut self, progress: impl FnOnce() -> Progress) -> Result<()> {
        if self.last.is_some_and(|t| t.elapsed() < PROGRESS_INTERVAL) {
            return Ok(());
        }
        self.last = Some(Instant::now());
        (self.listener)(&progress())
    }

    pub fn done(&mut self, progress: Progress) -> Result<()> {
        (self.listener)(&Progress { done: true, ..progress })
    }
}

/// A progress listener that ignores everything.
pub fn no_progress() -> impl FnMut(&Progress) -> Result<()> {
    |_| Ok(())
}

impl Store {
    /// Writes a consistent point-in-time copy of the store to `file` while other threads keep
    /// committing. The file appears complete or not at all (written under a temporary name,
    /// synced, then renamed).
    pub fn export_to(
        &self,
        file: &Path,
        options: &ExportOptions,
        progress: &mut dyn FnMut(&Progress) -> Result<()>,
    ) -> Result<Summary> {
        export::export_store(self, file, options, progress)
    }

    /// Creates, in `dir` (which must not exist or be empty), a RocksDB checkpoint of the store:
    /// its files hard-linked where the file system allows, copied otherwise. It opens as a store.
    pub fn checkpoint(&self, dir: &Path) -> Result<()> {
        let db = self.shared.db()?;
        if let Ok(mut entries) = std::fs::read_dir(dir) {
            if entries.next().is_some() {
                return Err(Error::TargetExists {
                    path: dir.to_path_buf(),
                    why: "exists and is not empty; a checkpoint needs a new directory".into(),
                });
            }
            // RocksDB creates the directory itself and refuses an existing one.
            std::fs::remove_dir(dir).map_err(Error::io(format!("preparing checkpoint directory {}", dir.display())))?;
        }
        let checkpoint = rocksdb::checkpoint::Checkpoint::new(db.db())
            .context(|| format!("preparing a checkpoint of {}", self.path().display()))?;
        checkpoint
            .create_checkpoint(dir)
            .context(|| format!("writing a checkpoint of {} to {}", self.path().display(), dir.display()))
    }
}

/// A snapshot error at a place in `file`.
pub(crate) fn snapshot_error(file: &Path, e: format::FormatError) -> Error {
    Error::Snapshot {
        file: file.to_path_buf(),
        offset: e.offset,
        frame: e.frame,
        detail: e.detail,
    }
}
