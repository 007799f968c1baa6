//! Reading a store's figures: its own counts (`Metrics`, `QueueMetrics`) with what RocksDB
//! reports about memory, disk and write stalls.

use std::path::Path;

use crate::error::{Result, RocksContext};
use crate::keys;
use crate::metrics::Summary;
use crate::queue::{QueueCounts, Queues};
use crate::shared::DbRef;

use super::{Store, StoreStats};

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
        let (depth, available, claimed) = queues
            .state(id)
            .filter(|q| q.is_published())
            .map(|q| (q.committed_len(), q.available(), q.claimed_len()))?;
        let counts = queues.counts_of(id).unwrap_or_default();
        Some(QueueFigures {
            name: name.to_string(),
            depth,
            available,
            claimed,
            counts,
        })
    }
}

impl Store {
    /// Every figure of the store and of each queue, as of now.
    pub fn metrics(&self) -> Result<StoreMetrics> {
        let mut figures = self.store_metrics()?;
        let mut q = self.shared.queues();
        let named: Vec<(String, keys::QueueId)> = q.names().map(|(n, id)| (n.to_string(), id)).collect();
        figures.queues = named
            .iter()
            .filter_map(|(name, id)| QueueFigures::of(name, &mut q, *id))
            .collect();
        drop(q);
        figures.queues.sort_by(|a, b| a.name.cmp(&b.name));
        Ok(figures)
    }

    /// `metrics` without the queues (`queues` is empty): what the store as a whole does.
    pub fn store_metrics(&self) -> Result<StoreMetrics> {
        let stats = self.stats()?;
        let db = self.shared.db()?;
        let m = self.shared.metrics().read();
        let (delays, stops) = write_stalls(&db)?;
        let cache = self.shared.map_cache().counts();
        let objects = self.shared.object_cache().counts();
        Ok(StoreMetrics {
            counting: m.counting,
            uptime_millis: m.uptime.as_millis() as u64,
            commits: m.commits,
            commits_per_second: m.commits_per_second,
            commit_latency_nanos: m.commit_latency_nanos,
            synced_write_nanos: m.synced_write_nanos,
            group_commit_size: m.group_commit_size,
            stats,
            live_sst_bytes: db
                .families()
                .into_iter()
                .map(|cf| cf_property(&db, cf, "rocksdb.live-sst-files-size"))
                .sum::<Result<u64>>()?,
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
            queue_cache_bytes: self.shared.queues().cached_entry_bytes() as u64,
            queues: Vec::new(),
        })
    }

    /// The figures of `queue`, or `None` when no such queue is listed.
    pub fn queue_metrics(&self, queue: &str) -> Result<Option<QueueFigures>> {
        keys::validate_queue_name(queue)?;
        self.shared.db()?;
        let mut q = self.shared.queues();
        let Some(id) = q.id(queue) else { return Ok(None) };
        Ok(QueueFigures::of(queue, &mut q, id))
    }

    /// Changes whenever a queue appears or is forgotten (while the store counts): a reader
    /// keeping something per queue lists them again only then.
    pub fn queue_set_version(&self) -> Result<u64> {
        self.shared.db()?;
        Ok(self.shared.queues().version())
    }
}

fn cf_property(db: &DbRef<'_>, cf: &rocksdb::ColumnFamily, name: &str) -> Result<u64> {
    Ok(db
        .db()
        .property_int_value_cf(cf, name)
        .context(|| format!("reading {name}"))?
        .unwrap_or(0))
}

fn db_property(db: &DbRef<'_>, name: &str) -> Result<u64> {
    Ok(db
        .db()
        .property_int_value(name)
        .context(|| format!("reading {name}"))?
        .unwrap_or(0))
}

/// Delays and stops RocksDB counted since open: each column family's `total-delays` and
/// `total-stops`, plus the database-wide stops (the write buffer manager's).
fn write_stalls(db: &DbRef<'_>) -> Result<(u64, u64)> {
    let (mut delays, mut stops) = (0, 0);
    for cf in db.families() {
        let text = db
            .db()
            .property_value_cf(cf, "rocksdb.cf-write-stall-stats")
            .context(|| "reading rocksdb.cf-write-stall-stats".into())?;
        for (key, n) in stall_counts(text.as_deref().unwrap_or("")) {
            match key {
                "total-delays" => delays += n,
                "total-stops" => stops += n,
                _ => {}
            }
        }
    }
    let text = db
        .db()
        .property_value("rocksdb.db-write-stall-stats")
        .context(|| "reading rocksdb.db-write-stall-stats".into())?;
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
        .map(|rd| {
            rd.flatten()
                .filter(|e| e.file_name().to_string_lossy().ends_with(".log"))
                .filter_map(|e| e.metadata().ok())
                .map(|m| m.len())
                .sum()
        })
        .unwrap_or(0)
}

#[cfg(test)]
mod tests {
    use super::stall_counts;
    use crate::{QueueFigures, Store, StoreOptions};

    fn open(dir: &std::path::Path, metrics: bool) -> Store {
        Store::open(
            dir,
            StoreOptions {
                sync_on_commit: false,
                metrics,
                ..StoreOptions::default()
            },
        )
        .unwrap()
    }

    fn queue(store: &Store, name: &str) -> QueueFigures {
        store
            .queue_metrics(name)
            .unwrap()
            .unwrap_or_else(|| panic!("no queue {name}"))
    }

    fn enqueue(store: &Store, name: &str, n: usize) {
        let mut tx = store.begin().unwrap();
        for i in 0..n {
            tx.enqueue(name, format!("{i}").as_bytes()).unwrap();
        }
        tx.commit().unwrap();
    }

    #[test]
    fn queue_counts_follow_a_known_sequence_of_enqueues_polls_rollbacks_and_commits() {
        let dir = tempfile::tempdir().unwrap();
        let store = open(dir.path(), true);
        enqueue(&store, "a", 10);
        let a = queue(&store, "a");
        assert_eq!(
            (a.depth, a.available, a.claimed, a.counts.enqueued, a.counts.polled),
            (10, 10, 0, 10, 0)
        );

        let mut rolled_back = store.begin().unwrap();
        assert_eq!(rolled_back.poll("a", 3).unwrap().len(), 3);
        let a = queue(&store, "a");
        assert_eq!(
            (a.depth, a.available, a.claimed, a.counts.polled, a.counts.returned),
            (10, 7, 3, 3, 0)
        );
        rolled_back.rollback().unwrap();
        let a = queue(&store, "a");
        assert_eq!(
            (a.available, a.claimed, a.counts.returned, a.counts.consumed),
            (10, 0, 3, 0)
        );

        let mut tx = store.begin().unwrap();
        assert_eq!(tx.poll("a", 4).unwrap().len(), 4);
        tx.enqueue("b", b"moved").unwrap();
        tx.commit().unwrap();
        let a = queue(&store, "a");
        assert_eq!(
            (
                a.depth,
                a.available,
                a.counts.polled,
                a.counts.consumed,
                a.counts.returned,
                a.counts.enqueued
            ),
            (6, 6, 7, 4, 3, 10)
        );
        let b = queue(&store, "b");
        assert_eq!((b.depth, b.counts.enqueued, b.counts.polled), (1, 1, 0));

        let m = store.metrics().unwrap();
        assert!(m.counting);
        assert_eq!(m.commits, 2, "a rollback is no commit");
        assert_eq!(m.commit_latency_nanos.count, 2);
        assert!(m.commit_latency_nanos.max > 0 && m.commit_latency_nanos.max >= m.commit_latency_nanos.p50);
        assert_eq!(m.group_commit_size.sum, 2, "every commit was written by some group");
        assert_eq!(m.synced_write_nanos.count, m.group_commit_size.count);
        assert!(m.commits_per_second > 0.0);
        assert_eq!(m.queues.iter().map(|q| q.name.as_str()).collect::<Vec<_>>(), ["a", "b"]);
        // The per-second rates move with the clock between the two reads (once the store is over a
        // second old); the counts do not.
        let counts = |q: &QueueFigures| {
            (
                q.depth,
                q.available,
                q.claimed,
                q.counts.enqueued,
                q.counts.polled,
                q.counts.consumed,
                q.counts.returned,
            )
        };
        assert_eq!(counts(&m.queues[0]), counts(&a));
        assert_eq!(m.stats.queued_items, 7);
    }

    #[test]
    fn a_commit_whose_write_fails_counts_its_polls_as_returned_not_consumed() {
        let dir = tempfile::tempdir().unwrap();
        let store = open(dir.path(), true);
        enqueue(&store, "q", 5);
        let mut tx = store.begin().unwrap();
        tx.poll("q", 2).unwrap();
        store.shared.group_commit().fail_next_write();
        assert!(tx.commit().is_err());
        let q = queue(&store, "q");
        assert_eq!(
            (
                q.depth,
                q.available,
                q.counts.polled,
                q.counts.consumed,
                q.counts.returned
            ),
            (5, 5, 2, 0, 2)
        );
        assert_eq!(store.metrics().unwrap().commits, 1);
    }

    #[test]
    fn with_metrics_off_nothing_is_counted_but_depths_are_read() {
        let dir = tempfile::tempdir().unwrap();
        let store = open(dir.path(), false);
        enqueue(&store, "q", 4);
        let mut tx = store.begin().unwrap();
        tx.poll("q", 1).unwrap();
        tx.commit().unwrap();
        let m = store.metrics().unwrap();
        assert!(!m.counting);
        assert_eq!(
            (m.commits, m.commit_latency_nanos.count, m.synced_write_nanos.count),
            (0, 0, 0)
        );
        let q = &m.queues[0];
        assert_eq!((q.depth, q.available), (3, 3));
        assert_eq!(q.counts, Default::default());
    }

    #[test]
    fn the_queue_set_version_changes_when_a_queue_appears_or_is_forgotten_only() {
        let dir = tempfile::tempdir().unwrap();
        let store = open(dir.path(), true);
        let v0 = store.queue_set_version().unwrap();
        enqueue(&store, "q", 1);
        let v1 = store.queue_set_version().unwrap();
        assert_ne!(v0, v1);
        enqueue(&store, "q", 1);
        assert_eq!(store.queue_set_version().unwrap(), v1);
        let mut tx = store.begin().unwrap();
        tx.drop_queue("q").unwrap();
        tx.commit().unwrap();
        assert_ne!(store.queue_set_version().unwrap(), v1);
        assert_eq!(store.queue_metrics("q").unwrap(), None);
    }

    #[test]
    fn entries_present_at_open_count_as_enqueued_at_open_and_their_age_is_a_lower_bound() {
        let dir = tempfile::tempdir().unwrap();
        let store = open(dir.path(), true);
        enqueue(&store, "q", 2);
        store.close().unwrap();
        let store = open(dir.path(), true);
        let q = queue(&store, "q");
        assert!(q.counts.oldest_age_is_lower_bound);
        assert_eq!(q.counts.enqueued, 0, "enqueued counts commits since open");
        assert!(q.counts.oldest_entry_age_millis.unwrap() <= store.metrics().unwrap().uptime_millis);
        enqueue(&store, "q", 1);
        let mut tx = store.begin().unwrap();
        tx.poll("q", 2).unwrap();
        tx.commit().unwrap();
        let q = queue(&store, "q");
        assert!(!q.counts.oldest_age_is_lower_bound && q.counts.oldest_entry_age_millis.is_some());
        let mut tx = store.begin().unwrap();
        tx.poll("q", 1).unwrap();
        tx.commit().unwrap();
        assert_eq!(queue(&store, "q").counts.oldest_entry_age_millis, None);
    }

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
