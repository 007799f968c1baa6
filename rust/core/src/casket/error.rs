//! Failures of a casket, as Tokyo Cabinet error codes plus a detail naming what and where.
//!
//! The drop-in reports failures through `ecode()` (a number from a fixed table), so every
//! failure here carries one of those codes; the detail is for logs and exception messages.

use std::fmt;

/// Tokyo Cabinet's error codes, with their numeric values.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(i32)]
pub enum Ecode {
    Thread = 1,
    Invalid = 2,
    NoFile = 3,
    NoPerm = 4,
    Meta = 5,
    RHead = 6,
    Open = 7,
    Close = 8,
    Trunc = 9,
    Sync = 10,
    Stat = 11,
    Seek = 12,
    Read = 13,
    Write = 14,
    Mmap = 15,
    Lock = 16,
    Unlink = 17,
    Rename = 18,
    Mkdir = 19,
    Rmdir = 20,
    Keep = 21,
    NoRec = 22,
    Misc = 9999,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CasketError {
    pub code: Ecode,
    pub detail: String,
}

impl CasketError {
    pub fn new(code: Ecode, detail: impl Into<String>) -> CasketError {
        CasketError {
            code,
            detail: detail.into(),
        }
    }

    pub fn no_record() -> CasketError {
        CasketError::new(Ecode::NoRec, "no record found")
    }

    /// An I/O failure of the file system, classified by what RockCask was doing.
    pub fn io(code: Ecode, what: impl fmt::Display, e: std::io::Error) -> CasketError {
        let code = match e.kind() {
            std::io::ErrorKind::NotFound => Ecode::NoFile,
            std::io::ErrorKind::PermissionDenied => Ecode::NoPerm,
            _ => code,
        };
        CasketError::new(code, format!("{what}: {e}"))
    }

    /// A RocksDB failure while doing `what`.
    pub fn rocks(code: Ecode, what: impl fmt::Display, e: rocksdb::Error) -> CasketError {
        CasketError::new(code, format!("{what}: {:?}: {}", e.kind(), e.into_string()))
    }
}

impl fmt::Display for CasketError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{} (code {}): {}",
            errmsg(self.code as i32),
            self.code as i32,
            self.detail
        )
    }
}

impl std::error::Error for CasketError {}

pub type CasketResult<T> = std::result::Result<T, CasketError>;

/// Tokyo Cabinet's message for an error code.
pub fn errmsg(code: i32) -> &'static str {
    match code {
        0 => "success",
        1 => "threading error",
        2 => "invalid operation",
        3 => "file not found",
        4 => "no permission",
        5 => "invalid meta data",
        6 => "invalid record header",
        7 => "open error",
        8 => "close error",
        9 => "trunc error",
        10 => "sync error",
        11 => "stat error",
        12 => "seek error",
        13 => "read error",
        14 => "write error",
        15 => "mmap error",
        16 => "lock error",
        17 => "unlink error",
        18 => "rename error",
        19 => "mkdir error",
        20 => "rmdir error",
        21 => "existing record",
        22 => "no record found",
        9999 => "miscellaneous error",
        _ => "unknown error",
    }
}
