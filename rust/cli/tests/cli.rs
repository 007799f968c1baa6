//! The `rockcask` binary end to end, on real stores made with rockcask-core: each subcommand's
//! output, its help, and the exit code of each kind of failure scripts branch on.
//!
//! The CLI under test is the binary cargo built, or, if `ROCKCASK_CLI` is set, the command it
//! names (words separated by spaces), such as `java -jar .../rockcask-<version>.jar`: the same
//! CLI run from the jar (tools/run-tests.sh runs these tests both ways).

use std::ffi::OsStr;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use rockcask_core::{Store, StoreOptions, Uuid};

/// The command that starts the CLI under test, without arguments.
fn cli() -> Command {
    match std::env::var("ROCKCASK_CLI") {
        Ok(command) if !command.trim().is_empty() => {
            let mut words = command.split_whitespace();
            let mut cli = Command::new(words.next().unwrap());
            cli.args(words);
            cli
        }
        _ => Command::new(env!("CARGO_BIN_EXE_rockcask")),
    }
}

/// Runs the CLI with `args`; stdin is closed and stderr is a pipe (not a terminal).
fn rockcask<S: AsRef<OsStr>>(args: &[S]) -> Output {
    cli()
        .args(args)
        .stdin(std::process::Stdio::null())
        .output()
        .expect("the rockcask CLI runs")
}

fn stdout(out: &Output) -> String {
    String::from_utf8(out.stdout.clone()).unwrap()
}

fn stderr(out: &Output) -> String {
    String::from_utf8(out.stderr.clone()).unwrap()
}

/// Asserts the exit code, showing what the command printed when it differs.
#[track_caller]
fn assert_exit(out: &Output, code: i32) {
    assert_eq!(
        out.status.code(),
        Some(code),
        "stdout:\n{}\nstderr:\n{}",
        stdout(out),
        stderr(out)
    );
}

/// Asserts a failure: the exit code and one `rockcask: error:` line on stderr.
#[track_caller]
fn assert_failure(out: &Output, code: i32, mentions: &str) {
    assert_exit(out, code);
    let err = stderr(out);
    assert!(
        err.starts_with("rockcask: error: ") && err.trim_end().lines().count() == 1,
        "{err}"
    );
    assert!(err.contains(mentions), "expected '{mentions}' in: {err}");
}

fn open(dir: &Path) -> Store {
    Store::open(
        dir,
        StoreOptions {
            sync_on_commit: false,
            ..StoreOptions::default()
        },
    )
    .unwrap()
}

/// A closed store with two queues: `alpha` holds text that needs escaping, binary bytes, an
/// entry whose `put` object was deleted and a payload that is exactly "-"; `beta` had one of
/// its two entries consumed. Returns alpha's entry ids in order.
fn sample_store(dir: &Path) -> Vec<Uuid> {
    let store = open(dir);
    let put = Uuid::now_v7();
    let mut tx = store.begin().unwrap();
    let mut ids = vec![
        tx.enqueue("alpha", b"hello").unwrap(),
        tx.enqueue("alpha", b"tab\there\nnewline").unwrap(),
        tx.enqueue("alpha", &[0x00, 0xFF]).unwrap(),
    ];
    tx.put(put, b"deleted later").unwrap();
    tx.enqueue_id("alpha", put).unwrap();
    ids.push(put);
    ids.push(tx.enqueue("alpha", b"-").unwrap());
    tx.enqueue("beta", b"consumed").unwrap();
    tx.enqueue("beta", b"kept").unwrap();
    tx.commit().unwrap();
    let mut tx = store.begin().unwrap();
    assert!(tx.delete(put).unwrap());
    tx.poll("beta", 1).unwrap();
    tx.commit().unwrap();
    store.close().unwrap();
    ids
}

fn sample(dir: &tempfile::TempDir) -> (PathBuf, Vec<Uuid>) {
    let store = dir.path().join("store");
    let ids = sample_store(&store);
    (store, ids)
}

#[test]
fn stats_prints_stable_name_value_lines_a_queue_table_and_json() {
    let dir = tempfile::tempdir().unwrap();
    let (store, _) = sample(&dir);

    let out = rockcask(&[OsStr::new("stats"), store.as_os_str()]);
    assert_exit(&out, 0);
    let text = stdout(&out);
    let (figures, table) = text
        .split_once("\n\n")
        .expect("figures, an empty line, the queue table");
    let names: Vec<&str> = figures.lines().map(|l| l.split_once(": ").unwrap().0).collect();
    assert_eq!(
        names[..16],
        [
            "queues",
            "queued_items",
            "objects_estimate",
            "disk_bytes",
            "memtable_bytes",
            "block_cache_bytes",
            "table_reader_bytes",
            "live_sst_bytes",
            "wal_bytes",
            "delayed_write_rate",
            "write_stopped",
            "write_stall_delays",
            "write_stall_stops",
            "commits",
            "commits_per_second",
            "commit_latency_count",
        ]
    );
    assert!(
        names.contains(&"commit_latency_p999_nanos")
            && names.contains(&"synced_write_max_nanos")
            && names.contains(&"group_commit_size_p50"),
        "{text}"
    );
    assert!(
        figures.contains("queues: 2\n") && figures.contains("queued_items: 6\n") && figures.contains("commits: 0\n"),
        "{text}"
    );
    assert!(
        figures.contains("write_stopped: 0\n") && figures.contains("commits_per_second: 0.000\n"),
        "{text}"
    );
    for line in figures.lines() {
        line.split_once(": ").unwrap().1.parse::<f64>().unwrap();
    }
    let rows: Vec<Vec<&str>> = table.lines().map(|l| l.split('\t').collect()).collect();
    assert_eq!(
        rows[0],
        [
            "queue",
            "depth",
            "available",
            "claimed",
            "enqueued",
            "enqueued_per_second",
            "polled",
            "polled_per_second",
            "consumed",
            "consumed_per_second",
            "returned",
            "dead_lettered",
            "oldest_entry_age_ms",
            "oldest_age_is_lower_bound",
        ]
    );
    assert_eq!(rows.len(), 3, "{table}");
    // Entries already there when the command opened the store: their age counts from its open.
    assert_eq!(
        (rows[1][0], rows[1][1], rows[1][2], rows[1][3], rows[1][13]),
        ("alpha", "5", "5", "0", "1")
    );
    assert_eq!(
        (rows[2][0], rows[2][1], rows[2][4], rows[2][13]),
        ("beta", "1", "0", "1")
    );
    rows[1][12].parse::<u64>().unwrap();

    let out = rockcask(&[OsStr::new("stats"), store.as_os_str(), OsStr::new("--json")]);
    assert_exit(&out, 0);
    let json = stdout(&out);
    assert_eq!(json.lines().count(), 1, "{json}");
    assert!(
        json.starts_with("{\"queues\": 2, \"queued_items\": 6, \"objects_estimate\": ")
            && json.trim_end().ends_with("]}"),
        "{json}"
    );
    assert!(json.contains("\"write_stall_stops\": 0, \"commits\": 0, "), "{json}");
    assert!(
        json.contains("\"queue_figures\": [{\"name\": \"alpha\", \"depth\": 5, \"available\": 5, \"claimed\": 0, "),
        "{json}"
    );
    assert!(json.contains("{\"name\": \"beta\", \"depth\": 1, "), "{json}");
    assert!(json.contains("\"oldest_age_is_lower_bound\": 1}"), "{json}");
}

#[test]
fn stats_of_an_empty_queue_has_no_oldest_age() {
    let dir = tempfile::tempdir().unwrap();
    let store_dir = dir.path().join("store");
    let store = open(&store_dir);
    let mut tx = store.begin().unwrap();
    tx.enqueue("drained", b"x").unwrap();
    tx.commit().unwrap();
    let mut tx = store.begin().unwrap();
    tx.poll("drained", 1).unwrap();
    tx.commit().unwrap();
    store.close().unwrap();
    let out = rockcask(&[OsStr::new("stats"), store_dir.as_os_str()]);
    assert_exit(&out, 0);
    assert!(
        stdout(&out).ends_with("\ndrained\t0\t0\t0\t0\t0.000\t0\t0.000\t0\t0.000\t0\t0\t-\t0\n"),
        "{}",
        stdout(&out)
    );
    let out = rockcask(&[OsStr::new("stats"), store_dir.as_os_str(), OsStr::new("--json")]);
    assert!(
        stdout(&out).contains("\"oldest_entry_age_ms\": null, \"oldest_age_is_lower_bound\": 0}"),
        "{}",
        stdout(&out)
    );
}

#[test]
fn queues_lists_name_tab_size_sorted_by_name() {
    let dir = tempfile::tempdir().unwrap();
    let (store, _) = sample(&dir);
    let out = rockcask(&[OsStr::new("queues"), store.as_os_str()]);
    assert_exit(&out, 0);
    assert_eq!(stdout(&out), "alpha\t5\nbeta\t1\n");
}

#[test]
fn dump_prints_entries_in_fifo_order_in_text_hex_and_base64() {
    let dir = tempfile::tempdir().unwrap();
    let (store, ids) = sample(&dir);
    let dump = |extra: &[&str]| {
        let mut args = vec![OsStr::new("dump"), store.as_os_str(), OsStr::new("alpha")];
        args.extend(extra.iter().map(OsStr::new));
        let out = rockcask(&args);
        assert_exit(&out, 0);
        stdout(&out)
    };
    let expect = |payloads: [&str; 5]| -> String {
        ids.iter()
            .zip(payloads)
            .enumerate()
            .map(|(i, (id, p))| format!("{i}\t{id}\t{p}\n"))
            .collect()
    };

    // The deleted object is `-`; the payload that is exactly "-" is escaped so as not to look deleted.
    assert_eq!(
        dump(&[]),
        expect(["hello", "tab\\there\\nnewline", "\\0\u{fffd}", "-", "\\u{2d}"])
    );
    assert_eq!(dump(&["--format", "text"]), dump(&[]));
    assert_eq!(
        dump(&["--format", "hex"]),
        expect(["68656c6c6f", "74616209686572650a6e65776c696e65", "00ff", "-", "2d"])
    );
    assert_eq!(
        dump(&["--format", "base64"]),
        expect(["aGVsbG8=", "dGFiCWhlcmUKbmV3bGluZQ==", "AP8=", "-", "LQ=="])
    );
    assert_eq!(
        dump(&["--limit", "2"]),
        expect(["hello", "tab\\there\\nnewline", "", "", ""])
            .lines()
            .take(2)
            .map(|l| format!("{l}\n"))
            .collect::<String>()
    );
    assert_eq!(dump(&["--limit", "0"]), "");
}

#[test]
fn dump_of_an_unknown_queue_fails_with_1() {
    let dir = tempfile::tempdir().unwrap();
    let (store, _) = sample(&dir);
    let out = rockcask(&[OsStr::new("dump"), store.as_os_str(), OsStr::new("no-such-queue")]);
    assert_failure(&out, 1, "no queue named 'no-such-queue'");
    assert!(out.stdout.is_empty());
}

#[test]
fn inspection_and_export_work_while_another_handle_holds_the_store_open() {
    let dir = tempfile::tempdir().unwrap();
    let (store_dir, _) = sample(&dir);
    let store = open(&store_dir);
    // Committed but not yet flushed to a table file: a read-only open sees it through the WAL.
    let mut tx = store.begin().unwrap();
    tx.enqueue("gamma", b"while open").unwrap();
    tx.commit().unwrap();

    let out = rockcask(&[OsStr::new("queues"), store_dir.as_os_str()]);
    assert_exit(&out, 0);
    assert_eq!(stdout(&out), "alpha\t5\nbeta\t1\ngamma\t1\n");
    let out = rockcask(&[OsStr::new("stats"), store_dir.as_os_str()]);
    assert_exit(&out, 0);
    let out = rockcask(&[OsStr::new("dump"), store_dir.as_os_str(), OsStr::new("gamma")]);
    assert_exit(&out, 0);
    assert!(stdout(&out).ends_with("\twhile open\n"), "{}", stdout(&out));
    let file = dir.path().join("open.rcs");
    let out = rockcask(&[OsStr::new("export"), store_dir.as_os_str(), file.as_os_str()]);
    assert_exit(&out, 0);
    assert!(stdout(&out).contains("3 queues, 7 entries"), "{}", stdout(&out));
    store.close().unwrap();
}

#[test]
fn export_verify_import_round_trip_with_summaries() {
    let dir = tempfile::tempdir().unwrap();
    let (store, _) = sample(&dir);
    let file = dir.path().join("snap.rcs");
    let out = rockcask(&[
        OsStr::new("export"),
        store.as_os_str(),
        file.as_os_str(),
        OsStr::new("--workers"),
        OsStr::new("2"),
        OsStr::new("--compression"),
        OsStr::new("zstd"),
        OsStr::new("--created-at"),
        OsStr::new("1700000000123"),
    ]);
    assert_exit(&out, 0);
    let summary = stdout(&out);
    assert!(
        summary.starts_with(&format!("exported {} to {}: ", store.display(), file.display())),
        "{summary}"
    );
    // 2 queue definitions, 6 entries, 5 objects (the deleted one is gone).
    assert!(
        summary.contains("13 records (2 queues, 6 entries, 5 objects)")
            && summary.contains(" bytes in ")
            && summary.contains(" MB/s)"),
        "{summary}"
    );
    assert_eq!(summary.lines().count(), 1);
    // Progress is drawn only on a terminal: here stderr is a pipe.
    assert!(out.stderr.is_empty(), "{}", stderr(&out));

    let out = rockcask(&[
        OsStr::new("verify"),
        file.as_os_str(),
        OsStr::new("--workers"),
        OsStr::new("1"),
    ]);
    assert_exit(&out, 0);
    let report = stdout(&out);
    for line in [
        "format_version: 4",
        "content: store",
        &format!("created_by: rockcask {}", env!("CARGO_PKG_VERSION")),
        "created_at: 2023-11-14T22:13:20.123Z",
        "created_unix_millis: 1700000000123",
        &format!("source: {}", store.display()),
        "compression: zstd",
        &format!("file_bytes: {}", std::fs::metadata(&file).unwrap().len()),
        "records: 13",
        "queues: 2",
        "entries: 6",
        "objects: 5",
        "status: valid",
    ] {
        assert!(report.lines().any(|l| l == line), "no line '{line}' in:\n{report}");
    }

    let imported = dir.path().join("imported");
    let out = rockcask(&[
        OsStr::new("import"),
        file.as_os_str(),
        imported.as_os_str(),
        OsStr::new("--compression"),
        OsStr::new("lz4"),
    ]);
    assert_exit(&out, 0);
    assert!(
        stdout(&out).starts_with(&format!(
            "imported {} into {}: 13 records",
            file.display(),
            imported.display()
        )),
        "{}",
        stdout(&out)
    );
    // The imported store holds the same queues and entries (ids included).
    for queue in ["alpha", "beta"] {
        let original = rockcask(&[
            OsStr::new("dump"),
            store.as_os_str(),
            OsStr::new(queue),
            OsStr::new("--format"),
            OsStr::new("hex"),
        ]);
        let copy = rockcask(&[
            OsStr::new("dump"),
            imported.as_os_str(),
            OsStr::new(queue),
            OsStr::new("--format"),
            OsStr::new("hex"),
        ]);
        assert_exit(&copy, 0);
        assert_eq!(stdout(&copy), stdout(&original));
    }
}

#[test]
fn export_refuses_an_existing_file_with_6_unless_forced() {
    let dir = tempfile::tempdir().unwrap();
    let (store, _) = sample(&dir);
    let file = dir.path().join("taken.rcs");
    std::fs::write(&file, b"precious").unwrap();
    let out = rockcask(&[OsStr::new("export"), store.as_os_str(), file.as_os_str()]);
    assert_failure(&out, 6, &file.display().to_string());
    assert_eq!(std::fs::read(&file).unwrap(), b"precious");

    let out = rockcask(&[
        OsStr::new("export"),
        store.as_os_str(),
        file.as_os_str(),
        OsStr::new("--force"),
    ]);
    assert_exit(&out, 0);
    assert_exit(&rockcask(&[OsStr::new("verify"), file.as_os_str()]), 0);
}

#[test]
fn import_into_a_non_empty_directory_fails_with_6_and_leaves_it_alone() {
    let dir = tempfile::tempdir().unwrap();
    let (store, _) = sample(&dir);
    let file = dir.path().join("snap.rcs");
    assert_exit(
        &rockcask(&[OsStr::new("export"), store.as_os_str(), file.as_os_str()]),
        0,
    );
    let target = dir.path().join("occupied");
    std::fs::create_dir(&target).unwrap();
    std::fs::write(target.join("keep.txt"), b"mine").unwrap();
    let out = rockcask(&[OsStr::new("import"), file.as_os_str(), target.as_os_str()]);
    assert_failure(&out, 6, "not empty");
    assert_eq!(std::fs::read(target.join("keep.txt")).unwrap(), b"mine");
    assert_eq!(std::fs::read_dir(&target).unwrap().count(), 1);
}

#[test]
fn a_damaged_snapshot_fails_verify_and_import_with_5_and_the_import_leaves_no_directory() {
    let dir = tempfile::tempdir().unwrap();
    let (store, _) = sample(&dir);
    let file = dir.path().join("snap.rcs");
    assert_exit(
        &rockcask(&[OsStr::new("export"), store.as_os_str(), file.as_os_str()]),
        0,
    );
    let mut bytes = std::fs::read(&file).unwrap();
    let middle = bytes.len() / 2;
    bytes[middle] ^= 0x40;
    std::fs::write(&file, &bytes).unwrap();

    let out = rockcask(&[OsStr::new("verify"), file.as_os_str()]);
    assert_failure(&out, 5, &format!("snapshot {}", file.display()));
    assert!(out.stdout.is_empty());
    let target = dir.path().join("never");
    let out = rockcask(&[OsStr::new("import"), file.as_os_str(), target.as_os_str()]);
    assert_failure(&out, 5, "snapshot");
    assert!(!target.exists());

    // Cut short: refused as well.
    std::fs::write(&file, &bytes[..middle]).unwrap();
    assert_failure(&rockcask(&[OsStr::new("verify"), file.as_os_str()]), 5, "snapshot");
    // Not a snapshot at all.
    std::fs::write(&file, b"hello, world\n").unwrap();
    assert_failure(
        &rockcask(&[OsStr::new("import"), file.as_os_str(), target.as_os_str()]),
        5,
        "snapshot",
    );
    assert!(!target.exists());
}

#[test]
fn a_damaged_frame_length_is_reported_at_that_frame_by_verify_and_import_alike() {
    use rockcask_core::snapshot::{self, no_progress, ExportOptions, ImportOptions};
    let dir = tempfile::tempdir().unwrap();
    let (store, _) = sample(&dir);
    let file = dir.path().join("snap.rcs");
    // Small frames, so the damaged one has frames after it.
    let options = ExportOptions {
        frame_bytes: 48,
        created_unix_millis: Some(1),
        ..ExportOptions::default()
    };
    let source = open(&store);
    source.export_to(&file, &options, &mut no_progress()).unwrap();
    source.close().unwrap();
    let mut bytes = std::fs::read(&file).unwrap();
    let word = |b: &[u8], at: usize| u32::from_le_bytes(b[at..at + 4].try_into().unwrap());
    // Frame 0 follows the header; a frame is its fixed bytes (stored length at 12; 20 bytes, 16
    // in version 1), its body and a 4-byte CRC.
    let fixed = if word(&bytes, 8) >= 2 { 20 } else { 16 };
    let frame0 = 16 + word(&bytes, 12) as usize + 4;
    let frame1 = frame0 + fixed + word(&bytes, frame0 + 12) as usize + 4;
    assert_eq!(
        bytes[frame1 + fixed + word(&bytes, frame1 + 12) as usize + 4],
        1,
        "frame 2 is a records frame"
    );
    // Frame 1's stored length, 4 bytes short: the next "frame" would start inside its body.
    let shorter = word(&bytes, frame1 + 12) - 4;
    bytes[frame1 + 12..frame1 + 16].copy_from_slice(&shorter.to_le_bytes());
    std::fs::write(&file, &bytes).unwrap();

    let expected = "frame header checksum mismatch";
    let place = format!("(at byte {frame1}, frame 1)");
    let one = rockcask(&[
        OsStr::new("verify"),
        file.as_os_str(),
        OsStr::new("--workers"),
        OsStr::new("1"),
    ]);
    assert_failure(&one, 5, &place);
    assert!(stderr(&one).contains(expected), "{}", stderr(&one));
    let four = rockcask(&[
        OsStr::new("verify"),
        file.as_os_str(),
        OsStr::new("--workers"),
        OsStr::new("4"),
    ]);
    let target = dir.path().join("never");
    let import = rockcask(&[OsStr::new("import"), file.as_os_str(), target.as_os_str()]);
    assert_failure(&import, 5, &place);
    assert!(!target.exists());
    assert_eq!(stderr(&four), stderr(&one));
    assert_eq!(stderr(&import), stderr(&one));
    // The library says the same.
    let core = snapshot::verify(&file, 2, &mut no_progress()).unwrap_err().to_string();
    assert_eq!(stderr(&one).trim_end(), format!("rockcask: error: {core}"));
    let core_import = snapshot::import_store(
        &file,
        &target,
        &ImportOptions {
            workers: 3,
            ..ImportOptions::default()
        },
        &mut no_progress(),
    );
    assert_eq!(core_import.unwrap_err().to_string(), core);
}

#[test]
fn a_missing_store_or_input_file_fails_with_3_and_nothing_is_created() {
    let dir = tempfile::tempdir().unwrap();
    let missing = dir.path().join("missing");
    let file = dir.path().join("out.rcs");
    let target = dir.path().join("target");
    for args in [
        vec![OsStr::new("stats"), missing.as_os_str()],
        vec![OsStr::new("queues"), missing.as_os_str()],
        vec![OsStr::new("dump"), missing.as_os_str(), OsStr::new("q")],
        vec![OsStr::new("export"), missing.as_os_str(), file.as_os_str()],
        vec![OsStr::new("checkpoint"), missing.as_os_str(), target.as_os_str()],
    ] {
        let out = rockcask(&args);
        assert_failure(&out, 3, "is not a RockCask store");
        assert!(
            !missing.exists() && !file.exists() && !target.exists(),
            "{args:?} created something"
        );
    }
    // An empty directory is not a store either, and stays empty.
    let empty = dir.path().join("empty");
    std::fs::create_dir(&empty).unwrap();
    assert_failure(&rockcask(&[OsStr::new("stats"), empty.as_os_str()]), 3, "empty");
    assert_eq!(std::fs::read_dir(&empty).unwrap().count(), 0);

    let no_file = dir.path().join("no-such.rcs");
    assert_failure(
        &rockcask(&[OsStr::new("verify"), no_file.as_os_str()]),
        3,
        "no such file",
    );
    assert_failure(
        &rockcask(&[OsStr::new("import"), no_file.as_os_str(), target.as_os_str()]),
        3,
        "no such file",
    );
    assert!(!target.exists());
}

#[test]
fn checkpoint_of_a_store_locked_by_another_handle_fails_with_4() {
    let dir = tempfile::tempdir().unwrap();
    let (store_dir, _) = sample(&dir);
    let holder = open(&store_dir);
    let target = dir.path().join("cp");
    let out = rockcask(&[OsStr::new("checkpoint"), store_dir.as_os_str(), target.as_os_str()]);
    assert_failure(&out, 4, "locked");
    assert!(!target.exists());
    holder.close().unwrap();
}

#[test]
fn checkpoint_writes_a_store_that_opens_and_refuses_a_non_empty_target_with_6() {
    let dir = tempfile::tempdir().unwrap();
    let (store, _) = sample(&dir);
    let target = dir.path().join("cp");
    let out = rockcask(&[OsStr::new("checkpoint"), store.as_os_str(), target.as_os_str()]);
    assert_exit(&out, 0);
    assert_eq!(
        stdout(&out),
        format!("checkpoint of {} written to {}\n", store.display(), target.display())
    );
    let out = rockcask(&[OsStr::new("queues"), target.as_os_str()]);
    assert_exit(&out, 0);
    assert_eq!(stdout(&out), "alpha\t5\nbeta\t1\n");

    let out = rockcask(&[
        OsStr::new("checkpoint"),
        store.as_os_str(),
        target.as_os_str(),
        OsStr::new("--quiet"),
    ]);
    assert_failure(&out, 6, "not empty");
}

#[test]
fn quiet_prints_nothing_and_progress_draws_lines_when_stderr_is_not_a_terminal() {
    let dir = tempfile::tempdir().unwrap();
    let (store, _) = sample(&dir);
    let file = dir.path().join("snap.rcs");
    let out = rockcask(&[
        OsStr::new("export"),
        store.as_os_str(),
        file.as_os_str(),
        OsStr::new("--quiet"),
    ]);
    assert_exit(&out, 0);
    assert!(out.stdout.is_empty() && out.stderr.is_empty());
    assert!(file.exists());

    let out = rockcask(&[
        OsStr::new("export"),
        store.as_os_str(),
        file.as_os_str(),
        OsStr::new("--force"),
        OsStr::new("--progress"),
    ]);
    assert_exit(&out, 0);
    let last = stderr(&out).lines().last().unwrap_or_default().to_string();
    assert!(
        last.starts_with("export") && last.contains("100%") && last.contains("13 records") && last.contains("MB/s"),
        "{}",
        stderr(&out)
    );
    for command in ["verify", "import"] {
        let mut args = vec![OsStr::new(command), file.as_os_str()];
        let target = dir.path().join(format!("{command}-target"));
        if command == "import" {
            args.push(target.as_os_str());
        }
        args.push(OsStr::new("--progress"));
        let out = rockcask(&args);
        assert_exit(&out, 0);
        let last = stderr(&out).lines().last().unwrap_or_default().to_string();
        assert!(
            last.starts_with(command) && last.contains("100%") && last.contains(" / "),
            "{}",
            stderr(&out)
        );
        args.pop();
        args.push(OsStr::new("-q"));
        if command == "import" {
            std::fs::remove_dir_all(&target).unwrap();
        }
        let out = rockcask(&args);
        assert_exit(&out, 0);
        assert!(
            out.stdout.is_empty() && out.stderr.is_empty(),
            "{command}: {}{}",
            stdout(&out),
            stderr(&out)
        );
    }
}

#[test]
fn bad_arguments_exit_with_2() {
    let dir = tempfile::tempdir().unwrap();
    let (store, _) = sample(&dir);
    let s = store.to_str().unwrap();
    for args in [
        vec![],
        vec!["frobnicate"],
        vec!["stats"],
        vec!["stats", s, "--bogus"],
        vec!["dump", s],
        vec!["dump", s, "alpha", "--format", "octal"],
        vec!["dump", s, "alpha", "--limit", "-1"],
        vec!["export", s, "f.rcs", "--workers", "0"],
        vec!["export", s, "f.rcs", "--compression", "gzip"],
        vec!["export", s, "f.rcs", "--created-at", "yesterday"],
        vec!["import", "f.rcs"],
        vec!["verify", "f.rcs", "--quiet", "--progress"],
        vec!["checkpoint", s],
    ] {
        let out = rockcask(&args);
        assert_exit(&out, 2);
        assert!(out.stdout.is_empty(), "{args:?}");
        assert!(
            stderr(&out).contains("error") || stderr(&out).contains("Usage"),
            "{args:?}: {}",
            stderr(&out)
        );
    }
    assert!(!Path::new("f.rcs").exists());
}

#[test]
fn help_of_every_subcommand_describes_it_and_lists_the_exit_codes() {
    let out = rockcask(&["--help"]);
    assert_exit(&out, 0);
    let help = stdout(&out);
    for command in [
        "stats",
        "queues",
        "dump",
        "export",
        "import",
        "verify",
        "checkpoint",
        "staging",
        "dead",
    ] {
        assert!(help.contains(command), "top-level help misses {command}:\n{help}");
    }
    assert!(
        help.contains("Exit codes:") && help.contains("snapshot damaged or unreadable"),
        "{help}"
    );

    for (command, mentions) in [
        ("stats", "--json"),
        ("queues", "STORE_DIR"),
        ("dump", "--format"),
        ("export", "--created-at"),
        ("import", "--compression"),
        ("verify", "--workers"),
        ("checkpoint", "TARGET_DIR"),
    ] {
        let out = rockcask(&[command, "--help"]);
        assert_exit(&out, 0);
        let help = stdout(&out);
        assert!(
            help.contains(mentions) && help.contains("Exit codes:") && help.contains("target already exists"),
            "{command} --help:\n{help}"
        );
    }
    assert!(stdout(&rockcask(&["dump", "--help"])).contains("base64"));
    for (verb, mentions) in [("list", "--limit"), ("requeue", "--position"), ("drop", "--all")] {
        let out = rockcask(&["dead", verb, "--help"]);
        assert_exit(&out, 0);
        let help = stdout(&out);
        assert!(
            help.contains(mentions) && help.contains("Exit codes:"),
            "dead {verb} --help:\n{help}"
        );
    }
    for (verb, mentions) in [("list", "--target"), ("commit", "--lineage"), ("abort", "--lineage")] {
        let out = rockcask(&["staging", verb, "--help"]);
        assert_exit(&out, 0);
        let help = stdout(&out);
        assert!(
            help.contains(mentions) && help.contains("Exit codes:"),
            "staging {verb} --help:\n{help}"
        );
    }

    let out = rockcask(&["--version"]);
    assert_exit(&out, 0);
    assert_eq!(stdout(&out), format!("rockcask {}\n", env!("CARGO_PKG_VERSION")));
}

#[test]
fn a_tokyo_cabinet_casket_exports_and_imports_as_a_casket() {
    use rockcask_core::casket::{Casket, CasketOptions, KeyOrder, Kind, PutMode};
    let dir = tempfile::tempdir().unwrap();
    let src = dir.path().join("queue.tcb");
    let c = Casket::open(
        &src,
        CasketOptions {
            create: true,
            ..CasketOptions::new(Kind::Btree, true)
        },
    )
    .unwrap();
    for (k, v) in [("jobs", "first"), ("jobs", "second"), ("done", "x")] {
        c.put(k.as_bytes(), v.as_bytes(), PutMode::Dup).unwrap();
    }
    c.close().unwrap();
    let file = dir.path().join("casket.rcs");
    let out = rockcask(&[OsStr::new("export"), src.as_os_str(), file.as_os_str()]);
    assert_exit(&out, 0);
    assert!(stdout(&out).contains("2 keys, 3 values"), "{}", stdout(&out));
    let out = rockcask(&[OsStr::new("verify"), file.as_os_str()]);
    assert_exit(&out, 0);
    assert!(
        stdout(&out).contains("content: casket\n") && stdout(&out).contains("casket_order: lexical\n"),
        "{}",
        stdout(&out)
    );
    let copy = dir.path().join("copy.tcb");
    assert_exit(
        &rockcask(&[OsStr::new("import"), file.as_os_str(), copy.as_os_str()]),
        0,
    );
    let back = Casket::open(
        &copy,
        CasketOptions {
            order: KeyOrder::Lexical,
            ..CasketOptions::new(Kind::Btree, false)
        },
    )
    .unwrap();
    assert_eq!(
        back.get_list(b"jobs").unwrap(),
        vec![b"first".to_vec(), b"second".to_vec()]
    );
    assert_eq!(back.rnum().unwrap(), 3);
    // A second import onto the same path is refused.
    assert_failure(
        &rockcask(&[OsStr::new("import"), file.as_os_str(), copy.as_os_str()]),
        6,
        "exists",
    );
}

/// Staging queues of two lineages for target `out` (`dead`: subtask 0 epochs 3 and 2, subtask 1
/// epoch 2; `alive`: one), and `out` holding one committed record.
fn staged_store(dir: &Path) {
    let store = open(dir);
    let mut tx = store.begin().unwrap();
    tx.enqueue("out", b"committed").unwrap();
    for (lineage, subtask, epoch, items) in [
        ("dead", 0, 3, &["c"][..]),
        ("dead", 0, 2, &["a", "b"][..]),
        ("dead", 1, 2, &["x"][..]),
        ("alive", 0, 1, &["y"][..]),
    ] {
        // `<target>.staging/<lineage>/<subtask>/<epoch>` (tests/golden/staging-queue-names.tsv).
        let name = format!("out.staging/{lineage}/{subtask}/{epoch}");
        for item in items {
            tx.enqueue(&name, item.as_bytes()).unwrap();
        }
    }
    tx.commit().unwrap();
    store.close().unwrap();
}

#[test]
fn staging_list_shows_each_staging_queue_in_commit_order_and_filters_by_lineage_and_target() {
    let dir = tempfile::tempdir().unwrap();
    let store = dir.path().join("store");
    staged_store(&store);
    let out = rockcask(&[OsStr::new("staging"), OsStr::new("list"), store.as_os_str()]);
    assert_exit(&out, 0);
    assert_eq!(
        stdout(&out),
        "out\talive\t0\t1\t1\tout.staging/alive/0/1\n\
         out\tdead\t0\t2\t2\tout.staging/dead/0/2\n\
         out\tdead\t0\t3\t1\tout.staging/dead/0/3\n\
         out\tdead\t1\t2\t1\tout.staging/dead/1/2\n"
    );
    let out = rockcask(&[
        OsStr::new("staging"),
        OsStr::new("list"),
        store.as_os_str(),
        OsStr::new("--lineage"),
        OsStr::new("alive"),
    ]);
    assert_eq!(stdout(&out), "out\talive\t0\t1\t1\tout.staging/alive/0/1\n");
    let out = rockcask(&[
        OsStr::new("staging"),
        OsStr::new("list"),
        store.as_os_str(),
        OsStr::new("--target"),
        OsStr::new("elsewhere"),
    ]);
    assert_exit(&out, 0);
    assert_eq!(stdout(&out), "");
}

#[test]
fn staging_commit_moves_a_lineages_records_to_their_target_in_order_and_abort_drops_them() {
    let dir = tempfile::tempdir().unwrap();
    let store = dir.path().join("store");
    staged_store(&store);
    let out = rockcask(&[
        OsStr::new("staging"),
        OsStr::new("commit"),
        store.as_os_str(),
        OsStr::new("--lineage"),
        OsStr::new("dead"),
    ]);
    assert_exit(&out, 0);
    assert_eq!(
        stdout(&out),
        "committed\tout.staging/dead/0/2\t2\ncommitted\tout.staging/dead/0/3\t1\ncommitted\tout.staging/dead/1/2\t1\n"
    );
    let out = rockcask(&[
        OsStr::new("staging"),
        OsStr::new("abort"),
        store.as_os_str(),
        OsStr::new("--lineage"),
        OsStr::new("alive"),
    ]);
    assert_exit(&out, 0);
    assert_eq!(stdout(&out), "aborted\tout.staging/alive/0/1\t1\n");
    let out = rockcask(&[OsStr::new("dump"), store.as_os_str(), OsStr::new("out")]);
    let dumped = stdout(&out);
    let payloads: Vec<&str> = dumped.lines().map(|l| l.rsplit('\t').next().unwrap()).collect();
    assert_eq!(payloads, vec!["committed", "a", "b", "c", "x"]);
    let out = rockcask(&[OsStr::new("queues"), store.as_os_str()]);
    assert_eq!(stdout(&out), "out\t5\n", "no staging queue is left");
}

#[test]
fn staging_commit_needs_a_lineage_and_the_store_to_itself() {
    let dir = tempfile::tempdir().unwrap();
    let store = dir.path().join("store");
    staged_store(&store);
    assert_exit(
        &rockcask(&[OsStr::new("staging"), OsStr::new("commit"), store.as_os_str()]),
        2,
    );
    let holder = open(&store);
    let out = rockcask(&[
        OsStr::new("staging"),
        OsStr::new("abort"),
        store.as_os_str(),
        OsStr::new("--lineage"),
        OsStr::new("dead"),
    ]);
    assert_failure(&out, 4, "locked");
    drop(holder);
    let missing = dir.path().join("missing");
    assert_failure(
        &rockcask(&[
            OsStr::new("staging"),
            OsStr::new("commit"),
            missing.as_os_str(),
            OsStr::new("--lineage"),
            OsStr::new("dead"),
        ]),
        3,
        "missing",
    );
    assert!(!missing.exists(), "nothing is created");
}

/// Queue "in" (limit 1, dead letters to "in.dead") with three dead letters: "a" (reason
/// "bad\tinput"), "b" and "c", and one live entry "d".
fn store_with_dead_letters(dir: &Path) {
    let store = open(dir);
    store
        .configure_queue(
            "in",
            rockcask_core::QueueConfig {
                max_deliveries: Some(1),
                ..Default::default()
            },
        )
        .unwrap();
    let mut tx = store.begin().unwrap();
    for item in ["a", "b", "c", "d"] {
        tx.enqueue("in", item.as_bytes()).unwrap();
    }
    tx.commit().unwrap();
    for reason in ["bad\tinput", "x", "y"] {
        let mut tx = store.begin().unwrap();
        tx.poll("in", 1).unwrap();
        tx.rollback_because(reason, None).unwrap();
    }
    store.close().unwrap();
}

#[test]
fn dead_list_shows_each_dead_letter_with_its_origin_reason_and_payload() {
    let dir = tempfile::tempdir().unwrap();
    let store = dir.path().join("store");
    store_with_dead_letters(&store);
    let out = rockcask(&[
        OsStr::new("dead"),
        OsStr::new("list"),
        store.as_os_str(),
        OsStr::new("in"),
    ]);
    assert_exit(&out, 0);
    let listed = stdout(&out);
    let lines: Vec<Vec<&str>> = listed.lines().map(|l| l.split('\t').collect()).collect();
    assert_eq!(lines.len(), 3, "{listed}");
    assert_eq!(
        (lines[0][0], lines[0][1], lines[0][2], lines[0][3]),
        ("0", "in", "0", "1")
    );
    assert!(lines[0][4].ends_with('Z') && lines[0][4].len() == 24, "{listed}");
    assert_eq!((lines[0][5], lines[0][6]), ("bad\\tinput", "a"));
    assert_eq!(lines[2][6], "c");
    let out = rockcask(&[
        OsStr::new("dead"),
        OsStr::new("list"),
        store.as_os_str(),
        OsStr::new("in"),
        OsStr::new("--limit"),
        OsStr::new("1"),
        OsStr::new("--format"),
        OsStr::new("hex"),
    ]);
    assert_eq!(stdout(&out).lines().count(), 1);
    assert!(stdout(&out).ends_with("\t61\n"), "{}", stdout(&out));
    let out = rockcask(&[
        OsStr::new("dead"),
        OsStr::new("list"),
        store.as_os_str(),
        OsStr::new("nothing"),
    ]);
    assert_exit(&out, 0);
    assert_eq!(stdout(&out), "");
}

#[test]
fn dead_requeue_and_drop_change_the_dead_letters_chosen_and_need_a_choice() {
    let dir = tempfile::tempdir().unwrap();
    let store = dir.path().join("store");
    store_with_dead_letters(&store);
    let out = rockcask(&[
        OsStr::new("dead"),
        OsStr::new("requeue"),
        store.as_os_str(),
        OsStr::new("in"),
    ]);
    assert_exit(&out, 2);
    let out = rockcask(&[
        OsStr::new("dead"),
        OsStr::new("requeue"),
        store.as_os_str(),
        OsStr::new("in"),
        OsStr::new("--position"),
        OsStr::new("1"),
    ]);
    assert_exit(&out, 0);
    assert_eq!(stdout(&out), "requeued\t1\n");
    let out = rockcask(&[
        OsStr::new("dead"),
        OsStr::new("drop"),
        store.as_os_str(),
        OsStr::new("in"),
        OsStr::new("--position"),
        OsStr::new("1"),
    ]);
    assert_failure(&out, 1, "no such dead letter");
    let out = rockcask(&[
        OsStr::new("dead"),
        OsStr::new("drop"),
        store.as_os_str(),
        OsStr::new("in"),
        OsStr::new("--all"),
    ]);
    assert_exit(&out, 0);
    assert_eq!(stdout(&out), "dropped\t2\n");
    let out = rockcask(&[OsStr::new("dump"), store.as_os_str(), OsStr::new("in")]);
    let payloads: Vec<String> = stdout(&out)
        .lines()
        .map(|l| l.rsplit('\t').next().unwrap().to_string())
        .collect();
    assert_eq!(payloads, vec!["d", "b"]);
    let out = rockcask(&[OsStr::new("queues"), store.as_os_str()]);
    assert_eq!(stdout(&out), "in\t2\nin.dead\t0\n");
}

#[test]
fn maps_lists_each_map_with_its_pairs_and_dump_map_prints_them_in_key_order() {
    let dir = tempfile::tempdir().unwrap();
    let store_dir = dir.path().join("store");
    let store = open(&store_dir);
    let mut tx = store.begin().unwrap();
    tx.map_put("users", b"bob", b"2").unwrap();
    tx.map_put("users", b"ann", b"1\ttab").unwrap();
    tx.map_add("counts", b"hits", 3).unwrap();
    tx.commit().unwrap();
    store.close().unwrap();
    let out = rockcask(&[OsStr::new("maps"), store_dir.as_os_str()]);
    assert_exit(&out, 0);
    assert_eq!(stdout(&out), "counts\t1\nusers\t2\n");
    let out = rockcask(&[
        OsStr::new("dump"),
        store_dir.as_os_str(),
        OsStr::new("--map"),
        OsStr::new("users"),
    ]);
    assert_exit(&out, 0);
    assert_eq!(stdout(&out), "ann\t1\\ttab\nbob\t2\n");
    let out = rockcask(&[
        OsStr::new("dump"),
        store_dir.as_os_str(),
        OsStr::new("--map"),
        OsStr::new("counts"),
        OsStr::new("--format"),
        OsStr::new("hex"),
    ]);
    assert_eq!(stdout(&out), "68697473\t0300000000000000\n");
    let out = rockcask(&[
        OsStr::new("dump"),
        store_dir.as_os_str(),
        OsStr::new("--map"),
        OsStr::new("users"),
        OsStr::new("--limit"),
        OsStr::new("1"),
    ]);
    assert_eq!(stdout(&out).lines().count(), 1);
    assert_failure(
        &rockcask(&[
            OsStr::new("dump"),
            store_dir.as_os_str(),
            OsStr::new("--map"),
            OsStr::new("nothing"),
        ]),
        1,
        "no map named 'nothing'",
    );
    assert_exit(&rockcask(&[OsStr::new("dump"), store_dir.as_os_str()]), 2);
}

/// A name argument (queue, map, lineage, target) is a name as everywhere in RockCask: bytes
/// that are not UTF-8 (a surrogate spelled in UTF-8's pattern, as a lone UTF-16 surrogate
/// would be, or a stray byte) are refused with exit 2, naming the argument and the byte where
/// the name stops being UTF-8, instead of being read with replacement as another name.
/// Characters above U+FFFF are names like any other.
#[test]
fn a_name_argument_that_is_not_utf8_is_refused_naming_the_argument_and_the_byte() {
    use std::ffi::OsString;
    use std::os::unix::ffi::OsStringExt;

    let dir = tempfile::tempdir().unwrap();
    let (store, _) = sample(&dir);
    let s = OsString::from(store.as_os_str());
    let bad = |bytes: &[u8]| OsString::from_vec(bytes.to_vec());
    let lone_high = bad(b"a\xed\xa0\x80b"); // U+D800 in UTF-8's three-byte pattern, at byte 1
    let lone_low = bad(b"\xed\xb0\x80"); // U+DC00, at byte 0
    let stray = bad(b"ab\xff"); // at byte 2
    for (args, arg, at) in [
        (vec!["dump".into(), s.clone(), lone_high.clone()], "[QUEUE]", 1),
        (
            vec!["dump".into(), s.clone(), "--map".into(), lone_low.clone()],
            "--map <NAME>",
            0,
        ),
        (
            vec!["dead".into(), "list".into(), s.clone(), stray.clone()],
            "<QUEUE>",
            2,
        ),
        (
            vec![
                "dead".into(),
                "drop".into(),
                s.clone(),
                lone_high.clone(),
                "--all".into(),
            ],
            "<QUEUE>",
            1,
        ),
        (
            vec![
                "staging".into(),
                "list".into(),
                s.clone(),
                "--lineage".into(),
                lone_low.clone(),
            ],
            "--lineage <LINEAGE>",
            0,
        ),
        (
            vec![
                "staging".into(),
                "abort".into(),
                s.clone(),
                "--lineage".into(),
                "l".into(),
                "--target".into(),
                stray.clone(),
            ],
            "--target <QUEUE>",
            2,
        ),
    ] {
        let out = rockcask(&args);
        assert_exit(&out, 2);
        let err = stderr(&out);
        assert!(err.contains(arg), "{args:?}: {err}");
        assert!(err.contains(&format!("not UTF-8 from byte {at}")), "{args:?}: {err}");
    }
    // A valid name beyond the basic plane: dumped as any other.
    let emoji = "q-\u{1F600}";
    {
        let store = open(&store);
        let mut tx = store.begin().unwrap();
        tx.enqueue(emoji, b"smile").unwrap();
        tx.commit().unwrap();
    }
    let out = rockcask(&[OsString::from("dump"), s.clone(), emoji.into()]);
    assert_exit(&out, 0);
    assert!(stdout(&out).ends_with("\tsmile\n"), "{}", stdout(&out));
    let out = rockcask(&["queues".into(), s]);
    assert!(stdout(&out).contains(&format!("{emoji}\t1")), "{}", stdout(&out));
}

/// A store of `entries` incompressible 1 KiB entries in one queue: big enough that exporting or
/// importing it takes a good part of a second, so that a signal arrives while it runs.
fn big_store(dir: &Path, entries: usize) {
    let store = open(dir);
    let mut state = 0x9E37_79B9_7F4A_7C15u64;
    let mut payload = vec![0u8; 1024];
    for _ in 0..entries / 1000 {
        let mut tx = store.begin().unwrap();
        for _ in 0..1000 {
            for chunk in payload.chunks_mut(8) {
                // xorshift64: bytes no codec can shrink, made quickly.
                state ^= state << 13;
                state ^= state >> 7;
                state ^= state << 17;
                chunk.copy_from_slice(&state.to_le_bytes());
            }
            tx.enqueue("big", &payload).unwrap();
        }
        tx.commit().unwrap();
    }
    store.close().unwrap();
}

/// Starts the CLI with `args` and `--progress`, waits for its first progress line (the command
/// is then under way), sends SIGINT as Ctrl-C does, and returns how it ended with what it wrote
/// to stderr.
#[cfg(unix)]
fn interrupted(args: &[&OsStr]) -> (std::process::ExitStatus, String) {
    use std::io::{BufRead, BufReader, Read};
    use std::process::Stdio;

    let mut child = cli()
        .args(args)
        .arg("--progress")
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the rockcask CLI runs");
    let mut err = BufReader::new(child.stderr.take().unwrap());
    let mut first = String::new();
    err.read_line(&mut first).unwrap();
    assert!(
        !first.contains("100%"),
        "the command was to be under way, not done: {first}"
    );
    let pid = libc::pid_t::try_from(child.id()).unwrap();
    // SAFETY: kill(2) on the child just started, which has not been waited for.
    assert_eq!(unsafe { libc::kill(pid, libc::SIGINT) }, 0);
    let mut rest = String::new();
    err.read_to_string(&mut rest).unwrap();
    (child.wait().unwrap(), first + &rest)
}

#[cfg(unix)]
#[test]
fn ctrl_c_stops_an_export_and_an_import_with_130_leaving_nothing_behind() {
    let dir = tempfile::tempdir().unwrap();
    let store = dir.path().join("store");
    big_store(&store, 200_000);

    let file = dir.path().join("snap.rcs");
    let (status, err) = interrupted(&[OsStr::new("export"), store.as_os_str(), file.as_os_str()]);
    assert_eq!(status.code(), Some(130), "{err}");
    assert!(
        err.lines().last().unwrap_or_default().starts_with("rockcask: error: ") && err.contains("interrupted"),
        "{err}"
    );
    let left: Vec<_> = std::fs::read_dir(dir.path())
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .filter(|name| name != "store")
        .collect();
    assert!(left.is_empty(), "the export left {left:?}");

    let out = rockcask(&[
        OsStr::new("export"),
        store.as_os_str(),
        file.as_os_str(),
        OsStr::new("-q"),
    ]);
    assert_exit(&out, 0);
    let target = dir.path().join("imported");
    let (status, err) = interrupted(&[OsStr::new("import"), file.as_os_str(), target.as_os_str()]);
    assert_eq!(status.code(), Some(130), "{err}");
    assert!(err.contains("interrupted"), "{err}");
    assert!(!target.exists(), "the import left {}", target.display());
}
