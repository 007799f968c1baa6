//! Snapshots of caskets (the Tokyo Cabinet drop-in's databases): a `KeyValues` record per key
//! (several consecutive ones for a key whose values would not fit a frame), in the casket's
//! order, its duplicates in insertion order. Only caskets with a built-in key order can be
//! exported: a caller-supplied order lives in the caller's code, which a reader does not have.
//! A casket snapshot is imported into a new casket, built under a temporary name and moved into
//! place once the whole file has checked out.

use std::cell::{OnceCell, RefCell};
use std::path::Path;

use super::read::{casket_target, read_snapshot, wrong_content, Target};
use super::record_order::{Op, RecordOrder};
use super::temp_files::TempCasket;
use super::write::{encode_chunk, now_millis, stash, write_snapshot, Chunker, Item};
use super::{Content, ExportOptions, Header, Progress, Summary, Throttle};
use crate::casket::files::LockMode;
use crate::casket::scan::describe;
use crate::casket::{Casket, CasketError, CasketOptions, Ecode, KeyOrder, Kind};
use crate::error::{Error, Result};
use crate::options::MAX_PAYLOAD_BYTES;

/// A casket failure in snapshot work on the casket at `path`, as a store error (its message
/// keeps Tokyo Cabinet's code).
pub(crate) fn casket_error(path: &Path) -> impl Fn(CasketError) -> Error + '_ {
    move |e| match e.code {
        Ecode::NoFile => Error::NotAStore {
            path: path.to_path_buf(),
            why: e.to_string(),
        },
        Ecode::Lock => Error::Locked {
            path: path.to_path_buf(),
            detail: e.to_string(),
        },
        _ => Error::InvalidArgument(format!("casket {}: {e}", path.display())),
    }
}

/// The casket kind's name in a snapshot header, and back.
fn kind_name(kind: Kind) -> &'static str {
    match kind {
        Kind::Btree => "BDB",
        Kind::Hash => "HDB",
    }
}

pub(crate) fn kind_named(name: &str) -> Option<Kind> {
    [Kind::Btree, Kind::Hash].into_iter().find(|&k| kind_name(k) == name)
}

/// Opens the casket at `path` as a reader (waiting for a writer in another process to close
/// it) and writes all its records to `file`.
pub fn export_casket(
    path: &Path,
    file: &Path,
    options: &ExportOptions,
    listener: &mut dyn FnMut(&Progress) -> Result<()>,
) -> Result<Summary> {
    let (kind, order_id) = describe(path).map_err(casket_error(path))?;
    let order = KeyOrder::builtin(&order_id).ok_or_else(|| {
        Error::InvalidArgument(format!(
            "{} is ordered by a caller-supplied comparator ({order_id}); snapshots hold caskets with a built-in key order only (lexical, decimal, int32, int64)",
            path.display()
        ))
    })?;
    let casket = Casket::open(
        path,
        CasketOptions {
            order: order.clone(),
            lock: LockMode::Blocking,
            ..CasketOptions::new(kind, false)
        },
    )
    .map_err(casket_error(path))?;
    let records = casket.rnum().map_err(casket_error(path))?;
    let header = Header {
        content: Content::Casket as i32,
        compression: options.compression.code() as i32,
        created_by: format!("rockcask {}", env!("CARGO_PKG_VERSION")),
        created_unix_millis: options.created_unix_millis.unwrap_or_else(now_millis),
        source: path.display().to_string(),
        casket_order: order_id,
        casket_kind: kind_name(kind).into(),
    };
    let mut chunker = Chunker::new(options)?;
    let budget = options.frame_bytes;
    let result = casket
        .scan(|scan| {
            // A key's values are gathered into one record, or several consecutive ones when
            // they would not fit a frame: look one value ahead.
            let mut ahead: Option<(Vec<u8>, Vec<u8>)> = None;
            let mut next_item = |arena: &mut Vec<u8>| -> Result<Option<Item>> {
                let (key, value) = match ahead.take() {
                    Some(kv) => kv,
                    None => match scan.next_value().map_err(casket_error(path))? {
                        Some(kv) => kv,
                        None => return Ok(None),
                    },
                };
                if key.len() + value.len() > MAX_PAYLOAD_BYTES {
                    return Err(Error::InvalidArgument(format!(
                        "a record of {} bytes (key and value) is larger than the {MAX_PAYLOAD_BYTES} a snapshot record may hold",
                        key.len() + value.len()
                    )));
                }
                // Bytes of the record, rounded up: a tag and a length of up to 5 bytes per field,
                // the record's own tag and lengths.
                let mut weight = key.len() + value.len() + 24;
                let key_range = stash(arena, &key);
                let mut values = vec![stash(arena, &value)];
                while let Some((k, v)) = scan.next_value().map_err(casket_error(path))? {
                    if k != key || weight + v.len() + 6 > budget {
                        ahead = Some((k, v));
                        break;
                    }
                    weight += v.len() + 6;
                    values.push(stash(arena, &v));
                }
                Ok(Some(Item::KeyValues { key: key_range, values }))
            };
            write_snapshot(file, options, header, records, listener, || chunker.next_chunk(&mut next_item), |chunk| encode_chunk(chunk, options.compression))
        })
        .map_err(casket_error(path))?;
    casket.close().map_err(casket_error(path))?;
    result
}

/// Creates the casket at `path` (which must not exist) from a casket snapshot, with the kind and
/// key order the snapshot records. It is built under a temporary name beside `path` and moved
/// there (data directory first, marker file last) once the whole file has checked out.
pub fn import_casket(
    file: &Path,
    path: &Path,
    workers: usize,
    listener: &mut dyn FnMut(&Progress) -> Result<()>,
) -> Result<Summary> {
    let temp = TempCasket::create(path)?;
    let mut progress = Throttle::new(listener);
    let casket: OnceCell<Casket> = OnceCell::new();
    let order = RefCell::new(RecordOrder::default());
    let mut in_transaction = 0usize;
    let result = read_snapshot(
        file,
        workers,
        &mut progress,
        |header, content| {
            if content != Content::Casket {
                return Err(wrong_content(file, content, Content::Casket));
            }
            let (_, options) = casket_target(header).expect("checked with the header");
            order.borrow_mut().casket_order = Some(options.order.clone());
            let opened = Casket::open(&temp.path, options).map_err(casket_error(path))?;
            opened.tranbegin().map_err(casket_error(path))?;
            let _ = casket.set(opened);
            Ok(Target::Casket)
        },
        |ops| {
            let target = casket.get().expect("opened with the header");
            let mut order = order.borrow_mut();
            for op in &ops.ops {
                order.check(op).map_err(|detail| ops.error(detail))?;
                if let Op::KeyValues { key, values } = op {
                    target
                        .put_list(key, values.iter().map(Vec::as_slice))
                        .map_err(casket_error(path))?;
                    in_transaction += key.len() + values.iter().map(Vec::len).sum::<usize>();
                }
            }
            if in_transaction >= CASKET_TRANSACTION_BYTES {
                target
                    .trancommit()
                    .and_then(|_| target.tranbegin())
                    .map_err(casket_error(path))?;
                in_transaction = 0;
            }
            Ok(())
        },
    );
    let summary = match (result, casket.into_inner()) {
        (Ok(summary), Some(target)) => {
            target.trancommit().map_err(casket_error(path))?;
            target.close().map_err(casket_error(path))?;
            summary
        }
        (Err(e), _) => return Err(e),
        (Ok(_), None) => unreachable!("a snapshot read to the end had its header read"),
    };
    progress.done(summary.done_progress())?;
    temp.install(path)?;
    Ok(summary)
}

/// Bytes of casket writes gathered before they are committed (well below the point where a
/// casket transaction starts writing early with undo records).
const CASKET_TRANSACTION_BYTES: usize = 16 << 20;
