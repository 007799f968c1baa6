//! Snapshots of caskets (the Tokyo Cabinet drop-in's databases): a `KeyValues` record per key
//! (several consecutive ones for a key whose values would not fit a frame), in the casket's
//! order, its duplicates in insertion order. Only caskets with a built-in key order can be
//! exported: a caller-supplied order lives in the caller's code, which a reader does not have.

use std::path::Path;

use super::export::{encode_chunk, now_millis, stash, write_snapshot, Chunker, Item};
use super::{Content, ExportOptions, Header, Progress, Summary};
use crate::casket::files::LockMode;
use crate::casket::scan::describe;
use crate::casket::{Casket, CasketError, CasketOptions, Ecode, KeyOrder, Kind};
use crate::error::{Error, Result};
use crate::options::MAX_PAYLOAD_BYTES;

/// A casket failure in snapshot work on the casket at `path`, as a store error (its message
/// keeps Tokyo Cabinet's code).
pub(crate) fn casket_error(path: &Path) -> impl Fn(CasketError) -> Error + '_ {
    move |e| match e.code {
        Ecode::NoFile => Error::NotAStore { path: path.to_path_buf(), why: e.to_string() },
        Ecode::Lock => Error::Locked { path: path.to_path_buf(), detail: e.to_string() },
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
pub fn export_casket(path: &Path, file: &Path, options: &ExportOptions, listener: &mut dyn FnMut(&Progress) -> Result<()>) -> Result<Summary> {
    let (kind, order_id) = describe(path).map_err(casket_error(path))?;
    let order = KeyOrder::builtin(&order_id).ok_or_else(|| {
        Error::InvalidArgument(format!(
            "{} is ordered by a caller-supplied comparator ({order_id}); snapshots hold caskets with a built-in key order only (lexical, decimal, int32, int64)",
            path.display()
        ))
    })?;
    let casket = Casket::open(path, CasketOptions { order: order.clone(), lock: LockMode::Blocking, ..CasketOptions::new(kind, false) }).map_err(casket_error(path))?;
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
