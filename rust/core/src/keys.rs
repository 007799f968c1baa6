//! Byte layouts of everything RockCask writes to RocksDB.
//!
//! Column family `entries`: key = queue id (u32 BE) + sequence (u64 BE), so one queue's entries
//! are contiguous and sorted in FIFO order; value = object id (16 bytes) + ownership flag, then
//! (in entries written by commits; not in those of 0.1.0 stores or of snapshot imports) the
//! payload bytes its object held as stored when the entry was committed (u32 LE). An entry whose
//! payload is inline (`StoreOptions::inline_payload_bytes`) has flag `INLINE` (codec in the high
//! four bits), then the payload as stored, and no object.
//! A commit writes a run of its entries to one queue as one record, a block: key = queue id +
//! first sequence + number of entries (u32 BE, 2 to `MAX_BLOCK_ENTRIES`), 16 bytes, so that a
//! key alone says which sequences its record holds and blocks sort among single entries by their
//! first sequence; value = each entry's value as above, preceded by its length (u32 LE). A block
//! stays until every entry in it is consumed: which of its entries are present is what the
//! queue's head layout (`h/` below) says, as for single entries (`entry_records.rs`).
//! Column family `objects`: key = 16-byte UUID; value = flag byte + payload.
//! Column family `refs`: key = UUID of a queue-owned object referenced by more than one entry;
//! value = u64 LE count of live owned entries. Absent means exactly one.
//! Column family `meta`: format marker, queue names -> ids (`q/` + name; map names -> ids are
//! `m/` + name, `maps.rs`; both kept by `registry.rs`), per-queue head hints, queue settings
//! (`c/` + name, see `queue_config.rs`), the delivery records of queues with a delivery limit
//! (`d/` + queue id (u32 BE) + record number (u64 BE), see `deliveries.rs`) and what each dead
//! letter records (`x/` + queue id + sequence, see `dead_letter.rs`).
//!
//! At a little over 500 lines, with its round-trip tests: the layout is one specification, kept
//! in one file so that a reader (or a tool reading a store's files) finds every byte here.

use std::borrow::Cow;

use rockcask_codec::compress::{self, Compression};
use uuid::Uuid;

use crate::error::{Error, Result};

pub const CF_ENTRIES: &str = "entries";
pub const CF_OBJECTS: &str = "objects";
pub const CF_REFS: &str = "refs";
pub const CF_META: &str = "meta";
/// The families every store has had since 0.1.0: without them a directory is not a store.
pub const ALL_CFS: [&str; 4] = [CF_ENTRIES, CF_OBJECTS, CF_REFS, CF_META];
/// Named maps (key = map id (u32 BE) + the map's key; value = the map's value). Added after
/// 0.1.0: a writable open creates it in stores without it; a read-only open of such a store
/// has no maps.
pub const CF_MAPS: &str = "maps";

/// Written once at creation; its absence means "not a RockCask store".
pub const META_FORMAT_KEY: &[u8] = b"format";
pub const META_FORMAT_VALUE: &[u8] = b"rockcask-1";
const META_QUEUE_PREFIX: &[u8] = b"q/";
const META_HEAD_PREFIX: &[u8] = b"h/";
const META_CONFIG_PREFIX: &[u8] = b"c/";
const META_DELIVERIES_PREFIX: &[u8] = b"d/";
const META_DEAD_LETTER_PREFIX: &[u8] = b"x/";

pub type QueueId = u32;

/// Longest queue name accepted, in UTF-8 bytes.
pub const MAX_QUEUE_NAME_BYTES: usize = 1024;

/// Leading bytes of an entry key that name its queue.
pub const ENTRY_KEY_QUEUE_BYTES: usize = 4;

pub fn entry_key(queue: QueueId, seq: u64) -> [u8; 12] {
    let mut k = [0u8; 12];
    k[..ENTRY_KEY_QUEUE_BYTES].copy_from_slice(&queue.to_be_bytes());
    k[ENTRY_KEY_QUEUE_BYTES..].copy_from_slice(&seq.to_be_bytes());
    k
}

/// Exclusive upper bound of one queue's entry keys (longer than any of its 12- and 16-byte keys).
pub fn queue_upper_bound(id: QueueId) -> Vec<u8> {
    let mut k = entry_key(id, u64::MAX).to_vec();
    k.push(0xFF);
    k
}

/// Most entries one block holds, and most value bytes it holds (an entry larger than that is a
/// record of its own). Bounded so that a point read of one entry reads little besides it, and so
/// that recovery finds the record holding a queue's head among the keys at most
/// `MAX_BLOCK_ENTRIES - 1` below it. The entry count is part of the layout: stores hold blocks
/// of up to this many, and a build that lowered it would refuse them (`record_span`) and search
/// too little below a head.
pub const MAX_BLOCK_ENTRIES: u32 = 1024;
pub const MAX_BLOCK_BYTES: usize = 128 << 10;

/// Bytes of a block key, and what a block value spends per entry besides the entry's value.
pub const BLOCK_KEY_BYTES: usize = 16;
pub const BLOCK_ENTRY_LENGTH_BYTES: usize = 4;

/// Key of the block of `n` entries of queue `queue` from sequence `first` on.
pub fn block_key(queue: QueueId, first: u64, n: u32) -> [u8; BLOCK_KEY_BYTES] {
    let mut k = [0u8; BLOCK_KEY_BYTES];
    k[..12].copy_from_slice(&entry_key(queue, first));
    k[12..].copy_from_slice(&n.to_be_bytes());
    k
}

/// The first sequence and number of entries of the record under entry key `key`: one for a
/// single entry's 12-byte key, the count a block key carries.
pub fn record_span(key: &[u8]) -> Result<(u64, u32)> {
    let first = decode_entry_seq(key)?;
    match key.len() {
        12 => Ok((first, 1)),
        BLOCK_KEY_BYTES => {
            let n = u32::from_be_bytes(key[12..].try_into().expect("4 bytes"));
            if !(2..=MAX_BLOCK_ENTRIES).contains(&n) || first.checked_add(u64::from(n)).is_none() {
                return Err(Error::Corrupt(format!(
                    "block key of {n} entries from sequence {first}"
                )));
            }
            Ok((first, n))
        }
        n => Err(Error::Corrupt(format!("entry key of {n} bytes"))),
    }
}

/// The lowest first sequence a block holding sequence `seq` can have: where a search for the
/// record holding `seq` starts.
pub fn lowest_block_start(seq: u64) -> u64 {
    seq.saturating_sub(u64::from(MAX_BLOCK_ENTRIES) - 1)
}

/// Bytes of the block value of `entries`.
pub fn block_value_len<'a>(entries: impl IntoIterator<Item = &'a Entry>) -> usize {
    entries
        .into_iter()
        .map(|e| BLOCK_ENTRY_LENGTH_BYTES + encoded_entry_len(e))
        .sum()
}

/// The block value of `entries` into `out` of `block_value_len(entries)` bytes.
pub fn encode_block_into<'a>(entries: impl IntoIterator<Item = &'a Entry>, out: &mut [u8]) {
    let mut at = 0;
    for e in entries {
        let len = encoded_entry_len(e);
        out[at..at + BLOCK_ENTRY_LENGTH_BYTES].copy_from_slice(&(len as u32).to_le_bytes());
        at += BLOCK_ENTRY_LENGTH_BYTES;
        encode_entry_into(e, &mut out[at..at + len]);
        at += len;
    }
}

/// Where the entry value at byte `at` of a block value lies, and where the next one starts.
pub fn block_entry_at(block: &[u8], at: usize) -> Result<(std::ops::Range<usize>, usize)> {
    let corrupt = || Error::Corrupt(format!("block value of {} bytes: no entry at byte {at}", block.len()));
    let len_bytes = block.get(at..at + BLOCK_ENTRY_LENGTH_BYTES).ok_or_else(corrupt)?;
    let len = u32::from_le_bytes(len_bytes.try_into().expect("4 bytes")) as usize;
    let start = at + BLOCK_ENTRY_LENGTH_BYTES;
    let end = start
        .checked_add(len)
        .filter(|&end| end <= block.len())
        .ok_or_else(corrupt)?;
    Ok((start..end, end))
}

pub fn decode_entry_seq(key: &[u8]) -> Result<u64> {
    let bytes: [u8; 8] = key
        .get(ENTRY_KEY_QUEUE_BYTES..ENTRY_KEY_QUEUE_BYTES + 8)
        .and_then(|s| s.try_into().ok())
        .ok_or_else(|| Error::Corrupt(format!("entry key of {} bytes", key.len())))?;
    Ok(u64::from_be_bytes(bytes))
}

/// How a queue entry relates to its object.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Ownership {
    /// Created by `enqueue(queue, bytes)` (or enqueued by id while queue-owned): the object is
    /// deleted when the last owned entry pointing at it is consumed.
    Owned,
    /// Points at an object created by `put`: the object lives until `delete`.
    Reference,
}

/// The flag byte that starts an object value: ownership in the low four bits, the payload's
/// compression in the high four (0, raw, in values written before compression existed).
pub fn object_flag(own: Ownership, codec: Compression) -> u8 {
    own.to_byte() | codec.code() << 4
}

impl Ownership {
    fn to_byte(self) -> u8 {
        match self {
            Ownership::Owned => 1,
            Ownership::Reference => 0,
        }
    }
    fn from_byte(b: u8, what: &str) -> Result<Self> {
        match b {
            1 => Ok(Ownership::Owned),
            0 => Ok(Ownership::Reference),
            _ => Err(Error::Corrupt(format!("{what}: ownership flag {b}"))),
        }
    }
}

/// What a queue entry holds.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Entry {
    pub id: Uuid,
    /// `Owned` for an inline entry: its payload goes with it.
    pub own: Ownership,
    /// Payload bytes of its object as stored (after compression) when the entry was committed,
    /// which is what a byte capacity counts; `None` for entries written without it.
    pub bytes: Option<u32>,
    /// The payload itself when the entry holds it (then there is no object `id`).
    pub inline: Option<Inline>,
}

/// A payload kept in its queue entry: one record per item instead of an entry and an object.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Inline {
    pub codec: Compression,
    /// The payload as stored (compressed with `codec`).
    pub stored: Vec<u8>,
}

impl Inline {
    pub fn payload(&self) -> Result<Cow<'_, [u8]>> {
        compress::decompress(self.codec, &self.stored).map_err(|e| Error::Corrupt(format!("inline payload: {e}")))
    }
}

impl Entry {
    /// An entry that holds its payload.
    pub fn inline(id: Uuid, codec: Compression, stored: Vec<u8>) -> Entry {
        let bytes = Some(stored.len() as u32);
        Entry {
            id,
            own: Ownership::Owned,
            bytes,
            inline: Some(Inline { codec, stored }),
        }
    }

    /// Whether consuming it changes the owning count of an object (an owned entry pointing at
    /// one; an inline entry has none).
    pub fn owns_an_object(&self) -> bool {
        self.own == Ownership::Owned && self.inline.is_none()
    }
}

/// Entry flag (low four bits) of an entry holding its payload.
const INLINE: u8 = 2;

/// An entry value without the payload size: 17 bytes (0.1.0's layout, and what imports write).
pub fn entry_value(id: Uuid, own: Ownership) -> [u8; 17] {
    let mut v = [0u8; 17];
    v[..16].copy_from_slice(id.as_bytes());
    v[16] = own.to_byte();
    v
}

/// An entry's value: 21 bytes with its size, 17 without, 17 + the stored payload inline.
pub fn encode_entry(e: &Entry) -> Vec<u8> {
    let mut v = vec![0u8; encoded_entry_len(e)];
    encode_entry_into(e, &mut v);
    v
}

/// Bytes of `encode_entry(e)`.
pub fn encoded_entry_len(e: &Entry) -> usize {
    match (&e.inline, e.bytes) {
        (Some(inline), _) => 17 + inline.stored.len(),
        (None, Some(_)) => 21,
        (None, None) => 17,
    }
}

/// `encode_entry` into `out` of `encoded_entry_len(e)` bytes (a commit writes entries straight
/// into its write batch).
pub fn encode_entry_into(e: &Entry, out: &mut [u8]) {
    out[..17].copy_from_slice(&entry_value(e.id, e.own));
    if let Some(inline) = &e.inline {
        out[16] = INLINE | inline.codec.code() << 4;
        out[17..].copy_from_slice(&inline.stored);
    } else if let Some(bytes) = e.bytes {
        out[17..21].copy_from_slice(&bytes.to_le_bytes());
    }
}

/// The codec and stored payload of an entry value that holds its payload (`None` for one that
/// points at an object), without copying it.
pub fn inline_payload(v: &[u8]) -> Result<Option<(Compression, &[u8])>> {
    if v.len() < 17 || v[16] & 0x0F != INLINE {
        return Ok(None);
    }
    let code = v[16] >> 4;
    let codec =
        Compression::from_code(code).ok_or_else(|| Error::Corrupt(format!("queue entry: compression code {code}")))?;
    Ok(Some((codec, &v[17..])))
}

pub fn decode_entry(v: &[u8]) -> Result<Entry> {
    if let Some((codec, stored)) = inline_payload(v)? {
        let id = Uuid::from_slice(&v[..16]).map_err(|e| Error::Corrupt(e.to_string()))?;
        return Ok(Entry::inline(id, codec, stored.to_vec()));
    }
    let bytes = match v.len() {
        17 => None,
        21 => Some(u32::from_le_bytes(v[17..21].try_into().expect("4 bytes"))),
        n => return Err(Error::Corrupt(format!("queue entry value of {n} bytes"))),
    };
    let id = Uuid::from_slice(&v[..16]).map_err(|e| Error::Corrupt(e.to_string()))?;
    Ok(Entry {
        id,
        own: Ownership::from_byte(v[16], "queue entry")?,
        bytes,
        inline: None,
    })
}

/// Object value: one flag byte (`object_flag`) then the payload as stored (raw payloads are
/// never copied to be decoded). Transactions write it in place into their write batch.
pub fn decode_object_value(v: &[u8]) -> Result<(Ownership, Compression, &[u8])> {
    let (&flag, body) = v
        .split_first()
        .ok_or_else(|| Error::Corrupt("empty object value".into()))?;
    let codec = Compression::from_code(flag >> 4)
        .ok_or_else(|| Error::Corrupt(format!("object: compression code {}", flag >> 4)))?;
    Ok((Ownership::from_byte(flag & 0x0F, "object")?, codec, body))
}

/// An object's ownership and payload, decompressed if it was stored compressed.
pub fn object_payload(v: &[u8]) -> Result<(Ownership, Cow<'_, [u8]>)> {
    let (own, codec, body) = decode_object_value(v)?;
    let payload = compress::decompress(codec, body).map_err(|e| Error::Corrupt(format!("object payload: {e}")))?;
    Ok((own, payload))
}

pub fn meta_queue_key(name: &str) -> Vec<u8> {
    [META_QUEUE_PREFIX, name.as_bytes()].concat()
}

pub fn meta_queue_prefix() -> &'static [u8] {
    META_QUEUE_PREFIX
}

pub fn meta_head_key(queue: QueueId) -> Vec<u8> {
    [META_HEAD_PREFIX, &queue.to_be_bytes()[..]].concat()
}

pub fn meta_config_key(name: &str) -> Vec<u8> {
    [META_CONFIG_PREFIX, name.as_bytes()].concat()
}

pub fn meta_config_prefix() -> &'static [u8] {
    META_CONFIG_PREFIX
}

/// Key of delivery record `record` of queue `queue`.
pub fn meta_deliveries_key(queue: QueueId, record: u64) -> [u8; 14] {
    per_entry_meta_key(META_DELIVERIES_PREFIX, queue, record)
}

pub fn meta_deliveries_prefix() -> &'static [u8] {
    META_DELIVERIES_PREFIX
}

/// Key of what dead letter `seq` of dead-letter queue `queue` records.
pub fn meta_dead_letter_key(queue: QueueId, seq: u64) -> [u8; 14] {
    per_entry_meta_key(META_DEAD_LETTER_PREFIX, queue, seq)
}

pub fn meta_dead_letter_prefix() -> &'static [u8] {
    META_DEAD_LETTER_PREFIX
}

/// The dead-letter keys of queue `queue`: `[start, end)`.
pub fn meta_dead_letter_range(queue: QueueId) -> (Vec<u8>, Vec<u8>) {
    let start = [META_DEAD_LETTER_PREFIX, &queue.to_be_bytes()[..]].concat();
    let end = [META_DEAD_LETTER_PREFIX, &(queue as u64 + 1).to_be_bytes()[4..]].concat();
    if queue == QueueId::MAX {
        return (start, [META_DEAD_LETTER_PREFIX, &[0xFF; 13][..]].concat());
    }
    (start, end)
}

fn per_entry_meta_key(prefix: &[u8], queue: QueueId, seq: u64) -> [u8; 14] {
    let mut k = [0u8; 14];
    k[..2].copy_from_slice(prefix);
    k[2..].copy_from_slice(&entry_key(queue, seq));
    k
}

/// The queue id and sequence of a `d/` or `x/` key.
pub fn decode_per_entry_meta_key(key: &[u8]) -> Result<(QueueId, u64)> {
    if key.len() != 14 {
        return Err(Error::Corrupt(format!("per-entry meta key of {} bytes", key.len())));
    }
    let queue = QueueId::from_be_bytes(key[2..6].try_into().expect("4 bytes"));
    Ok((queue, decode_entry_seq(&key[2..])?))
}

pub fn decode_u32(v: &[u8], what: &str) -> Result<u32> {
    Ok(u32::from_le_bytes(
        v.try_into()
            .map_err(|_| Error::Corrupt(format!("{what} of {} bytes", v.len())))?,
    ))
}

pub fn decode_u64(v: &[u8], what: &str) -> Result<u64> {
    Ok(u64::from_le_bytes(
        v.try_into()
            .map_err(|_| Error::Corrupt(format!("{what} of {} bytes", v.len())))?,
    ))
}

pub fn validate_queue_name(name: &str) -> Result<()> {
    if name.is_empty() {
        return Err(Error::InvalidArgument("queue name is empty".into()));
    }
    if name.len() > MAX_QUEUE_NAME_BYTES {
        return Err(Error::InvalidArgument(format!(
            "queue name is {} bytes long; at most {MAX_QUEUE_NAME_BYTES} are allowed",
            name.len()
        )));
    }
    Ok(())
}

#[cfg(test)]
mod tests;
