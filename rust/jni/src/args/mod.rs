//! How each Rust type in a `native_class!` table crosses JNI: its JNI descriptor, the raw type
//! the JVM passes, and the checked conversion to the value the Rust function receives (or, for
//! results, back). Conversions that can fail name the parameter. The packed `byte[]` layouts
//! some of them carry are `wire`'s; the numbers records and codes hold are `contract`'s.

use std::path::PathBuf;
use std::time::Duration;

use jni::objects::{JByteArray, JByteBuffer, JLongArray, JObjectArray, JPrimitiveArray, JString, TypeArray};
use jni::sys::jlong;
use jni::Env;
use rockcask_core::compress::Compression;
use rockcask_core::Uuid;

use crate::contract::{self, Record, Slots};
use crate::error::{BridgeError, BridgeResult};
use crate::handle::{self, into_handle, Tagged};
use crate::wire;

pub mod java_bytes;
mod names;

pub use names::{MapName, QueueName, Text};

/// A parameter type of a native method.
pub trait Arg {
    /// What the JVM passes.
    type Raw<'local>;
    /// What the Rust function receives.
    type Value<'local>;
    const DESCRIPTOR: &'static str;
    fn from_java<'local>(
        env: &mut Env<'local>,
        raw: Self::Raw<'local>,
        name: &'static str,
    ) -> BridgeResult<Self::Value<'local>>;
}

/// A result type of a native method.
pub trait Ret {
    /// What the Rust function returns.
    type Value<'local>;
    /// What the JVM receives; its default is what a call that threw returns.
    type Raw<'local>: Default;
    const DESCRIPTOR: &'static str;
    fn into_java<'local>(value: Self::Value<'local>, env: &mut Env<'local>) -> BridgeResult<Self::Raw<'local>>;
}

/// Primitives cross unchanged.
macro_rules! primitive {
    ($($ty:ty => $d:literal),*) => {$(
        impl Arg for $ty {
            type Raw<'local> = $ty;
            type Value<'local> = $ty;
            const DESCRIPTOR: &'static str = $d;
            fn from_java<'local>(_env: &mut Env<'local>, raw: $ty, _name: &'static str) -> BridgeResult<$ty> {
                Ok(raw)
            }
        }

        impl Ret for $ty {
            type Value<'local> = $ty;
            type Raw<'local> = $ty;
            const DESCRIPTOR: &'static str = $d;
            fn into_java<'local>(value: $ty, _env: &mut Env<'local>) -> BridgeResult<$ty> {
                Ok(value)
            }
        }
    )*};
}
primitive!(bool => "Z", i32 => "I", i64 => "J", f64 => "D");

impl Ret for () {
    type Value<'local> = ();
    type Raw<'local> = ();
    const DESCRIPTOR: &'static str = "V";
    fn into_java<'local>(_value: (), _env: &mut Env<'local>) -> BridgeResult<()> {
        Ok(())
    }
}

// Handles. Why a `long` from Java may be turned into a reference (`handle::borrow`) or taken
// back (`handle::take`) here, the two places that do so: only RockCask's own classes hold and
// pass handles. The native methods are package-private, in the packages of the classes that
// own the handles, and each handle lives in a `NativeResource`, which counts the calls in
// flight, starts none once closing has begun, and calls the class's `free` once, when no call
// is in flight any more (`NativeResource.close`, or its Cleaner once the owner is unreachable).
// So a handle passed to a call stays live until the call returns, which is as long as the
// reference below lives (`'local`, the native method's frame), and a handle passed to `free` is
// passed once, with nothing else using it. A handle of another type, or zero, is refused by the
// tag check (IllegalStateException); a made-up number is not, which is why nothing outside
// RockCask's packages may call the natives.

/// A handle (`long`) from Java arrives as a reference to its object, its type tag checked.
impl<T: Tagged + 'static> Arg for &T {
    type Raw<'local> = jlong;
    type Value<'local> = &'local T;
    const DESCRIPTOR: &'static str = "J";
    fn from_java<'local>(_env: &mut Env<'local>, raw: jlong, _name: &'static str) -> BridgeResult<&'local T> {
        // SAFETY: see "Handles" above: the handle is live while the native call runs.
        unsafe { handle::borrow::<T>(raw) }
    }
}

/// A handle given back by the class's `free`: the object, for the function to drop (`None`
/// for zero).
pub struct Freed<T>(pub Option<T>);

impl<T: Tagged + 'static> Arg for Freed<T> {
    type Raw<'local> = jlong;
    type Value<'local> = Freed<T>;
    const DESCRIPTOR: &'static str = "J";
    fn from_java<'local>(_env: &mut Env<'local>, raw: jlong, _name: &'static str) -> BridgeResult<Freed<T>> {
        // SAFETY: see "Handles" above: `free` is called once per handle, with no call in flight.
        unsafe { handle::take::<T>(raw) }.map(Freed)
    }
}

/// A new native object handed to Java as a handle (which Java frees exactly once).
pub struct NewHandle<T>(pub T);

impl<T: Tagged> Ret for NewHandle<T> {
    type Value<'local> = NewHandle<T>;
    type Raw<'local> = jlong;
    const DESCRIPTOR: &'static str = "J";
    fn into_java<'local>(value: NewHandle<T>, _env: &mut Env<'local>) -> BridgeResult<jlong> {
        Ok(into_handle(value.0))
    }
}

/// A `byte[]` that must not be null, copied.
impl Arg for Vec<u8> {
    type Raw<'local> = JByteArray<'local>;
    type Value<'local> = Vec<u8>;
    const DESCRIPTOR: &'static str = "[B";
    fn from_java<'local>(env: &mut Env<'local>, raw: JByteArray<'local>, name: &'static str) -> BridgeResult<Vec<u8>> {
        bytes(env, &raw, name)
    }
}

impl Ret for Vec<u8> {
    type Value<'local> = Vec<u8>;
    type Raw<'local> = JByteArray<'local>;
    const DESCRIPTOR: &'static str = "[B";
    fn into_java<'local>(value: Vec<u8>, env: &mut Env<'local>) -> BridgeResult<JByteArray<'local>> {
        crate::wire::check_fits_java_array(value.len())?;
        java_bytes::new_array(env, &value)
    }
}

/// Absent is `null`.
impl Ret for Option<Vec<u8>> {
    type Value<'local> = Option<Vec<u8>>;
    type Raw<'local> = JByteArray<'local>;
    const DESCRIPTOR: &'static str = "[B";
    fn into_java<'local>(value: Option<Vec<u8>>, env: &mut Env<'local>) -> BridgeResult<JByteArray<'local>> {
        match value {
            Some(v) => Vec::<u8>::into_java(v, env),
            None => Ok(JByteArray::default()),
        }
    }
}

/// JNI references passed through as they are (possibly null), for functions that work on them
/// in place.
macro_rules! pass_through {
    ($($(#[$meta:meta])* $ty:ident => $d:literal),* $(,)?) => {$(
        $(#[$meta])*
        impl Arg for $ty<'_> {
            type Raw<'local> = $ty<'local>;
            type Value<'local> = $ty<'local>;
            const DESCRIPTOR: &'static str = $d;
            fn from_java<'local>(_env: &mut Env<'local>, raw: $ty<'local>, _name: &'static str) -> BridgeResult<$ty<'local>> {
                Ok(raw)
            }
        }
    )*};
}
pass_through! {
    /// A `byte[]` left in the JVM, for functions that copy regions of it.
    JByteArray => "[B",
    /// A direct `ByteBuffer`; `direct_buffer` reads it.
    JByteBuffer => "Ljava/nio/ByteBuffer;",
    /// A `long[]` the function fills.
    JLongArray => "[J",
}

/// A `byte[]` the function makes itself (so that it can act when the JVM cannot make one).
pub enum JavaByteArray {}

impl Ret for JavaByteArray {
    type Value<'local> = JByteArray<'local>;
    type Raw<'local> = JByteArray<'local>;
    const DESCRIPTOR: &'static str = "[B";
    fn into_java<'local>(value: JByteArray<'local>, _env: &mut Env<'local>) -> BridgeResult<JByteArray<'local>> {
        Ok(value)
    }
}

/// A `byte[][]` the function makes itself, element by element.
pub enum JavaByteArrays {}

impl Ret for JavaByteArrays {
    type Value<'local> = JObjectArray<'local, JByteArray<'local>>;
    type Raw<'local> = JObjectArray<'local, JByteArray<'local>>;
    const DESCRIPTOR: &'static str = "[[B";
    fn into_java<'local>(value: Self::Value<'local>, _env: &mut Env<'local>) -> BridgeResult<Self::Raw<'local>> {
        Ok(value)
    }
}

/// Object ids from a `long[]` of (most, least significant bits) pairs, at most
/// `MAX_BATCH_ITEMS` of them (checked before anything is allocated for them).
pub struct Ids(pub Vec<uuid::Uuid>);

impl Arg for Ids {
    type Raw<'local> = JLongArray<'local>;
    type Value<'local> = Ids;
    const DESCRIPTOR: &'static str = "[J";
    fn from_java<'local>(env: &mut Env<'local>, raw: JLongArray<'local>, name: &'static str) -> BridgeResult<Ids> {
        use rockcask_core::options::MAX_BATCH_ITEMS;
        let len = array_len(env, &raw, name)?;
        if len % 2 != 0 || len / 2 > MAX_BATCH_ITEMS {
            return Err(BridgeError::InvalidArgument(format!(
                "{name} must hold two longs per id and at most {MAX_BATCH_ITEMS} ids, got {len} longs"
            )));
        }
        let mut bits = vec![0i64; len];
        raw.get_region(env, 0, &mut bits)?;
        Ok(Ids(bits.chunks_exact(2).map(|p| uuid(p[0], p[1])).collect()))
    }
}

/// Positions in a queue from a `long[]` (null: none given), at most `MAX_BATCH_ITEMS`, none
/// negative.
pub struct Sequences(pub Option<Vec<u64>>);

impl Arg for Sequences {
    type Raw<'local> = JLongArray<'local>;
    type Value<'local> = Sequences;
    const DESCRIPTOR: &'static str = "[J";
    fn from_java<'local>(
        env: &mut Env<'local>,
        raw: JLongArray<'local>,
        name: &'static str,
    ) -> BridgeResult<Sequences> {
        use rockcask_core::options::MAX_BATCH_ITEMS;
        if raw.is_null() {
            return Ok(Sequences(None));
        }
        let len = array_len(env, &raw, name)?;
        if len > MAX_BATCH_ITEMS {
            return Err(BridgeError::InvalidArgument(format!(
                "{name} holds {len} sequences; at most {MAX_BATCH_ITEMS} are allowed"
            )));
        }
        let mut values = vec![0i64; len];
        raw.get_region(env, 0, &mut values)?;
        let seqs = values
            .into_iter()
            .map(|v| {
                u64::try_from(v).map_err(|_| BridgeError::InvalidArgument(format!("{name}: sequence {v} is negative")))
            })
            .collect::<BridgeResult<Vec<u64>>>()?;
        Ok(Sequences(Some(seqs)))
    }
}

/// A path (a store's, a casket's, a snapshot file's), passed as the UTF-8 bytes of its Java
/// string, encoded by Java as every name is (`org.rockcask.internal.Utf8.name`, which refuses
/// a string that has none: an unpaired surrogate; see `names` for why no string crosses as a
/// JNI `String`). These bytes are exactly what the file system gets.
impl Arg for PathBuf {
    type Raw<'local> = JByteArray<'local>;
    type Value<'local> = PathBuf;
    const DESCRIPTOR: &'static str = "[B";
    fn from_java<'local>(env: &mut Env<'local>, raw: JByteArray<'local>, name: &'static str) -> BridgeResult<PathBuf> {
        let bytes = Vec::<u8>::from_java(env, raw, name)?;
        String::from_utf8(bytes)
            .map(PathBuf::from)
            .map_err(|_| BridgeError::InvalidArgument(format!("{name} is not valid UTF-8")))
    }
}

/// A command line: a `byte[][]` (none of it null) of the arguments as the platform encodes
/// them (Java's `sun.jnu.encoding`, the charset it decoded them from), for the CLI. On Unix the
/// bytes are the arguments as they are; elsewhere they must be UTF-8.
pub struct CommandLine(pub Vec<std::ffi::OsString>);

impl Arg for CommandLine {
    type Raw<'local> = JObjectArray<'local, JByteArray<'local>>;
    type Value<'local> = CommandLine;
    const DESCRIPTOR: &'static str = "[[B";
    fn from_java<'local>(
        env: &mut Env<'local>,
        raw: JObjectArray<'local, JByteArray<'local>>,
        name: &'static str,
    ) -> BridgeResult<CommandLine> {
        if raw.is_null() {
            return Err(BridgeError::Null(name));
        }
        let len = raw.len(env)?;
        let mut args = Vec::with_capacity(len);
        for i in 0..len {
            let element = raw.get_element(env, i)?;
            let bytes = bytes(env, &element, name)?;
            env.delete_local_ref(element);
            #[cfg(unix)]
            args.push(std::os::unix::ffi::OsStringExt::from_vec(bytes));
            #[cfg(not(unix))]
            args.push(std::ffi::OsString::from(String::from_utf8(bytes).map_err(|_| {
                BridgeError::InvalidArgument(format!("{name}: argument {i} is not valid UTF-8"))
            })?));
        }
        Ok(CommandLine(args))
    }
}

impl Ret for String {
    type Value<'local> = String;
    type Raw<'local> = JString<'local>;
    const DESCRIPTOR: &'static str = "Ljava/lang/String;";
    fn into_java<'local>(value: String, env: &mut Env<'local>) -> BridgeResult<JString<'local>> {
        Ok(JString::from_str(env, value)?)
    }
}

/// A count from an `int` that must not be negative.
#[derive(Clone, Copy, Debug)]
pub struct Count(pub usize);

impl Arg for Count {
    type Raw<'local> = i32;
    type Value<'local> = Count;
    const DESCRIPTOR: &'static str = "I";
    fn from_java<'local>(_env: &mut Env<'local>, raw: i32, name: &'static str) -> BridgeResult<Count> {
        usize::try_from(raw)
            .map(Count)
            .map_err(|_| BridgeError::InvalidArgument(format!("{name} must not be negative, got {raw}")))
    }
}

/// A duration from a `long` of milliseconds that must not be negative.
impl Arg for Duration {
    type Raw<'local> = i64;
    type Value<'local> = Duration;
    const DESCRIPTOR: &'static str = "J";
    fn from_java<'local>(_env: &mut Env<'local>, raw: i64, name: &'static str) -> BridgeResult<Duration> {
        u64::try_from(raw)
            .map(Duration::from_millis)
            .map_err(|_| BridgeError::InvalidArgument(format!("{name} must not be negative, got {raw} ms")))
    }
}

/// The per-queue codecs of `StoreOptions` (`wire::unpack_queue_codecs`), each code a
/// `Compression`.
pub struct QueueCodecs(pub Vec<(String, Compression)>);

impl Arg for QueueCodecs {
    type Raw<'local> = JByteArray<'local>;
    type Value<'local> = QueueCodecs;
    const DESCRIPTOR: &'static str = "[B";
    fn from_java<'local>(
        env: &mut Env<'local>,
        raw: JByteArray<'local>,
        name: &'static str,
    ) -> BridgeResult<QueueCodecs> {
        let packed = bytes(env, &raw, name)?;
        let codecs = wire::unpack_queue_codecs(&packed)?
            .into_iter()
            .map(|(queue, code)| Ok((queue, contract::compression(code.into(), name)?)));
        Ok(QueueCodecs(codecs.collect::<BridgeResult<_>>()?))
    }
}

/// A `long[]` record with the slots of `S`.
impl<S: Slots> Arg for Record<S> {
    type Raw<'local> = JLongArray<'local>;
    type Value<'local> = Record<S>;
    const DESCRIPTOR: &'static str = "[J";
    fn from_java<'local>(
        env: &mut Env<'local>,
        raw: JLongArray<'local>,
        name: &'static str,
    ) -> BridgeResult<Record<S>> {
        let mut values = vec![0i64; array_len(env, &raw, name)?];
        raw.get_region(env, 0, &mut values)?;
        Record::new(values)
    }
}

/// A record going out as a new `long[]`.
pub struct RecordOut(pub Vec<i64>);

impl Ret for RecordOut {
    type Value<'local> = RecordOut;
    type Raw<'local> = JLongArray<'local>;
    const DESCRIPTOR: &'static str = "[J";
    fn into_java<'local>(value: RecordOut, env: &mut Env<'local>) -> BridgeResult<JLongArray<'local>> {
        let array = env.new_long_array(value.0.len())?;
        array.set_region(env, 0, &value.0)?;
        Ok(array)
    }
}

/// Declares a Java object parameter of one class (`JObject` itself has no descriptor) (a listener, a comparator), possibly null:
/// `java_object!(Relay, "Lorg/rockcask/SnapshotProgress$Relay;")`.
macro_rules! java_object {
    ($(#[$meta:meta])* $name:ident, $descriptor:literal) => {
        $(#[$meta])*
        pub struct $name<'local>(pub ::jni::objects::JObject<'local>);

        impl $crate::args::Arg for $name<'_> {
            type Raw<'local> = ::jni::objects::JObject<'local>;
            type Value<'local> = $name<'local>;
            const DESCRIPTOR: &'static str = $descriptor;
            fn from_java<'local>(_env: &mut ::jni::Env<'local>, raw: ::jni::objects::JObject<'local>, _name: &'static str) -> $crate::error::BridgeResult<$name<'local>> {
                Ok($name(raw))
            }
        }
    };
}
pub(crate) use java_object;

/// A parameter that may be null (`None`); otherwise converted as its non-null type.
macro_rules! nullable {
    ($($ty:ty => $raw:ident),*) => {$(
        impl Arg for Option<$ty> {
            type Raw<'local> = $raw<'local>;
            type Value<'local> = Option<$ty>;
            const DESCRIPTOR: &'static str = <$ty as Arg>::DESCRIPTOR;
            fn from_java<'local>(env: &mut Env<'local>, raw: $raw<'local>, name: &'static str) -> BridgeResult<Option<$ty>> {
                if raw.is_null() {
                    return Ok(None);
                }
                <$ty as Arg>::from_java(env, raw, name).map(Some)
            }
        }
    )*};
}
nullable!(Vec<u8> => JByteArray, Text => JByteArray);

/// Declares the `Arg` impls of enums that cross JNI as an `int` code, each decoded by a
/// `fn(code: i64, name: &str) -> BridgeResult<T>` (`contract` defines the codes):
/// `code_arg!(PutMode => |code, name| contract::PUT_MODES.decode(code, name))`.
macro_rules! code_arg {
    ($($ty:ty => $decode:expr),* $(,)?) => {$(
        impl $crate::args::Arg for $ty {
            type Raw<'local> = i32;
            type Value<'local> = $ty;
            const DESCRIPTOR: &'static str = "I";
            fn from_java<'local>(_env: &mut ::jni::Env<'local>, raw: i32, name: &'static str) -> $crate::error::BridgeResult<$ty> {
                ($decode)(i64::from(raw), name)
            }
        }
    )*};
}
pub(crate) use code_arg;

/// A `byte[]` that must not be null, copied.
pub fn bytes(env: &Env<'_>, array: &JByteArray<'_>, what: &'static str) -> BridgeResult<Vec<u8>> {
    if array.is_null() {
        return Err(BridgeError::Null(what));
    }
    Ok(java_bytes::to_vec(env, array))
}

/// The memory of a direct buffer, all of its capacity.
///
/// # Safety
///
/// The caller uses the slice only during the current native call (a local reference keeps the
/// buffer reachable) and Java does not touch the buffer meanwhile.
pub unsafe fn direct_buffer<'b>(
    env: &Env<'_>,
    buffer: &JByteBuffer<'_>,
    what: &'static str,
) -> BridgeResult<&'b mut [u8]> {
    if buffer.is_null() {
        return Err(BridgeError::Null(what));
    }
    let address = env.get_direct_buffer_address(buffer)?;
    let capacity = env.get_direct_buffer_capacity(buffer)?;
    // SAFETY: see the function contract.
    Ok(unsafe { std::slice::from_raw_parts_mut(address, capacity) })
}

/// View a byte buffer as the `jbyte` (i8) slice JNI region calls take.
pub fn as_jbytes(buf: &mut [u8]) -> &mut [i8] {
    // SAFETY: u8 and i8 have the same size and alignment; every bit pattern is valid for both.
    unsafe { std::slice::from_raw_parts_mut(buf.as_mut_ptr().cast::<i8>(), buf.len()) }
}

/// Length of a non-null Java array of primitives.
pub fn array_len<T: TypeArray>(
    env: &Env<'_>,
    array: &JPrimitiveArray<'_, T>,
    what: &'static str,
) -> BridgeResult<usize> {
    if array.is_null() {
        return Err(BridgeError::Null(what));
    }
    Ok(array.len(env)?)
}

/// An id from the two longs Java holds it as (`UUID.getMostSignificantBits`, then least).
pub fn uuid(msb: i64, lsb: i64) -> Uuid {
    Uuid::from_u64_pair(msb as u64, lsb as u64)
}
