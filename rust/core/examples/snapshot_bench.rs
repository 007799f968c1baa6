//! Snapshot export and import speed and memory, beside this disk's sequential write bandwidth
//! measured with dd in the same run.
//!
//! For each store size (default 10^6 and 4x10^6 queued items of 256-byte payloads) it builds a
//! store, then exports and imports it with 1 and 2 workers, each in a child process so its peak
//! RSS is its own, five times, each time right after a dd measuring the disk's sequential write
//! bandwidth (it varies a lot on shared virtual disks). Prints medians and the bars' verdicts,
//! and, for scale, the peak RSS of a child that only opens and closes the store.
//!
//! Usage: `cargo run --release -p rockcask-core --example snapshot_bench [WORK_DIR] [N,N,...]`
//! (`... snapshot_bench child build DIR N` only builds a store; `child export STORE FILE WORKERS`
//! and `child import FILE DIR WORKERS` run one step, printing seconds, bytes and peak RSS KiB.)

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Instant;

use rockcask_core::snapshot::{self, no_progress, ExportOptions, ImportOptions};
use rockcask_core::{Store, StoreOptions};

const PAYLOAD: usize = 256;

/// Runs of each export and import; the table shows medians.
const RUNS: usize = 5;

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if args.first().map(String::as_str) == Some("child") {
        child(&args[1..]);
        return;
    }
    let work = PathBuf::from(args.first().cloned().unwrap_or_else(|| "target/snapshot-bench".into()));
    let sizes: Vec<u64> = args.get(1).map_or(vec![1_000_000, 4_000_000], |s| {
        s.split(',').map(|n| n.parse().expect("item counts")).collect()
    });
    std::fs::create_dir_all(&work).expect("work directory");
    println!("Snapshot export/import: N queued items of {PAYLOAD}-byte payloads; each run in a child process, after a");
    println!(
        "dd of 1 GiB (bs=1M conv=fdatasync) in {} measuring the disk just then; medians of {RUNS} runs",
        work.display()
    );
    println!();
    println!(
        "{:>9} {:>7} {:>7} | {:>8} {:>9} {:>8} {:>9} {:>7} {:>9}",
        "N", "work", "workers", "seconds", "MB", "MB/s", "dd MB/s", "of dd", "peak RSS"
    );
    let mut peaks: Vec<(u64, &str, u64)> = Vec::new();
    let mut slowest = f64::MAX;
    for &n in &sizes {
        let store = work.join(format!("store-{n}"));
        let _ = std::fs::remove_dir_all(&store);
        build_store(&store, n);
        // What opening and closing the store costs by itself, for scale.
        let open_kb = median((0..RUNS).map(|_| run_child("open", &[path(&store)]).2 as f64).collect());
        println!(
            "{n:>9} {:>7} {:>7} | {:>8} {:>9} {:>8} {:>9} {:>7} {:>6.0} MB",
            "open",
            "-",
            "",
            "",
            "",
            "",
            "",
            open_kb / 1024.0
        );
        // 2 workers on every size (the RSS comparison); 1 worker on the first size as well.
        let workers: &[usize] = if n == sizes[0] { &[1, 2] } else { &[2] };
        for &w in workers {
            let file = work.join(format!("snapshot-{n}-{w}.rcs"));
            let copy = work.join(format!("import-{n}-{w}"));
            for what in ["export", "import"] {
                let mut runs: Vec<(f64, u64, u64, f64)> = Vec::new();
                for _ in 0..RUNS {
                    let dd = dd_mb_per_s(&work);
                    let args = match what {
                        "export" => {
                            let _ = std::fs::remove_file(&file);
                            vec![path(&store), path(&file), w.to_string()]
                        }
                        _ => {
                            let _ = std::fs::remove_dir_all(&copy);
                            vec![path(&file), path(&copy), w.to_string()]
                        }
                    };
                    let (secs, bytes, rss_kb) = run_child(what, &args);
                    runs.push((secs, bytes, rss_kb, dd));
                }
                let bytes = runs[0].1;
                let secs = median(runs.iter().map(|r| r.0).collect());
                let dd = median(runs.iter().map(|r| r.3).collect());
                // The two medians' ratio: pairing each run with its own dd would let one dd that
                // a host cache flattered decide a row.
                let ratio = bytes as f64 / 1e6 / secs / dd;
                let rss_kb = median(runs.iter().map(|r| r.2 as f64).collect()) as u64;
                slowest = slowest.min(ratio);
                println!(
                    "{n:>9} {what:>7} {w:>7} | {secs:>8.2} {:>9.1} {:>8.0} {dd:>9.0} {:>6.0}% {:>6.0} MB",
                    bytes as f64 / 1e6,
                    bytes as f64 / 1e6 / secs,
                    100.0 * ratio,
                    rss_kb as f64 / 1024.0
                );
                if w == 2 {
                    peaks.push((n, what, rss_kb));
                }
            }
            let _ = std::fs::remove_file(&file);
            let _ = std::fs::remove_dir_all(&copy);
        }
        let _ = std::fs::remove_dir_all(&store);
    }
    println!();
    println!(
        "slowest export or import: {:.0}% of dd's sequential write bandwidth (bar: >= 50%)",
        100.0 * slowest
    );
    if let (Some(first), Some(last)) = (sizes.first(), sizes.last()) {
        for what in ["export", "import"] {
            let at = |n: u64| peaks.iter().find(|p| p.0 == n && p.1 == what).map(|p| p.2 as f64);
            if let (Some(a), Some(b)) = (at(*first), at(*last)) {
                if first != last {
                    println!(
                        "{what}: peak RSS {:.0} MB at N={first}, {:.0} MB at N={last}: {:+.1}% (bar: < +10%)",
                        a / 1024.0,
                        b / 1024.0,
                        100.0 * (b - a) / a
                    );
                }
            }
        }
    }
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(|a, b| a.total_cmp(b));
    v[v.len() / 2]
}

fn path(p: &Path) -> String {
    p.display().to_string()
}

/// Pseudo-random payloads (xorshift), so neither RocksDB nor a snapshot compresses them away.
fn build_store(dir: &Path, n: u64) {
    let started = Instant::now();
    let store = Store::open(
        dir,
        StoreOptions {
            sync_on_commit: false,
            ..StoreOptions::default()
        },
    )
    .expect("create store");
    let mut state = 0x9E37_79B9_7F4A_7C15u64 ^ n;
    let mut payload = vec![0u8; PAYLOAD];
    let mut done = 0;
    while done < n {
        let mut tx = store.begin().expect("begin");
        for _ in 0..10_000.min(n - done) {
            for chunk in payload.chunks_mut(8) {
                state ^= state << 13;
                state ^= state >> 7;
                state ^= state << 17;
                chunk.copy_from_slice(&state.to_le_bytes()[..chunk.len()]);
            }
            tx.enqueue(["parse.out", "index.in", "archive"][(done % 3) as usize], &payload)
                .expect("enqueue");
            done += 1;
        }
        tx.commit().expect("commit");
    }
    store.compact().expect("compact");
    store.close().expect("close");
    eprintln!(
        "(built a store of {n} items in {:.1} s)",
        started.elapsed().as_secs_f64()
    );
}

/// Runs one export or import in a child process; returns (seconds, file bytes, peak RSS KiB).
fn run_child(what: &str, args: &[String]) -> (f64, u64, u64) {
    let out = Command::new(std::env::current_exe().expect("own path"))
        .arg("child")
        .arg(what)
        .args(args)
        .output()
        .expect("child process");
    assert!(
        out.status.success(),
        "{what} failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = String::from_utf8_lossy(&out.stdout);
    let v: Vec<&str> = text.split_whitespace().collect();
    (
        v[0].parse().expect("seconds"),
        v[1].parse().expect("bytes"),
        v[2].parse().expect("rss"),
    )
}

fn child(args: &[String]) {
    if args[0] == "build" {
        // `child build DIR N`: only build a store (to profile an export or import by hand).
        build_store(Path::new(&args[1]), args[2].parse().expect("item count"));
        return;
    }
    if args[0] == "open" {
        // `child open STORE`: open and close only, for the peak RSS of the store itself.
        let store = Store::open(
            &args[1],
            StoreOptions {
                create_if_missing: false,
                ..StoreOptions::default()
            },
        )
        .expect("open store");
        store.close().expect("close");
        println!("0 0 {}", peak_rss_kb());
        return;
    }
    let (what, from, to, workers) = (
        &args[0],
        Path::new(&args[1]),
        Path::new(&args[2]),
        args[3].parse().expect("workers"),
    );
    let started = Instant::now();
    let summary = match what.as_str() {
        "export" => {
            let store = Store::open(
                from,
                StoreOptions {
                    create_if_missing: false,
                    ..StoreOptions::default()
                },
            )
            .expect("open store");
            let s = store
                .export_to(
                    to,
                    &ExportOptions {
                        workers,
                        ..ExportOptions::default()
                    },
                    &mut no_progress(),
                )
                .expect("export");
            store.close().expect("close");
            s
        }
        _ => snapshot::import_store(
            from,
            to,
            &ImportOptions {
                workers,
                store: StoreOptions::default(),
            },
            &mut no_progress(),
        )
        .expect("import"),
    };
    let secs = started.elapsed().as_secs_f64();
    println!("{secs} {} {}", summary.file_bytes, peak_rss_kb());
}

fn peak_rss_kb() -> u64 {
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    status
        .lines()
        .find_map(|l| l.strip_prefix("VmHWM:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
        .unwrap_or(0)
}

fn dd_mb_per_s(dir: &Path) -> f64 {
    let f = dir.join(".dd-probe");
    let out = Command::new("dd")
        .args([
            "if=/dev/zero",
            &format!("of={}", f.display()),
            "bs=1M",
            "count=1024",
            "conv=fdatasync",
        ])
        .output()
        .expect("running dd");
    let _ = std::fs::remove_file(&f);
    // "1073741824 bytes (1.1 GB, 1.0 GiB) copied, 2.00 s, 537 MB/s"
    let text = String::from_utf8_lossy(&out.stderr);
    let secs: f64 = text
        .split(", ")
        .find(|p| p.ends_with(" s"))
        .and_then(|p| p.trim_end_matches(" s").trim().parse().ok())
        .expect("dd's report");
    1073.741824 / secs
}
