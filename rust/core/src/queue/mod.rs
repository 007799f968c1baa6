//! The queues of one open store in memory: each queue's state (`state.rs`, with its delivery
//! counts in `delivery_counts.rs` and its layout on disk in `layout.rs`), their names and
//! settings, the entries kept in memory (`entry_cache.rs`) and the per-queue counts
//! (`metrics.rs`).

mod delivery_counts;
mod layout;
mod metrics;
mod state;

use std::collections::{HashMap, VecDeque};

use crate::batch::BatchRep;
use crate::commit::lock::Serial;
use crate::entry_cache::EntryCache;
use crate::keys::{self, Entry, QueueId};
use crate::metrics::Clock;
use crate::queue_config::QueueConfig;
use crate::registry::Registry;

pub(crate) use layout::{ConsumedRecord, HeadLayout};
pub use metrics::QueueCounts;
pub(crate) use metrics::QueueMetrics;
pub(crate) use state::QueueState;

/// Which entries a claim takes.
#[derive(Clone, Copy, Debug)]
pub(crate) enum Take {
    /// Up to this many of those a consumer may receive now: the handed-back ones that are due,
    /// lowest first, then from the head.
    Due(usize),
    /// Every entry no transaction holds, those waiting out a delay included: what a drop or a
    /// move of the whole queue takes.
    Everything,
}

/// Every queue of one open store, behind the queues lock (`Shared::queues`).
#[derive(Debug)]
pub(crate) struct Queues {
    /// Queue names and ids (`registry.rs`).
    names: Registry,
    states: HashMap<QueueId, QueueState>,
    /// Settings of the queues that have any (by name: a queue may be configured before it
    /// exists).
    configs: HashMap<String, QueueConfig>,
    /// `StoreOptions::max_deliveries`.
    default_max_deliveries: u32,
    /// The number of the next delivery record (`deliveries.rs`), above every one on disk.
    next_delivery_record: u64,
    metrics: QueueMetrics,
    /// Committed entries not yet claimed, kept in memory (`entry_cache.rs`). Filled and taken
    /// only through `publish`, `claim` and `claim_exact` below, which keep it in step with the
    /// states.
    entry_cache: EntryCache,
}

impl Queues {
    /// The queues named in `names` (their states still to be recovered, `recover_state`), with
    /// the settings `configs` and the store's default delivery limit; committed entries are kept
    /// in memory up to `queue_cache_bytes`.
    pub fn new(
        names: Registry,
        configs: HashMap<String, QueueConfig>,
        default_max_deliveries: u32,
        queue_cache_bytes: usize,
    ) -> Queues {
        Queues {
            names,
            states: HashMap::new(),
            configs,
            default_max_deliveries,
            next_delivery_record: 0,
            metrics: QueueMetrics::default(),
            entry_cache: EntryCache::new(queue_cache_bytes),
        }
    }

    /// At open, once every queue's state is recovered: counting starts (or not) from here.
    pub fn start_metrics(&mut self, enabled: bool, clock: Clock) {
        self.metrics = QueueMetrics::at_open(enabled, clock, &self.states);
    }

    /// The id and name of every queue, in no order.
    pub fn names(&self) -> impl Iterator<Item = (&str, QueueId)> {
        self.names.iter()
    }

    pub fn id(&self, name: &str) -> Option<QueueId> {
        self.names.id(name)
    }

    /// The name of queue `id` (a scan: for the rare paths that start from an id).
    pub fn name_of(&self, id: QueueId) -> Option<&str> {
        self.names.name_of(id)
    }

    /// The names of the queues listed (published) that start with `prefix`, in no order.
    pub fn listed_names(&self, prefix: &str) -> Vec<String> {
        self.names
            .iter()
            .filter(|&(name, _)| name.starts_with(prefix))
            .filter(|&(_, id)| self.states.get(&id).is_some_and(QueueState::is_published))
            .map(|(name, _)| name.to_string())
            .collect()
    }

    /// How many queues are listed, and the committed entries of all queues.
    pub fn totals(&self) -> (u64, u64) {
        let listed = self.states.values().filter(|s| s.is_published()).count() as u64;
        (listed, self.states.values().map(QueueState::committed_len).sum())
    }

    pub fn get(&self, name: &str) -> Option<&QueueState> {
        self.names.id(name).and_then(|id| self.states.get(&id))
    }

    pub fn get_mut(&mut self, name: &str) -> Option<&mut QueueState> {
        let id = self.names.id(name)?;
        self.states.get_mut(&id)
    }

    pub fn state(&self, id: QueueId) -> Option<&QueueState> {
        self.states.get(&id)
    }

    pub fn state_mut(&mut self, id: QueueId) -> Option<&mut QueueState> {
        self.states.get_mut(&id)
    }

    pub fn states(&self) -> impl Iterator<Item = &QueueState> {
        self.states.values()
    }

    pub fn states_mut(&mut self) -> impl Iterator<Item = &mut QueueState> {
        self.states.values_mut()
    }

    pub fn config(&self, name: &str) -> QueueConfig {
        self.configs.get(name).cloned().unwrap_or_default()
    }

    /// Queue `name`, if it exists, takes the settings `config` (then kept, `keep_config`).
    pub fn configure(&mut self, name: &str, config: &QueueConfig) {
        let default_max = self.default_max_deliveries;
        if let Some(q) = self.get_mut(name) {
            q.configure(config, default_max);
        }
    }

    /// `config` is the settings of queue `name` from now on, also for the queue a later commit
    /// creates under that name (all defaults: it forgets its settings).
    pub fn keep_config(&mut self, name: &str, config: QueueConfig) {
        if config.is_default() {
            self.configs.remove(name);
        } else {
            self.configs.insert(name.to_string(), config);
        }
    }

    /// At open: the state of queue `name`, found on disk, with its settings.
    pub fn recover_state(&mut self, name: &str, mut state: QueueState) {
        state.configure(&self.config(name), self.default_max_deliveries);
        self.states.insert(state.id(), state);
    }

    /// At open: delivery record `record` is on disk (the next one is numbered above it).
    pub fn recover_delivery_record(&mut self, record: u64) {
        self.next_delivery_record = self.next_delivery_record.max(record + 1);
    }

    /// The number the next delivery record will have.
    #[cfg(test)]
    pub fn next_delivery_record(&self) -> u64 {
        self.next_delivery_record
    }

    /// The number of a new delivery record.
    pub fn new_delivery_record(&mut self) -> u64 {
        let record = self.next_delivery_record;
        self.next_delivery_record += 1;
        record
    }

    /// The id of queue `name`, which a commit creates when it has none: registered under a new
    /// id, its record written into `batch` (`meta` being `meta_cf`), listed once that commit is
    /// published.
    pub fn id_or_create(&mut self, name: &str, batch: &mut BatchRep, meta_cf: u32, serial: &Serial<'_>) -> QueueId {
        let (id, new) = self.names.id_or_register(name, batch, meta_cf, serial);
        if new {
            self.recover_state(name, QueueState::unpublished(id));
        }
        id
    }

    /// Forgets queue `name` (it holds nothing), deleting its records in `batch`; returns its id.
    pub fn forget(&mut self, name: &str, batch: &mut BatchRep, meta_cf: u32, serial: &Serial<'_>) -> Option<QueueId> {
        let id = self.names.forget(name, batch, meta_cf, serial)?;
        batch.delete(meta_cf, &keys::meta_head_key(id));
        self.states.remove(&id);
        self.entry_cache.forget(id);
        self.metrics.forget(id);
        Some(id)
    }

    /// A commit's `n` entries, reserved in queue `id` from sequence `first` on, are on disk:
    /// consumers may take them, from memory those of `entries` (the first of them, or none)
    /// the entry cache keeps.
    pub fn publish(&mut self, id: QueueId, first: u64, n: u64, entries: VecDeque<Entry>, bytes: u64) {
        if let Some(q) = self.states.get_mut(&id) {
            q.publish(n, bytes);
            self.entry_cache.publish(id, first, entries.into_iter());
        }
        self.count_published(id, n);
    }

    /// `QueueState::claim` (or `claim_all`) of queue `name`, with the claimed entries the entry
    /// cache keeps taken out of it (`None` for each it does not).
    pub fn claim(&mut self, name: &str, take: Take, seqs: &mut Vec<u64>) -> Option<(&QueueState, Vec<Option<Entry>>)> {
        let id = self.names.id(name)?;
        let q = self.states.get_mut(&id)?;
        match take {
            Take::Due(max) => q.claim(max, seqs),
            Take::Everything => q.claim_all(seqs),
        }
        let kept = self.entry_cache.take_all(id, seqs);
        Some((q, kept))
    }

    /// `QueueState::claim_exact` of entry `seq` of queue `id`; its kept copy, if any, is
    /// dropped (the caller reads the entry from RocksDB: these claims are rare).
    pub fn claim_exact(&mut self, id: QueueId, seq: u64) -> bool {
        let claimed = self.states.get_mut(&id).is_some_and(|q| q.claim_exact(seq));
        if claimed {
            self.entry_cache.take(id, seq);
        }
        claimed
    }

    /// The per-queue counts, to count what just happened.
    pub fn metrics_mut(&mut self) -> &mut QueueMetrics {
        &mut self.metrics
    }

    /// Changes whenever a queue appears or is forgotten (`QueueMetrics::version`).
    pub fn version(&self) -> u64 {
        self.metrics.version()
    }

    /// Bytes the entry cache charges for what it keeps now.
    pub fn cached_entry_bytes(&self) -> usize {
        self.entry_cache.bytes()
    }
}
