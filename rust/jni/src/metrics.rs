//! `org.rockcask.MetricsNative`: a store's figures, as records of the slots in
//! `contract/metrics.rs` (`snapshot` packs them all as `wire::pack_metrics` says).

use jni::Env;
use rockcask_core::{QueueFigures, StoreMetrics, Summary};

use crate::args::{QueueName, RecordOut};
use crate::contract::{self, MetricsSlot, QueueSlot, Slots, SummaryBlock, SummarySlot};
use crate::error::BridgeResult;
use crate::handle::StoreHandle;
use crate::native_table::native_class;
use crate::wire;

native_class! {
    pub const NATIVES = "org/rockcask/MetricsNative", constants [MetricsSlot::JAVA, SummaryBlock::JAVA, SummarySlot::JAVA, QueueSlot::JAVA] {
        fn snapshot(store: &StoreHandle) -> Vec<u8> = snapshot;
        fn store(store: &StoreHandle) -> RecordOut = store_only;
        fn queue(store: &StoreHandle, name: QueueName) -> RecordOut = queue_figures;
        fn queueSetVersion(store: &StoreHandle) -> i64 = queue_set_version;
    }
}

fn rate(per_second: f64) -> i64 {
    per_second.to_bits() as i64
}

fn store_record(m: &StoreMetrics) -> Vec<i64> {
    let s = &m.stats;
    let mut out = contract::record_out(|slot| match slot {
        MetricsSlot::Counting => i64::from(m.counting),
        MetricsSlot::UptimeMillis => m.uptime_millis as i64,
        MetricsSlot::Commits => m.commits as i64,
        MetricsSlot::CommitsPerSecond => rate(m.commits_per_second),
        MetricsSlot::Queues => s.queues as i64,
        MetricsSlot::QueuedItems => s.queued_items as i64,
        MetricsSlot::ObjectsEstimate => s.objects_estimate as i64,
        MetricsSlot::DiskBytes => s.disk_bytes as i64,
        MetricsSlot::LiveSstBytes => m.live_sst_bytes as i64,
        MetricsSlot::WalBytes => m.wal_bytes as i64,
        MetricsSlot::MemtableBytes => s.memtable_bytes as i64,
        MetricsSlot::BlockCacheBytes => s.block_cache_bytes as i64,
        MetricsSlot::TableReaderBytes => s.table_reader_bytes as i64,
        MetricsSlot::PayloadBytes => s.payload_bytes as i64,
        MetricsSlot::StoredPayloadBytes => s.stored_payload_bytes as i64,
        MetricsSlot::DelayedWriteRate => m.delayed_write_rate as i64,
        MetricsSlot::WriteStopped => i64::from(m.write_stopped),
        MetricsSlot::WriteStallDelays => m.write_stall_delays as i64,
        MetricsSlot::WriteStallStops => m.write_stall_stops as i64,
        MetricsSlot::MapCacheBytes => m.map_cache_bytes as i64,
        MetricsSlot::MapCacheHits => m.map_cache_hits as i64,
        MetricsSlot::MapCacheMisses => m.map_cache_misses as i64,
        MetricsSlot::ObjectCacheBytes => m.object_cache_bytes as i64,
        MetricsSlot::ObjectCacheHits => m.object_cache_hits as i64,
        MetricsSlot::ObjectCacheMisses => m.object_cache_misses as i64,
        MetricsSlot::QueueCacheBytes => m.queue_cache_bytes as i64,
    });
    for &block in SummaryBlock::ALL {
        let summary = match block {
            SummaryBlock::CommitLatency => &m.commit_latency_nanos,
            SummaryBlock::SyncedWrite => &m.synced_write_nanos,
            SummaryBlock::GroupCommitSize => &m.group_commit_size,
        };
        out.extend(summary_record(summary));
    }
    out
}

fn summary_record(s: &Summary) -> Vec<i64> {
    contract::record_out(|slot| {
        (match slot {
            SummarySlot::Count => s.count,
            SummarySlot::Sum => s.sum,
            SummarySlot::P50 => s.p50,
            SummarySlot::P90 => s.p90,
            SummarySlot::P99 => s.p99,
            SummarySlot::P999 => s.p999,
            SummarySlot::Max => s.max,
        }) as i64
    })
}

fn queue_record(q: &QueueFigures) -> Vec<i64> {
    let c = &q.counts;
    contract::record_out(|slot| match slot {
        QueueSlot::Depth => q.depth as i64,
        QueueSlot::Available => q.available as i64,
        QueueSlot::Claimed => q.claimed as i64,
        QueueSlot::Enqueued => c.enqueued as i64,
        QueueSlot::EnqueuedPerSecond => rate(c.enqueued_per_second),
        QueueSlot::Polled => c.polled as i64,
        QueueSlot::PolledPerSecond => rate(c.polled_per_second),
        QueueSlot::Consumed => c.consumed as i64,
        QueueSlot::ConsumedPerSecond => rate(c.consumed_per_second),
        QueueSlot::Returned => c.returned as i64,
        QueueSlot::DeadLettered => c.dead_lettered as i64,
        QueueSlot::OldestEntryAgeMillis => c.oldest_entry_age_millis.map_or(-1, |a| a as i64),
        QueueSlot::OldestAgeIsLowerBound => i64::from(c.oldest_age_is_lower_bound),
    })
}

fn snapshot(_env: &mut Env<'_>, store: &StoreHandle) -> BridgeResult<Vec<u8>> {
    let m = store.0.metrics()?;
    Ok(wire::pack_metrics(
        &store_record(&m),
        m.queues.iter().map(|q| (q.name.as_str(), queue_record(q))),
    ))
}

fn store_only(_env: &mut Env<'_>, store: &StoreHandle) -> BridgeResult<RecordOut> {
    Ok(RecordOut(store_record(&store.0.store_metrics()?)))
}

/// The queue's record, or an empty one when no such queue is listed.
fn queue_figures(_env: &mut Env<'_>, store: &StoreHandle, name: QueueName) -> BridgeResult<RecordOut> {
    Ok(RecordOut(
        store
            .0
            .queue_metrics(name.as_str())?
            .as_ref()
            .map_or_else(Vec::new, queue_record),
    ))
}

fn queue_set_version(_env: &mut Env<'_>, store: &StoreHandle) -> BridgeResult<i64> {
    Ok(store.0.queue_set_version()? as i64)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_store_record_holds_its_slots_then_one_summary_per_block_in_order() {
        let m = StoreMetrics {
            commits: 7,
            commit_latency_nanos: Summary {
                count: 7,
                max: 9,
                ..Summary::default()
            },
            group_commit_size: Summary {
                p50: 3,
                ..Summary::default()
            },
            ..StoreMetrics::default()
        };
        let r = store_record(&m);
        assert_eq!(r.len(), MetricsSlot::LEN + SummaryBlock::LEN * SummarySlot::LEN);
        assert_eq!(r[MetricsSlot::Commits as usize], 7);
        let block = |b: SummaryBlock, s: SummarySlot| r[MetricsSlot::LEN + b as usize * SummarySlot::LEN + s as usize];
        assert_eq!(block(SummaryBlock::CommitLatency, SummarySlot::Max), 9);
        assert_eq!(block(SummaryBlock::GroupCommitSize, SummarySlot::P50), 3);
        assert_eq!(f64::from_bits(r[MetricsSlot::CommitsPerSecond as usize] as u64), 0.0);
    }
}
