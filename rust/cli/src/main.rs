//! The `rockcask` binary: the CLI of `lib.rs`, catching Ctrl-C and SIGTERM itself.

use std::process::ExitCode;

fn main() -> ExitCode {
    ExitCode::from(rockcask_cli::run(std::env::args_os(), rockcask_cli::Signals::Own))
}
