//! Writing snapshot records (`rust/proto/snapshot.proto`) straight from the bytes read from the
//! store, length-delimited, exactly as prost encodes the generated messages (the tests hold it
//! to that), without building a message and its buffers per record.

use prost::encoding::{encode_varint, encoded_len_varint};

const VARINT: u8 = 0;
const LEN: u8 = 2;

// Field numbers of `Record`'s oneof.
const RECORD_QUEUE: u8 = 1;
const RECORD_ENTRY: u8 = 2;
const RECORD_OBJECT: u8 = 3;
const RECORD_KEY_VALUES: u8 = 4;
const RECORD_MAP: u8 = 5;
const RECORD_MAP_ENTRY: u8 = 6;

fn key(field: u8, wire: u8) -> u8 {
    // Every field number here is below 16: a one-byte key.
    field << 3 | wire
}

/// Bytes of a scalar field (proto3: absent when 0).
fn varint_field_len(v: u64) -> usize {
    if v == 0 {
        0
    } else {
        1 + encoded_len_varint(v)
    }
}

/// Bytes of a bytes/string field (proto3: absent when empty; `always` for repeated elements).
fn bytes_field_len(len: usize, always: bool) -> usize {
    if len == 0 && !always {
        0
    } else {
        1 + encoded_len_varint(len as u64) + len
    }
}

fn put_varint_field(out: &mut Vec<u8>, field: u8, v: u64) {
    if v != 0 {
        out.push(key(field, VARINT));
        encode_varint(v, out);
    }
}

fn put_bytes_field(out: &mut Vec<u8>, field: u8, bytes: &[u8], always: bool) {
    if !bytes.is_empty() || always {
        out.push(key(field, LEN));
        encode_varint(bytes.len() as u64, out);
        out.extend_from_slice(bytes);
    }
}

/// The length prefix and the `Record` wrapper around a message of `inner` bytes.
fn put_record_head(out: &mut Vec<u8>, kind: u8, inner: usize) {
    let record = 1 + encoded_len_varint(inner as u64) + inner;
    encode_varint(record as u64, out);
    out.push(key(kind, LEN));
    encode_varint(inner as u64, out);
}

/// Bytes a record with a message of `inner` bytes takes, length prefix included.
fn record_len(inner: usize) -> usize {
    let record = 1 + encoded_len_varint(inner as u64) + inner;
    encoded_len_varint(record as u64) + record
}

fn queue_inner(index: u32, name: &[u8]) -> usize {
    varint_field_len(index as u64) + bytes_field_len(name.len(), false)
}

pub fn queue_len(index: u32, name: &[u8]) -> usize {
    record_len(queue_inner(index, name))
}

pub fn put_queue(out: &mut Vec<u8>, index: u32, name: &[u8]) {
    put_record_head(out, RECORD_QUEUE, queue_inner(index, name));
    put_varint_field(out, 1, index as u64);
    put_bytes_field(out, 2, name, false);
}

fn entry_inner(queue: u32, position: u64, owned: bool, payload_len: Option<usize>) -> usize {
    varint_field_len(queue as u64)
        + varint_field_len(position)
        + bytes_field_len(16, false)
        + varint_field_len(owned as u64)
        + payload_len.map_or(0, |n| bytes_field_len(n, true))
}

/// Bytes of an entry record; `payload_len` for an entry holding its payload.
pub fn entry_len(queue: u32, position: u64, owned: bool, payload_len: Option<usize>) -> usize {
    record_len(entry_inner(queue, position, owned, payload_len))
}

/// An entry record; `payload` for an entry holding its payload (written even when empty: the
/// field is `optional`, its presence is what says so).
pub fn put_entry(
    out: &mut Vec<u8>,
    queue: u32,
    position: u64,
    object_id: &[u8; 16],
    owned: bool,
    payload: Option<&[u8]>,
) {
    put_record_head(
        out,
        RECORD_ENTRY,
        entry_inner(queue, position, owned, payload.map(<[u8]>::len)),
    );
    put_varint_field(out, 1, queue as u64);
    put_varint_field(out, 2, position);
    put_bytes_field(out, 3, object_id, false);
    put_varint_field(out, 4, owned as u64);
    if let Some(payload) = payload {
        put_bytes_field(out, 5, payload, true);
    }
}

fn object_inner(id: &[u8], owned: bool, payload_len: usize, owned_entries: u64) -> usize {
    bytes_field_len(id.len(), false)
        + varint_field_len(owned as u64)
        + bytes_field_len(payload_len, false)
        + varint_field_len(owned_entries)
}

pub fn object_len(id: &[u8], owned: bool, payload_len: usize, owned_entries: u64) -> usize {
    record_len(object_inner(id, owned, payload_len, owned_entries))
}

pub fn put_object(out: &mut Vec<u8>, id: &[u8], owned: bool, payload: &[u8], owned_entries: u64) {
    put_record_head(
        out,
        RECORD_OBJECT,
        object_inner(id, owned, payload.len(), owned_entries),
    );
    put_bytes_field(out, 1, id, false);
    put_varint_field(out, 2, owned as u64);
    put_bytes_field(out, 3, payload, false);
    put_varint_field(out, 4, owned_entries);
}

fn key_values_inner<'a>(key: &[u8], values: impl Iterator<Item = &'a [u8]>) -> usize {
    bytes_field_len(key.len(), false) + values.map(|v| bytes_field_len(v.len(), true)).sum::<usize>()
}

pub fn key_values_len<'a>(key: &[u8], values: impl Iterator<Item = &'a [u8]>) -> usize {
    record_len(key_values_inner(key, values))
}

pub fn put_key_values<'a>(out: &mut Vec<u8>, key: &[u8], values: impl Iterator<Item = &'a [u8]> + Clone) {
    put_record_head(out, RECORD_KEY_VALUES, key_values_inner(key, values.clone()));
    put_bytes_field(out, 1, key, false);
    for v in values {
        put_bytes_field(out, 2, v, true);
    }
}

fn map_entry_inner(map: u32, key: &[u8], value_len: usize) -> usize {
    varint_field_len(map as u64) + bytes_field_len(key.len(), false) + bytes_field_len(value_len, false)
}

pub fn map_len(index: u32, name: &[u8]) -> usize {
    // A map definition has the shape of a queue definition.
    record_len(queue_inner(index, name))
}

pub fn put_map(out: &mut Vec<u8>, index: u32, name: &[u8]) {
    put_record_head(out, RECORD_MAP, queue_inner(index, name));
    put_varint_field(out, 1, index as u64);
    put_bytes_field(out, 2, name, false);
}

pub fn map_entry_len(map: u32, key: &[u8], value_len: usize) -> usize {
    record_len(map_entry_inner(map, key, value_len))
}

pub fn put_map_entry(out: &mut Vec<u8>, map: u32, key: &[u8], value: &[u8]) {
    put_record_head(out, RECORD_MAP_ENTRY, map_entry_inner(map, key, value.len()));
    put_varint_field(out, 1, map as u64);
    put_bytes_field(out, 2, key, false);
    put_bytes_field(out, 3, value, false);
}

#[cfg(test)]
mod tests {
    use super::*;
    use prost::Message;
    use rockcask_codec::snapshot_pb::{self as pb, record::Kind};

    fn prost_bytes(kind: Kind) -> Vec<u8> {
        pb::Record { kind: Some(kind) }.encode_length_delimited_to_vec()
    }

    fn check(ours: Vec<u8>, expected_len: usize, kind: Kind) {
        assert_eq!(ours.len(), expected_len);
        assert_eq!(ours, prost_bytes(kind));
    }

    #[test]
    fn records_are_byte_identical_to_prost_including_defaults_and_long_lengths() {
        let long_name = "q".repeat(300);
        for (index, name) in [(0u32, ""), (0, "a"), (7, "parse.out"), (u32::MAX, long_name.as_str())] {
            let mut out = Vec::new();
            put_queue(&mut out, index, name.as_bytes());
            check(
                out,
                queue_len(index, name.as_bytes()),
                Kind::Queue(pb::QueueDef {
                    index,
                    name: name.into(),
                }),
            );
        }
        let id = *uuid::Uuid::now_v7().as_bytes();
        for (queue, position, owned) in [
            (0u32, 0u64, false),
            (3, 1, true),
            (u32::MAX, u64::MAX, true),
            (1, 300, false),
        ] {
            let mut out = Vec::new();
            put_entry(&mut out, queue, position, &id, owned, None);
            check(
                out,
                entry_len(queue, position, owned, None),
                Kind::Entry(pb::Entry {
                    queue,
                    position,
                    object_id: id.to_vec(),
                    owned,
                    payload: None,
                }),
            );
        }
        for payload_len in [0usize, 1, 127, 128, 70_000] {
            let payload = vec![0x5A; payload_len];
            let mut out = Vec::new();
            put_entry(&mut out, 2, 9, &id, true, Some(&payload));
            check(
                out,
                entry_len(2, 9, true, Some(payload_len)),
                Kind::Entry(pb::Entry {
                    queue: 2,
                    position: 9,
                    object_id: id.to_vec(),
                    owned: true,
                    payload: Some(payload),
                }),
            );
        }
        for (payload_len, owned, refs) in [
            (0usize, false, 0u64),
            (1, true, 2),
            (127, true, 0),
            (128, false, 0),
            (70_000, true, u64::MAX),
        ] {
            let payload = vec![0xA5; payload_len];
            let mut out = Vec::new();
            put_object(&mut out, &id, owned, &payload, refs);
            check(
                out,
                object_len(&id, owned, payload_len, refs),
                Kind::Object(pb::Object {
                    id: id.to_vec(),
                    owned,
                    payload: payload.clone(),
                    owned_entries: refs,
                }),
            );
        }
        for (index, name) in [(0u32, "counts"), (9, "")] {
            let mut out = Vec::new();
            put_map(&mut out, index, name.as_bytes());
            check(
                out,
                map_len(index, name.as_bytes()),
                Kind::Map(pb::MapDef {
                    index,
                    name: name.into(),
                }),
            );
        }
        for (map, key, value) in [(0u32, &b"k"[..], &b""[..]), (4, &[0u8; 200][..], &[7u8; 300][..])] {
            let mut out = Vec::new();
            put_map_entry(&mut out, map, key, value);
            check(
                out,
                map_entry_len(map, key, value.len()),
                Kind::MapEntry(pb::MapEntry {
                    map,
                    key: key.to_vec(),
                    value: value.to_vec(),
                }),
            );
        }
        let values: Vec<Vec<u8>> = vec![vec![], b"one".to_vec(), vec![0; 200]];
        for key in [&b""[..], b"k", &[0u8; 130][..]] {
            let mut out = Vec::new();
            put_key_values(&mut out, key, values.iter().map(Vec::as_slice));
            check(
                out,
                key_values_len(key, values.iter().map(Vec::as_slice)),
                Kind::KeyValues(pb::KeyValues {
                    key: key.to_vec(),
                    values: values.clone(),
                }),
            );
        }
    }
}
