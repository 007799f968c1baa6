//! Named maps: ordered byte keys to byte values, written by transactions atomically with their
//! queue and object operations.
//!
//! Isolation: a transaction reads one snapshot, taken at its first map read, plus its own
//! writes; a commit is refused with `Error::Conflict` when a key it read with
//! `get`/`contains`/`getAll` was written by a commit not in that snapshot (first committer
//! wins), so a read-modify-write never loses an update. `add` to a counter is applied at commit
//! to the value as it is then, so it never conflicts. Scans read the snapshot and are not
//! validated (a key that appears or goes meanwhile is not a conflict). A transaction that wrote
//! nothing commits at once. How a conflict is found: `commit/key_writes.rs`.
//!
//! This module holds what maps are on disk and at the API's edge: their keys in the maps
//! column family and their names' records in `meta`, the limits on names, keys and counters,
//! and the key ranges scans take. Their operations are `transaction/maps.rs`.

use crate::error::{Error, Result};

pub(crate) type MapId = u32;

/// Longest map key accepted, in bytes.
pub const MAX_MAP_KEY_BYTES: usize = 64 << 10;

/// Longest map name accepted, in UTF-8 bytes: what a queue name may have.
pub const MAX_MAP_NAME_BYTES: usize = 1024;

/// Bytes of a counter's value (`add`): an i64, little-endian.
pub const COUNTER_BYTES: usize = 8;

const META_MAP_PREFIX: &[u8] = b"m/";

pub(crate) fn meta_map_key(name: &str) -> Vec<u8> {
    [META_MAP_PREFIX, name.as_bytes()].concat()
}

pub(crate) fn meta_map_prefix() -> &'static [u8] {
    META_MAP_PREFIX
}

/// Key in the maps family of `key` in map `map`.
pub(crate) fn map_key(map: MapId, key: &[u8]) -> Vec<u8> {
    let mut k = Vec::with_capacity(4 + key.len());
    k.extend_from_slice(&map.to_be_bytes());
    k.extend_from_slice(key);
    k
}

/// The keys of map `map` in the maps family: `[start, end)` (`end` is `None` for the last id).
pub(crate) fn map_range(map: MapId) -> (Vec<u8>, Option<Vec<u8>>) {
    (
        map.to_be_bytes().to_vec(),
        map.checked_add(1).map(|next| next.to_be_bytes().to_vec()),
    )
}

pub(crate) fn validate_map_key(key: &[u8]) -> Result<()> {
    if key.is_empty() || key.len() > MAX_MAP_KEY_BYTES {
        return Err(Error::InvalidArgument(format!(
            "map key of {} bytes is outside 1..={MAX_MAP_KEY_BYTES}",
            key.len()
        )));
    }
    Ok(())
}

pub(crate) fn validate_map_name(name: &str) -> Result<()> {
    if name.is_empty() {
        return Err(Error::InvalidArgument("map name is empty".into()));
    }
    if name.len() > MAX_MAP_NAME_BYTES {
        return Err(Error::InvalidArgument(format!(
            "map name is {} bytes long; at most {MAX_MAP_NAME_BYTES} are allowed",
            name.len()
        )));
    }
    Ok(())
}

/// A counter's value, or the error naming where a value that is not one was found.
pub(crate) fn decode_counter(v: &[u8], map: &str, key: &[u8]) -> Result<i64> {
    let bytes: [u8; COUNTER_BYTES] = v.try_into().map_err(|_| {
        Error::InvalidArgument(format!(
            "map '{map}' key {}: a value of {} bytes is not a counter ({COUNTER_BYTES} bytes)",
            show_key(key),
            v.len()
        ))
    })?;
    Ok(i64::from_le_bytes(bytes))
}

/// A key as error messages show it: UTF-8 text in quotes when it is, else hexadecimal.
pub(crate) fn show_key(key: &[u8]) -> String {
    match std::str::from_utf8(key) {
        Ok(text) if !text.chars().any(char::is_control) => format!("'{text}'"),
        _ => key.iter().map(|b| format!("{b:02x}")).collect::<String>(),
    }
}

/// Which way a scan goes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Direction {
    Forward,
    Reverse,
}

/// A scan's key range within one map: `from` included, `to` excluded (`None`: unbounded).
#[derive(Clone, Debug, Default)]
pub struct KeyRange {
    pub from: Option<Vec<u8>>,
    pub to: Option<Vec<u8>>,
}

impl KeyRange {
    /// Every key starting with `prefix`.
    pub fn prefix(prefix: &[u8]) -> KeyRange {
        KeyRange {
            from: Some(prefix.to_vec()),
            to: prefix_end(prefix),
        }
    }

    pub(crate) fn contains(&self, key: &[u8]) -> bool {
        self.from.as_deref().is_none_or(|f| key >= f) && self.to.as_deref().is_none_or(|t| key < t)
    }
}

/// What one bounded scan returns (`Transaction::map_scan_within`): its pairs in scan order,
/// and whether it stopped at its byte bound before a pair of the range, so that more are
/// there to read from after the last key.
#[derive(Debug, Default, PartialEq)]
pub struct ScanPage {
    pub pairs: Vec<(Vec<u8>, Vec<u8>)>,
    pub cut: bool,
}

/// The first key after every key starting with `prefix` (`None` if there is none).
fn prefix_end(prefix: &[u8]) -> Option<Vec<u8>> {
    let mut end = prefix.to_vec();
    while let Some(last) = end.pop() {
        if last < 0xFF {
            end.push(last + 1);
            return Some(end);
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn map_keys_sort_by_map_then_key_and_ranges_bound_one_map() {
        let mut keys = vec![
            map_key(2, b"a"),
            map_key(1, b"b"),
            map_key(1, b"a"),
            map_key(1, &[0xFF, 0xFF]),
        ];
        keys.sort();
        assert_eq!(
            keys,
            vec![
                map_key(1, b"a"),
                map_key(1, b"b"),
                map_key(1, &[0xFF, 0xFF]),
                map_key(2, b"a")
            ]
        );
        let (start, end) = map_range(1);
        assert!(keys[..3]
            .iter()
            .all(|k| k.as_slice() >= start.as_slice() && k.as_slice() < end.as_deref().unwrap()));
        assert!(keys[3].as_slice() >= end.as_deref().unwrap());
        assert_eq!(map_range(MapId::MAX).1, None);
    }

    #[test]
    fn keys_counters_and_their_errors() {
        assert!(validate_map_key(b"").is_err());
        assert!(validate_map_key(&vec![0; MAX_MAP_KEY_BYTES + 1]).is_err());
        assert!(validate_map_key(&vec![0; MAX_MAP_KEY_BYTES]).is_ok());
        assert_eq!(decode_counter(&(-5i64).to_le_bytes(), "m", b"k").unwrap(), -5);
        let e = decode_counter(b"abc", "counts", b"page").unwrap_err().to_string();
        assert!(e.contains("map 'counts' key 'page'") && e.contains("3 bytes"), "{e}");
        assert_eq!(show_key(&[0, 255]), "00ff");
    }

    #[test]
    fn map_names_are_checked_as_map_names_with_the_limits_of_queue_names() {
        assert_eq!(MAX_MAP_NAME_BYTES, crate::keys::MAX_QUEUE_NAME_BYTES);
        assert_eq!(validate_map_name("").unwrap_err().to_string(), "map name is empty");
        assert!(validate_map_name(&"m".repeat(MAX_MAP_NAME_BYTES)).is_ok());
        let e = validate_map_name(&"m".repeat(MAX_MAP_NAME_BYTES + 1))
            .unwrap_err()
            .to_string();
        assert!(e.starts_with("map name is 1025 bytes long"), "{e}");
    }

    #[test]
    fn prefix_ranges_end_after_every_key_with_the_prefix() {
        assert_eq!(prefix_end(b"ab"), Some(b"ac".to_vec()));
        assert_eq!(prefix_end(&[1, 0xFF]), Some(vec![2]));
        assert_eq!(prefix_end(&[0xFF, 0xFF]), None);
        let r = KeyRange::prefix(b"user/");
        assert!(r.contains(b"user/1") && r.contains(b"user/") && !r.contains(b"user0") && !r.contains(b"use"));
    }
}
