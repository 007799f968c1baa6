//! `rockcask`: inspect, export, import, verify and checkpoint RockCask stores from the shell.
//!
//! Everything it does goes through `rockcask-core`'s public API; this crate only parses
//! arguments, renders output and maps errors to the exit codes listed in `--help`
//! (see docs/CLI.md).

mod args;
mod commands;
mod failure;
mod interrupt;
mod progress;
mod render;
mod staging;

use std::process::ExitCode;

use clap::Parser;

fn main() -> ExitCode {
    // Usage errors exit with 2 from inside `parse`, `--help` and `--version` with 0.
    let cli = args::Cli::parse();
    match commands::run(cli.command) {
        Ok(()) => ExitCode::SUCCESS,
        Err(failure) => {
            // One line, so that a script can log it as is.
            eprintln!("rockcask: error: {}", failure.message.replace('\n', " "));
            ExitCode::from(failure.code)
        }
    }
}
