//! `dead list|requeue|drop`: the dead letters of a queue (`rockcask_core::dead_letter`).

use std::fmt::Write as _;
use std::io::{self, BufWriter, Write};
use std::path::Path;

use rockcask_core::dead_letter::Selection;
use rockcask_core::{Store, StoreOptions};

use super::{finish_output, open_read_only};
use crate::args::{DeadLetterPositions, PayloadFormat};
use crate::failure::CliResult;
use crate::render::{escape_text, utc_time};

pub fn list(dir: &Path, queue: &str, limit: usize, format: PayloadFormat) -> CliResult {
    let store = open_read_only(dir)?;
    let render = format.renderer();
    let mut out = BufWriter::new(io::stdout().lock());
    let mut written = Ok(());
    let mut line = String::new();
    for d in store.dead_letters(queue, limit)? {
        line.clear();
        let r = &d.record;
        let _ = write!(line, "{}\t", d.sequence);
        escape_text(r.origin_queue.as_bytes(), &mut line);
        let _ = write!(
            line,
            "\t{}\t{}\t{}\t",
            r.origin_sequence,
            r.deliveries,
            utc_time(r.dead_at_millis as i64)
        );
        escape_text(r.reason.as_bytes(), &mut line);
        line.push('\t');
        match &d.payload {
            Some(p) => render(p, &mut line),
            None => line.push('-'),
        }
        line.push('\n');
        written = out.write_all(line.as_bytes());
        if written.is_err() {
            break;
        }
    }
    finish_output(written, &mut out)
}

#[derive(Clone, Copy)]
pub enum Change {
    Requeue,
    Drop,
}

/// Requeues or drops the selected dead letters in one transaction.
pub fn change(dir: &Path, queue: &str, which: &DeadLetterPositions, how: Change) -> CliResult {
    let store = Store::open(
        dir,
        StoreOptions {
            create_if_missing: false,
            ..StoreOptions::default()
        },
    )?;
    let selection = if which.all {
        Selection::All
    } else {
        Selection::Only(&which.positions)
    };
    let mut tx = store.begin()?;
    let (verb, n) = match how {
        Change::Requeue => ("requeued", tx.requeue_dead_letters(queue, selection)?),
        Change::Drop => ("dropped", tx.drop_dead_letters(queue, selection)?),
    };
    tx.commit()?;
    store.close()?;
    let mut out = io::stdout().lock();
    let written = writeln!(out, "{verb}\t{n}");
    finish_output(written, &mut out)
}
