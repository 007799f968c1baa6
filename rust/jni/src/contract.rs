//! The numbers Java and Rust must agree on, defined here (or in `rockcask-core`) once.
//!
//! Java repeats some of them as `static final` constants, where it checks arguments before a
//! call or reads a slot of an array the native side filled. Each group below names the Java
//! class holding them; `check` reads every one through JNI when the native class that depends
//! on them registers, so a constant that drifts fails the class's initialization with the
//! name, the Java value and the native one, before any call uses it.
//!
//! Slot orders (`slots!`) are the layouts of `long[]` records crossing JNI: options going in,
//! statistics coming out. Each slot's Java constant is its index.

use jni::objects::{JClass, JClassLoader, JString};
use jni::signature::{FieldSignature, RuntimeFieldSignature};
use jni::strings::JNIString;
use jni::Env;

use crate::error::{BridgeError, BridgeResult};

/// Constants of one Java class and their native values.
pub struct JavaConstants {
    /// Binary name with slashes.
    pub class: &'static str,
    pub values: &'static [JavaConstant],
}

pub struct JavaConstant {
    pub name: &'static str,
    pub value: i64,
    /// `'I'` for an `int` field, `'J'` for a `long`.
    pub kind: char,
}

impl JavaConstant {
    pub const fn int(name: &'static str, value: i64) -> Self {
        JavaConstant { name, value, kind: 'I' }
    }

    pub const fn long(name: &'static str, value: i64) -> Self {
        JavaConstant { name, value, kind: 'J' }
    }
}

/// Compares every constant of `group` with the Java field of that name, in the class of that
/// name that `loader` (the registering class's loader) sees.
pub fn check(env: &mut Env<'_>, loader: &JClassLoader<'_>, group: &JavaConstants) -> BridgeResult<()> {
    let name = JString::from_str(env, group.class.replace('/', "."))?;
    let class = JClass::for_name_with_loader(env, &name, false, loader)?;
    for c in group.values {
        let sig = RuntimeFieldSignature::from_str(c.kind.to_string())?;
        let java = env.get_static_field(&class, JNIString::from(c.name), FieldSignature::from(&sig)).map_err(|e| {
            // The NoSuchFieldError says less than this.
            env.exception_clear();
            BridgeError::InvalidArgument(format!("{} has no static {} field {} ({e})", group.class, if c.kind == 'I' { "int" } else { "long" }, c.name))
        })?;
        let java = if c.kind == 'I' { java.i().map(i64::from)? } else { java.j()? };
        if java != c.value {
            return Err(BridgeError::InvalidArgument(format!(
                "{}.{} is {java} in Java but {} in the native library: the jar and the library disagree",
                group.class, c.name, c.value
            )));
        }
    }
    Ok(())
}

/// Declares the slots of a `long[]` record: an enum with one variant per slot, its length, and
/// the Java constants (`PREFIX_SLOT_NAME = index`, `PREFIX_SLOTS = length`) of `class` that
/// must match.
macro_rules! slots {
    ($(#[$meta:meta])* $vis:vis enum $name:ident in $class:literal as $prefix:literal { $($slot:ident = $java:literal),* $(,)? }) => {
        $(#[$meta])*
        #[derive(Clone, Copy, Debug, PartialEq, Eq)]
        #[repr(usize)]
        $vis enum $name { $($slot),* }

        impl $name {
            pub const JAVA: $crate::contract::JavaConstants = $crate::contract::JavaConstants {
                class: $class,
                values: &[
                    $($crate::contract::JavaConstant::int(concat!($prefix, $java), $name::$slot as i64),)*
                    $crate::contract::JavaConstant::int(concat!($prefix, "SLOTS"), <$name as $crate::contract::Slots>::LEN as i64),
                ],
            };
        }

        impl $crate::contract::Slots for $name {
            const ALL: &'static [Self] = &[$($name::$slot),*];
            const WHAT: &'static str = stringify!($name);
            fn index(self) -> usize {
                self as usize
            }
        }
    };
}

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
    }
}

/// Limits Java checks before a call, so that its exceptions name the Java argument.
pub const STORE_LIMITS: JavaConstants = {
    use rockcask_core::keys::MAX_QUEUE_NAME_BYTES;
    use rockcask_core::options::{MAX_BLOCK_CACHE_BYTES, MAX_PAYLOAD_BYTES, MAX_WORKERS, MAX_WRITE_BUFFER_BYTES, MIN_WRITE_BUFFER_BYTES};
    JavaConstants {
        class: WIRE,
        values: &[
            JavaConstant::int("MAX_QUEUE_NAME_BYTES", MAX_QUEUE_NAME_BYTES as i64),
            JavaConstant::int("MAX_PAYLOAD_BYTES", MAX_PAYLOAD_BYTES as i64),
            JavaConstant::int("MAX_WORKERS", MAX_WORKERS as i64),
            JavaConstant::long("MIN_WRITE_BUFFER_BYTES", MIN_WRITE_BUFFER_BYTES as i64),
            JavaConstant::long("MAX_WRITE_BUFFER_BYTES", MAX_WRITE_BUFFER_BYTES as i64),
            JavaConstant::long("MAX_BLOCK_CACHE_BYTES", MAX_BLOCK_CACHE_BYTES as i64),
        ],
    }
};

/// The slots of a record, declared with `slots!`.
pub trait Slots: Copy + 'static {
    /// Every slot, in index order.
    const ALL: &'static [Self];
    const LEN: usize = Self::ALL.len();
    /// The record's name in errors.
    const WHAT: &'static str;
    fn index(self) -> usize;
}

/// A `long[]` record from Java, checked to have exactly the slots of `S`.
pub struct Record<S> {
    values: Vec<i64>,
    slots: std::marker::PhantomData<S>,
}

impl<S: Slots> Record<S> {
    pub fn new(values: Vec<i64>) -> BridgeResult<Self> {
        if values.len() != S::LEN {
            return Err(BridgeError::InvalidArgument(format!("a {} record has {} slots, not {}", S::WHAT, S::LEN, values.len())));
        }
        Ok(Record { values, slots: std::marker::PhantomData })
    }

    pub fn get(&self, slot: S) -> i64 {
        self.values[slot.index()]
    }

    pub fn flag(&self, slot: S) -> bool {
        self.get(slot) != 0
    }
}

/// Copies a record into the `long[]` Java passed for it, which must have its length.
pub fn fill(env: &mut Env<'_>, array: &jni::objects::JLongArray<'_>, what: &'static str, values: &[i64]) -> BridgeResult<()> {
    if array.is_null() {
        return Err(BridgeError::Null(what));
    }
    let len = array.len(env)?;
    if len != values.len() {
        return Err(BridgeError::InvalidArgument(format!("the {what} array holds {len} values, not {}", values.len())));
    }
    Ok(array.set_region(env, 0, values)?)
}

/// A record going out: `value` gives each slot's value (write it as an exhaustive `match`, so
/// that a new slot cannot be forgotten).
pub fn record_out<S: Slots>(value: impl Fn(S) -> i64) -> Vec<i64> {
    S::ALL.iter().map(|&s| value(s)).collect()
}

/// Codes Java passes for the variants of a Rust enum: each code is defined here once, and the
/// Java constants naming them (`java`) are checked when the class using them registers.
pub struct Codes<T: 'static> {
    /// What the codes select, in errors ("put mode").
    pub what: &'static str,
    pub java: JavaConstants,
    /// The variant of each code of `java`, in the same order.
    pub variants: &'static [T],
}

impl<T: Clone> Codes<T> {
    /// The variant of `code`; an unknown one is refused, naming the parameter and the value.
    pub fn decode(&self, code: i64, name: &str) -> BridgeResult<T> {
        self.java
            .values
            .iter()
            .zip(self.variants)
            .find(|(c, _)| c.value == code)
            .map(|(_, v)| v.clone())
            .ok_or_else(|| BridgeError::InvalidArgument(format!("{name}: unknown {} {code}", self.what)))
    }
}

/// Declares the `Codes` of an enum: `JAVA_NAME = code => Variant` for each variant.
macro_rules! codes {
    ($(#[$meta:meta])* $vis:vis const $name:ident: Codes<$ty:ty> = $what:literal in $class:tt { $($java:literal = $code:literal => $variant:expr),* $(,)? }) => {
        $(#[$meta])*
        $vis const $name: Codes<$ty> = Codes {
            what: $what,
            java: JavaConstants { class: $class, values: &[$(JavaConstant::int($java, $code)),*] },
            variants: &[$($variant),*],
        };
    };
}

/// The drop-in's class of native calls, which holds the drop-in's own constants.
pub const CASKET_NATIVE: &str = "tokyocabinet/internal/CasketNative";

slots! {
    /// A casket's open mode and settings, as `Database.open` passes them.
    pub enum CasketSlot in "tokyocabinet/internal/CasketNative" as "OPEN_" {
        Omode = "OMODE",
        Hash = "HASH",
        Cmpfunc = "CMPFUNC",
        CacheBytes = "CACHE_BYTES",
        WriteBufferBytes = "WRITE_BUFFER_BYTES",
        Compression = "COMPRESSION",
    }
}

/// The bits of Tokyo Cabinet's open mode the native side reads (a reader is a casket opened
/// without `OWRITER`, so `OREADER` needs no decoding).
pub mod omode {
    pub const OWRITER: i64 = 1 << 1;
    pub const OCREAT: i64 = 1 << 2;
    pub const OTRUNC: i64 = 1 << 3;
    pub const ONOLCK: i64 = 1 << 4;
    pub const OLCKNB: i64 = 1 << 5;
    pub const OTSYNC: i64 = 1 << 6;
}

/// The open-mode constants of the drop-in's public `BDB` (which `HDB` repeats from it).
pub const CASKET_OPEN_MODES: JavaConstants = {
    use omode::*;
    JavaConstants {
        class: "tokyocabinet/BDB",
        values: &[
            JavaConstant::int("OWRITER", OWRITER),
            JavaConstant::int("OCREAT", OCREAT),
            JavaConstant::int("OTRUNC", OTRUNC),
            JavaConstant::int("ONOLCK", ONOLCK),
            JavaConstant::int("OLCKNB", OLCKNB),
            JavaConstant::int("OTSYNC", OTSYNC),
        ],
    }
};

codes! {
    /// How `put` treats an existing key.
    pub const PUT_MODES: Codes<rockcask_core::casket::PutMode> = "put mode" in CASKET_NATIVE {
        "PUT_OVER" = 0 => rockcask_core::casket::PutMode::Over,
        "PUT_KEEP" = 1 => rockcask_core::casket::PutMode::Keep,
        "PUT_CAT" = 2 => rockcask_core::casket::PutMode::Cat,
        "PUT_DUP" = 3 => rockcask_core::casket::PutMode::Dup,
    }
}

codes! {
    /// Where `BDBCUR.put` writes (the public `CP*` constants).
    pub const CURSOR_PUT_MODES: Codes<rockcask_core::casket::CursorPut> = "cursor put mode" in "tokyocabinet/BDBCUR" {
        "CPCURRENT" = 0 => rockcask_core::casket::CursorPut::Current,
        "CPBEFORE" = 1 => rockcask_core::casket::CursorPut::Before,
        "CPAFTER" = 2 => rockcask_core::casket::CursorPut::After,
    }
}

codes! {
    /// The built-in key orders of `BDB.setcmpfunc` (the public `CMP*` constants).
    pub const KEY_ORDERS: Codes<rockcask_core::casket::KeyOrder> = "comparison function" in "tokyocabinet/BDB" {
        "CMPLEXICAL" = 0 => rockcask_core::casket::KeyOrder::Lexical,
        "CMPDECIMAL" = 1 => rockcask_core::casket::KeyOrder::Decimal,
        "CMPINT32" = 2 => rockcask_core::casket::KeyOrder::Int32,
        "CMPINT64" = 3 => rockcask_core::casket::KeyOrder::Int64,
    }
}

codes! {
    /// The compression of a casket's files, as `tune` selects it.
    pub const CASKET_COMPRESSION: Codes<rockcask_core::casket::Compression> = "compression" in CASKET_NATIVE {
        "COMPRESSION_NONE" = 0 => rockcask_core::casket::Compression::None,
        "COMPRESSION_LZ4" = 1 => rockcask_core::casket::Compression::Lz4,
        "COMPRESSION_ZSTD" = 2 => rockcask_core::casket::Compression::Zstd,
    }
}

/// The error codes the native side throws (`CasketException.code`), as the public `BDB`
/// constants name them (`ESUCCESS` is never thrown).
pub const CASKET_ERROR_CODES: JavaConstants = {
    use rockcask_core::casket::Ecode::*;
    JavaConstants {
        class: "tokyocabinet/BDB",
        values: &[
            JavaConstant::int("ETHREAD", Thread as i64),
            JavaConstant::int("EINVALID", Invalid as i64),
            JavaConstant::int("ENOFILE", NoFile as i64),
            JavaConstant::int("ENOPERM", NoPerm as i64),
            JavaConstant::int("EMETA", Meta as i64),
            JavaConstant::int("ERHEAD", RHead as i64),
            JavaConstant::int("EOPEN", Open as i64),
            JavaConstant::int("ECLOSE", Close as i64),
            JavaConstant::int("ETRUNC", Trunc as i64),
            JavaConstant::int("ESYNC", Sync as i64),
            JavaConstant::int("ESTAT", Stat as i64),
            JavaConstant::int("ESEEK", Seek as i64),
            JavaConstant::int("EREAD", Read as i64),
            JavaConstant::int("EWRITE", Write as i64),
            JavaConstant::int("EMMAP", Mmap as i64),
            JavaConstant::int("ELOCK", Lock as i64),
            JavaConstant::int("EUNLINK", Unlink as i64),
            JavaConstant::int("ERENAME", Rename as i64),
            JavaConstant::int("EMKDIR", Mkdir as i64),
            JavaConstant::int("ERMDIR", Rmdir as i64),
            JavaConstant::int("EKEEP", Keep as i64),
            JavaConstant::int("ENOREC", NoRec as i64),
            JavaConstant::int("EMISC", Misc as i64),
        ],
    }
};

/// The largest value a casket holds; `Database` refuses longer ones before a call.
pub const CASKET_LIMITS: JavaConstants = {
    const { assert!(rockcask_core::casket::MAX_VALUE_LEN <= i32::MAX as usize) };
    JavaConstants { class: "tokyocabinet/Database", values: &[JavaConstant::int("MAX_VALUE_SIZE", rockcask_core::casket::MAX_VALUE_LEN as i64)] }
};

/// Set by `CasketComparator.compareChecked` above the comparator's result (its low 32 bits)
/// when the comparator called a database of the drop-in (which refused the call) while comparing.
pub const CALLED_A_DATABASE: i64 = 1 << 32;

/// The comparator upcall's result flags.
pub const CASKET_COMPARATOR: JavaConstants =
    JavaConstants { class: "tokyocabinet/internal/CasketComparator", values: &[JavaConstant::long("CALLED_A_DATABASE", CALLED_A_DATABASE)] };

#[cfg(test)]
mod casket_tests {
    use std::collections::HashSet;

    use rockcask_core::casket::{Compression, CursorPut, PutMode};

    use super::*;

    fn check_table<T>(codes: &Codes<T>) {
        assert_eq!(codes.java.values.len(), codes.variants.len(), "{}", codes.what);
        let distinct: HashSet<i64> = codes.java.values.iter().map(|c| c.value).collect();
        assert_eq!(distinct.len(), codes.variants.len(), "{} has a code twice", codes.what);
    }

    #[test]
    fn every_code_table_gives_each_code_one_variant() {
        check_table(&PUT_MODES);
        check_table(&CURSOR_PUT_MODES);
        check_table(&KEY_ORDERS);
        check_table(&CASKET_COMPRESSION);
    }

    #[test]
    fn codes_decode_to_their_variants_and_an_unknown_one_is_refused_naming_the_parameter_and_value() {
        assert_eq!(PUT_MODES.decode(3, "mode").unwrap(), PutMode::Dup);
        assert_eq!(CURSOR_PUT_MODES.decode(1, "mode").unwrap(), CursorPut::Before);
        assert_eq!(CASKET_COMPRESSION.decode(2, "compression").unwrap(), Compression::Zstd);
        assert_eq!(KEY_ORDERS.decode(1, "cmpfunc").unwrap().id(), "decimal");
        match CURSOR_PUT_MODES.decode(7, "mode") {
            Err(BridgeError::InvalidArgument(m)) => assert_eq!(m, "mode: unknown cursor put mode 7"),
            other => panic!("{:?}", other.map(|_| ())),
        }
    }
}

/// The compression codes (`rockcask_core::compress::Compression::code`): the constants of
/// `Wire` that `org.rockcask.Compression` takes its codes from.
pub const COMPRESSION_CODES: JavaConstants = {
    use rockcask_core::compress::Compression;
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
/// where the layout is defined, reads it).
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
    use rockcask_core::compress::Compression;

    use super::*;

    #[test]
    fn every_compression_and_message_type_has_its_java_constant() {
        assert_eq!(COMPRESSION_CODES.values.len(), Compression::ALL.len());
        for c in Compression::ALL {
            assert!(COMPRESSION_CODES.values.iter().any(|j| j.value == i64::from(c.code())), "{c:?}");
        }
        // Every type's code is a shape constant plus a kind constant, or the target object's.
        let (shapes, rest) = MESSAGE_TYPES.values.split_at(4);
        let (kinds, target) = rest.split_at(6);
        for ty in MessageType::all() {
            let code = i64::from(ty.code());
            let spelled = target[0].value == code || shapes.iter().any(|s| kinds.iter().any(|k| s.value + k.value == code));
            assert!(spelled, "{ty:?}");
        }
    }
}
