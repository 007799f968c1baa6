//! `stats`, `queues` and `dump`: read-only looks into a store, written to stdout in forms a
//! script can split (`name: value`, tab-separated columns, one JSON object).

use std::fmt::Write as _;
use std::io::{self, BufWriter, Write};
use std::path::Path;

use rockcask_core::{QueueFigures, StoreMetrics, Summary};

use super::{finish_output, open_read_only};
use crate::args::PayloadFormat;
use crate::failure::CliResult;
use crate::render::{escape_text, json_string};

pub fn stats(dir: &Path, json: bool) -> CliResult {
    let store = open_read_only(dir)?;
    let metrics = store.metrics()?;
    let mut out = io::stdout().lock();
    let written = if json {
        write_json(&mut out, &metrics)
    } else {
        write_lines(&mut out, &metrics)
    };
    finish_output(written, &mut out)
}

/// The store's figures in a fixed order under fixed names. Counts, rates and latencies are
/// those of this command's own open of the store (0 for a command that only reads), and the
/// payload counters of `StoreStats` are left out for the same reason; the queues' depths, the
/// age of their oldest entries (counted from this open: a lower bound) and RocksDB's memory,
/// disk and stall figures are the store's.
fn figures(m: &StoreMetrics) -> Vec<(String, String)> {
    let s = &m.stats;
    let mut out: Vec<(String, String)> = [
        ("queues", s.queues),
        ("queued_items", s.queued_items),
        ("objects_estimate", s.objects_estimate),
        ("disk_bytes", s.disk_bytes),
        ("memtable_bytes", s.memtable_bytes),
        ("block_cache_bytes", s.block_cache_bytes),
        ("table_reader_bytes", s.table_reader_bytes),
        ("live_sst_bytes", m.live_sst_bytes),
        ("wal_bytes", m.wal_bytes),
        ("delayed_write_rate", m.delayed_write_rate),
        ("write_stopped", u64::from(m.write_stopped)),
        ("write_stall_delays", m.write_stall_delays),
        ("write_stall_stops", m.write_stall_stops),
        ("commits", m.commits),
    ]
    .into_iter()
    .map(|(name, v)| (name.to_string(), v.to_string()))
    .collect();
    out.push(("commits_per_second".into(), rate(m.commits_per_second)));
    out.extend(summary("commit_latency", "_nanos", &m.commit_latency_nanos));
    out.extend(summary("synced_write", "_nanos", &m.synced_write_nanos));
    out.extend(summary("group_commit_size", "", &m.group_commit_size));
    out.push(("maps".into(), s.maps.to_string()));
    out.push(("map_entries_estimate".into(), s.map_entries_estimate.to_string()));
    out.push(("map_cache_bytes".into(), m.map_cache_bytes.to_string()));
    out.push(("map_cache_hits".into(), m.map_cache_hits.to_string()));
    out.push(("map_cache_misses".into(), m.map_cache_misses.to_string()));
    out.push(("object_cache_bytes".into(), m.object_cache_bytes.to_string()));
    out.push(("object_cache_hits".into(), m.object_cache_hits.to_string()));
    out.push(("object_cache_misses".into(), m.object_cache_misses.to_string()));
    out.push(("queue_cache_bytes".into(), m.queue_cache_bytes.to_string()));
    out
}

/// `prefix_count`, then `prefix_p50unit` ... `prefix_maxunit`.
fn summary(prefix: &str, unit: &str, s: &Summary) -> Vec<(String, String)> {
    let name = |what: &str| format!("{prefix}_{what}{unit}");
    vec![
        (format!("{prefix}_count"), s.count.to_string()),
        (name("p50"), s.p50.to_string()),
        (name("p90"), s.p90.to_string()),
        (name("p99"), s.p99.to_string()),
        (name("p999"), s.p999.to_string()),
        (name("max"), s.max.to_string()),
    ]
}

fn rate(per_second: f64) -> String {
    format!("{per_second:.3}")
}

/// One queue's figures (after its name), in the columns' order.
fn queue_figures(q: &QueueFigures) -> [(&'static str, String); 13] {
    let c = &q.counts;
    [
        ("depth", q.depth.to_string()),
        ("available", q.available.to_string()),
        ("claimed", q.claimed.to_string()),
        ("enqueued", c.enqueued.to_string()),
        ("enqueued_per_second", rate(c.enqueued_per_second)),
        ("polled", c.polled.to_string()),
        ("polled_per_second", rate(c.polled_per_second)),
        ("consumed", c.consumed.to_string()),
        ("consumed_per_second", rate(c.consumed_per_second)),
        ("returned", c.returned.to_string()),
        ("dead_lettered", c.dead_lettered.to_string()),
        (
            "oldest_entry_age_ms",
            c.oldest_entry_age_millis
                .map_or_else(|| "-".to_string(), |a| a.to_string()),
        ),
        (
            "oldest_age_is_lower_bound",
            u64::from(c.oldest_age_is_lower_bound).to_string(),
        ),
    ]
}

/// `name: value` lines, then, after an empty line, a tab-separated table of the queues with a
/// header line (names escaped as `queues` prints them; `-` for the age of an empty queue).
fn write_lines(out: &mut impl Write, m: &StoreMetrics) -> io::Result<()> {
    for (name, value) in figures(m) {
        writeln!(out, "{name}: {value}")?;
    }
    let header: Vec<&str> = queue_figures(&QueueFigures::default())
        .iter()
        .map(|(name, _)| *name)
        .collect();
    writeln!(out, "\nqueue\t{}", header.join("\t"))?;
    let mut line = String::new();
    for q in &m.queues {
        line.clear();
        escape_text(q.name.as_bytes(), &mut line);
        for (_, value) in queue_figures(q) {
            let _ = write!(line, "\t{value}");
        }
        writeln!(out, "{line}")?;
    }
    Ok(())
}

/// One JSON object: the store's figures, and `queue_figures`, an array of one object per queue
/// (`oldest_entry_age_ms` is null for an empty queue).
fn write_json(out: &mut impl Write, m: &StoreMetrics) -> io::Result<()> {
    let mut fields: Vec<String> = figures(m)
        .iter()
        .map(|(name, value)| format!("{}: {value}", json_string(name)))
        .collect();
    let queues: Vec<String> =
        m.queues
            .iter()
            .map(|q| {
                let mut f = vec![format!("\"name\": {}", json_string(&q.name))];
                f.extend(queue_figures(q).iter().map(|(name, value)| {
                    format!("{}: {}", json_string(name), if value == "-" { "null" } else { value })
                }));
                format!("{{{}}}", f.join(", "))
            })
            .collect();
    fields.push(format!("\"queue_figures\": [{}]", queues.join(", ")));
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

pub fn maps(dir: &Path) -> CliResult {
    let store = open_read_only(dir)?;
    let mut out = BufWriter::new(io::stdout().lock());
    let mut line = String::new();
    let mut written = Ok(());
    for name in store.map_names()? {
        line.clear();
        escape_text(name.as_bytes(), &mut line);
        let pairs = store.visit_map(&name, &mut |_, _| Ok(true))?;
        written = writeln!(out, "{line}\t{pairs}");
        if written.is_err() {
            break;
        }
    }
    finish_output(written, &mut out)
}

pub fn dump_map(dir: &Path, map: &str, limit: Option<u64>, format: PayloadFormat) -> CliResult {
    let store = open_read_only(dir)?;
    let mut out = BufWriter::with_capacity(1 << 16, io::stdout().lock());
    let render = format.renderer();
    let mut left = limit.unwrap_or(u64::MAX);
    let mut line = String::new();
    let mut written = Ok(());
    store.visit_map(map, &mut |key, value| {
        if left == 0 {
            return Ok(false);
        }
        left -= 1;
        line.clear();
        render(key, &mut line);
        line.push('\t');
        render(value, &mut line);
        line.push('\n');
        written = out.write_all(line.as_bytes());
        Ok(written.is_ok() && left > 0)
    })?;
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
