//! Mapping of every failure to one Java exception, built on the native side from its fields.
//!
//! RockCask's own failures become `org.rockcask.RockCaskException` with a status (a RocksDB
//! status or one of RockCask's own), which its message starts with ("Locked: ...",
//! "IOError: ...") and `status()` returns. Each exception class gets the fields it exposes
//! (status, offset, frame, message type, error code) as constructor arguments, so nothing is
//! encoded into a message only to be parsed back in Java.

use std::sync::OnceLock;

use jni::errors::ErrorPolicy;
use jni::ids::JMethodID;
use jni::objects::{JClass, JObject, JThrowable};
use jni::refs::Global;
use jni::signature::MethodSignature;
use jni::strings::JNIString;
use jni::sys::jvalue;
use jni::{jni_sig, jni_str, Env, JValue};
use rockcask_core::{Error as CoreError, RocksStatus};

#[derive(Debug, thiserror::Error)]
pub enum BridgeError {
    #[error(transparent)]
    Core(#[from] CoreError),
    /// A Tokyo Cabinet drop-in failure: reported through `ecode()`, not as an exception.
    #[error(transparent)]
    Casket(#[from] rockcask_core::casket::CasketError),
    /// Bytes that are not a valid message of the expected type.
    #[error(transparent)]
    Codec(#[from] rockcask_core::codec::CodecError),
    #[error("JNI call failed: {0}")]
    Jni(#[from] jni::errors::Error),
    /// A Java argument that must not be null was null.
    #[error("{0} must not be null")]
    Null(&'static str),
    /// A handle that is zero or not of the expected type.
    #[error("{0}")]
    BadHandle(String),
    #[error("{0}")]
    InvalidArgument(String),
    /// A result larger than one Java array holds (`wire::check_fits_java_array`); `call` is the
    /// native method's, added as it returns. Thrown as `IllegalArgumentException`: the caller
    /// asked for more than one call can return.
    #[error(
        "the result of {} is {bytes} bytes, more than the {} one Java array holds: ask for less at a time",
        call.unwrap_or("a native call"),
        crate::wire::MAX_JAVA_ARRAY_BYTES
    )]
    ResultTooLarge { bytes: usize, call: Option<&'static str> },
    /// Buffered operations failed to apply, so the transaction was rolled back.
    #[error("transaction rolled back: applying buffered operations failed: {0}")]
    RolledBack(Box<BridgeError>),
}

pub type BridgeResult<T> = Result<T, BridgeError>;

impl BridgeError {
    /// This error as the result of native method `call` (which a result too large for Java
    /// names).
    pub fn returned_by(self, call: &'static str) -> BridgeError {
        match self {
            BridgeError::ResultTooLarge { bytes, call: None } => BridgeError::ResultTooLarge {
                bytes,
                call: Some(call),
            },
            other => other,
        }
    }
}

const ILLEGAL_STATE: &str = "java/lang/IllegalStateException";
const ILLEGAL_ARGUMENT: &str = "java/lang/IllegalArgumentException";
const NULL_POINTER: &str = "java/lang/NullPointerException";
const OUT_OF_MEMORY: &str = "java/lang/OutOfMemoryError";
const ROCKCASK: &str = "org/rockcask/RockCaskException";
/// Caught by the drop-in's classes, which turn it into an error code and a failure value.
const CASKET: &str = "tokyocabinet/CasketException";
/// Thrown for input that is not a valid message.
const CODEC: &str = "org/rockcask/codec/CodecException";
/// Thrown for a damaged or unreadable snapshot (status BadSnapshot).
const SNAPSHOT: &str = "org/rockcask/SnapshotException";

/// Declares `JavaStatus` with a variant per status, named as the Java enum's constant, and
/// its conversion from RocksDB's status codes (an exhaustive match: a status RocksDB adds does
/// not compile until it is listed here, and so checked against the Java enum).
macro_rules! java_statuses {
    (rocks: $($rocks:ident),+; own: $($own:ident),+ $(,)?) => {
        /// A constant of `org.rockcask.RockCaskException.Status`: RocksDB's status codes and
        /// the statuses of RockCask's own failures.
        #[derive(Clone, Copy, Debug, PartialEq, Eq)]
        enum JavaStatus { $($rocks,)+ $($own,)+ }

        impl JavaStatus {
            /// Every status this layer throws; each must be a constant of the Java enum.
            #[cfg(test)]
            const ALL: &'static [JavaStatus] = &[$(JavaStatus::$rocks,)+ $(JavaStatus::$own,)+];

            /// The name of the Java enum constant.
            fn name(self) -> &'static str {
                match self { $(JavaStatus::$rocks => stringify!($rocks),)+ $(JavaStatus::$own => stringify!($own),)+ }
            }
        }

        impl From<&RocksStatus> for JavaStatus {
            fn from(status: &RocksStatus) -> JavaStatus {
                match status { $(RocksStatus::$rocks => JavaStatus::$rocks,)+ }
            }
        }
    };
}

java_statuses! {
    rocks: NotFound, Corruption, NotSupported, InvalidArgument, IOError, MergeInProgress, Incomplete, ShutdownInProgress,
        TimedOut, Aborted, Busy, Expired, TryAgain, CompactionTooLarge, ColumnFamilyDropped, Unknown;
    own: Locked, NotAStore, ReadOnly, NoSuchObject, Internal, TargetExists, QueueFull, Conflict,
}

/// A Java exception as the arguments of the constructor that builds it. The last field of
/// each is the text that says what failed and where.
#[derive(Debug, PartialEq)]
enum JavaException {
    /// A `java.lang` exception, built from its message.
    Plain { class: &'static str, message: String },
    /// `RockCaskException(Status, detail)`, whose message is "Status: detail".
    Store { status: JavaStatus, detail: String },
    /// `SnapshotException(offset, frame, detail)`: status BadSnapshot, frame -1 for none.
    Snapshot {
        offset: u64,
        frame: Option<u64>,
        detail: String,
    },
    /// `CodecException(messageType, offset, detail)`.
    Codec {
        message_type: &'static str,
        offset: usize,
        detail: String,
    },
    /// `CasketException(code, detail)`.
    Casket { code: i32, detail: String },
}

impl JavaException {
    fn store(status: JavaStatus, e: &CoreError) -> JavaException {
        JavaException::Store {
            status,
            detail: e.to_string(),
        }
    }

    fn text_mut(&mut self) -> &mut String {
        match self {
            JavaException::Plain { message, .. } => message,
            JavaException::Store { detail, .. }
            | JavaException::Snapshot { detail, .. }
            | JavaException::Codec { detail, .. }
            | JavaException::Casket { detail, .. } => detail,
        }
    }
}

/// A rolled-back transaction's error is thrown as its cause's exception (class, status and
/// other fields), with a text that says once that the transaction is gone, what was being
/// done (`doing`, if anything) and the cause:
/// "IOError: transaction rolled back: applying buffered operations failed: store at ...".
fn rolled_back(mut cause: JavaException, doing: Option<&str>) -> JavaException {
    let text = cause.text_mut();
    let doing = doing.map(|d| format!("{d}: ")).unwrap_or_default();
    *text = format!("transaction rolled back: {doing}{text}");
    cause
}

/// Whether an error already says that its transaction was rolled back.
fn says_rolled_back(e: &BridgeError) -> bool {
    matches!(
        e,
        BridgeError::RolledBack(_) | BridgeError::Core(CoreError::RolledBack(_))
    )
}

fn core_exception(e: &CoreError) -> JavaException {
    match e {
        CoreError::Closed(_) | CoreError::TransactionFinished(_) => JavaException::Plain {
            class: ILLEGAL_STATE,
            message: e.to_string(),
        },
        CoreError::InvalidArgument(_) => JavaException::Plain {
            class: ILLEGAL_ARGUMENT,
            message: e.to_string(),
        },
        CoreError::NoSuchObject(_) => JavaException::store(JavaStatus::NoSuchObject, e),
        CoreError::QueueFull { .. } => JavaException::store(JavaStatus::QueueFull, e),
        CoreError::Conflict { .. } | CoreError::KeyHeld { .. } => JavaException::store(JavaStatus::Conflict, e),
        CoreError::ReadOnly(_) => JavaException::store(JavaStatus::ReadOnly, e),
        CoreError::Locked { .. } => JavaException::store(JavaStatus::Locked, e),
        CoreError::NotAStore { .. } => JavaException::store(JavaStatus::NotAStore, e),
        CoreError::Corrupt(_) => JavaException::store(JavaStatus::Corruption, e),
        CoreError::Internal(_) => JavaException::store(JavaStatus::Internal, e),
        CoreError::RolledBack(cause) if matches!(**cause, CoreError::RolledBack(_)) => core_exception(cause),
        CoreError::RolledBack(cause) => rolled_back(core_exception(cause), None),
        CoreError::Snapshot { offset, frame, .. } => JavaException::Snapshot {
            offset: *offset,
            frame: *frame,
            detail: e.to_string(),
        },
        CoreError::TargetExists { .. } => JavaException::store(JavaStatus::TargetExists, e),
        CoreError::Io { .. } => JavaException::store(JavaStatus::IOError, e),
        // The status is a field of its own, not the start of the text as in Display.
        CoreError::Rocks {
            status,
            context,
            message,
        } => JavaException::Store {
            status: status.into(),
            detail: format!("{context}: {message}"),
        },
    }
}

impl BridgeError {
    fn java_exception(&self) -> JavaException {
        match self {
            // The cause decides the exception; the text says the transaction is gone.
            BridgeError::RolledBack(cause) if says_rolled_back(cause) => cause.java_exception(),
            BridgeError::RolledBack(cause) => {
                rolled_back(cause.java_exception(), Some("applying buffered operations failed"))
            }
            BridgeError::Core(e) => core_exception(e),
            BridgeError::Casket(e) => JavaException::Casket {
                code: e.code as i32,
                detail: e.detail.clone(),
            },
            BridgeError::Codec(e) => JavaException::Codec {
                message_type: e.message,
                offset: e.offset,
                detail: e.detail.clone(),
            },
            // jni-rs catches the JVM's OutOfMemoryError (and clears it) when a Java array or
            // string cannot be had: it is thrown again as itself, which callers handle.
            BridgeError::Jni(jni::errors::Error::JniCall(jni::errors::JniError::NoMemory)) => JavaException::Plain {
                class: OUT_OF_MEMORY,
                message: "no Java heap left for the result of a RockCask call".into(),
            },
            BridgeError::Jni(e) => JavaException::Store {
                status: JavaStatus::Internal,
                detail: e.to_string(),
            },
            BridgeError::Null(_) => JavaException::Plain {
                class: NULL_POINTER,
                message: self.to_string(),
            },
            BridgeError::BadHandle(_) => JavaException::Plain {
                class: ILLEGAL_STATE,
                message: self.to_string(),
            },
            BridgeError::InvalidArgument(_) | BridgeError::ResultTooLarge { .. } => JavaException::Plain {
                class: ILLEGAL_ARGUMENT,
                message: self.to_string(),
            },
        }
    }
}

/// `cell`'s value, computed by `init` the first time it succeeds. Each class loader that loads
/// RockCask loads its own copy of this library, so a value cached here belongs to the classes
/// of one class loader (RockCask's: the drop-in's classes may have several, see casket.rs).
pub(crate) fn cached<T>(cell: &OnceLock<T>, init: impl FnOnce() -> jni::errors::Result<T>) -> jni::errors::Result<&T> {
    if let Some(found) = cell.get() {
        return Ok(found);
    }
    let found = init()?;
    Ok(cell.get_or_init(|| found))
}

// FindClass, called from a native method, resolves through the loader of the class that
// declared it: the exception class is the one this copy of the library serves, also when the
// thread's context class loader (which a lookup by name tries first) holds another copy of
// RockCask (another class loader in the same JVM), whose class the caller would not catch.
fn find_class(env: &mut Env<'_>, name: &str) -> jni::errors::Result<Global<JClass<'static>>> {
    let class = env.find_class(JNIString::from(name))?;
    env.new_global_ref(class)
}

/// An exception class and the constructor that takes its fields, both looked up once.
struct Constructor {
    class: &'static str,
    signature: MethodSignature<'static, 'static>,
    found: OnceLock<(Global<JClass<'static>>, JMethodID)>,
}

impl Constructor {
    const fn new(class: &'static str, signature: MethodSignature<'static, 'static>) -> Constructor {
        Constructor {
            class,
            signature,
            found: OnceLock::new(),
        }
    }

    /// # Safety
    ///
    /// `args` must match the constructor's signature in number and types.
    unsafe fn new_object<'local>(
        &self,
        env: &mut Env<'local>,
        args: &[JValue<'_>],
    ) -> jni::errors::Result<JObject<'local>> {
        let (class, id) = cached(&self.found, || {
            let class = find_class(env, self.class)?;
            let id = env.get_method_id(&class, jni_str!("<init>"), &self.signature)?;
            Ok((class, id))
        })?;
        let args: Vec<jvalue> = args.iter().map(JValue::as_jni).collect();
        // SAFETY: `id` is a constructor of `class` with `self.signature`, which the caller's
        // `args` match.
        unsafe { env.new_object_unchecked(class, *id, &args) }
    }
}

static STORE_EXCEPTION: Constructor = Constructor::new(
    ROCKCASK,
    jni_sig!("(Lorg/rockcask/RockCaskException$Status;Ljava/lang/String;)V"),
);
static SNAPSHOT_EXCEPTION: Constructor = Constructor::new(SNAPSHOT, jni_sig!("(JJLjava/lang/String;)V"));
static CODEC_EXCEPTION: Constructor = Constructor::new(CODEC, jni_sig!("(Ljava/lang/String;JLjava/lang/String;)V"));
static STATUS_CLASS: OnceLock<Global<JClass<'static>>> = OnceLock::new();

/// The constant of `RockCaskException.Status` named as `status`. A name the Java enum lacks
/// fails the lookup with NoSuchFieldError (and the unit tests check that none is lacking).
fn status_constant<'local>(env: &mut Env<'local>, status: JavaStatus) -> jni::errors::Result<JObject<'local>> {
    let class = cached(&STATUS_CLASS, || {
        find_class(env, "org/rockcask/RockCaskException$Status")
    })?;
    env.get_static_field(
        class,
        JNIString::from(status.name()),
        jni_sig!("Lorg/rockcask/RockCaskException$Status;"),
    )?
    .l()
}

fn new_throwable<'local>(env: &mut Env<'local>, exception: &JavaException) -> jni::errors::Result<JObject<'local>> {
    let long = |n: u64| JValue::Long(i64::try_from(n).unwrap_or(i64::MAX));
    // SAFETY (each unsafe call): the arguments are those of the constructor's signature, in order.
    match exception {
        JavaException::Plain { class, message } => {
            let class = env.find_class(JNIString::from(*class))?;
            let message = env.new_string(message)?;
            env.new_object(&class, jni_sig!("(Ljava/lang/String;)V"), &[JValue::Object(&message)])
        }
        JavaException::Store { status, detail } => {
            let status = status_constant(env, *status)?;
            let detail = env.new_string(detail)?;
            unsafe { STORE_EXCEPTION.new_object(env, &[JValue::Object(&status), JValue::Object(&detail)]) }
        }
        JavaException::Snapshot { offset, frame, detail } => {
            let detail = env.new_string(detail)?;
            let frame = frame.map_or(JValue::Long(-1), long);
            unsafe { SNAPSHOT_EXCEPTION.new_object(env, &[long(*offset), frame, JValue::Object(&detail)]) }
        }
        JavaException::Codec {
            message_type,
            offset,
            detail,
        } => {
            let message_type = env.new_string(message_type)?;
            let detail = env.new_string(detail)?;
            let offset = long(*offset as u64);
            unsafe {
                CODEC_EXCEPTION.new_object(env, &[JValue::Object(&message_type), offset, JValue::Object(&detail)])
            }
        }
        JavaException::Casket { code, detail } => {
            let detail = env.new_string(detail)?;
            // Looked up on each throw, not cached: the drop-in's classes may be loaded by several
            // class loaders beside this one copy of the library (which belongs to RockCask's);
            // FindClass from the calling native method finds the caller's own class.
            let class = env.find_class(JNIString::from(CASKET))?;
            env.new_object(
                &class,
                jni_sig!("(ILjava/lang/String;)V"),
                &[JValue::Int(*code), JValue::Object(&detail)],
            )
        }
    }
}

fn throw(env: &mut Env<'_>, exception: JavaException) {
    // jni-rs clears the exception of a JNI call it turns into an error (an OutOfMemoryError
    // while the message is made, a NoClassDefFoundError): then something must still be thrown,
    // or the call would return a null or zero result as if it had succeeded. If even that
    // fails the JVM has an exception pending that describes the failure.
    match new_throwable(env, &exception) {
        Ok(object) => {
            // SAFETY: every class built above is a Throwable, and `object` is a local reference
            // owned by no other wrapper.
            let _ = env.throw(unsafe { JThrowable::from_raw(env, object.into_raw()) });
        }
        Err(_) if !env.exception_check() => {
            let _ = env.throw_new(
                jni_str!("java/lang/OutOfMemoryError"),
                jni_str!("RockCask could not build the exception of a failed call"),
            );
        }
        Err(_) => {}
    }
}

/// Throws the mapped exception for errors and `RockCaskException` with status Internal for
/// panics; an exception already pending (from a failed JNI call) is left to propagate.
pub struct ThrowMapped;

impl<T: Default> ErrorPolicy<T, BridgeError> for ThrowMapped {
    type Captures<'unowned_env_local: 'native_method, 'native_method> = ();

    fn on_error<'unowned_env_local: 'native_method, 'native_method>(
        env: &mut Env<'unowned_env_local>,
        _cap: &mut (),
        err: BridgeError,
    ) -> jni::errors::Result<T> {
        if !env.exception_check() {
            throw(env, err.java_exception());
        }
        Ok(T::default())
    }

    fn on_panic<'unowned_env_local: 'native_method, 'native_method>(
        env: &mut Env<'unowned_env_local>,
        _cap: &mut (),
        payload: Box<dyn std::any::Any + Send + 'static>,
    ) -> jni::errors::Result<T> {
        let what = match payload.downcast_ref::<&'static str>() {
            Some(s) => (*s).to_string(),
            None => payload
                .downcast_ref::<String>()
                .cloned()
                .unwrap_or_else(|| "non-string panic".into()),
        };
        // Dropping a payload can itself panic; leak it instead (it is tiny and this is a bug path).
        std::mem::forget(payload);
        if !env.exception_check() {
            throw(
                env,
                JavaException::Store {
                    status: JavaStatus::Internal,
                    detail: format!("RockCask native panic: {what}"),
                },
            );
        }
        Ok(T::default())
    }
}

#[cfg(test)]
mod tests;
