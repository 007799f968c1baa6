//! `rockcask`: inspect, export, import, verify and checkpoint RockCask stores from the shell.
//!
//! Everything it does goes through `rockcask-core`'s public API; this crate only parses
//! arguments, renders output and maps errors to the exit codes listed in `--help`
//! (see docs/CLI.md).
//!
//! The command is [`run`]: the `rockcask` binary (`main.rs`) calls it, and so does the JNI
//! library, which runs the same CLI from the jar (`java -jar rockcask-<version>.jar ...`). There
//! the JVM owns the signals: it calls [`interrupt`] when Ctrl-C or SIGTERM shuts it down.

mod args;
mod commands;
mod failure;
mod interrupt;
mod progress;
mod render;
mod staging;

use std::ffi::OsString;
use std::io::Write;

use clap::Parser;

/// Who catches Ctrl-C and SIGTERM while an export, import or verification runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Signals {
    /// The CLI installs its own handlers (the `rockcask` binary).
    Own,
    /// The host process keeps its handlers and calls [`interrupt`] instead (the JVM).
    Host,
}

/// Runs the CLI with `args` (the first is the program's name, as in `argv`), writing to the
/// process's stdout and stderr; returns the exit code the `--help` text lists.
pub fn run(args: impl IntoIterator<Item = OsString>, signals: Signals) -> u8 {
    interrupt::set_handling(signals);
    let code = match args::Cli::try_parse_from(args) {
        // Usage errors exit with 2, `--help` and `--version` with 0, as clap's own `exit` does.
        Err(e) => {
            let _ = e.print();
            u8::try_from(e.exit_code()).unwrap_or(failure::FAILURE)
        }
        Ok(cli) => match commands::run(cli.command) {
            Ok(()) => 0,
            Err(failure) => {
                // One line, so that a script can log it as is.
                eprintln!("rockcask: error: {}", failure.message.replace('\n', " "));
                failure.code
            }
        },
    };
    // A host process may end without flushing Rust's buffered stdout.
    let _ = std::io::stdout().flush();
    code
}

/// Stops a running export, import or verification as Ctrl-C would: it removes what it wrote and
/// its [`run`] returns 130. For a host that owns the signals ([`Signals::Host`]).
pub fn interrupt() {
    interrupt::request();
}
