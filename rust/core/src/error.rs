//! Every way a store operation can fail, each naming what and where.
//!
//! The JNI layer maps each variant to one Java exception type, so the variants follow the
//! caller's point of view (what to fix), not RocksDB's internals.

use std::path::PathBuf;

/// RocksDB status codes, kept as names so a caller (and the Java exception) can branch on them.
pub use rocksdb::ErrorKind as RocksStatus;

#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// The store (or the transaction) was closed; nothing can be done with it any more.
    #[error("{0} is closed")]
    Closed(&'static str),

    /// The transaction already committed or rolled back.
    #[error("transaction already {0}")]
    TransactionFinished(&'static str),

    /// A caller-supplied value is out of range or malformed.
    #[error("{0}")]
    InvalidArgument(String),

    /// An object id that a call needs does not exist.
    #[error("no object with id {0}")]
    NoSuchObject(uuid::Uuid),

    /// The store was opened read-only and the call would write.
    #[error("store at {0} is open read-only")]
    ReadOnly(PathBuf),

    /// The store is already open: by another process, or in this one (another handle, another
    /// class loader, another spelling of the path). `detail` names the holder where it can.
    #[error("store at {} is locked, already open: {detail}", path.display())]
    Locked { path: PathBuf, detail: String },

    /// The path exists but is not a RockCask store (or is missing and creation was not asked for).
    #[error("{path} is not a RockCask store: {why}")]
    NotAStore { path: PathBuf, why: String },

    /// RocksDB refused; `status` is its status code, `context` what RockCask was doing.
    #[error("{status:?}: {context}: {message}")]
    Rocks {
        status: RocksStatus,
        context: String,
        message: String,
    },

    /// A commit would leave `queue` holding more entries than its capacity. Nothing was
    /// written and the transaction is still open: commit again once consumers made room (or
    /// with a wait), or roll back.
    #[error("queue '{queue}' is full: it holds {depth} of its {capacity} {unit} and this commit adds {adding}")]
    QueueFull {
        queue: String,
        capacity: u64,
        depth: u64,
        adding: u64,
        unit: &'static str,
    },

    /// A map key this transaction read was written by another commit since: its reads are
    /// stale, so nothing of it was written (it ended as a rollback does). Retry it.
    #[error("map '{map}' key {key} was written by another commit after this transaction read it; nothing was written: retry the transaction")]
    Conflict { map: String, key: String },

    /// A key asked for with `Transaction::map_get_for_update` is held by another transaction,
    /// and waiting for it would deadlock or waited too long: the transaction ended as a
    /// rollback does, releasing what it held. Retry it.
    #[error("map '{map}' key {key} is held for update by another transaction and {why}; nothing was written: retry the transaction")]
    KeyHeld { map: String, key: String, why: String },

    /// A failure after a poll had claimed entries: the transaction was rolled back so that no
    /// entry can be consumed without having been delivered.
    #[error("transaction rolled back: {0}")]
    RolledBack(Box<Error>),

    /// A fault inside RockCask itself (a broken internal assumption): a bug to report.
    #[error("internal error: {0}")]
    Internal(String),

    /// Data read back from the store does not have the shape RockCask wrote.
    #[error("corrupt store data at {0}")]
    Corrupt(String),

    /// A snapshot file that cannot be read or trusted: which file, where, and why.
    #[error("snapshot {}: {detail} (at byte {offset}{})", file.display(), frame.map(|f| format!(", frame {f}")).unwrap_or_default())]
    Snapshot {
        file: PathBuf,
        offset: u64,
        frame: Option<u64>,
        detail: String,
    },

    /// The destination of an export, import or checkpoint is already there.
    #[error("{} {why}", path.display())]
    TargetExists { path: PathBuf, why: String },

    /// A file operation outside RocksDB failed (reading or writing a snapshot, say).
    #[error("{context}: {source}")]
    Io { context: String, source: std::io::Error },
}

impl Error {
    pub(crate) fn io(context: impl Into<String>) -> impl FnOnce(std::io::Error) -> Error {
        let context = context.into();
        move |source| Error::Io { context, source }
    }
}

pub type Result<T> = std::result::Result<T, Error>;

/// Attach what RockCask was doing to a RocksDB error.
pub(crate) trait RocksContext<T> {
    fn context(self, what: impl FnOnce() -> String) -> Result<T>;
}

impl<T> RocksContext<T> for std::result::Result<T, rocksdb::Error> {
    fn context(self, what: impl FnOnce() -> String) -> Result<T> {
        self.map_err(|e| Error::Rocks {
            status: e.kind(),
            context: what(),
            message: e.into_string(),
        })
    }
}
