//! Writing a snapshot file: what a reader read is cut into chunks at points that depend only on
//! the data (`Chunker`), workers turn chunks into frames (records, compression, CRC), and the
//! calling thread writes the frames in chunk order, between the header and the trailer, to a
//! temporary file moved into place once synced (`write_snapshot`). Store exports (`export.rs`)
//! and casket exports (`casket.rs`) read their source into items for it.

use std::io::{BufWriter, Write};
use std::ops::Range;
use std::path::Path;
use std::time::{SystemTime, UNIX_EPOCH};

use rockcask_codec::compress::{self, Compression, Policy};

use super::format::{self, FRAME_RECORDS};
use super::parallel::ordered_map;
use super::records;
use super::temp_files::TempFile;
use super::{Counts, ExportOptions, Header, Progress, Summary, Throttle};
use crate::error::{Error, Result};
use crate::keys::{self, Ownership};

/// One record to be, as the reading thread read it: ranges of the chunk's byte arena (store
/// values as stored), so reading costs one copy into the arena and no allocation per item.
pub(crate) enum Item {
    Queue {
        index: u32,
        name: Range<usize>,
    },
    Entry {
        queue: u32,
        position: u64,
        value: Range<usize>,
    },
    Object {
        id: Range<usize>,
        value: Range<usize>,
        owned_entries: u64,
    },
    KeyValues {
        key: Range<usize>,
        values: Vec<Range<usize>>,
    },
    Map {
        index: u32,
        name: Range<usize>,
    },
    MapEntry {
        map: u32,
        key: Range<usize>,
        value: Range<usize>,
    },
}

/// What the reading thread hands to a worker: items and the bytes they refer to.
pub(crate) struct Chunk {
    pub arena: Vec<u8>,
    pub items: Vec<Item>,
}

/// Appends `bytes` to the arena; returns where they are.
pub(crate) fn stash(arena: &mut Vec<u8>, bytes: &[u8]) -> Range<usize> {
    let start = arena.len();
    arena.extend_from_slice(bytes);
    start..arena.len()
}

impl Item {
    /// Bytes of the record this item becomes, within a few bytes (entries and objects are
    /// weighed as queue-owned, which takes two bytes more), from the data alone.
    fn weight(&self, arena: &[u8]) -> usize {
        match self {
            Item::Queue { index, name } => records::queue_len(*index, &arena[name.clone()]),
            Item::Entry { queue, position, value } => {
                // An entry holding its payload carries it (uncompressed) in its record.
                let inline = keys::inline_payload(&arena[value.clone()]).ok().flatten();
                let payload_len =
                    inline.map(|(codec, stored)| compress::payload_len(codec, stored).min(compress::MAX_DECOMPRESSED));
                records::entry_len(*queue, *position, true, payload_len)
            }
            // The record holds the payload uncompressed, whatever the store keeps.
            Item::Object {
                id,
                value,
                owned_entries,
            } => {
                let payload_len = match arena[value.clone()].split_first() {
                    // A damaged header may declare anything: no more than a payload may hold.
                    Some((&flag, body)) => Compression::from_code(flag >> 4)
                        .map_or(body.len(), |codec| compress::payload_len(codec, body))
                        .min(compress::MAX_DECOMPRESSED),
                    None => 0,
                };
                records::object_len(&arena[id.clone()], true, payload_len, *owned_entries)
            }
            Item::KeyValues { key, values } => {
                records::key_values_len(&arena[key.clone()], values.iter().map(|v| &arena[v.clone()]))
            }
            Item::Map { index, name } => records::map_len(*index, &arena[name.clone()]),
            Item::MapEntry { map, key, value } => records::map_entry_len(*map, &arena[key.clone()], value.len()),
        }
    }

    /// Where the item's bytes start in the arena (they are the last bytes appended for it).
    fn start(&self) -> usize {
        match self {
            Item::Queue { name, .. } => name.start,
            Item::Entry { value, .. } => value.start,
            Item::Object { id, .. } => id.start,
            Item::KeyValues { key, .. } => key.start,
            Item::Map { name, .. } => name.start,
            Item::MapEntry { key, .. } => key.start,
        }
    }

    /// The item moved `by` bytes down (to the front of the next chunk's arena).
    fn shifted(self, by: usize) -> Item {
        let s = |r: Range<usize>| r.start - by..r.end - by;
        match self {
            Item::Queue { index, name } => Item::Queue { index, name: s(name) },
            Item::Entry { queue, position, value } => Item::Entry {
                queue,
                position,
                value: s(value),
            },
            Item::Object {
                id,
                value,
                owned_entries,
            } => Item::Object {
                id: s(id),
                value: s(value),
                owned_entries,
            },
            Item::KeyValues { key, values } => Item::KeyValues {
                key: s(key),
                values: values.into_iter().map(s).collect(),
            },
            Item::Map { index, name } => Item::Map { index, name: s(name) },
            Item::MapEntry { map, key, value } => Item::MapEntry {
                map,
                key: s(key),
                value: s(value),
            },
        }
    }

    /// Appends the item's record to `body` and counts it.
    fn encode(&self, arena: &[u8], body: &mut Vec<u8>, counts: &mut Counts) -> Result<()> {
        counts.records += 1;
        match self {
            Item::Queue { index, name } => {
                counts.queues += 1;
                records::put_queue(body, *index, &arena[name.clone()]);
            }
            Item::Entry { queue, position, value } => {
                counts.entries += 1;
                let entry = keys::decode_entry(&arena[value.clone()])?;
                let payload = entry.inline.as_ref().map(keys::Inline::payload).transpose()?;
                if let Some(p) = &payload {
                    counts.payload_bytes += p.len() as u64;
                }
                records::put_entry(
                    body,
                    *queue,
                    *position,
                    entry.id.as_bytes(),
                    entry.own == Ownership::Owned,
                    payload.as_deref(),
                );
            }
            Item::Object {
                id,
                value,
                owned_entries,
            } => {
                let (own, payload) = keys::object_payload(&arena[value.clone()])?;
                counts.objects += 1;
                counts.payload_bytes += payload.len() as u64;
                records::put_object(
                    body,
                    &arena[id.clone()],
                    own == Ownership::Owned,
                    &payload,
                    *owned_entries,
                );
            }
            Item::KeyValues { key, values } => {
                counts.keys += 1;
                counts.values += values.len() as u64;
                counts.payload_bytes += values.iter().map(|v| v.len() as u64).sum::<u64>();
                records::put_key_values(body, &arena[key.clone()], values.iter().map(|v| &arena[v.clone()]));
            }
            Item::Map { index, name } => {
                counts.maps += 1;
                records::put_map(body, *index, &arena[name.clone()]);
            }
            Item::MapEntry { map, key, value } => {
                counts.map_entries += 1;
                records::put_map_entry(body, *map, &arena[key.clone()], &arena[value.clone()]);
            }
        }
        Ok(())
    }
}

/// A frame ready to be written, with what it adds to the trailer's counts.
pub(crate) struct Frame {
    pub bytes: Vec<u8>,
    pub counts: Counts,
}

/// Encodes a chunk's records into one frame (compressed with `compression` when it shrinks).
pub(crate) fn encode_chunk(chunk: Chunk, compression: Compression) -> Result<Frame> {
    let mut counts = Counts {
        frames: 1,
        ..Default::default()
    };
    let weight: usize = chunk.items.iter().map(|i| i.weight(&chunk.arena)).sum();
    let mut body = Vec::with_capacity(weight.min(format::MAX_FRAME_BYTES as usize));
    for item in &chunk.items {
        item.encode(&chunk.arena, &mut body, &mut counts)?;
    }
    if body.len() > format::MAX_FRAME_BYTES as usize {
        return Err(Error::InvalidArgument(format!(
            "a frame of {} bytes exceeds the {} a snapshot frame may hold (one record is too large)",
            body.len(),
            format::MAX_FRAME_BYTES
        )));
    }
    let (codec, stored) = Policy {
        codec: compression,
        threshold: 0,
    }
    .compress(&body);
    let mut bytes = Vec::with_capacity(stored.len() + format::FRAME_FIXED_BYTES + format::CRC_BYTES);
    format::encode_frame(
        &mut bytes,
        FRAME_RECORDS,
        codec,
        counts.records as u32,
        body.len() as u32,
        &stored,
    );
    Ok(Frame { bytes, counts })
}

pub(crate) fn add_counts(total: &mut Counts, part: &Counts) {
    total.frames += part.frames;
    total.records += part.records;
    total.queues += part.queues;
    total.entries += part.entries;
    total.objects += part.objects;
    total.keys += part.keys;
    total.values += part.values;
    total.payload_bytes += part.payload_bytes;
    total.maps += part.maps;
    total.map_entries += part.map_entries;
}

/// Cuts items into chunks (future frames) of at most `budget` bytes and `MAX_FRAME_RECORDS`
/// items, where the cut depends only on the items: an item that would take a chunk past the
/// budget starts the next one, so only an item larger than the budget makes a larger frame,
/// alone.
pub(crate) struct Chunker {
    budget: usize,
    /// An item that did not fit the last chunk, with its bytes: the next chunk starts with it.
    ahead: Option<(Item, Vec<u8>)>,
}

impl Chunker {
    pub fn new(options: &ExportOptions) -> Result<Chunker> {
        if options.frame_bytes == 0 || options.frame_bytes > format::MAX_FRAME_TARGET {
            return Err(Error::InvalidArgument(format!(
                "frame size must be 1 to {} bytes, got {}",
                format::MAX_FRAME_TARGET,
                options.frame_bytes
            )));
        }
        Ok(Chunker {
            budget: options.frame_bytes,
            ahead: None,
        })
    }

    /// The next chunk; `next_item` appends an item's bytes to the arena it is given and returns
    /// the item (None when there are no more).
    pub fn next_chunk(
        &mut self,
        mut next_item: impl FnMut(&mut Vec<u8>) -> Result<Option<Item>>,
    ) -> Result<Option<Chunk>> {
        let (mut items, mut arena, mut weight) = match self.ahead.take() {
            Some((item, bytes)) => {
                let w = item.weight(&bytes);
                (vec![item], bytes, w)
            }
            None => (Vec::new(), Vec::with_capacity(self.budget.min(4 << 20) + 1024), 0),
        };
        while items.len() < format::MAX_FRAME_RECORDS as usize {
            let Some(item) = next_item(&mut arena)? else { break };
            let w = item.weight(&arena);
            if !items.is_empty() && weight + w > self.budget {
                let start = item.start();
                let mut bytes = Vec::with_capacity((arena.len() - start).max(self.budget.min(4 << 20) + 1024));
                bytes.extend_from_slice(&arena[start..]);
                arena.truncate(start);
                // A large item carried over must not leave its room in this chunk's arena.
                if arena.capacity() > 2 * arena.len() + (4 << 20) {
                    arena.shrink_to_fit();
                }
                self.ahead = Some((item.shifted(start), bytes));
                break;
            }
            weight += w;
            items.push(item);
        }
        Ok((!items.is_empty()).then_some(Chunk { arena, items }))
    }
}

/// The file is handed to the device in steps of this many bytes as it is written.
const WRITEBACK_BYTES: u64 = 8 << 20;

/// Writes header, frames and trailer to a temporary file beside `file`, syncs it and renames it
/// to `file`. `next_chunk` runs in the calling thread, `encode` in the workers.
pub(crate) fn write_snapshot<C: Send>(
    file: &Path,
    options: &ExportOptions,
    header: Header,
    records_expected: u64,
    listener: &mut dyn FnMut(&Progress) -> Result<()>,
    next_chunk: impl FnMut() -> Result<Option<C>>,
    encode: impl Fn(C) -> Result<Frame> + Sync,
) -> Result<Summary> {
    if !options.overwrite && file.exists() {
        return Err(Error::TargetExists {
            path: file.to_path_buf(),
            why: "exists; choose another name or allow overwriting".into(),
        });
    }
    let temp = TempFile::create(file)?;
    let mut out = BufWriter::with_capacity(
        256 << 10,
        temp.file.try_clone().map_err(Error::io("opening the snapshot file"))?,
    );
    let write_err = || Error::io(format!("writing {}", temp.path.display()));
    let head = format::encode_header(&header);
    out.write_all(&head).map_err(write_err())?;
    let mut crc = crc32c::crc32c(&head);
    let mut bytes = head.len() as u64;
    let mut counts = Counts::default();
    let mut progress = Throttle::new(listener);
    let mut written_back = 0u64;
    ordered_map(options.workers, next_chunk, encode, |frame: Frame| {
        out.write_all(&frame.bytes).map_err(write_err())?;
        crc = crc32c::crc32c_append(crc, &frame.bytes);
        bytes += frame.bytes.len() as u64;
        if bytes - written_back >= WRITEBACK_BYTES {
            out.flush().map_err(write_err())?;
            temp.start_writeback(written_back, bytes - written_back);
            written_back = bytes;
        }
        add_counts(&mut counts, &frame.counts);
        progress.tick(|| Progress {
            records: counts.records,
            records_expected,
            bytes,
            ..Default::default()
        })
    })?;
    let end = format::encode_trailer_and_end(&counts, crc);
    out.write_all(&end).map_err(write_err())?;
    bytes += end.len() as u64;
    out.flush().map_err(write_err())?;
    drop(out);
    temp.sync()?;
    // The last report goes out before the file takes its name: a listener that fails on it
    // still leaves nothing behind.
    progress.done(Progress {
        records: counts.records,
        records_expected: counts.records,
        bytes,
        bytes_expected: bytes,
        done: true,
    })?;
    temp.persist(file, options.overwrite)?;
    Ok(Summary {
        file: file.to_path_buf(),
        header,
        counts,
        file_bytes: bytes,
        format_version: format::FORMAT_VERSION,
    })
}

pub(crate) fn now_millis() -> i64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_millis() as i64)
}

#[cfg(test)]
mod tests;
