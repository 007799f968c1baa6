//! The core's options from the records Java passes them in: a store's (`StoreOptions`, for
//! opens and imports) and an export's (`ExportOptions`, for store and casket exports).

use rockcask_core::compress::Policy;
use rockcask_core::options::MAX_WORKERS;
use rockcask_core::snapshot::ExportOptions;
use rockcask_core::StoreOptions;

use crate::args::QueueCodecs;
use crate::contract::{self, ExportSlot, Record, StoreSlot};
use crate::error::{BridgeError, BridgeResult};

/// `StoreOptions` from `StoreOptions.record()` and the per-queue codecs (`Wire.queueCodecs`).
pub fn store_options(record: &Record<StoreSlot>, queue_codecs: QueueCodecs) -> BridgeResult<StoreOptions> {
    Ok(StoreOptions {
        sync_on_commit: record.flag(StoreSlot::SyncOnCommit),
        block_cache_bytes: size(record.get(StoreSlot::BlockCacheBytes), "block cache bytes")?,
        write_buffer_bytes: size(record.get(StoreSlot::WriteBufferBytes), "write buffer bytes")?,
        create_if_missing: record.flag(StoreSlot::CreateIfMissing),
        read_only: record.flag(StoreSlot::ReadOnly),
        metrics: record.flag(StoreSlot::Metrics),
        map_cache_bytes: size(record.get(StoreSlot::MapCacheBytes), "map cache bytes")?,
        object_cache_bytes: size(record.get(StoreSlot::ObjectCacheBytes), "object cache bytes")?,
        inline_payload_bytes: size(record.get(StoreSlot::InlinePayloadBytes), "inline payload bytes")?,
        queue_cache_bytes: size(record.get(StoreSlot::QueueCacheBytes), "queue cache bytes")?,
        compression: Policy {
            codec: contract::compression(record.get(StoreSlot::Compression), "compression")?,
            threshold: size(record.get(StoreSlot::CompressionThreshold), "compression threshold")?,
        },
        queue_compression: queue_codecs.0.into_iter().collect(),
        max_deliveries: delivery_limit(record.get(StoreSlot::MaxDeliveries), "max deliveries")?,
    })
}

/// `ExportOptions` from `ExportOptions.record()`.
pub fn export_options(record: &Record<ExportSlot>) -> BridgeResult<ExportOptions> {
    let frame_bytes = record.get(ExportSlot::FrameBytes);
    Ok(ExportOptions {
        workers: workers(record.get(ExportSlot::Workers))?,
        compression: contract::compression(record.get(ExportSlot::Compression), "compression")?,
        frame_bytes: usize::try_from(frame_bytes).ok().filter(|&b| b >= 1).ok_or_else(|| {
            BridgeError::InvalidArgument(format!("frame bytes must be at least 1, got {frame_bytes}"))
        })?,
        created_unix_millis: record
            .flag(ExportSlot::FixedTime)
            .then_some(record.get(ExportSlot::CreatedAtMillis)),
        overwrite: record.flag(ExportSlot::Overwrite),
    })
}

/// A count of worker threads: 1 to `MAX_WORKERS`.
pub fn workers(workers: impl Into<i64>) -> BridgeResult<usize> {
    let workers = workers.into();
    usize::try_from(workers)
        .ok()
        .filter(|w| (1..=MAX_WORKERS).contains(w))
        .ok_or_else(|| BridgeError::InvalidArgument(format!("workers must be 1 to {MAX_WORKERS}, got {workers}")))
}

/// A delivery limit from Java's `int` (0: none).
pub fn delivery_limit(v: i64, what: &str) -> BridgeResult<u32> {
    u32::try_from(v).map_err(|_| BridgeError::InvalidArgument(format!("{what} must not be negative, got {v}")))
}

fn size(v: i64, what: &str) -> BridgeResult<usize> {
    usize::try_from(v).map_err(|_| BridgeError::InvalidArgument(format!("{what} must not be negative, got {v}")))
}
