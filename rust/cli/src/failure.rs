//! How a command fails: a one-line message and the exit code scripts branch on.
//!
//! The core's errors already say what and where; this only sorts them into the few exit codes
//! the `--help` text promises (2, usage errors, is clap's own).

use std::fmt;
use std::path::Path;

use rockcask_core::Error;

pub const FAILURE: u8 = 1;
pub const NOT_FOUND: u8 = 3;
pub const LOCKED: u8 = 4;
pub const DAMAGED: u8 = 5;
pub const TARGET_EXISTS: u8 = 6;

#[derive(Debug)]
pub struct Failure {
    pub code: u8,
    pub message: String,
}

impl Failure {
    pub fn new(code: u8, message: impl Into<String>) -> Failure {
        Failure {
            code,
            message: message.into(),
        }
    }

    /// A missing input file gets the same exit code as a missing store: "nothing there".
    pub fn missing_file(path: &Path) -> Failure {
        Failure::new(NOT_FOUND, format!("{}: no such file", path.display()))
    }
}

impl fmt::Display for Failure {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl From<Error> for Failure {
    fn from(e: Error) -> Failure {
        let code = match &e {
            Error::NotAStore { .. } => NOT_FOUND,
            Error::Locked { .. } => LOCKED,
            Error::Snapshot { .. } => DAMAGED,
            Error::TargetExists { .. } => TARGET_EXISTS,
            // 130 for Ctrl-C, 143 for SIGTERM, as a shell reports a command the signal killed.
            Error::Io { source, .. }
                if source.kind() == std::io::ErrorKind::Interrupted && crate::interrupt::requested() =>
            {
                crate::interrupt::exit_code()
            }
            _ => FAILURE,
        };
        Failure {
            code,
            message: e.to_string(),
        }
    }
}

impl From<std::io::Error> for Failure {
    fn from(e: std::io::Error) -> Failure {
        Failure::new(FAILURE, format!("writing the output: {e}"))
    }
}

pub type CliResult<T = ()> = Result<T, Failure>;
