//! `org.rockcask.StoreNative`: opening, closing and inspecting a store.

use std::path::PathBuf;

use jni::Env;
use rockcask_core::options::MAX_RESULT_BYTES;
use rockcask_core::{QueueConfig, Store};

use crate::args::{Count, Freed, NewHandle, QueueCodecs, QueueName, RecordOut};
use crate::contract::{self, Record, StatsSlot, StoreSlot};
use crate::error::{BridgeError, BridgeResult};
use crate::handle::{StoreHandle, TxHandle};
use crate::native_table::native_class;
use crate::options::{delivery_limit, store_options};
use crate::wire;

native_class! {
    pub const NATIVES = "org/rockcask/StoreNative", constants [contract::STORE_LIMITS, StoreSlot::JAVA, StatsSlot::JAVA, contract::COMPRESSION_CODES] {
        fn open(path: PathBuf, options: Record<StoreSlot>, queue_codecs: QueueCodecs) -> NewHandle<StoreHandle> = open;
        fn close(store: &StoreHandle) -> () = close;
        fn free(store: Freed<StoreHandle>) -> () = free;
        fn begin(store: &StoreHandle) -> NewHandle<TxHandle> = begin;
        fn queueNames(store: &StoreHandle, prefix: Vec<u8>) -> Vec<u8> = queue_names;
        fn queueSize(store: &StoreHandle, queue: QueueName) -> i64 = queue_size;
        fn stats(store: &StoreHandle) -> RecordOut = stats;
        fn compact(store: &StoreHandle) -> () = compact;
        fn configureQueue(store: &StoreHandle, queue: QueueName, max_deliveries: i64, dead_letter_queue: Option<QueueName>, capacity: i64, capacity_bytes: i64) -> () = configure_queue;
        fn queueOptions(store: &StoreHandle, queue: QueueName) -> Vec<u8> = queue_options;
        fn deadLetters(store: &StoreHandle, queue: QueueName, max: Count) -> Vec<u8> = dead_letters;
    }
}

/// `maxDeliveries` -1 keeps the store's default; a capacity of 0 is no limit.
fn configure_queue(
    _env: &mut Env<'_>,
    store: &StoreHandle,
    queue: QueueName,
    max_deliveries: i64,
    dead_letter_queue: Option<QueueName>,
    capacity: i64,
    capacity_bytes: i64,
) -> BridgeResult<()> {
    let max_deliveries = if max_deliveries == -1 {
        None
    } else {
        Some(delivery_limit(max_deliveries, "maxDeliveries")?)
    };
    let limit = |v: i64, what: &str| {
        u64::try_from(v).map_err(|_| BridgeError::InvalidArgument(format!("{what} must not be negative, got {v}")))
    };
    let config = QueueConfig {
        max_deliveries,
        dead_letter_queue: dead_letter_queue.map(|name| name.as_str().to_owned()),
        capacity: limit(capacity, "capacity")?,
        capacity_bytes: limit(capacity_bytes, "capacityBytes")?,
    };
    Ok(store.0.configure_queue(queue.as_str(), config)?)
}

fn queue_options(_env: &mut Env<'_>, store: &StoreHandle, queue: QueueName) -> BridgeResult<Vec<u8>> {
    Ok(wire::pack_queue_config(&store.0.queue_config(queue.as_str())?))
}

fn dead_letters(_env: &mut Env<'_>, store: &StoreHandle, queue: QueueName, max: Count) -> BridgeResult<Vec<u8>> {
    Ok(wire::pack_dead_letters(&store.0.dead_letters_within(
        queue.as_str(),
        max.0,
        MAX_RESULT_BYTES,
    )?))
}

fn open(
    _env: &mut Env<'_>,
    path: PathBuf,
    options: Record<StoreSlot>,
    queue_codecs: QueueCodecs,
) -> BridgeResult<NewHandle<StoreHandle>> {
    Ok(NewHandle(StoreHandle(Store::open(
        path,
        store_options(&options, queue_codecs)?,
    )?)))
}

/// Closes RocksDB (the handle stays valid until `free`, so racing calls get
/// IllegalStateException "store is closed" rather than a dangling pointer).
fn close(_env: &mut Env<'_>, store: &StoreHandle) -> BridgeResult<()> {
    Ok(store.0.close()?)
}

fn free(_env: &mut Env<'_>, store: Freed<StoreHandle>) -> BridgeResult<()> {
    if let Some(store) = store.0 {
        // Close first: a store released by the Cleaner was never closed explicitly.
        let _ = store.0.close();
    }
    Ok(())
}

fn begin(_env: &mut Env<'_>, store: &StoreHandle) -> BridgeResult<NewHandle<TxHandle>> {
    Ok(NewHandle(TxHandle::new(store.0.begin()?)))
}

fn queue_names(_env: &mut Env<'_>, store: &StoreHandle, prefix: Vec<u8>) -> BridgeResult<Vec<u8>> {
    let prefix = String::from_utf8(prefix)
        .map_err(|_| BridgeError::InvalidArgument("queue name prefix is not valid UTF-8".into()))?;
    Ok(wire::pack_strings(&store.0.queue_names_with_prefix(&prefix)?))
}

fn queue_size(_env: &mut Env<'_>, store: &StoreHandle, queue: QueueName) -> BridgeResult<i64> {
    Ok(store.0.queue_size(queue.as_str())? as i64)
}

fn stats(_env: &mut Env<'_>, store: &StoreHandle) -> BridgeResult<RecordOut> {
    let s = store.0.stats()?;
    Ok(RecordOut(contract::record_out(|slot| {
        (match slot {
            StatsSlot::Queues => s.queues,
            StatsSlot::QueuedItems => s.queued_items,
            StatsSlot::ObjectsEstimate => s.objects_estimate,
            StatsSlot::DiskBytes => s.disk_bytes,
            StatsSlot::MemtableBytes => s.memtable_bytes,
            StatsSlot::BlockCacheBytes => s.block_cache_bytes,
            StatsSlot::TableReaderBytes => s.table_reader_bytes,
            StatsSlot::PayloadBytes => s.payload_bytes,
            StatsSlot::StoredPayloadBytes => s.stored_payload_bytes,
            StatsSlot::Maps => s.maps,
            StatsSlot::MapEntriesEstimate => s.map_entries_estimate,
        }) as i64
    })))
}

fn compact(_env: &mut Env<'_>, store: &StoreHandle) -> BridgeResult<()> {
    Ok(store.0.compact()?)
}
