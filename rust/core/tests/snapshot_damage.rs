//! Damage to a snapshot file is reported where it lies, and the same way by every reader: a bit
//! flipped in every byte of a small snapshot (a header, frames of queue definitions, entries and
//! objects, compressed and raw, a trailer and the end) and cuts all through it are refused by
//! `verify` and by the import, which both name the part holding the damage (the frame whose
//! bytes are damaged, or the header or the end), at an offset inside that part and never after
//! the damaged byte, with exactly the same offset, frame and reason whatever the worker count.
//! Version 1 files (no frame head CRC) are read and located as well.

use std::path::Path;

use rockcask_core::casket::{Casket, CasketOptions, KeyOrder, Kind, PutMode};
use rockcask_core::compress::{Compression, Policy};
use rockcask_core::snapshot::{self, no_progress, ExportOptions, ImportOptions};
use rockcask_core::{Error, Store, StoreOptions, Uuid};

fn options() -> StoreOptions {
    StoreOptions {
        sync_on_commit: false,
        ..StoreOptions::default()
    }
}

fn export_options(frame_bytes: usize) -> ExportOptions {
    ExportOptions {
        workers: 2,
        compression: Compression::Zstd,
        frame_bytes,
        created_unix_millis: Some(1_700_000_000_000),
        overwrite: true,
    }
}

/// A small store whose snapshot has several frames of each record kind (queue definitions,
/// entries, objects), some compressed and some stored raw (short or random bodies do not
/// shrink), in about 1.5 KB.
fn small_store_snapshot(dir: &Path) -> Vec<u8> {
    let store = Store::open(
        dir.join("src"),
        StoreOptions {
            compression: Policy {
                codec: Compression::Lz4,
                threshold: 16,
            },
            ..options()
        },
    )
    .unwrap();
    let queue = |q: usize| format!("queue-{q}-{}", "n".repeat(12));
    let mut tx = store.begin().unwrap();
    let mut seed = 0x9E37_79B9_7F4A_7C15u64;
    for i in 0..8usize {
        let payload: Vec<u8> = match i % 3 {
            0 => format!("compressible {i} ").repeat(8).into_bytes(),
            1 => (0..24)
                .map(|_| {
                    seed ^= seed << 13;
                    seed ^= seed >> 7;
                    seed ^= seed << 17;
                    seed as u8
                })
                .collect(),
            _ => format!("short {i}").into_bytes(),
        };
        tx.enqueue(&queue(i % 6), &payload).unwrap();
    }
    tx.put(Uuid::now_v7(), b"a put object").unwrap();
    tx.commit().unwrap();
    let file = dir.join("good.rcs");
    store.export_to(&file, &export_options(60), &mut no_progress()).unwrap();
    store.close().unwrap();
    std::fs::read(&file).unwrap()
}

/// A part of a snapshot file: the header, a frame (numbered as readers number them; the
/// trailer after the last records frame) or the end (file CRC and end magic).
#[derive(Debug, Clone, Copy, PartialEq)]
struct Part {
    start: usize,
    end: usize,
    frame: Option<u64>,
    /// Bytes of a frame's fixed part (0 for the header and the end).
    fixed: usize,
}

/// The parts of an undamaged file, from its own lengths (docs/SNAPSHOT_FORMAT.md).
fn layout(file: &[u8]) -> Vec<Part> {
    let word = |at: usize| u32::from_le_bytes(file[at..at + 4].try_into().unwrap()) as usize;
    let fixed = if word(8) >= 2 { 20 } else { 16 };
    let header_end = 16 + word(12) + 4;
    let mut parts = vec![Part {
        start: 0,
        end: header_end,
        frame: None,
        fixed: 0,
    }];
    let mut at = header_end;
    for index in 0.. {
        let end = at + fixed + word(at + 12) + 4;
        parts.push(Part {
            start: at,
            end,
            frame: Some(index),
            fixed,
        });
        let trailer = file[at] == 2;
        at = end;
        if trailer {
            break;
        }
    }
    assert_eq!(at + 12, file.len(), "the layout covers the whole file");
    parts.push(Part {
        start: at,
        end: file.len(),
        frame: None,
        fixed: 0,
    });
    parts
}

fn part_of(parts: &[Part], byte: usize) -> Part {
    *parts
        .iter()
        .find(|p| p.start <= byte && byte < p.end)
        .expect("every byte is in a part")
}

/// Where and why a reader refused the file.
#[derive(Debug, PartialEq)]
struct Refusal {
    offset: u64,
    frame: Option<u64>,
    detail: String,
}

fn refusal(result: Result<snapshot::Summary, Error>, reader: &str, case: &str) -> Refusal {
    match result {
        Ok(_) => panic!("{case}: {reader} accepted a damaged snapshot"),
        Err(Error::Snapshot {
            offset, frame, detail, ..
        }) => Refusal { offset, frame, detail },
        Err(e) => panic!("{case}: {reader} refused with an error that does not locate the damage: {e}"),
    }
}

/// Reads `bytes` with verify (3 workers) and the store import (1 worker); both must refuse it
/// the same way, the import leaving nothing behind. Returns the refusal.
fn refused_alike(bytes: &[u8], work: &Path, case: &str) -> Refusal {
    let file = work.join("damaged.rcs");
    std::fs::write(&file, bytes).unwrap();
    let verified = refusal(snapshot::verify(&file, 3, &mut no_progress()), "verify", case);
    let target = work.join("target");
    let imported = refusal(
        snapshot::import_store(
            &file,
            &target,
            &ImportOptions {
                workers: 1,
                store: options(),
            },
            &mut no_progress(),
        ),
        "import",
        case,
    );
    assert!(!target.exists(), "{case}: the import left {} behind", target.display());
    assert_eq!(verified, imported, "{case}: verify and import report differently");
    verified
}

/// Checks that `r` names `part` and an offset inside it, not after `byte`.
#[track_caller]
fn assert_located(r: &Refusal, part: Part, byte: usize, case: &str) {
    assert_eq!(
        r.frame, part.frame,
        "{case}: the damaged part is {part:?}; refused with {r:?}"
    );
    assert!(
        part.start as u64 <= r.offset && r.offset <= byte as u64,
        "{case}: damage at {byte} in {part:?}; refused with {r:?}"
    );
}

/// Flips a bit in every byte (every bit of the header's fixed fields, of each frame's fields
/// and of the end) and cuts the file at every byte of those and every third byte elsewhere;
/// returns how many cases named a frame.
fn every_flip_and_cut_is_located(good: &[u8], work: &Path) -> usize {
    let parts = layout(good);
    assert!(
        parts.len() >= 2 + 10,
        "the test needs several frames, the snapshot has {}",
        parts.len() - 2
    );
    let mut framed = 0;
    for byte in 0..good.len() {
        let part = part_of(&parts, byte);
        let fields = match part.frame {
            Some(_) => byte - part.start < 16,
            None => byte < 16 || part.start > 0,
        };
        let bits: Vec<u8> = if fields {
            (0..8).collect()
        } else {
            vec![(byte % 8) as u8]
        };
        for bit in bits {
            let mut bad = good.to_vec();
            bad[byte] ^= 1 << bit;
            let case = format!("bit {bit} of byte {byte} flipped");
            let r = refused_alike(&bad, work, &case);
            assert_located(&r, part, byte, &case);
            framed += r.frame.is_some() as usize;
        }
        if fields || byte - part.start < part.fixed || byte % 3 == 0 {
            let case = format!("cut at byte {byte}");
            let r = refused_alike(&good[..byte], work, &case);
            assert_located(&r, part, byte, &case);
        }
    }
    framed
}

#[test]
fn a_bit_flipped_in_every_byte_and_cuts_throughout_are_refused_in_the_damaged_part_alike_by_verify_and_import() {
    let dir = tempfile::tempdir().unwrap();
    let good = small_store_snapshot(dir.path());
    let framed = every_flip_and_cut_is_located(&good, dir.path());
    assert!(
        framed > good.len() / 2,
        "most bytes lie in frames ({framed} refusals named one)"
    );
}

#[test]
fn a_damaged_length_is_reported_in_its_own_frame_as_a_frame_header_checksum_mismatch() {
    let dir = tempfile::tempdir().unwrap();
    let good = small_store_snapshot(dir.path());
    let parts = layout(&good);
    for part in &parts[1..parts.len() - 1] {
        for field in [8, 12] {
            let mut bad = good.clone();
            // Shorter by 4: the next "frame" would start inside this one's body.
            let len = u32::from_le_bytes(bad[part.start + field..part.start + field + 4].try_into().unwrap());
            bad[part.start + field..part.start + field + 4].copy_from_slice(&len.wrapping_sub(4).to_le_bytes());
            let case = format!(
                "length at {} of frame {:?} made {}",
                part.start + field,
                part.frame,
                len.wrapping_sub(4)
            );
            let r = refused_alike(&bad, dir.path(), &case);
            assert_eq!((r.offset, r.frame), (part.start as u64, part.frame), "{case}: {r:?}");
            assert!(r.detail.contains("frame header checksum mismatch"), "{case}: {r:?}");
        }
    }
}

#[test]
fn with_two_damaged_frames_every_reader_names_the_first_whatever_its_workers() {
    let dir = tempfile::tempdir().unwrap();
    let good = small_store_snapshot(dir.path());
    let parts = layout(&good);
    let (first, later) = (parts[2], parts[5]);
    let mut bad = good.clone();
    // A body byte of frame 1 (found by its CRC, on a worker) and the length of frame 4 (found
    // by the reading thread, which has gone on ahead).
    bad[first.start + first.fixed] ^= 0x01;
    bad[later.start + 12] ^= 0x04;
    let r = refused_alike(&bad, dir.path(), "frames 1 and 4 damaged");
    assert_eq!((r.offset, r.frame), (first.start as u64, Some(1)), "{r:?}");
    let file = dir.path().join("damaged.rcs");
    for workers in [2, 4, 8] {
        let again = refusal(
            snapshot::verify(&file, workers, &mut no_progress()),
            "verify",
            "frames 1 and 4 damaged",
        );
        assert_eq!(again, r, "{workers} workers");
    }
}

#[test]
fn a_damaged_file_header_trailer_or_end_is_named_as_such() {
    let dir = tempfile::tempdir().unwrap();
    let good = small_store_snapshot(dir.path());
    let parts = layout(&good);
    let (trailer, end) = (parts[parts.len() - 2], parts[parts.len() - 1]);
    let cases: [(usize, &str, u64, Option<u64>); 6] = [
        (3, "wrong magic", 0, None),
        (9, "is newer than this build reads (versions 1 to 4)", 8, None),
        (20, "header checksum mismatch", 0, None),
        (
            trailer.start + trailer.fixed + 1,
            "frame checksum mismatch",
            trailer.start as u64,
            trailer.frame,
        ),
        (end.start, "whole-file checksum mismatch", end.start as u64, None),
        (end.start + 6, "wrong end marker", end.start as u64 + 4, None),
    ];
    for (byte, detail, offset, frame) in cases {
        let mut bad = good.clone();
        bad[byte] ^= 0x02;
        let r = refused_alike(&bad, dir.path(), detail);
        assert!(r.detail.contains(detail), "byte {byte}: {r:?}");
        assert_eq!((r.offset, r.frame), (offset, frame), "byte {byte}: {r:?}");
    }
    let mut longer = good.clone();
    longer.push(0);
    let r = refused_alike(&longer, dir.path(), "a byte after the end");
    assert!(
        r.detail.contains("follow the end") && r.offset == good.len() as u64,
        "{r:?}"
    );
}

/// The same snapshot as a version 1 writer wrote it: no frame head CRC, the frame CRC over the
/// frame's fields and body, the header and file CRCs recomputed.
fn as_version_1(v2: &[u8]) -> Vec<u8> {
    let parts = layout(v2);
    let mut out = v2[..parts[0].end].to_vec();
    out[8..12].copy_from_slice(&1u32.to_le_bytes());
    let header_crc = out.len() - 4;
    let crc = crc32c::crc32c(&out[..header_crc]);
    out[header_crc..].copy_from_slice(&crc.to_le_bytes());
    for part in &parts[1..parts.len() - 1] {
        let start = out.len();
        out.extend_from_slice(&v2[part.start..part.start + 16]);
        out.extend_from_slice(&v2[part.start + 20..part.end - 4]);
        let crc = crc32c::crc32c(&out[start..]);
        out.extend_from_slice(&crc.to_le_bytes());
    }
    let crc = crc32c::crc32c(&out);
    out.extend_from_slice(&crc.to_le_bytes());
    out.extend_from_slice(b"RCKSNEND");
    out
}

#[test]
fn version_1_snapshots_are_read_and_their_damage_located_in_the_damaged_frame_too() {
    let dir = tempfile::tempdir().unwrap();
    let good = as_version_1(&small_store_snapshot(dir.path()));
    let file = dir.path().join("v1.rcs");
    std::fs::write(&file, &good).unwrap();
    let verified = snapshot::verify(&file, 2, &mut no_progress()).unwrap();
    assert_eq!(verified.format_version, 1);
    let imported = snapshot::import_store(
        &file,
        &dir.path().join("from-v1"),
        &ImportOptions {
            workers: 2,
            store: options(),
        },
        &mut no_progress(),
    )
    .unwrap();
    assert_eq!((imported.counts, imported.format_version), (verified.counts, 1));
    every_flip_and_cut_is_located(&good, dir.path());
}

#[test]
fn a_damaged_casket_snapshot_is_refused_in_the_damaged_frame_alike_by_verify_and_import() {
    let dir = tempfile::tempdir().unwrap();
    let src = dir.path().join("src.tcb");
    let c = Casket::open(
        &src,
        CasketOptions {
            order: KeyOrder::Lexical,
            create: true,
            ..CasketOptions::new(Kind::Btree, true)
        },
    )
    .unwrap();
    for i in 0..16 {
        c.put(
            format!("key {:02}", i / 2).as_bytes(),
            format!("value {i} ").repeat(1 + i % 4).as_bytes(),
            PutMode::Dup,
        )
        .unwrap();
    }
    c.close().unwrap();
    let file = dir.path().join("casket.rcs");
    snapshot::export_casket(&src, &file, &export_options(60), &mut no_progress()).unwrap();
    let good = std::fs::read(&file).unwrap();
    let parts = layout(&good);
    assert!(parts.len() >= 2 + 4, "several frames");
    let damaged = dir.path().join("damaged.rcs");
    for byte in 0..good.len() {
        let part = part_of(&parts, byte);
        let mut bad = good.clone();
        bad[byte] ^= 1 << (byte % 8);
        std::fs::write(&damaged, &bad).unwrap();
        let case = format!("byte {byte} of the casket snapshot flipped");
        let verified = refusal(snapshot::verify(&damaged, 3, &mut no_progress()), "verify", &case);
        let target = dir.path().join("target.tcb");
        let imported = refusal(
            snapshot::import_casket(&damaged, &target, 2, &mut no_progress()),
            "casket import",
            &case,
        );
        assert!(!target.exists(), "{case}: the import left a casket behind");
        assert_eq!(verified, imported, "{case}");
        assert_located(&verified, part, byte, &case);
    }
}
