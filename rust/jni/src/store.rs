//! `org.rockcask.internal.StoreNative`: opening, closing and inspecting a store.

use std::path::PathBuf;

use jni::objects::JByteArray;
use jni::Env;
use rockcask_core::compress::{Compression, Policy};
use rockcask_core::{QueueConfig, Store, StoreOptions};

use crate::args::{decode_code, Arg, Count, NewHandle, RecordOut};
use crate::contract::{self, Record, Slots, StatsSlot, StoreSlot};
use crate::error::{BridgeError, BridgeResult};
use crate::handle::{free_handle, Tagged};
use crate::native_table::native_class;
use crate::transaction::TxHandle;
use crate::wire;

native_class! {
    pub const NATIVES = "org/rockcask/internal/StoreNative", constants [contract::STORE_LIMITS, StoreSlot::JAVA, StatsSlot::JAVA, contract::COMPRESSION_CODES] {
        fn open(path: PathBuf, options: StoreRecord) -> NewHandle<StoreHandle> = open;
        fn close(store: &StoreHandle) -> () = close;
        fn free(store: i64) -> () = free;
        fn begin(store: &StoreHandle) -> NewHandle<TxHandle> = begin;
        fn queueNames(store: &StoreHandle, prefix: Vec<u8>) -> Vec<u8> = queue_names;
        fn queueSize(store: &StoreHandle, queue: wire::QueueName) -> i64 = queue_size;
        fn stats(store: &StoreHandle) -> RecordOut = stats;
        fn compact(store: &StoreHandle) -> () = compact;
        fn configureQueue(store: &StoreHandle, queue: wire::QueueName, max_deliveries: i64, dead_letter_queue: Option<String>, capacity: i64, capacity_bytes: i64) -> () = configure_queue;
        fn queueOptions(store: &StoreHandle, queue: wire::QueueName) -> Vec<u8> = queue_options;
        fn deadLetters(store: &StoreHandle, queue: wire::QueueName, max: Count) -> Vec<u8> = dead_letters;
    }
}

pub struct StoreHandle(pub Store);

impl Tagged for StoreHandle {
    const TAG: u64 = 0x526f_636b_5374_6f72; // "RockStor"
    const NAME: &'static str = "Store";
}

/// A `Compression` code from Java (`Compression::code`; `contract::COMPRESSION_CODES`).
pub(crate) fn codec(code: i64, name: &str) -> BridgeResult<Compression> {
    decode_code(code, name, "compression", Compression::from_code)
}

/// A delivery limit from Java's `int` (0: none).
fn delivery_limit(v: i64, what: &str) -> BridgeResult<u32> {
    u32::try_from(v).map_err(|_| BridgeError::InvalidArgument(format!("{what} must not be negative, got {v}")))
}

/// `maxDeliveries` -1 keeps the store's default; a capacity of 0 is no limit.
fn configure_queue(
    _env: &mut Env<'_>,
    store: &StoreHandle,
    queue: wire::QueueName,
    max_deliveries: i64,
    dead_letter_queue: Option<String>,
    capacity: i64,
    capacity_bytes: i64,
) -> BridgeResult<()> {
    let max_deliveries = if max_deliveries == -1 { None } else { Some(delivery_limit(max_deliveries, "maxDeliveries")?) };
    let limit = |v: i64, what: &str| u64::try_from(v).map_err(|_| BridgeError::InvalidArgument(format!("{what} must not be negative, got {v}")));
    let config = QueueConfig { max_deliveries, dead_letter_queue, capacity: limit(capacity, "capacity")?, capacity_bytes: limit(capacity_bytes, "capacityBytes")? };
    Ok(store.0.configure_queue(queue.as_str(), config)?)
}

fn queue_options(_env: &mut Env<'_>, store: &StoreHandle, queue: wire::QueueName) -> BridgeResult<Vec<u8>> {
    Ok(wire::pack_queue_config(&store.0.queue_config(queue.as_str())?))
}

fn dead_letters(_env: &mut Env<'_>, store: &StoreHandle, queue: wire::QueueName, max: Count) -> BridgeResult<Vec<u8>> {
    Ok(wire::pack_dead_letters(&store.0.dead_letters(queue.as_str(), max.0)?))
}

fn size(v: i64, what: &str) -> BridgeResult<usize> {
    usize::try_from(v).map_err(|_| BridgeError::InvalidArgument(format!("{what} must not be negative, got {v}")))
}

/// `StoreOptions` as one `byte[]` record (`StoreOptions.record()`, also used by imports): the
/// `StoreSlot` values as big-endian longs, then the per-queue codecs as
/// `wire::unpack_queue_codecs` reads them.
pub struct StoreRecord(pub StoreOptions);

impl Arg for StoreRecord {
    type Raw<'local> = JByteArray<'local>;
    type Value<'local> = StoreRecord;
    const DESCRIPTOR: &'static str = "[B";
    fn from_java<'local>(env: &mut Env<'local>, raw: JByteArray<'local>, name: &'static str) -> BridgeResult<StoreRecord> {
        let bytes = Vec::<u8>::from_java(env, raw, name)?;
        let (slots, queues) = bytes
            .split_at_checked(StoreSlot::LEN * 8)
            .ok_or_else(|| BridgeError::InvalidArgument(format!("{name} holds {} bytes, fewer than its {} slots", bytes.len(), StoreSlot::LEN)))?;
        let record = Record::<StoreSlot>::new(slots.chunks_exact(8).map(|b| i64::from_be_bytes(b.try_into().expect("8 bytes"))).collect())?;
        let threshold = record.get(StoreSlot::CompressionThreshold);
        Ok(StoreRecord(StoreOptions {
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
            compression: Policy { codec: codec(record.get(StoreSlot::Compression), "compression")?, threshold: size(threshold, "compression threshold")? },
            queue_compression: wire::unpack_queue_codecs(queues)?.into_iter().map(|(q, c)| codec(c.into(), "queue compression").map(|c| (q, c))).collect::<BridgeResult<_>>()?,
            max_deliveries: delivery_limit(record.get(StoreSlot::MaxDeliveries), "max deliveries")?,
        }))
    }
}

fn open(_env: &mut Env<'_>, path: PathBuf, options: StoreRecord) -> BridgeResult<NewHandle<StoreHandle>> {
    Ok(NewHandle(StoreHandle(Store::open(path, options.0)?)))
}

/// Closes RocksDB (the handle stays valid until `free`, so racing calls get
/// IllegalStateException "store is closed" rather than a dangling pointer).
fn close(_env: &mut Env<'_>, store: &StoreHandle) -> BridgeResult<()> {
    Ok(store.0.close()?)
}

fn free(_env: &mut Env<'_>, store: i64) -> BridgeResult<()> {
    if store != 0 {
        // Close first: a store released by the Cleaner was never closed explicitly.
        let _ = crate::handle::borrow::<StoreHandle>(store)?.0.close();
    }
    free_handle::<StoreHandle>(store)
}

fn begin(_env: &mut Env<'_>, store: &StoreHandle) -> BridgeResult<NewHandle<TxHandle>> {
    Ok(NewHandle(TxHandle::new(store.0.begin()?)))
}

fn queue_names(_env: &mut Env<'_>, store: &StoreHandle, prefix: Vec<u8>) -> BridgeResult<Vec<u8>> {
    let prefix = String::from_utf8(prefix).map_err(|_| BridgeError::InvalidArgument("queue name prefix is not valid UTF-8".into()))?;
    Ok(wire::pack_strings(&store.0.queue_names_with_prefix(&prefix)?))
}

fn queue_size(_env: &mut Env<'_>, store: &StoreHandle, queue: wire::QueueName) -> BridgeResult<i64> {
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
