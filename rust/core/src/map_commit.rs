//! What a commit does for maps, under the commit lock (`commit.rs` calls it): refuses it when a
//! key it read was written since (`maps.rs` explains the stripes), works out each write's final
//! value (an `add` against the value the key will have once the commits prepared before are
//! written), registers the maps it creates, and marks what it writes for the commits after it.

use crate::batch::BatchRep;
use crate::buffered::{Buffered, MapWrite};
use crate::error::{Error, Result};
use crate::group_commit::CommitState;
use crate::maps::{self, MapId};
use crate::shared::{DbRef, Shared};

/// A map write as the commit writes it: map, key, the value once written (`None`: deleted).
pub(crate) struct MapOutcome {
    map: MapId,
    key: Vec<u8>,
    value: Option<Vec<u8>>,
}

impl Buffered {
    /// `Error::Conflict` if a key this transaction read from the store was written by a commit
    /// prepared since (written after the read, or not written yet).
    pub fn check_map_reads(&self, store: &Shared, serial: &CommitState) -> Result<()> {
        if self.map_reads.is_empty() {
            return Ok(());
        }
        let names = store.map_names();
        for (map, key, written_below) in &self.map_reads {
            let Some(&id) = names.by_name.get(map) else { continue };
            // Stripes hold ticket + 1, so 0 means no write since the store opened.
            if serial.maps.last_write(serial.maps.stripe_of(id, key)) > *written_below {
                return Err(Error::Conflict { map: map.clone(), key: maps::show_key(key) });
            }
        }
        Ok(())
    }

    /// Every map write's final value, and the batch records for them (maps this commit creates
    /// registered, their names recorded). Can refuse (an `add` over a value that is not a
    /// counter) before anything is registered.
    pub fn write_maps(&self, store: &Shared, db: &DbRef<'_>, serial: &CommitState, tail: &mut BatchRep) -> Result<Vec<MapOutcome>> {
        if self.map_writes.is_empty() {
            return Ok(Vec::new());
        }
        let cf = store.cf_ids();
        let maps_cf = cf.maps.ok_or_else(|| Error::Internal("a writable store without its maps family".into()))?;
        // First every value (this can refuse), then the names of new maps (this cannot).
        let mut values = Vec::with_capacity(self.map_writes.len());
        {
            let names = store.map_names();
            for ((map, key), write) in &self.map_writes {
                let id = names.by_name.get(map).copied();
                let value = match write {
                    MapWrite::Put(v) => Some(v.clone()),
                    MapWrite::Delete => None,
                    MapWrite::Add(delta) => {
                        let current = match id.and_then(|id| serial.maps.pending.get(&(id, key.clone()))) {
                            Some((pending, _)) => pending.clone(),
                            None => crate::map_ops::stored_value(store, db, id, map, key)?,
                        };
                        let base = current.as_deref().map(|v| maps::decode_counter(v, map, key)).transpose()?.unwrap_or(0);
                        Some(base.wrapping_add(*delta).to_le_bytes().to_vec())
                    }
                };
                values.push(value);
            }
        }
        let mut names = store.map_names();
        let mut out = Vec::with_capacity(values.len());
        for (((map, key), _), value) in self.map_writes.iter().zip(values) {
            let id = match names.by_name.get(map) {
                Some(&id) => id,
                None => {
                    let id = names.next_id;
                    names.next_id += 1;
                    names.by_name.insert(map.clone(), id);
                    tail.put(cf.meta, &maps::meta_map_key(map), &id.to_le_bytes());
                    id
                }
            };
            let full = maps::map_key(id, key);
            match &value {
                Some(v) => {
                    tail.put(maps_cf, &full, v);
                }
                None => tail.delete(maps_cf, &full),
            }
            out.push(MapOutcome { map: id, key: key.clone(), value });
        }
        Ok(out)
    }
}

/// The keys of the maps family `outcomes` write, for the map cache (none when it is off).
pub(crate) fn cached_keys_written(store: &Shared, outcomes: &[MapOutcome]) -> Vec<Vec<u8>> {
    if !store.map_cache().enabled() {
        return Vec::new();
    }
    outcomes.iter().map(|o| maps::map_key(o.map, &o.key)).collect()
}

/// Tells the commits prepared after this one (ticket `ticket`) what it writes to maps.
pub(crate) fn mark_map_writes(serial: &mut CommitState, outcomes: Vec<MapOutcome>, ticket: u64) {
    for o in outcomes {
        let stripe = serial.maps.stripe_of(o.map, &o.key);
        serial.maps.note_write(stripe, ticket + 1);
        serial.maps.pending.insert((o.map, o.key), (o.value, ticket));
    }
}
