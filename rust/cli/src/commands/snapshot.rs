//! `export`, `import`, `verify` and `checkpoint`: the long-running commands. They draw progress
//! on stderr and end with a summary on stdout (both silenced by `--quiet`).

use std::path::Path;
use std::time::Instant;

use rockcask_core::compress::{Compression, Policy};
use rockcask_core::snapshot::{self as core_snapshot, Content, ExportOptions, ImportOptions, Summary};
use rockcask_core::{Store, StoreOptions};

use super::{open_read_only, require_file};
use crate::args::Output;
use crate::failure::CliResult;
use crate::interrupt;
use crate::progress::{Measure, ProgressBar};
use crate::render::{escape_text, megabytes, utc_time};

pub fn export(
    dir: &Path,
    file: &Path,
    workers: usize,
    compression: Compression,
    force: bool,
    created_at: Option<i64>,
    output: &Output,
) -> CliResult {
    let options = ExportOptions {
        workers,
        compression,
        created_unix_millis: created_at,
        overwrite: force,
        ..ExportOptions::default()
    };
    interrupt::install();
    let start = Instant::now();
    let summary = if dir.is_file() {
        // A Tokyo Cabinet drop-in casket: a marker file with its database beside it. Opened as
        // a reader, so it waits for a writer in another process to close it.
        let mut bar = ProgressBar::new("export", Measure::Records, output);
        let mut listener = bar.listener();
        core_snapshot::export_casket(dir, file, &options, &mut listener)?
    } else {
        // Read-only: an export reads under one RocksDB snapshot and never writes to the store,
        // so it runs beside the process that owns the store.
        let store = open_read_only(dir)?;
        let mut bar = ProgressBar::new("export", Measure::Records, output);
        let mut listener = bar.listener();
        store.export_to(file, &options, &mut listener)?
    };
    if !output.quiet {
        println!(
            "exported {} to {}: {}",
            dir.display(),
            file.display(),
            totals(&summary, start)
        );
    }
    Ok(())
}

pub fn import(file: &Path, dir: &Path, workers: usize, compression: Compression, output: &Output) -> CliResult {
    require_file(file)?;
    let options = ImportOptions {
        workers,
        store: StoreOptions {
            compression: Policy {
                codec: compression,
                ..Policy::default()
            },
            ..StoreOptions::default()
        },
    };
    let casket = core_snapshot::read_header(file)?.content == Content::Casket as i32;
    interrupt::install();
    let start = Instant::now();
    let summary = {
        let mut bar = ProgressBar::new("import", Measure::Bytes, output);
        let mut listener = bar.listener();
        if casket {
            // A casket snapshot makes a casket (marker file at DIR, database beside it).
            core_snapshot::import_casket(file, dir, workers, &mut listener)?
        } else {
            core_snapshot::import_store(file, dir, &options, &mut listener)?
        }
    };
    if !output.quiet {
        println!(
            "imported {} into {}: {}",
            file.display(),
            dir.display(),
            totals(&summary, start)
        );
    }
    Ok(())
}

pub fn verify(file: &Path, workers: usize, output: &Output) -> CliResult {
    require_file(file)?;
    interrupt::install();
    let summary = {
        let mut bar = ProgressBar::new("verify", Measure::Bytes, output);
        let mut listener = bar.listener();
        core_snapshot::verify(file, workers, &mut listener)?
    };
    if !output.quiet {
        print!("{}", describe(&summary));
    }
    Ok(())
}

pub fn checkpoint(dir: &Path, target: &Path, quiet: bool) -> CliResult {
    // A RocksDB checkpoint must pause file deletions, which a read-only open cannot do: this
    // opens the store normally and so needs it not to be open anywhere else (else exit 4).
    let store = Store::open(
        dir,
        StoreOptions {
            create_if_missing: false,
            ..StoreOptions::default()
        },
    )?;
    store.checkpoint(target)?;
    store.close()?;
    if !quiet {
        println!("checkpoint of {} written to {}", dir.display(), target.display());
    }
    Ok(())
}

/// `12 records (2 queues, 6 entries, 4 objects), 1234 bytes in 0.01 s (0.1 MB/s)`.
fn totals(summary: &Summary, start: Instant) -> String {
    let seconds = start.elapsed().as_secs_f64();
    let c = &summary.counts;
    let rate = if seconds > 0.0 {
        megabytes(summary.file_bytes) / seconds
    } else {
        0.0
    };
    let what = if c.keys > 0 || c.values > 0 {
        format!("{} keys, {} values", c.keys, c.values)
    } else {
        format!("{} queues, {} entries, {} objects", c.queues, c.entries, c.objects)
    };
    format!(
        "{} records ({what}), {} bytes in {seconds:.2} s ({rate:.1} MB/s)",
        c.records, summary.file_bytes
    )
}

/// What `verify` prints: the header, then the trailer's counts, as `name: value` lines.
fn describe(summary: &Summary) -> String {
    let h = &summary.header;
    let c = &summary.counts;
    let text = |s: &str| {
        let mut out = String::new();
        escape_text(s.as_bytes(), &mut out);
        out
    };
    let content = Content::try_from(h.content).map_or_else(
        |_| format!("unknown ({})", h.content),
        |c| c.as_str_name().to_ascii_lowercase(),
    );
    let compression = u8::try_from(h.compression)
        .ok()
        .and_then(Compression::from_code)
        .map_or_else(|| format!("unknown ({})", h.compression), |c| c.name().to_string());
    let mut lines = vec![
        ("file", text(&summary.file.display().to_string())),
        ("format_version", summary.format_version.to_string()),
        ("content", content),
        ("created_by", text(&h.created_by)),
        ("created_at", utc_time(h.created_unix_millis)),
        ("created_unix_millis", h.created_unix_millis.to_string()),
        ("source", text(&h.source)),
        ("compression", compression),
    ];
    if h.content == Content::Casket as i32 {
        lines.push(("casket_kind", text(&h.casket_kind)));
        lines.push(("casket_order", text(&h.casket_order)));
    }
    lines.extend([
        ("file_bytes", summary.file_bytes.to_string()),
        ("frames", c.frames.to_string()),
        ("records", c.records.to_string()),
        ("queues", c.queues.to_string()),
        ("entries", c.entries.to_string()),
        ("objects", c.objects.to_string()),
        ("keys", c.keys.to_string()),
        ("values", c.values.to_string()),
        ("payload_bytes", c.payload_bytes.to_string()),
        ("maps", c.maps.to_string()),
        ("map_entries", c.map_entries.to_string()),
        ("status", "valid".to_string()),
    ]);
    lines.iter().map(|(name, value)| format!("{name}: {value}\n")).collect()
}
