//! Reading committed map values: through the map cache (`read_cache.rs`) when it holds them,
//! else from RocksDB, keeping what may be kept. Transactions (`transaction/maps.rs`), the commit
//! resolving an `add` (`commit/maps.rs`) and `Store::map_get` read through here.

use crate::error::{Result, RocksContext};
use crate::maps::{self, MapId};
use crate::shared::{DbRef, Shared};

/// `key`'s value in the store (map `id`; `None` when the map does not exist).
pub(crate) fn stored_value(
    store: &Shared,
    db: &DbRef<'_>,
    id: Option<MapId>,
    map: &str,
    key: &[u8],
) -> Result<Option<Vec<u8>>> {
    with_stored_value(store, db, id, map, key, |v| v.map(<[u8]>::to_vec))
}

/// `read` of `key`'s value in the store (map `id`; `None` when the map does not exist or has no
/// such key): from the map cache when it holds it, else from RocksDB (then kept when it may be).
pub(crate) fn with_stored_value<R>(
    store: &Shared,
    db: &DbRef<'_>,
    id: Option<MapId>,
    map: &str,
    key: &[u8],
    read: impl FnOnce(Option<&[u8]>) -> R,
) -> Result<R> {
    let (Some(id), Some(cf)) = (id, db.maps_cf()) else {
        return Ok(read(None));
    };
    let full = maps::map_key(id, key);
    let cache = store.map_cache();
    let fill = match cache.lookup(&full) {
        Ok(hit) => return Ok(read(Some(hit.value()))),
        Err(fill) => fill,
    };
    let value = db.db().get_pinned_cf(cf, &full).context(reading_map(map))?;
    if let Some(fill) = fill {
        cache.fill(fill, &full, value.as_deref());
    }
    Ok(read(value.as_deref()))
}

/// The stored values of `keys` in map `id`: those in the map cache from it, the others read in
/// one batched lookup (and kept when they may be).
pub(crate) fn stored_values(
    store: &Shared,
    db: &rocksdb::DB,
    cf: &rocksdb::ColumnFamily,
    id: MapId,
    keys: &[Vec<u8>],
    map: &str,
) -> Result<Vec<Option<Vec<u8>>>> {
    let cache = store.map_cache();
    let full: Vec<Vec<u8>> = keys.iter().map(|k| maps::map_key(id, k)).collect();
    let mut out: Vec<Option<Vec<u8>>> = vec![None; keys.len()];
    let mut missed: Vec<(usize, Option<crate::read_cache::Fill>)> = Vec::new();
    for (i, k) in full.iter().enumerate() {
        match cache.lookup(k) {
            Ok(hit) => out[i] = Some(hit.value().to_vec()),
            Err(fill) => missed.push((i, fill)),
        }
    }
    let read = db.batched_multi_get_cf(cf, missed.iter().map(|(i, _)| &full[*i]), false);
    for ((i, fill), value) in missed.into_iter().zip(read) {
        let value = value.context(reading_map(map))?;
        if let Some(fill) = fill {
            cache.fill(fill, &full[i], value.as_deref());
        }
        out[i] = value.map(|v| v.to_vec());
    }
    Ok(out)
}

pub(crate) fn reading_map(map: &str) -> impl Fn() -> String + '_ {
    move || format!("reading map '{map}'")
}
