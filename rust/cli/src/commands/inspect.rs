//! `stats`, `queues` and `dump`: read-only looks into a store, written to stdout in forms a
//! script can split (`name: value`, tab-separated columns, one JSON object).

use std::fmt::Write as _;
use std::io::{self, BufWriter, Write};
use std::path::Path;

use rockcask_core::StoreStats;

use super::{finish_output, open_read_only};
use crate::args::PayloadFormat;
use crate::failure::CliResult;
use crate::render::{escape_text, json_string};

pub fn stats(dir: &Path, json: bool) -> CliResult {
    let store = open_read_only(dir)?;
    let stats = store.stats()?;
    let mut out = io::stdout().lock();
    let written = if json { write_json(&mut out, &stats) } else { write_lines(&mut out, &stats) };
    finish_output(written, &mut out)
}

/// The figures in a fixed order under fixed names. The payload counters of `StoreStats` count
/// since the store was opened, which for a command that has only just opened it is always 0:
/// they are left out.
fn figures(s: &StoreStats) -> [(&'static str, u64); 7] {
    [
        ("queues", s.queues),
        ("queued_items", s.queued_items),
        ("objects_estimate", s.objects_estimate),
        ("disk_bytes", s.disk_bytes),
        ("memtable_bytes", s.memtable_bytes),
        ("block_cache_bytes", s.block_cache_bytes),
        ("table_reader_bytes", s.table_reader_bytes),
    ]
}

fn write_lines(out: &mut impl Write, stats: &StoreStats) -> io::Result<()> {
    for (name, value) in figures(stats) {
        writeln!(out, "{name}: {value}")?;
    }
    Ok(())
}

fn write_json(out: &mut impl Write, stats: &StoreStats) -> io::Result<()> {
    let fields: Vec<String> = figures(stats).iter().map(|(name, value)| format!("{}: {value}", json_string(name))).collect();
    writeln!(out, "{{{}}}", fields.join(", "))
}

pub fn queues(dir: &Path) -> CliResult {
    let store = open_read_only(dir)?;
    let mut out = BufWriter::new(io::stdout().lock());
    let mut line = String::new();
    let mut written = Ok(());
    // `queue_names` sorts by name (byte order of the UTF-8).
    for name in store.queue_names()? {
        line.clear();
        escape_text(name.as_bytes(), &mut line);
        let size = store.queue_size(&name)?;
        written = writeln!(out, "{line}\t{size}");
        if written.is_err() {
            break;
        }
    }
    finish_output(written, &mut out)
}

pub fn dump(dir: &Path, queue: &str, limit: Option<u64>, format: PayloadFormat) -> CliResult {
    let store = open_read_only(dir)?;
    let mut out = BufWriter::with_capacity(1 << 16, io::stdout().lock());
    let render = format.renderer();
    let limit = limit.unwrap_or(u64::MAX);
    let mut line = String::new();
    // A failed write (the reader went away, say) stops the walk; it is reported after it.
    let mut written = Ok(());
    if limit > 0 {
        store.visit_queue(queue, &mut |position, id, payload| {
            line.clear();
            // A UUID displays as lowercase hyphenated hex.
            let _ = write!(line, "{position}\t{id}\t");
            match payload {
                Some(p) => render(p, &mut line),
                None => line.push('-'),
            }
            line.push('\n');
            written = out.write_all(line.as_bytes());
            Ok(written.is_ok() && position + 1 < limit)
        })?;
    } else {
        // Nothing to print, but an unknown queue or a missing store is still an error.
        store.visit_queue(queue, &mut |_, _, _| Ok(false))?;
    }
    finish_output(written, &mut out)
}
