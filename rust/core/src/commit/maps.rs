//! What a commit does for maps, under the commit lock (`commit/mod.rs` calls it): refuses it when
//! a key it read was written after its snapshot (`key_writes.rs`), works out each write's final
//! value (an `add` against the value the key will have once the commits prepared before are
//! written), registers the maps it creates, and marks what it writes for the commits after it.

use super::buffered::{Buffered, MapWrite};
use super::lock::{CommitState, Serial};
use super::Conflict;
use crate::batch::BatchRep;
use crate::error::{Error, Result};
use crate::maps::{self, MapId};
use crate::shared::{DbRef, Shared};

/// A map write as the commit writes it: map, key, the value once written (`None`: deleted).
pub(super) struct MapOutcome {
    map: MapId,
    key: Vec<u8>,
    value: Option<Vec<u8>>,
}

/// The conflict, if a key `buf`'s transaction read from the store was written by a commit not
/// in the snapshot it read (`key_writes.rs`).
pub(super) fn check_reads(buf: &Buffered, store: &Shared, serial: &Serial<'_>) -> Option<Conflict> {
    if buf.map_reads.is_empty() {
        return None;
    }
    let names = store.map_registry(serial);
    for (map, key, written_below) in &buf.map_reads {
        let Some(id) = names.id(map) else { continue };
        if store
            .key_writes()
            .written_since(&maps::map_key(id, key), *written_below)
        {
            return Some(Conflict::MapKey {
                map: map.clone(),
                key: maps::show_key(key),
            });
        }
    }
    None
}

/// Every map write's final value, and the batch records for them (maps this commit creates
/// registered, their names recorded). Can refuse (an `add` over a value that is not a counter)
/// before anything is registered.
pub(super) fn write(
    buf: &Buffered,
    store: &Shared,
    db: &DbRef<'_>,
    serial: &Serial<'_>,
    tail: &mut BatchRep,
) -> Result<Vec<MapOutcome>> {
    if buf.map_writes.is_empty() {
        return Ok(Vec::new());
    }
    let cf = store.cf_ids();
    let maps_cf = cf
        .maps
        .ok_or_else(|| Error::Internal("a writable store without its maps family".into()))?;
    // First every value (this can refuse), then the names of new maps (this cannot).
    let mut values = Vec::with_capacity(buf.map_writes.len());
    {
        let names = store.map_registry(serial);
        for ((map, key), write) in &buf.map_writes {
            let id = names.id(map);
            let value = match write {
                MapWrite::Put(v) => Some(v.clone()),
                MapWrite::Delete => None,
                MapWrite::Add(delta) => {
                    let current = match id.and_then(|id| serial.maps.pending.get(&(id, key.clone()))) {
                        Some((pending, _)) => pending.clone(),
                        None => crate::map_reads::stored_value(store, db, id, map, key)?,
                    };
                    let base = current
                        .as_deref()
                        .map(|v| maps::decode_counter(v, map, key))
                        .transpose()?
                        .unwrap_or(0);
                    Some(base.wrapping_add(*delta).to_le_bytes().to_vec())
                }
            };
            values.push(value);
        }
    }
    let mut names = store.map_registry(serial);
    let mut out = Vec::with_capacity(values.len());
    for (((map, key), _), value) in buf.map_writes.iter().zip(values) {
        let (id, _) = names.id_or_register(map, tail, cf.meta, serial);
        let full = maps::map_key(id, key);
        match &value {
            Some(v) => {
                tail.put(maps_cf, &full, v);
            }
            None => tail.delete(maps_cf, &full),
        }
        out.push(MapOutcome {
            map: id,
            key: key.clone(),
            value,
        });
    }
    Ok(out)
}

/// The keys of the maps family `outcomes` write.
pub(super) fn keys_written(outcomes: &[MapOutcome]) -> impl Iterator<Item = Vec<u8>> + '_ {
    outcomes.iter().map(|o| maps::map_key(o.map, &o.key))
}

/// The keys of the maps family `outcomes` write, for the map cache (none when it is off).
pub(super) fn cached_keys_written(store: &Shared, outcomes: &[MapOutcome]) -> Vec<Vec<u8>> {
    if !store.map_cache().enabled() {
        return Vec::new();
    }
    keys_written(outcomes).collect()
}

/// Tells the commits prepared after this one (ticket `ticket`) the values it writes to maps,
/// for their `add`s.
pub(super) fn mark_writes(serial: &mut CommitState, outcomes: Vec<MapOutcome>, ticket: u64) {
    for o in outcomes {
        serial.maps.pending.insert((o.map, o.key), (o.value, ticket));
    }
}
