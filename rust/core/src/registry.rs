//! The registry of names and ids, one per kind of named thing a store holds (its queues and its
//! maps). A name gets the next id from the commit that first writes to it, which records it in
//! the `meta` column family under the registry's prefix: `prefix + name -> id` (u32 LE; `q/` for
//! queues, `m/` for maps, `keys.rs`). A queue dropped and created again gets a new id. An open
//! finds the names again by reading those records (`Registry::recover`).
//!
//! Registering and forgetting change what every later commit writes, so they take the commit
//! lock's proof (`Serial`): only a commit being prepared can do either.

use std::collections::HashMap;

use rocksdb::{ReadOptions, DB};

use crate::batch::BatchRep;
use crate::commit::lock::Serial;
use crate::error::{Error, Result, RocksContext};
use crate::keys::{self, CF_META};

/// Names and their ids, and the id the next new name gets.
#[derive(Debug)]
pub(crate) struct Registry {
    by_name: HashMap<String, u32>,
    next_id: u32,
    /// The prefix of its records in `meta`.
    prefix: &'static [u8],
}

impl Registry {
    /// An empty registry whose records start with `prefix`.
    pub fn new(prefix: &'static [u8]) -> Registry {
        Registry {
            by_name: HashMap::new(),
            next_id: 0,
            prefix,
        }
    }

    /// The registry recorded in `db` under `prefix`; `what` names the records in errors
    /// ("queues"), `id_what` their ids ("queue id").
    pub fn recover(db: &DB, prefix: &'static [u8], what: &str, id_what: &str) -> Result<Registry> {
        let mut registry = Registry::new(prefix);
        for (name, id) in named_ids(db, ReadOptions::default(), prefix, what, id_what)? {
            registry.next_id = registry.next_id.max(id + 1);
            registry.by_name.insert(name, id);
        }
        Ok(registry)
    }

    pub fn id(&self, name: &str) -> Option<u32> {
        self.by_name.get(name).copied()
    }

    pub fn len(&self) -> usize {
        self.by_name.len()
    }

    /// Every name with its id, in no order.
    pub fn iter(&self) -> impl Iterator<Item = (&str, u32)> {
        self.by_name.iter().map(|(name, &id)| (name.as_str(), id))
    }

    /// The name of `id` (a scan: for the rare paths that start from an id).
    pub fn name_of(&self, id: u32) -> Option<&str> {
        self.iter().find(|&(_, i)| i == id).map(|(name, _)| name)
    }

    /// The id of `name`; a name without one is registered under the next id, its record written
    /// into `batch` (whose `meta` column family is `meta_cf`). Returns the id and whether it is
    /// new.
    pub fn id_or_register(&mut self, name: &str, batch: &mut BatchRep, meta_cf: u32, _: &Serial<'_>) -> (u32, bool) {
        if let Some(&id) = self.by_name.get(name) {
            return (id, false);
        }
        let id = self.next_id;
        self.next_id += 1;
        self.by_name.insert(name.to_string(), id);
        batch.put(meta_cf, &self.record_key(name), &id.to_le_bytes());
        (id, true)
    }

    /// Forgets `name`, deleting its record in `batch`; returns the id it had.
    pub fn forget(&mut self, name: &str, batch: &mut BatchRep, meta_cf: u32, _: &Serial<'_>) -> Option<u32> {
        let id = self.by_name.remove(name)?;
        batch.delete(meta_cf, &self.record_key(name));
        Some(id)
    }

    fn record_key(&self, name: &str) -> Vec<u8> {
        [self.prefix, name.as_bytes()].concat()
    }
}

/// Calls `each(name, value)` for every `meta` record `prefix` + UTF-8 name (queue names and ids,
/// queue settings, map names and ids), in name order, read with `ro`; `what` names them in errors.
pub(crate) fn for_each_named(
    db: &DB,
    ro: ReadOptions,
    prefix: &[u8],
    what: &str,
    mut each: impl FnMut(String, &[u8]) -> Result<()>,
) -> Result<()> {
    let mut it = db.raw_iterator_cf_opt(db.cf_handle(CF_META).expect("opened with all column families"), ro);
    it.seek(prefix);
    while let (Some(k), Some(v)) = (it.key(), it.value()) {
        let Some(name) = k.strip_prefix(prefix) else { break };
        let name =
            String::from_utf8(name.to_vec()).map_err(|_| Error::Corrupt(format!("{what}: a name is not UTF-8")))?;
        each(name, v)?;
        it.next();
    }
    it.status().context(|| format!("listing {what}"))
}

/// The names under `prefix` with the ids their records hold (queues', maps'), in name order;
/// `what` names the records in errors, `id_what` their ids.
pub(crate) fn named_ids(
    db: &DB,
    ro: ReadOptions,
    prefix: &[u8],
    what: &str,
    id_what: &str,
) -> Result<Vec<(String, u32)>> {
    let mut out = Vec::new();
    for_each_named(db, ro, prefix, what, |name, v| {
        out.push((name, keys::decode_u32(v, id_what)?));
        Ok(())
    })?;
    Ok(out)
}
