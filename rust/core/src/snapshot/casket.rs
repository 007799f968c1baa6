//! Snapshots of caskets (the Tokyo Cabinet drop-in's databases): one `KeyValues` record per key,
//! in the casket's order, its duplicates in insertion order. Only caskets with a built-in key
//! order can be exported from here: a caller-supplied order lives in the caller's code.

use std::path::Path;

use super::export::{chunk_of, encode_chunk, now_millis, write_snapshot, Item};
use super::import::{read_casket_snapshot, remove_casket};
use super::{Content, ExportOptions, Header, Progress, Summary};
use crate::casket::files::LockMode;
use crate::casket::scan::describe;
use crate::casket::{Casket, CasketError, CasketOptions, Ecode, KeyOrder, Kind};
use crate::error::{Error, Result};

/// A casket failure in snapshot work, as a store error (its message keeps Tokyo Cabinet's code).
pub(crate) fn casket_error(e: CasketError) -> Error {
    match e.code {
        Ecode::NoFile => Error::NotAStore { path: Default::default(), why: e.to_string() },
        Ecode::Lock => Error::Locked { path: Default::default(), detail: e.to_string() },
        _ => Error::InvalidArgument(e.to_string()),
    }
}

fn kind_name(kind: Kind) -> &'static str {
    match kind {
        Kind::Btree => "BDB",
        Kind::Hash => "HDB",
    }
}

/// Opens the casket at `path` as a reader (waiting for a writer in another process to close
/// it) and writes all its records to `file`.
pub fn export_casket(path: &Path, file: &Path, options: &ExportOptions, listener: &mut dyn FnMut(&Progress) -> Result<()>) -> Result<Summary> {
    let (kind, order_id) = describe(path).map_err(casket_error)?;
    let order = KeyOrder::builtin(&order_id).ok_or_else(|| {
        Error::InvalidArgument(format!(
            "{} is ordered by a caller-supplied comparator ({order_id}); export it from the program that defines that comparator",
            path.display()
        ))
    })?;
    let casket = Casket::open(path, CasketOptions { order: order.clone(), lock: LockMode::Blocking, ..CasketOptions::new(kind, false) }).map_err(casket_error)?;
    let records = casket.rnum().map_err(casket_error)?;
    let header = Header {
        content: Content::Casket as i32,
        compression: options.compression.code() as i32,
        created_by: format!("rockcask {}", env!("CARGO_PKG_VERSION")),
        created_unix_millis: options.created_unix_millis.unwrap_or_else(now_millis),
        source: path.display().to_string(),
        casket_order: order_id,
        casket_kind: kind_name(kind).into(),
    };
    let result = casket
        .scan(|scan| {
            // One key's values are gathered into one record: look one value ahead.
            let mut ahead: Option<(Vec<u8>, Vec<u8>)> = None;
            let mut next_item = || -> Result<Option<Item>> {
                let first = match ahead.take() {
                    Some(kv) => kv,
                    None => match scan.next_value().map_err(casket_error)? {
                        Some(kv) => kv,
                        None => return Ok(None),
                    },
                };
                let (key, value) = first;
                let mut values = vec![value];
                while let Some((k, v)) = scan.next_value().map_err(casket_error)? {
                    if k != key {
                        ahead = Some((k, v));
                        break;
                    }
                    values.push(v);
                }
                Ok(Some(Item::KeyValues { key, values }))
            };
            write_snapshot(file, options, header, records, listener, || chunk_of(options.frame_bytes, &mut next_item), |items| encode_chunk(items, options.compression))
        })
        .map_err(casket_error)?;
    casket.close().map_err(casket_error)?;
    result
}

/// Creates the casket at `path` (which must not exist) from a casket snapshot, with the kind and
/// key order the snapshot records. On any error nothing is left at `path`.
pub fn import_casket(file: &Path, path: &Path, workers: usize, listener: &mut dyn FnMut(&Progress) -> Result<()>) -> Result<Summary> {
    if path.exists() {
        return Err(Error::TargetExists { path: path.to_path_buf(), why: "exists; a casket snapshot is imported into a new casket".into() });
    }
    read_casket_snapshot(file, workers, listener, |header| {
        let kind = match header.casket_kind.as_str() {
            "BDB" => Kind::Btree,
            "HDB" => Kind::Hash,
            other => return Err(format!("unknown casket kind {other:?}")),
        };
        let order = KeyOrder::builtin(&header.casket_order).ok_or_else(|| format!("unknown casket key order {:?}", header.casket_order))?;
        Ok((path.to_path_buf(), CasketOptions { order, create: true, lock: LockMode::Blocking, ..CasketOptions::new(kind, true) }))
    })
    .inspect_err(|_| remove_casket(path))
}
