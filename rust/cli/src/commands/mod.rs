//! One function per subcommand; `run` dispatches. Inspection commands (read-only, output on
//! stdout for scripts) are in `inspect.rs`, snapshot and checkpoint commands in `snapshot.rs`.

mod dead;
mod inspect;
mod snapshot;
mod staging;

use std::io::{self, Write};
use std::path::Path;

use rockcask_core::{Store, StoreOptions};

use crate::args::{Command, DeadCommand, StagingCommand};
use crate::failure::{CliResult, Failure};

pub fn run(command: Command) -> CliResult {
    match command {
        Command::Stats { store_dir, json } => inspect::stats(&store_dir, json),
        Command::Queues { store_dir } => inspect::queues(&store_dir),
        Command::Dump {
            store_dir,
            queue: Some(queue),
            limit,
            format,
            ..
        } => inspect::dump(&store_dir, &queue, limit, format),
        Command::Dump {
            store_dir,
            map: Some(map),
            limit,
            format,
            ..
        } => inspect::dump_map(&store_dir, &map, limit, format),
        Command::Dump { .. } => unreachable!("clap requires a queue or a map"),
        Command::Maps { store_dir } => inspect::maps(&store_dir),
        Command::Export {
            store_dir,
            file,
            workers,
            compression,
            force,
            created_at,
            output,
        } => snapshot::export(
            &store_dir,
            &file,
            workers.get(),
            compression.into(),
            force,
            created_at,
            &output,
        ),
        Command::Import {
            file,
            store_dir,
            workers,
            compression,
            output,
        } => snapshot::import(&file, &store_dir, workers.get(), compression.into(), &output),
        Command::Verify { file, workers, output } => snapshot::verify(&file, workers.get(), &output),
        Command::Checkpoint {
            store_dir,
            target_dir,
            quiet,
        } => snapshot::checkpoint(&store_dir, &target_dir, quiet),
        Command::Staging(StagingCommand::List { store_dir, filter }) => staging::list(&store_dir, &filter),
        Command::Staging(StagingCommand::Commit { store_dir, filter }) => {
            staging::settle(&store_dir, &filter.into(), staging::Settle::Commit)
        }
        Command::Staging(StagingCommand::Abort { store_dir, filter }) => {
            staging::settle(&store_dir, &filter.into(), staging::Settle::Abort)
        }
        Command::Dead(DeadCommand::List {
            store_dir,
            queue,
            limit,
            format,
        }) => dead::list(&store_dir, &queue, limit, format),
        Command::Dead(DeadCommand::Requeue {
            store_dir,
            queue,
            which,
        }) => dead::change(&store_dir, &queue, &which, dead::Change::Requeue),
        Command::Dead(DeadCommand::Drop {
            store_dir,
            queue,
            which,
        }) => dead::change(&store_dir, &queue, &which, dead::Change::Drop),
    }
}

/// Opens an existing store without its write lock, so the command works while another process
/// has it open, and cannot change it. A missing or empty directory is `NotAStore` (exit 3):
/// nothing is ever created.
fn open_read_only(dir: &Path) -> CliResult<Store> {
    Ok(Store::open(
        dir,
        StoreOptions {
            read_only: true,
            create_if_missing: false,
            ..StoreOptions::default()
        },
    )?)
}

/// The end of a command's stdout output. A reader that went away (`rockcask dump ... | head`)
/// is not a failure: the command simply stops, as `cat` would.
fn finish_output(written: io::Result<()>, out: &mut impl Write) -> CliResult {
    match written.and_then(|()| out.flush()) {
        Err(e) if e.kind() == io::ErrorKind::BrokenPipe => Ok(()),
        other => Ok(other?),
    }
}

/// Checks that an input file is there before any work starts, so that a typo gets exit code 3
/// (and an import creates no directory for it).
fn require_file(path: &Path) -> CliResult {
    match std::fs::metadata(path) {
        Ok(m) if m.is_dir() => Err(Failure::new(
            crate::failure::NOT_FOUND,
            format!("{} is a directory, not a snapshot file", path.display()),
        )),
        Ok(_) => Ok(()),
        Err(e) if e.kind() == io::ErrorKind::NotFound => Err(Failure::missing_file(path)),
        Err(e) => Err(Failure::new(
            crate::failure::NOT_FOUND,
            format!("{}: {e}", path.display()),
        )),
    }
}
