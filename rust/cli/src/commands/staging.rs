//! `staging list|commit|abort`: the staging queues of exactly-once writers (`staging.rs`).

use std::io::{self, BufWriter, Write};
use std::path::Path;

use rockcask_core::{Store, StoreOptions};

use super::{finish_output, open_read_only};
use crate::args::StagingFilter;
use crate::failure::CliResult;
use crate::render::escape_text;
use crate::staging::{self, StagedQueue};

pub fn list(dir: &Path, filter: &StagingFilter) -> CliResult {
    let store = open_read_only(dir)?;
    let mut out = BufWriter::new(io::stdout().lock());
    let mut written = Ok(());
    for staged in selected(&store, filter)? {
        let q = &staged.queue;
        written = writeln!(
            out,
            "{}\t{}\t{}\t{}\t{}\t{}",
            text(&q.target),
            text(&q.lineage),
            q.subtask,
            q.epoch,
            staged.entries,
            text(&q.name())
        );
        if written.is_err() {
            break;
        }
    }
    finish_output(written, &mut out)
}

#[derive(Clone, Copy)]
pub enum Settle {
    Commit,
    Abort,
}

/// Commits or aborts every selected staging queue, in commit order, one transaction each: an
/// interruption leaves each one either settled or as it was.
pub fn settle(dir: &Path, filter: &StagingFilter, how: Settle) -> CliResult {
    let store = Store::open(
        dir,
        StoreOptions {
            create_if_missing: false,
            ..StoreOptions::default()
        },
    )?;
    let mut out = io::stdout().lock();
    let mut written = Ok(());
    for staged in selected(&store, filter)? {
        let (verb, entries) = match how {
            Settle::Commit => ("committed", staging::commit(&store, &staged.queue)?),
            Settle::Abort => ("aborted", staging::abort(&store, &staged.queue)?),
        };
        if written.is_ok() {
            written = writeln!(out, "{verb}\t{}\t{entries}", text(&staged.queue.name()));
        }
    }
    store.close()?;
    finish_output(written, &mut out)
}

fn selected(store: &Store, filter: &StagingFilter) -> CliResult<Vec<StagedQueue>> {
    let matches = |wanted: &Option<String>, actual: &str| wanted.as_deref().is_none_or(|w| w == actual);
    Ok(staging::list(store)?
        .into_iter()
        .filter(|s| matches(&filter.lineage, &s.queue.lineage) && matches(&filter.target, &s.queue.target))
        .collect())
}

/// Names as `rockcask queues` prints them: tabs and newlines escaped.
fn text(name: &str) -> String {
    let mut out = String::new();
    escape_text(name.as_bytes(), &mut out);
    out
}
