//! Reading a snapshot back, what every reader (`verify`, the imports) shares: the calling thread
//! reads frames (every length checked before it is allocated), workers check each frame's CRC,
//! decompress and decode its records and prepare them for what they are read into, and the
//! calling thread applies them in file order, checking that they come in the order an export
//! writes them; the trailer's counts and the whole-file checksum are checked at the end.

use std::cell::RefCell;
use std::fs::File;
use std::io::BufReader;
use std::path::{Path, PathBuf};

use prost::Message;
use rockcask_codec::compress::{Compression, Policy};
use rockcask_codec::snapshot_pb::{self as pb, record::Kind};
use uuid::Uuid;

use super::casket::kind_named;
use super::format::{FormatError, FrameReader, RawFrame, FRAME_TRAILER};
use super::parallel::ordered_map;
use super::record_order::{Op, RecordOrder};
use super::write::add_counts;
use super::{snapshot_error, Content, Counts, Header, Progress, Summary, Throttle};
use crate::casket::{CasketOptions, KeyOrder};
use crate::error::{Error, Result};
use crate::keys::{self, Ownership};
use crate::options::{MAX_INLINE_PAYLOAD_BYTES, MAX_PAYLOAD_BYTES};

/// Reads the whole file, checking everything an import checks, and writes nothing.
pub fn verify(file: &Path, workers: usize, listener: &mut dyn FnMut(&Progress) -> Result<()>) -> Result<Summary> {
    let mut progress = Throttle::new(listener);
    let order = RefCell::new(RecordOrder::default());
    let summary = read_snapshot(
        file,
        workers,
        &mut progress,
        |header, content| {
            Ok(match content {
                Content::Casket => {
                    order.borrow_mut().casket_order =
                        Some(casket_target(header).expect("checked with the header").1.order);
                    Target::Casket
                }
                _ => Target::Store(None),
            })
        },
        |ops| {
            let mut order = order.borrow_mut();
            for op in &ops.ops {
                order.check(op).map_err(|detail| ops.error(detail))?;
            }
            Ok(())
        },
    )?;
    progress.done(summary.done_progress())?;
    Ok(summary)
}

/// The header of the snapshot in `file` (checked, like everything else a reader reads), to
/// learn what it holds before reading it.
pub fn read_header(file: &Path) -> Result<Header> {
    Ok(open_snapshot(file)?.1)
}

/// The snapshot in `file`, read up to its first frame: the reader, the header, the file's size.
fn open_snapshot(file: &Path) -> Result<(FrameReader<BufReader<File>>, Header, u64)> {
    let input = File::open(file).map_err(Error::io(format!("opening snapshot {}", file.display())))?;
    let file_bytes = input
        .metadata()
        .map_err(Error::io(format!("reading the size of {}", file.display())))?
        .len();
    let (reader, header) = FrameReader::open(BufReader::with_capacity(4 << 20, input), Some(file_bytes))
        .map_err(|e| snapshot_error(file, e))?;
    Ok((reader, header, file_bytes))
}

/// The reading loop shared by verify and import: header, frames through the workers, trailer.
/// `on_header` sees the checked header and says what the records are for. Every reader goes
/// through here, and the error returned is the first in file order whatever the number of
/// workers (see `ordered_map`), so all report the same offset and frame for one file.
pub(super) fn read_snapshot(
    file: &Path,
    workers: usize,
    progress: &mut Throttle<'_>,
    on_header: impl FnOnce(&Header, Content) -> Result<Target>,
    mut apply: impl FnMut(Prepared) -> Result<()>,
) -> Result<Summary> {
    let located = |e: FormatError| snapshot_error(file, e);
    let with_file = |e: Error| match e {
        Error::Snapshot {
            offset, frame, detail, ..
        } => Error::Snapshot {
            file: file.to_path_buf(),
            offset,
            frame,
            detail,
        },
        other => other,
    };
    let (mut reader, header, file_bytes) = open_snapshot(file)?;
    let content = check_header(&header).map_err(|detail| located(FormatError::at(16, None, detail)))?;
    let target = on_header(&header, content)?;
    let mut trailer = None;
    let mut counts = Counts::default();
    ordered_map(
        workers,
        || {
            if trailer.is_some() {
                return Ok(None);
            }
            let frame = reader.next_frame().map_err(located)?;
            if frame.kind == FRAME_TRAILER {
                trailer = Some(frame);
                return Ok(None);
            }
            Ok(Some(frame))
        },
        |frame: RawFrame| {
            let decoded = decode_frame(&frame).map_err(located)?;
            let mut part = Counts {
                frames: 1,
                ..Default::default()
            };
            decoded.iter().for_each(|r| count(&mut part, r));
            let (ops, values) = prepare(&frame, decoded, target).map_err(located)?;
            Ok(Prepared {
                frame: frame.index,
                offset: frame.offset,
                end: frame.end(),
                counts: part,
                ops,
                values,
            })
        },
        |prepared: Prepared| {
            add_counts(&mut counts, &prepared.counts);
            let end = prepared.end;
            apply(prepared).map_err(with_file)?;
            progress.tick(|| Progress {
                records: counts.records,
                bytes: end,
                bytes_expected: file_bytes,
                ..Default::default()
            })
        },
    )?;
    let trailer = trailer.expect("the reading loop ends at the trailer or with an error");
    trailer.check_crc().map_err(located)?;
    let stated = Counts::decode(&*trailer.decompressed().map_err(located)?)
        .map_err(|e| located(trailer.error(format!("trailer does not decode: {e}"))))?;
    if stated != counts {
        return Err(located(trailer.error(format!(
            "the trailer's counts ({}) differ from the file's ({})",
            describe(&stated),
            describe(&counts)
        ))));
    }
    reader.finish().map_err(located)?;
    Ok(Summary {
        file: file.to_path_buf(),
        header,
        counts,
        file_bytes,
        format_version: reader.version,
    })
}

/// A frame's records, prepared for the store by a worker.
pub(super) struct Prepared {
    pub(super) frame: u64,
    pub(super) offset: u64,
    pub(super) end: u64,
    pub(super) counts: Counts,
    pub(super) ops: Vec<Op>,
    /// The object values `ops` refer to, one after the other: one buffer per frame rather than
    /// one per object, which the reading thread would then free.
    pub(super) values: Vec<u8>,
}

impl Prepared {
    pub(super) fn error(&self, detail: String) -> Error {
        Error::Snapshot {
            file: PathBuf::new(),
            offset: self.offset,
            frame: Some(self.frame),
            detail,
        }
    }
}

/// What the records are prepared for.
#[derive(Clone, Copy)]
pub(super) enum Target {
    /// A store's records: for a new store whose payloads are compressed with this policy, or
    /// (None) only checked.
    Store(Option<Policy>),
    /// A casket's key/values.
    Casket,
}

/// Checks one frame's records and prepares them for `target`.
fn prepare(
    frame: &RawFrame,
    records: Vec<pb::Record>,
    target: Target,
) -> std::result::Result<(Vec<Op>, Vec<u8>), FormatError> {
    let mut ops = Vec::with_capacity(records.len());
    let mut values = Vec::new();
    for (n, record) in records.into_iter().enumerate() {
        let bad = |detail: String| frame.error(format!("record {n} of the frame: {detail}"));
        match (target, &record.kind) {
            (
                Target::Casket,
                Some(Kind::Queue(_) | Kind::Entry(_) | Kind::Object(_) | Kind::Map(_) | Kind::MapEntry(_)),
            ) => return Err(bad("store records in a casket snapshot".into())),
            (Target::Store(_), Some(Kind::KeyValues(_))) => {
                return Err(bad("casket key/values in a store snapshot".into()))
            }
            _ => {}
        }
        let op = match record.kind {
            Some(Kind::Queue(q)) => {
                keys::validate_queue_name(&q.name).map_err(|e| bad(format!("queue {}: {e}", q.index)))?;
                Op::Queue {
                    index: q.index,
                    name: q.name,
                }
            }
            Some(Kind::Entry(e)) => {
                let id = uuid_of(&e.object_id)
                    .map_err(|d| bad(format!("entry {} of queue {}: {d}", e.position, e.queue)))?;
                let own = if e.owned {
                    Ownership::Owned
                } else {
                    Ownership::Reference
                };
                let value = match e.payload {
                    Some(payload) => {
                        if !e.owned {
                            return Err(bad(format!(
                                "entry {} of queue {}: a payload in an entry that is not queue-owned",
                                e.position, e.queue
                            )));
                        }
                        if payload.len() > MAX_INLINE_PAYLOAD_BYTES {
                            return Err(bad(format!("entry {} of queue {}: inline payload of {} bytes exceeds the limit of {MAX_INLINE_PAYLOAD_BYTES}", e.position, e.queue, payload.len())));
                        }
                        // Kept in the entry, as it was exported, compressed as the store's objects are.
                        let entry = match target {
                            Target::Store(Some(policy)) => {
                                let (codec, stored) = policy.compress_owned(payload);
                                keys::Entry::inline(id, codec, stored)
                            }
                            _ => keys::Entry::inline(id, Compression::None, Vec::new()),
                        };
                        keys::encode_entry(&entry)
                    }
                    None => keys::entry_value(id, own).to_vec(),
                };
                Op::Entry {
                    queue: e.queue,
                    position: e.position,
                    key: keys::entry_key(e.queue, e.position),
                    value,
                }
            }
            Some(Kind::Object(o)) => {
                let id = uuid_of(&o.id).map_err(|d| bad(format!("object: {d}")))?;
                if o.payload.len() > MAX_PAYLOAD_BYTES {
                    return Err(bad(format!(
                        "object {id}: payload of {} bytes exceeds the limit of {MAX_PAYLOAD_BYTES}",
                        o.payload.len()
                    )));
                }
                if o.owned_entries > 1 && !o.owned {
                    return Err(bad(format!(
                        "object {id}: {} owned entries counted for an object that is not queue-owned",
                        o.owned_entries
                    )));
                }
                let own = if o.owned {
                    Ownership::Owned
                } else {
                    Ownership::Reference
                };
                let start = values.len();
                // Verifying: nothing is stored, only the shape is checked.
                if let Target::Store(Some(policy)) = target {
                    let (codec, body) = policy.compress(&o.payload);
                    values.push(keys::object_flag(own, codec));
                    values.extend_from_slice(&body);
                }
                let value = start..values.len();
                Op::Object {
                    key: *id.as_bytes(),
                    value,
                    refs: (o.owned_entries > 1).then_some(o.owned_entries),
                }
            }
            Some(Kind::KeyValues(kv)) => Op::KeyValues {
                key: kv.key,
                values: kv.values,
            },
            Some(Kind::Map(m)) => {
                crate::maps::validate_map_name(&m.name).map_err(|e| bad(format!("map {}: {e}", m.index)))?;
                Op::Map {
                    index: m.index,
                    name: m.name,
                }
            }
            Some(Kind::MapEntry(e)) => {
                crate::maps::validate_map_key(&e.key).map_err(|d| bad(format!("pair of map {}: {d}", e.map)))?;
                if e.value.len() > MAX_PAYLOAD_BYTES {
                    return Err(bad(format!(
                        "pair of map {}: value of {} bytes exceeds the limit of {MAX_PAYLOAD_BYTES}",
                        e.map,
                        e.value.len()
                    )));
                }
                let start = values.len();
                if let Target::Store(Some(_)) = target {
                    values.extend_from_slice(&e.value);
                }
                Op::MapEntry {
                    map: e.map,
                    key: crate::maps::map_key(e.map, &e.key),
                    value: start..values.len(),
                }
            }
            None => unreachable!("decode_frame refuses records without a kind"),
        };
        ops.push(op);
    }
    Ok((ops, values))
}

fn uuid_of(bytes: &[u8]) -> std::result::Result<Uuid, String> {
    Uuid::from_slice(bytes).map_err(|_| format!("object id of {} bytes (16 expected)", bytes.len()))
}

/// What a header must hold for any reader: a known content and frame compression; for a
/// casket, a known kind and built-in key order.
fn check_header(header: &Header) -> std::result::Result<Content, String> {
    let content = match Content::try_from(header.content) {
        Ok(c @ (Content::Store | Content::Casket)) => c,
        _ => {
            return Err(format!(
                "unknown content {} (written by a newer RockCask?)",
                header.content
            ))
        }
    };
    if u8::try_from(header.compression)
        .ok()
        .and_then(Compression::from_code)
        .is_none()
    {
        return Err(format!("unknown frame compression {}", header.compression));
    }
    if content == Content::Casket {
        casket_target(header)?;
    }
    Ok(content)
}

/// The kind and order a casket snapshot's header names, as options to create the casket with.
pub(super) fn casket_target(header: &Header) -> std::result::Result<(crate::casket::Kind, CasketOptions), String> {
    let kind =
        kind_named(&header.casket_kind).ok_or_else(|| format!("unknown casket kind {:?}", header.casket_kind))?;
    let order = KeyOrder::builtin(&header.casket_order)
        .ok_or_else(|| format!("unknown casket key order {:?}", header.casket_order))?;
    Ok((
        kind,
        CasketOptions {
            order,
            create: true,
            ..CasketOptions::new(kind, true)
        },
    ))
}

pub(super) fn wrong_content(file: &Path, found: Content, expected: Content) -> Error {
    Error::Snapshot {
        file: file.to_path_buf(),
        offset: 16,
        frame: None,
        detail: format!(
            "the snapshot holds a {}; a {} was expected",
            found.as_str_name().to_lowercase(),
            expected.as_str_name().to_lowercase()
        ),
    }
}

/// Adds one decoded record to `counts` (the trailer's, checked at the end).
fn count(counts: &mut Counts, record: &pb::Record) {
    counts.records += 1;
    match &record.kind {
        Some(Kind::Queue(_)) => counts.queues += 1,
        Some(Kind::Entry(e)) => {
            counts.entries += 1;
            counts.payload_bytes += e.payload.as_ref().map_or(0, |p| p.len() as u64);
        }
        Some(Kind::Object(o)) => {
            counts.objects += 1;
            counts.payload_bytes += o.payload.len() as u64;
        }
        Some(Kind::KeyValues(kv)) => {
            counts.keys += 1;
            counts.values += kv.values.len() as u64;
            counts.payload_bytes += kv.values.iter().map(|v| v.len() as u64).sum::<u64>();
        }
        Some(Kind::Map(_)) => counts.maps += 1,
        Some(Kind::MapEntry(_)) => counts.map_entries += 1,
        None => {}
    }
}

fn describe(c: &Counts) -> String {
    format!(
        "{} frames, {} records: {} queues, {} entries, {} objects, {} keys, {} values, {} payload bytes, {} maps, {} map entries",
        c.frames, c.records, c.queues, c.entries, c.objects, c.keys, c.values, c.payload_bytes, c.maps, c.map_entries
    )
}

/// A records frame's records, after its CRC has been checked.
fn decode_frame(frame: &RawFrame) -> std::result::Result<Vec<pb::Record>, FormatError> {
    frame.check_crc()?;
    let body = frame.decompressed()?;
    let mut rest: &[u8] = &body;
    // Not sized from the frame's record count: that is the file's word, checked below.
    let mut records = Vec::new();
    while !rest.is_empty() {
        let at = body.len() - rest.len();
        let record = pb::Record::decode_length_delimited(&mut rest).map_err(|e| {
            frame.error(format!(
                "record {} (byte {at} of the frame body) does not decode: {e}",
                records.len()
            ))
        })?;
        if record.kind.is_none() {
            return Err(frame.error(format!("record {} (byte {at} of the frame body) is of a kind this build does not know (written by a newer RockCask?)", records.len())));
        }
        if records.len() == frame.records as usize {
            return Err(frame.error(format!(
                "frame holds more records than the {} its header says",
                frame.records
            )));
        }
        records.push(record);
    }
    if records.len() != frame.records as usize {
        return Err(frame.error(format!(
            "frame holds {} records; its header says {}",
            records.len(),
            frame.records
        )));
    }
    Ok(records)
}
