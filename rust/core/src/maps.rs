//! Named maps: ordered byte keys to byte values, written by transactions atomically with their
//! queue and object operations.
//!
//! Isolation: reads see the latest committed data; a commit is refused with `Error::Conflict`
//! when a key it read with `get`/`contains` was written by a commit ordered after that read
//! (first committer wins), so a read-modify-write never loses an update. `add` to a counter is
//! applied at commit to the value as it is then, so it never conflicts. Scans read the latest
//! committed data and are not validated (a key that appears or goes meanwhile is not a conflict).
//! How a conflict is found: `commit/lock.rs`.

use crate::error::{Error, Result};

pub type MapId = u32;

/// Longest map key accepted, in bytes.
pub const MAX_MAP_KEY_BYTES: usize = 64 << 10;

/// Bytes of a counter's value (`add`): an i64, little-endian.
pub const COUNTER_BYTES: usize = 8;

const META_MAP_PREFIX: &[u8] = b"m/";

pub fn meta_map_key(name: &str) -> Vec<u8> {
    [META_MAP_PREFIX, name.as_bytes()].concat()
}

pub fn meta_map_prefix() -> &'static [u8] {
    META_MAP_PREFIX
}

/// Key in the maps family of `key` in map `map`.
pub fn map_key(map: MapId, key: &[u8]) -> Vec<u8> {
    let mut k = Vec::with_capacity(4 + key.len());
    k.extend_from_slice(&map.to_be_bytes());
    k.extend_from_slice(key);
    k
}

/// The keys of map `map` in the maps family: `[start, end)` (`end` is `None` for the last id).
pub fn map_range(map: MapId) -> (Vec<u8>, Option<Vec<u8>>) {
    (map.to_be_bytes().to_vec(), map.checked_add(1).map(|next| next.to_be_bytes().to_vec()))
}

pub fn validate_map_key(key: &[u8]) -> Result<()> {
    if key.is_empty() || key.len() > MAX_MAP_KEY_BYTES {
        return Err(Error::InvalidArgument(format!("map key of {} bytes is outside 1..={MAX_MAP_KEY_BYTES}", key.len())));
    }
    Ok(())
}

/// A counter's value, or the error naming where a value that is not one was found.
pub fn decode_counter(v: &[u8], map: &str, key: &[u8]) -> Result<i64> {
    let bytes: [u8; COUNTER_BYTES] = v.try_into().map_err(|_| {
        Error::InvalidArgument(format!("map '{map}' key {}: a value of {} bytes is not a counter ({COUNTER_BYTES} bytes)", show_key(key), v.len()))
    })?;
    Ok(i64::from_le_bytes(bytes))
}

/// A key as error messages show it: UTF-8 text in quotes when it is, else hexadecimal.
pub fn show_key(key: &[u8]) -> String {
    match std::str::from_utf8(key) {
        Ok(text) if !text.chars().any(char::is_control) => format!("'{text}'"),
        _ => key.iter().map(|b| format!("{b:02x}")).collect::<String>(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn map_keys_sort_by_map_then_key_and_ranges_bound_one_map() {
        let mut keys = vec![map_key(2, b"a"), map_key(1, b"b"), map_key(1, b"a"), map_key(1, &[0xFF, 0xFF])];
        keys.sort();
        assert_eq!(keys, vec![map_key(1, b"a"), map_key(1, b"b"), map_key(1, &[0xFF, 0xFF]), map_key(2, b"a")]);
        let (start, end) = map_range(1);
        assert!(keys[..3].iter().all(|k| k.as_slice() >= start.as_slice() && k.as_slice() < end.as_deref().unwrap()));
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
}
