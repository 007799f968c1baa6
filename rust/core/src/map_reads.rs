//! Reading committed map values: through the map cache (`read_cache.rs`) when it holds them,
//! else from RocksDB, keeping what may be kept; either as they are now, or as a transaction's
//! snapshot has them (`ReadView`). Transactions (`transaction/maps.rs`), the commit resolving an
//! `add` (`commit/maps.rs`) and `Store::map_get` read through here.

use std::sync::Arc;

use crate::error::{Result, RocksContext};
use crate::maps::{self, MapId};
use crate::shared::{DbRef, Shared, TakenSnapshot};

/// One consistent view of the store: a RocksDB snapshot taken when every commit below `W` was
/// written (W is read first, so each of those is in it), registered with the conflict table
/// (`commit/key_writes.rs`) until the last view sharing it is dropped. A commit from W on is not
/// in it, except one written in the instant between reading W and taking the snapshot, which
/// then counts as after it.
///
/// Transactions that begin reading while nothing has been written since share one snapshot
/// (`Shared::latest_snapshot`).
pub(crate) struct ReadView {
    taken: Arc<TakenSnapshot>,
}

impl ReadView {
    pub fn take(store: &Arc<Shared>, db: &DbRef<'_>) -> ReadView {
        ReadView {
            taken: store.latest_snapshot(db),
        }
    }

    /// W: every commit below this ticket is in the view.
    pub fn written_below(&self) -> u64 {
        self.taken.written_below
    }

    /// Read options reading the view, for reads made while `db` is held, to be set further
    /// (bounds of a scan). `store` is the view's.
    pub fn read_options(&self, store: &Shared, db: &DbRef<'_>) -> Result<rocksdb::ReadOptions> {
        let mut ro = rocksdb::ReadOptions::default();
        store.read_at(db, self.taken.snapshot, &mut ro)?;
        Ok(ro)
    }

    /// Read options reading the view, as they are, for point reads made while `db` is held.
    pub fn point_reads<'a>(&'a self, db: &'a DbRef<'_>) -> &'a rocksdb::ReadOptions {
        self.taken.reads(db)
    }

    /// Whether the latest value of `full` (a key of the maps family) is the view's: no commit
    /// from W on writes it. The map cache holds latest values, so a hit may be used, and a
    /// value read may be kept, only when this holds, asked after the cache was looked up.
    fn sees_latest(&self, store: &Shared, full: &[u8]) -> bool {
        !store.key_writes().written_since(full, self.taken.written_below)
    }
}

/// `key`'s value in the store (map `id`; `None` when the map does not exist).
pub(crate) fn stored_value(
    store: &Shared,
    db: &DbRef<'_>,
    id: Option<MapId>,
    map: &str,
    key: &[u8],
) -> Result<Option<Vec<u8>>> {
    with_stored_value(store, db, None, id, map, key, |v| v.map(<[u8]>::to_vec))
}

/// `stored_value` as `view` has it.
pub(crate) fn viewed_value(
    store: &Shared,
    db: &DbRef<'_>,
    view: &ReadView,
    id: Option<MapId>,
    map: &str,
    key: &[u8],
) -> Result<Option<Vec<u8>>> {
    with_stored_value(store, db, Some(view), id, map, key, |v| v.map(<[u8]>::to_vec))
}

/// `read` of `key`'s value in the store (map `id`; `None` when the map does not exist or has no
/// such key), now or in `view`: from the map cache when it holds it (and it is the view's),
/// else from RocksDB (then kept when it may be).
pub(crate) fn with_stored_value<R>(
    store: &Shared,
    db: &DbRef<'_>,
    view: Option<&ReadView>,
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
    let latest = |full: &[u8]| view.is_none_or(|v| v.sees_latest(store, full));
    let fill = match cache.lookup(&full) {
        Ok(hit) if latest(&full) => return Ok(read(Some(hit.value()))),
        Ok(_) => None,
        Err(fill) => fill.filter(|_| latest(&full)),
    };
    let value = match view {
        None => db.db().get_pinned_cf(cf, &full),
        Some(v) => db.db().get_pinned_cf_opt(cf, &full, v.point_reads(db)),
    }
    .context(reading_map(map))?;
    if let Some(fill) = fill {
        cache.fill(fill, &full, value.as_deref());
    }
    Ok(read(value.as_deref()))
}

/// The stored values of `keys` in map `id` as `view` has them: those in the map cache from it
/// (when it is the view's value), the others read in one batched lookup (and kept when they
/// may be).
pub(crate) fn stored_values(
    store: &Shared,
    db: &DbRef<'_>,
    view: &ReadView,
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
            Ok(hit) if view.sees_latest(store, k) => out[i] = Some(hit.value().to_vec()),
            Ok(_) => missed.push((i, None)),
            Err(fill) => missed.push((i, fill.filter(|_| view.sees_latest(store, k)))),
        }
    }
    let read = db
        .db()
        .batched_multi_get_cf_opt(cf, missed.iter().map(|(i, _)| &full[*i]), false, view.point_reads(db));
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

#[cfg(test)]
mod tests {
    use crate::{Store, StoreOptions};

    /// A transaction holds a snapshot from its first map read until it ends; transactions that
    /// begin reading while nothing has been written since share one; the store keeps the last
    /// one for the next reader; and a store closed under an open transaction releases it first
    /// (the transaction's end then has nothing left to release).
    #[test]
    fn readers_share_a_snapshot_until_a_write_and_it_lives_until_the_last_ends_or_the_close() {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::open(dir.path(), StoreOptions::default()).unwrap();
        let held = || store.shared.snapshots_held();
        let mut tx = store.begin().unwrap();
        tx.map_put("m", b"k", b"v").unwrap();
        assert_eq!(held(), 0, "a write takes none");
        tx.map_get("m", b"k").unwrap();
        tx.map_get("m", b"other").unwrap();
        assert_eq!(held(), 1, "one per transaction");
        tx.commit().unwrap();
        assert_eq!(held(), 1, "kept for the next reader");
        let mut reader = store.begin().unwrap();
        reader.map_get("m", b"k").unwrap();
        assert_eq!(held(), 1, "a new one (the commit wrote since), the stale one released");
        let mut sharer = store.begin().unwrap();
        sharer.map_get("m", b"k").unwrap();
        assert_eq!(held(), 1, "nothing written since: shared");
        let w = store.shared.key_writes().oldest_live();
        let mut writer = store.begin().unwrap();
        writer.map_put("m", b"k", b"new").unwrap();
        writer.commit().unwrap();
        let mut later = store.begin().unwrap();
        assert_eq!(later.map_get("m", b"k").unwrap().as_deref(), Some(&b"new"[..]));
        assert_eq!(reader.map_get("m", b"k").unwrap().as_deref(), Some(&b"v"[..]));
        assert_eq!(held(), 2, "one after the write");
        drop(later);
        drop(sharer);
        assert_eq!(held(), 2, "the reader's and the kept one");
        assert_eq!(store.shared.key_writes().oldest_live(), w, "the reader's W");
        store.close().unwrap();
        assert_eq!(held(), 0, "released by the close");
        assert!(reader.map_get("m", b"k").is_err());
        drop(reader);
        assert_eq!(store.shared.key_writes().oldest_live(), None);
    }

    /// The snapshot kept for the next reader does not hold back the conflict table's pruning:
    /// writes alone, with no reader coming, release it.
    #[test]
    fn the_kept_snapshot_is_released_when_the_conflict_table_is_pruned() {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::open(
            dir.path(),
            StoreOptions {
                sync_on_commit: false,
                ..StoreOptions::default()
            },
        )
        .unwrap();
        let mut reader = store.begin().unwrap();
        reader.map_get("m", b"k").unwrap();
        reader.commit().unwrap();
        assert_eq!(store.shared.snapshots_held(), 1);
        assert!(store.shared.key_writes().oldest_live().is_some());
        for i in 0..10_000u32 {
            let mut tx = store.begin().unwrap();
            tx.map_put("m", &i.to_be_bytes(), b"v").unwrap();
            tx.commit().unwrap();
        }
        assert_eq!(store.shared.snapshots_held(), 0);
        assert_eq!(store.shared.key_writes().oldest_live(), None);
        assert!(store.shared.key_writes().len() < 10_000, "pruned");
    }
}
