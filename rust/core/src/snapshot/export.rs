//! Exporting a store: the calling thread reads it under one RocksDB snapshot, in the order a
//! snapshot holds it (queues, their entries, objects, maps, their pairs), into the items that
//! `write.rs` cuts into frames and writes.

use std::path::Path;

use rocksdb::{DBRawIteratorWithThreadMode, ReadOptions, SnapshotWithThreadMode, DB};

use super::write::{encode_chunk, now_millis, stash, write_snapshot, Chunker, Item};
use super::{Content, ExportOptions, Header, Progress, Summary};
use crate::entry_records::PresentEntries;
use crate::error::{Result, RocksContext};
use crate::keys::{self, CF_OBJECTS, CF_REFS};
use crate::shared::DbRef;
use crate::store::Store;

pub(crate) fn export_store(
    store: &Store,
    file: &Path,
    options: &ExportOptions,
    listener: &mut dyn FnMut(&Progress) -> Result<()>,
) -> Result<Summary> {
    // Before taking the read lock below: taking it twice in one thread can deadlock against a
    // waiting `close`.
    let expected = {
        let stats = store.stats()?;
        stats.queued_items + stats.objects_estimate + stats.queues
    };
    let db = store.shared.db()?;
    let snapshot = db.db().snapshot();
    let mut source = StoreReader::new(&db, &snapshot)?;
    let header = Header {
        content: Content::Store as i32,
        compression: options.compression.code() as i32,
        created_by: format!("rockcask {}", env!("CARGO_PKG_VERSION")),
        created_unix_millis: options.created_unix_millis.unwrap_or_else(now_millis),
        source: store.path().display().to_string(),
        ..Default::default()
    };
    let mut chunker = Chunker::new(options)?;
    write_snapshot(
        file,
        options,
        header,
        expected,
        listener,
        || chunker.next_chunk(|arena| source.next_item(arena)),
        |chunk| encode_chunk(chunk, options.compression),
    )
}

type RawIter<'a> = DBRawIteratorWithThreadMode<'a, DB>;

/// Reads the store under one RocksDB snapshot, in snapshot order: queue definitions (by name),
/// each queue's entries (FIFO), objects (by id, with their reference counts), map definitions
/// (by name), each map's pairs (by key).
struct StoreReader<'a> {
    db: &'a DbRef<'a>,
    snapshot: &'a SnapshotWithThreadMode<'a, DB>,
    /// (name, stored id) of every queue, by name.
    queues: Vec<(String, u32)>,
    definitions_emitted: usize,
    /// (name, stored id) of every map, by name.
    maps: Vec<(String, u32)>,
    phase: Phase<'a>,
}

enum Phase<'a> {
    Queues,
    Entries {
        index: usize,
        position: u64,
        entries: PresentEntries<'a>,
    },
    Objects {
        it: RawIter<'a>,
        refs: RawIter<'a>,
    },
    Maps {
        emitted: usize,
    },
    MapEntries {
        index: usize,
        it: Option<RawIter<'a>>,
    },
    Done,
}

impl<'a> StoreReader<'a> {
    fn new(db: &'a DbRef<'a>, snapshot: &'a SnapshotWithThreadMode<'a, DB>) -> Result<Self> {
        let queues = crate::registry::named_ids(
            db.db(),
            read_options(snapshot),
            keys::meta_queue_prefix(),
            "queues for a snapshot",
            "id",
        )?;
        let maps = crate::registry::named_ids(
            db.db(),
            read_options(snapshot),
            crate::maps::meta_map_prefix(),
            "maps for a snapshot",
            "id",
        )?;
        Ok(StoreReader {
            db,
            snapshot,
            queues,
            definitions_emitted: 0,
            maps,
            phase: Phase::Queues,
        })
    }

    /// The pairs of the `index`th map (by name), or `None` in a store without maps.
    fn pairs_of(&self, index: usize) -> Option<RawIter<'a>> {
        let cf = self.db.maps_cf()?;
        let (start, end) = crate::maps::map_range(self.maps[index].1);
        let mut ro = read_options(self.snapshot);
        ro.set_iterate_lower_bound(start);
        if let Some(end) = end {
            ro.set_iterate_upper_bound(end);
        }
        let mut it = self.db.db().raw_iterator_cf_opt(cf, ro);
        it.seek_to_first();
        Some(it)
    }

    fn entries_of(&self, index: usize) -> Result<PresentEntries<'a>> {
        let (name, id) = &self.queues[index];
        let snapshot = self.snapshot;
        PresentEntries::new(self.db.db(), || Ok(read_options(snapshot)), *id, name)
    }

    pub fn next_item(&mut self, arena: &mut Vec<u8>) -> Result<Option<Item>> {
        loop {
            match &mut self.phase {
                Phase::Queues => {
                    // All definitions come first, so an importer knows every queue before any entry.
                    if let Some(item) = self.take_definition(arena) {
                        return Ok(Some(item));
                    }
                    self.phase = self.entries_phase(0)?;
                }
                Phase::Entries {
                    index,
                    position,
                    entries,
                } => {
                    if let Some((_, v)) = entries.next()? {
                        let item = Item::Entry {
                            queue: *index as u32,
                            position: *position,
                            value: stash(arena, v),
                        };
                        *position += 1;
                        return Ok(Some(item));
                    }
                    let next = *index + 1;
                    self.phase = self.entries_phase(next)?;
                }
                Phase::Objects { it, refs } => {
                    let (Some(k), Some(v)) = (it.key(), it.value()) else {
                        it.status().context(|| "reading objects for a snapshot".into())?;
                        refs.status()
                            .context(|| "reading reference counts for a snapshot".into())?;
                        self.phase = Phase::Maps { emitted: 0 };
                        continue;
                    };
                    // Reference counts are keyed by object id too: walk them alongside.
                    while refs.key().is_some_and(|r| r < k) {
                        refs.next();
                    }
                    let owned_entries = match (refs.key(), refs.value()) {
                        (Some(r), Some(count)) if r == k => keys::decode_u64(count, "reference count")?,
                        _ => 0,
                    };
                    let item = Item::Object {
                        id: stash(arena, k),
                        value: stash(arena, v),
                        owned_entries,
                    };
                    it.next();
                    return Ok(Some(item));
                }
                Phase::Maps { emitted } => {
                    if let Some((name, _)) = self.maps.get(*emitted) {
                        let item = Item::Map {
                            index: *emitted as u32,
                            name: stash(arena, name.as_bytes()),
                        };
                        *emitted += 1;
                        return Ok(Some(item));
                    }
                    self.phase = self.map_entries_phase(0);
                }
                Phase::MapEntries { index, it } => {
                    if let Some(it) = it {
                        if let (Some(k), Some(v)) = (it.key(), it.value()) {
                            // The key without its map id; the value as stored.
                            let item = Item::MapEntry {
                                map: *index as u32,
                                key: stash(arena, &k[4..]),
                                value: stash(arena, v),
                            };
                            it.next();
                            return Ok(Some(item));
                        }
                        it.status().context(|| "reading maps for a snapshot".into())?;
                    }
                    let next = *index + 1;
                    self.phase = self.map_entries_phase(next);
                }
                Phase::Done => return Ok(None),
            }
        }
    }

    fn map_entries_phase(&self, index: usize) -> Phase<'a> {
        if index < self.maps.len() {
            return Phase::MapEntries {
                index,
                it: self.pairs_of(index),
            };
        }
        Phase::Done
    }

    fn take_definition(&mut self, arena: &mut Vec<u8>) -> Option<Item> {
        let emitted = self.definitions_emitted;
        let (name, _) = self.queues.get(emitted)?;
        self.definitions_emitted += 1;
        Some(Item::Queue {
            index: emitted as u32,
            name: stash(arena, name.as_bytes()),
        })
    }

    fn entries_phase(&self, index: usize) -> Result<Phase<'a>> {
        if index < self.queues.len() {
            return Ok(Phase::Entries {
                index,
                position: 0,
                entries: self.entries_of(index)?,
            });
        }
        let mut it = self
            .db
            .db()
            .raw_iterator_cf_opt(self.db.cf(CF_OBJECTS), read_options(self.snapshot));
        it.seek_to_first();
        let mut refs = self
            .db
            .db()
            .raw_iterator_cf_opt(self.db.cf(CF_REFS), read_options(self.snapshot));
        refs.seek_to_first();
        Ok(Phase::Objects { it, refs })
    }
}

fn read_options(snapshot: &SnapshotWithThreadMode<'_, DB>) -> ReadOptions {
    let mut ro = ReadOptions::default();
    ro.set_snapshot(snapshot);
    // A whole-store scan would only push hot blocks out of the cache.
    ro.fill_cache(false);
    ro.set_readahead_size(2 << 20);
    ro
}
