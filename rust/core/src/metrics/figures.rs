//! Reading a store's figures: its own counts (`Metrics`, `QueueMetrics`) with what RocksDB
//! reports about memory, disk and write stalls.

use std::path::Path;

use crate::error::{Result, RocksContext};
use crate::keys;
use crate::queue::Queues;
use crate::shared::DbRef;
use crate::store::{Store, StoreStats};

use super::queues::QueueCounts;
use super::Summary;

/// A store's figures at one moment (`Store::metrics`). Counts and rates are since the store was
/// opened (by this process); with `StoreOptions::metrics` off they are all 0.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct StoreMetrics {
    /// Whether this store counts (`StoreOptions::metrics`).
    pub counting: bool,
    pub uptime_millis: u64,
    /// Commits written and published.
    pub commits: u64,
    /// Commits per second over the last minute.
    pub commits_per_second: f64,
    /// Nanoseconds from `commit()` called to written and published, per commit.
    pub commit_latency_nanos: Summary,
    /// Nanoseconds of the RocksDB write of one group of commits (WAL append, and its fsync when
    /// the store syncs on commit), per group write.
    pub synced_write_nanos: Summary,
    /// Commits written together by one group write, per group write.
    pub group_commit_size: Summary,
    /// Queues, queued items, objects, directory bytes, memory held by RocksDB and payload bytes.
    pub stats: StoreStats,
    /// Bytes of the table files of the current version of every column family.
    pub live_sst_bytes: u64,
    /// Bytes of the write-ahead log files in the store directory.
    pub wal_bytes: u64,
    /// The rate (bytes per second) RocksDB currently slows writes to; 0 when it does not.
    pub delayed_write_rate: u64,
    /// Whether RocksDB has stopped writes until compaction or flushes catch up.
    pub write_stopped: bool,
    /// Writes RocksDB delayed, and stopped, since the store opened (all column families, and
    /// stops for the whole database).
    pub write_stall_delays: u64,
    pub write_stall_stops: u64,
    /// Bytes the map cache charges for the values it keeps now, and its hits and misses since
    /// the store opened (`read_cache.rs`).
    pub map_cache_bytes: u64,
    pub map_cache_hits: u64,
    pub map_cache_misses: u64,
    /// The same for the object cache (objects created by `put`, read by `get`).
    pub object_cache_bytes: u64,
    pub object_cache_hits: u64,
    pub object_cache_misses: u64,
    /// Bytes the queue entry cache charges for the committed entries it keeps now
    /// (`entry_cache.rs`).
    pub queue_cache_bytes: u64,
    /// Every queue listed by `queue_names`, sorted by name.
    pub queues: Vec<QueueFigures>,
}

/// One queue's figures.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct QueueFigures {
    pub name: String,
    /// Committed entries present (available and claimed), as `queue_size` counts them.
    pub depth: u64,
    /// Entries a consumer could claim now (not those claimed, nor those a delayed retry keeps
    /// back until their time).
    pub available: u64,
    /// Entries claimed by open transactions.
    pub claimed: u64,
    pub counts: QueueCounts,
}

impl QueueFigures {
    fn of(name: &str, queues: &mut Queues, id: keys::QueueId) -> Option<QueueFigures> {
        let (depth, available, claimed) = queues.states.get(&id).filter(|q| q.published).map(|q| (q.committed_len(), q.available(), q.claimed_len()))?;
        let counts = queues.counts_of(id).unwrap_or_default();
        Some(QueueFigures { name: name.to_string(), depth, available, claimed, counts })
    }
}

impl Store {
    /// Every figure of the store and of each queue, as of now.
    pub fn metrics(&self) -> Result<StoreMetrics> {
        let mut figures = self.store_metrics()?;
        let mut q = self.shared.queues();
        let named: Vec<(String, keys::QueueId)> = q.by_name.iter().map(|(n, &id)| (n.clone(), id)).collect();
        figures.queues = named.iter().filter_map(|(name, id)| QueueFigures::of(name, &mut q, *id)).collect();
        drop(q);
        figures.queues.sort_by(|a, b| a.name.cmp(&b.name));
        Ok(figures)
    }

    /// `metrics` without the queues (`queues` is empty): what the store as a whole does.
    pub fn store_metrics(&self) -> Result<StoreMetrics> {
        let stats = self.stats()?;
        let db = self.shared.db()?;
        let m = self.shared.metrics();
        let now = m.clock.now();
        let (delays, stops) = write_stalls(&db)?;
        let cache = self.shared.map_cache().counts();
        let objects = self.shared.object_cache().counts();
        Ok(StoreMetrics {
            counting: m.enabled,
            uptime_millis: now.as_millis() as u64,
            commits: m.commits.total(),
            commits_per_second: m.commits.per_second(now),
            commit_latency_nanos: m.commit_latency.summary(),
            synced_write_nanos: m.synced_write.summary(),
            group_commit_size: m.group_size.summary(),
            stats,
            live_sst_bytes: db.families().into_iter().map(|cf| cf_property(&db, cf, "rocksdb.live-sst-files-size")).sum::<Result<u64>>()?,
            wal_bytes: wal_bytes(self.shared.path()),
            delayed_write_rate: db_property(&db, "rocksdb.actual-delayed-write-rate")?,
            write_stopped: db_property(&db, "rocksdb.is-write-stopped")? != 0,
            write_stall_delays: delays,
            write_stall_stops: stops,
            map_cache_bytes: cache.bytes as u64,
            map_cache_hits: cache.hits,
            map_cache_misses: cache.misses,
            object_cache_bytes: objects.bytes as u64,
            object_cache_hits: objects.hits,
            object_cache_misses: objects.misses,
            queue_cache_bytes: self.shared.queues().entry_cache.bytes() as u64,
            queues: Vec::new(),
        })
    }

    /// The figures of `queue`, or `None` when no such queue is listed.
    pub fn queue_metrics(&self, queue: &str) -> Result<Option<QueueFigures>> {
        keys::validate_queue_name(queue)?;
        self.shared.db()?;
        let mut q = self.shared.queues();
        let Some(&id) = q.by_name.get(queue) else { return Ok(None) };
        Ok(QueueFigures::of(queue, &mut q, id))
    }

    /// Changes whenever a queue appears or is forgotten (while the store counts): a reader
    /// keeping something per queue lists them again only then.
    pub fn queue_set_version(&self) -> Result<u64> {
        self.shared.db()?;
        Ok(self.shared.queues().metrics.version())
    }
}

fn cf_property(db: &DbRef<'_>, cf: &rocksdb::ColumnFamily, name: &str) -> Result<u64> {
    Ok(db.db().property_int_value_cf(cf, name).context(|| format!("reading {name}"))?.unwrap_or(0))
}

fn db_property(db: &DbRef<'_>, name: &str) -> Result<u64> {
    Ok(db.db().property_int_value(name).context(|| format!("reading {name}"))?.unwrap_or(0))
}

/// Delays and stops RocksDB counted since open: each column family's `total-delays` and
/// `total-stops`, plus the database-wide stops (the write buffer manager's).
fn write_stalls(db: &DbRef<'_>) -> Result<(u64, u64)> {
    let (mut delays, mut stops) = (0, 0);
    for cf in db.families() {
        let text = db.db().property_value_cf(cf, "rocksdb.cf-write-stall-stats").context(|| "reading rocksdb.cf-write-stall-stats".into())?;
        for (key, n) in stall_counts(text.as_deref().unwrap_or("")) {
            match key {
                "total-delays" => delays += n,
                "total-stops" => stops += n,
                _ => {}
            }
        }
    }
    let text = db.db().property_value("rocksdb.db-write-stall-stats").context(|| "reading rocksdb.db-write-stall-stats".into())?;
    for (key, n) in stall_counts(text.as_deref().unwrap_or("")) {
        if key.ends_with("-stops") {
            stops += n;
        } else if key.ends_with("-delays") {
            delays += n;
        }
    }
    Ok((delays, stops))
}

/// The `key: count` pairs of a write-stall property in its string form
/// (`Write Stall (count): a-delays: 0, b-stops: 2\n`, as `InternalStats` writes it).
fn stall_counts(text: &str) -> impl Iterator<Item = (&str, u64)> {
    let body = text.trim().strip_prefix("Write Stall (count):").unwrap_or("");
    body.split(',').filter_map(|pair| {
        let (key, value) = pair.split_once(':')?;
        Some((key.trim(), value.trim().parse().ok()?))
    })
}

fn wal_bytes(path: &Path) -> u64 {
    std::fs::read_dir(path)
        .map(|rd| rd.flatten().filter(|e| e.file_name().to_string_lossy().ends_with(".log")).filter_map(|e| e.metadata().ok()).map(|m| m.len()).sum())
        .unwrap_or(0)
}

#[cfg(test)]
mod tests {
    use super::stall_counts;

    #[test]
    fn stall_counts_are_read_from_rocksdbs_string_form() {
        let text = "Write Stall (count): cf-l0-file-count-limit-delays-with-ongoing-compaction: 0, l0-file-count-limit-delays: 3, total-delays: 3, total-stops: 7\n";
        let pairs: Vec<(&str, u64)> = stall_counts(text).collect();
        assert_eq!(pairs.len(), 4);
        assert_eq!(pairs[2], ("total-delays", 3));
        assert_eq!(pairs[3], ("total-stops", 7));
        assert_eq!(stall_counts("").count(), 0);
    }
}
