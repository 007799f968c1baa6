//! The records of a snapshot as readers check them, and the order they must come in.

use std::ops::Range;

use uuid::Uuid;

use crate::casket::KeyOrder;

/// One checked record, ready to be written.
pub(super) enum Op {
    Queue {
        index: u32,
        name: String,
    },
    /// `value` is the entry's value in the entries family (`keys::encode_entry`).
    Entry {
        queue: u32,
        position: u64,
        key: [u8; 12],
        value: Vec<u8>,
    },
    Object {
        key: [u8; 16],
        value: Range<usize>,
        refs: Option<u64>,
    },
    KeyValues {
        key: Vec<u8>,
        values: Vec<Vec<u8>>,
    },
    Map {
        index: u32,
        name: String,
    },
    /// `key` is the pair's key in the maps family (the map's index as its id, then its key).
    MapEntry {
        map: u32,
        key: Vec<u8>,
        value: Range<usize>,
    },
}

/// Checks that records come in the order an export writes them: queue definitions (indexes
/// 0, 1, ... with names in ascending order), then each queue's entries with positions 0, 1, ...
/// queue by queue, then objects in ascending id order. Sorted input is what lets an import
/// write table files directly.
#[derive(Default)]
pub(super) struct RecordOrder {
    pub queues: Vec<String>,
    /// Queue of the last entry and the position expected next in it.
    entry_at: Option<(u32, u64)>,
    last_object: Option<[u8; 16]>,
    pub maps: Vec<String>,
    /// Key (in the maps family) of the last map pair.
    last_map_key: Option<Vec<u8>>,
    key_values: bool,
    /// A casket snapshot's key order, and the last key seen.
    pub casket_order: Option<KeyOrder>,
    last_key: Option<Vec<u8>>,
}

impl RecordOrder {
    pub fn check(&mut self, op: &Op) -> std::result::Result<(), String> {
        let store_records =
            !self.queues.is_empty() || self.entry_at.is_some() || self.last_object.is_some() || !self.maps.is_empty();
        if self.key_values != matches!(op, Op::KeyValues { .. }) && (self.key_values || store_records) {
            return Err("store records and casket key/values in one snapshot".into());
        }
        match op {
            Op::KeyValues { key, values } => {
                if values.is_empty() {
                    return Err(format!("key of {} bytes without values", key.len()));
                }
                // Keys ascend in the casket's order; a key repeats only in consecutive records
                // (its values split over several).
                if let (Some(order), Some(last)) = (&self.casket_order, &self.last_key) {
                    if order.compare(last, key) == std::cmp::Ordering::Greater {
                        return Err(format!(
                            "key of {} bytes is out of the casket's {} order",
                            key.len(),
                            order.id()
                        ));
                    }
                }
                self.last_key = Some(key.clone());
                self.key_values = true;
            }
            Op::Map { index, name } => {
                if self.last_map_key.is_some() {
                    return Err(format!("map definition '{name}' after map pairs"));
                }
                if *index as usize != self.maps.len() {
                    return Err(format!(
                        "map definition '{name}' has index {index}; {} expected",
                        self.maps.len()
                    ));
                }
                if self.maps.last().is_some_and(|last| last.as_str() >= name.as_str()) {
                    return Err(format!("map '{name}' is out of order or defined twice"));
                }
                self.maps.push(name.clone());
            }
            Op::MapEntry { map, key, .. } => {
                if *map as usize >= self.maps.len() {
                    return Err(format!("a pair refers to map {map}, which is not defined"));
                }
                if self.last_map_key.as_ref().is_some_and(|last| last >= key) {
                    return Err(format!("a pair of map {map} is out of order or appears twice"));
                }
                self.last_map_key = Some(key.clone());
            }
            Op::Queue { index, name } => {
                if self.entry_at.is_some() || self.last_object.is_some() || !self.maps.is_empty() {
                    return Err(format!("queue definition '{name}' after entries or objects"));
                }
                if *index as usize != self.queues.len() {
                    return Err(format!(
                        "queue definition '{name}' has index {index}; {} expected",
                        self.queues.len()
                    ));
                }
                if self.queues.last().is_some_and(|last| last.as_str() >= name.as_str()) {
                    return Err(format!("queue '{name}' is out of order or defined twice"));
                }
                self.queues.push(name.clone());
            }
            Op::Entry { queue, position, .. } => {
                if self.last_object.is_some() || !self.maps.is_empty() {
                    return Err(format!("entry {position} of queue {queue} after objects"));
                }
                if *queue as usize >= self.queues.len() {
                    return Err(format!(
                        "entry {position} refers to queue {queue}, which is not defined"
                    ));
                }
                let expected = match self.entry_at {
                    Some((q, next)) if q == *queue => next,
                    Some((q, _)) if q > *queue => {
                        return Err(format!("entries of queue {queue} after those of queue {q}"))
                    }
                    _ => 0,
                };
                if *position != expected {
                    return Err(format!(
                        "entry at position {position} of queue {queue}; position {expected} expected"
                    ));
                }
                self.entry_at = Some((*queue, position + 1));
            }
            Op::Object { key, .. } => {
                if !self.maps.is_empty() {
                    return Err(format!("object {} after maps", Uuid::from_bytes(*key)));
                }
                if self.last_object.is_some_and(|last| last >= *key) {
                    return Err(format!(
                        "object {} is out of order or appears twice",
                        Uuid::from_bytes(*key)
                    ));
                }
                self.last_object = Some(*key);
            }
        }
        Ok(())
    }
}
