//! The numbers of `org.rockcask` (store, transactions, snapshots, codec) that Java repeats.

use rockcask_core::compress::Compression;

use super::{decode_code, JavaConstant, JavaConstants};
use crate::error::BridgeResult;

/// The Java class holding the slot orders and limits of `org.rockcask`.
pub const WIRE: &str = "org/rockcask/Wire";

slots! {
    /// `StoreOptions` as `Store.open` and `Store.importSnapshot` pass it.
    pub enum StoreSlot in "org/rockcask/Wire" as "STORE_" {
        SyncOnCommit = "SYNC_ON_COMMIT",
        BlockCacheBytes = "BLOCK_CACHE_BYTES",
        WriteBufferBytes = "WRITE_BUFFER_BYTES",
        CreateIfMissing = "CREATE_IF_MISSING",
        ReadOnly = "READ_ONLY",
        Compression = "COMPRESSION",
        CompressionThreshold = "COMPRESSION_THRESHOLD",
        MaxDeliveries = "MAX_DELIVERIES",
        Metrics = "METRICS",
        MapCacheBytes = "MAP_CACHE_BYTES",
        ObjectCacheBytes = "OBJECT_CACHE_BYTES",
        InlinePayloadBytes = "INLINE_PAYLOAD_BYTES",
        QueueCacheBytes = "QUEUE_CACHE_BYTES",
    }
}

slots! {
    /// `StoreStats`, as `Store.stats` reads it.
    pub enum StatsSlot in "org/rockcask/Wire" as "STATS_" {
        Queues = "QUEUES",
        QueuedItems = "QUEUED_ITEMS",
        ObjectsEstimate = "OBJECTS_ESTIMATE",
        DiskBytes = "DISK_BYTES",
        MemtableBytes = "MEMTABLE_BYTES",
        BlockCacheBytes = "BLOCK_CACHE_BYTES",
        TableReaderBytes = "TABLE_READER_BYTES",
        PayloadBytes = "PAYLOAD_BYTES",
        StoredPayloadBytes = "STORED_PAYLOAD_BYTES",
        Maps = "MAPS",
        MapEntriesEstimate = "MAP_ENTRIES_ESTIMATE",
    }
}

slots! {
    /// `ExportOptions`, as exports of stores and databases pass it.
    pub enum ExportSlot in "org/rockcask/Wire" as "EXPORT_" {
        Workers = "WORKERS",
        Compression = "COMPRESSION",
        FrameBytes = "FRAME_BYTES",
        FixedTime = "FIXED_TIME",
        CreatedAtMillis = "CREATED_AT_MILLIS",
        Overwrite = "OVERWRITE",
    }
}

slots! {
    /// `SnapshotInfo`'s numbers, as every snapshot call fills them in.
    pub enum InfoSlot in "org/rockcask/Wire" as "INFO_" {
        FileBytes = "FILE_BYTES",
        Frames = "FRAMES",
        Records = "RECORDS",
        Queues = "QUEUES",
        Entries = "ENTRIES",
        Objects = "OBJECTS",
        Keys = "KEYS",
        Values = "VALUES",
        PayloadBytes = "PAYLOAD_BYTES",
        FormatVersion = "FORMAT_VERSION",
        Compression = "COMPRESSION",
        CreatedAtMillis = "CREATED_AT_MILLIS",
        Maps = "MAPS",
        MapEntries = "MAP_ENTRIES",
    }
}

/// Limits Java checks before a call, so that its exceptions name the Java argument (the maps'
/// calls use them too).
pub const STORE_LIMITS: JavaConstants = {
    use rockcask_core::options::{
        MAX_BATCH_ITEMS, MAX_BLOCK_CACHE_BYTES, MAX_INLINE_PAYLOAD_BYTES, MAX_MAP_CACHE_BYTES, MAX_OBJECT_CACHE_BYTES,
        MAX_PAYLOAD_BYTES, MAX_QUEUE_CACHE_BYTES, MAX_RESULT_BYTES, MAX_RETRY_DELAY_MILLIS, MAX_WORKERS,
        MAX_WRITE_BUFFER_BYTES, MIN_WRITE_BUFFER_BYTES,
    };
    use rockcask_core::MAX_QUEUE_NAME_BYTES;
    JavaConstants {
        class: WIRE,
        values: &[
            JavaConstant::int("MAX_QUEUE_NAME_BYTES", MAX_QUEUE_NAME_BYTES as i64),
            JavaConstant::int("MAX_PAYLOAD_BYTES", MAX_PAYLOAD_BYTES as i64),
            JavaConstant::int("MAX_WORKERS", MAX_WORKERS as i64),
            JavaConstant::int("MAX_BATCH_ITEMS", MAX_BATCH_ITEMS as i64),
            JavaConstant::int("MAX_RESULT_BYTES", MAX_RESULT_BYTES as i64),
            JavaConstant::long("MIN_WRITE_BUFFER_BYTES", MIN_WRITE_BUFFER_BYTES as i64),
            JavaConstant::long("MAX_WRITE_BUFFER_BYTES", MAX_WRITE_BUFFER_BYTES as i64),
            JavaConstant::long("MAX_BLOCK_CACHE_BYTES", MAX_BLOCK_CACHE_BYTES as i64),
            JavaConstant::long("MAX_MAP_CACHE_BYTES", MAX_MAP_CACHE_BYTES as i64),
            JavaConstant::long("MAX_OBJECT_CACHE_BYTES", MAX_OBJECT_CACHE_BYTES as i64),
            JavaConstant::long("MAX_QUEUE_CACHE_BYTES", MAX_QUEUE_CACHE_BYTES as i64),
            JavaConstant::int("MAX_INLINE_PAYLOAD_BYTES", MAX_INLINE_PAYLOAD_BYTES as i64),
            JavaConstant::long("MAX_RETRY_DELAY_MILLIS", MAX_RETRY_DELAY_MILLIS as i64),
            // A map name has a queue name's limit: the core checks both alike.
            JavaConstant::int("MAX_MAP_NAME_BYTES", MAX_QUEUE_NAME_BYTES as i64),
        ],
    }
};

/// The limits of maps that `org.rockcask.TxMap` checks before a call or states.
pub const MAP_LIMITS: JavaConstants = {
    use rockcask_core::maps::MAX_MAP_KEY_BYTES;
    use rockcask_core::options::{KEY_HOLD_WAIT_MILLIS, MAX_PAYLOAD_BYTES};
    JavaConstants {
        class: "org/rockcask/TxMap",
        values: &[
            JavaConstant::int("MAX_KEY_BYTES", MAX_MAP_KEY_BYTES as i64),
            // A map value has a payload's limit: the core checks both alike.
            JavaConstant::int("MAX_VALUE_BYTES", MAX_PAYLOAD_BYTES as i64),
            JavaConstant::long("KEY_HOLD_WAIT_MILLIS", KEY_HOLD_WAIT_MILLIS as i64),
        ],
    }
};

/// The largest frame size an export may aim for, which `org.rockcask.ExportOptions` checks.
pub const EXPORT_LIMITS: JavaConstants = {
    use rockcask_core::snapshot::format::MAX_FRAME_TARGET;
    JavaConstants {
        class: "org/rockcask/ExportOptions",
        values: &[JavaConstant::int("MAX_FRAME_TARGET", MAX_FRAME_TARGET as i64)],
    }
};

/// The compression codes (`rockcask_core::compress::Compression::code`): the constants of
/// `Wire` that `org.rockcask.Compression` takes its codes from.
pub const COMPRESSION_CODES: JavaConstants = {
    JavaConstants {
        class: WIRE,
        values: &[
            JavaConstant::int("COMPRESSION_NONE", Compression::None.code() as i64),
            JavaConstant::int("COMPRESSION_LZ4", Compression::Lz4.code() as i64),
            JavaConstant::int("COMPRESSION_ZSTD", Compression::Zstd.code() as i64),
            JavaConstant::int("COMPRESSION_SNAPPY", Compression::Snappy.code() as i64),
        ],
    }
};

/// The `Compression` of a code Java passed (`COMPRESSION_CODES`), or an error naming the
/// parameter (or field) and the code.
pub fn compression(code: i64, name: &str) -> BridgeResult<Compression> {
    decode_code(code, name, "compression", Compression::from_code)
}

/// The message type codes (`rockcask_core::codec::MessageType::code`), as
/// `org.rockcask.codec.Codec` spells them: a shape's first code plus a kind's offset.
pub const MESSAGE_TYPES: JavaConstants = {
    use rockcask_core::codec::{Kind, MessageType, Shape};
    JavaConstants {
        class: "org/rockcask/codec/Codec",
        values: &[
            JavaConstant::int("LIST", Shape::List.first_code() as i64),
            JavaConstant::int("MAP", Shape::Map.first_code() as i64),
            JavaConstant::int("ARRAY", Shape::Array.first_code() as i64),
            JavaConstant::int("FRAME", Shape::Frame.first_code() as i64),
            JavaConstant::int("BYTES", Kind::Bytes.offset() as i64),
            JavaConstant::int("INTEGERS", Kind::Integers.offset() as i64),
            JavaConstant::int("LONGS", Kind::Longs.offset() as i64),
            JavaConstant::int("FLOATS", Kind::Floats.offset() as i64),
            JavaConstant::int("DOUBLES", Kind::Doubles.offset() as i64),
            JavaConstant::int("STRINGS", Kind::Strings.offset() as i64),
            JavaConstant::int("TARGET_OBJECT", MessageType::TargetObject.code() as i64),
        ],
    }
};

/// The numbers of the flat form (`rockcask_core::codec::flat`, where the layout is defined)
/// that `org.rockcask.codec.Flat` writes and reads it with.
pub const FLAT_LAYOUT: JavaConstants = {
    use rockcask_core::codec::flat;
    JavaConstants {
        class: "org/rockcask/codec/Flat",
        values: &[
            JavaConstant::int("ALIGN", flat::ALIGN as i64),
            JavaConstant::int("HEADER_BYTES", flat::HEADER_BYTES as i64),
            JavaConstant::int("KIND_INT32", flat::KIND_INT32 as i64),
            JavaConstant::int("KIND_INT64", flat::KIND_INT64 as i64),
            JavaConstant::int("KIND_FLOAT", flat::KIND_FLOAT as i64),
            JavaConstant::int("KIND_DOUBLE", flat::KIND_DOUBLE as i64),
            JavaConstant::int("KIND_BLOBS", flat::KIND_BLOBS as i64),
        ],
    }
};

/// The operation codes of the buffer `org.rockcask.PendingOps` writes (`wire::PendingOps`,
/// where the layout is defined, reads it; its golden vectors check the rest of the layout).
pub const PENDING_OPS: JavaConstants = {
    use crate::wire::{OP_ENQUEUE_EXISTING, OP_ENQUEUE_NEW, OP_PUT};
    JavaConstants {
        class: "org/rockcask/PendingOps",
        values: &[
            JavaConstant::int("OP_ENQUEUE_NEW", OP_ENQUEUE_NEW as i64),
            JavaConstant::int("OP_PUT", OP_PUT as i64),
            JavaConstant::int("OP_ENQUEUE_EXISTING", OP_ENQUEUE_EXISTING as i64),
        ],
    }
};

#[cfg(test)]
mod code_tests {
    use rockcask_core::codec::MessageType;

    use super::*;

    #[test]
    fn every_compression_and_message_type_has_its_java_constant() {
        assert_eq!(COMPRESSION_CODES.values.len(), Compression::ALL.len());
        for c in Compression::ALL {
            assert!(
                COMPRESSION_CODES.values.iter().any(|j| j.value == i64::from(c.code())),
                "{c:?}"
            );
        }
        // Every type's code is a shape constant plus a kind constant, or the target object's.
        let (shapes, rest) = MESSAGE_TYPES.values.split_at(4);
        let (kinds, target) = rest.split_at(6);
        for ty in MessageType::all() {
            let code = i64::from(ty.code());
            let spelled =
                target[0].value == code || shapes.iter().any(|s| kinds.iter().any(|k| s.value + k.value == code));
            assert!(spelled, "{ty:?}");
        }
    }
}
