//! Mapping of every failure to one Java exception class.
//!
//! RockCask's own failures become `org.rockcask.RockCaskException`, whose message starts with a
//! status code ("Locked: ...", "IOError: ...") that the Java class exposes as `status()`.

use jni::errors::ErrorPolicy;
use jni::strings::JNIString;
use jni::Env;
use rockcask_core::Error as CoreError;

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
    /// Buffered operations failed to apply, so the transaction was rolled back.
    #[error("transaction rolled back: applying buffered operations failed: {0}")]
    RolledBack(Box<BridgeError>),
}

pub type BridgeResult<T> = Result<T, BridgeError>;

const ILLEGAL_STATE: &str = "java/lang/IllegalStateException";
const ILLEGAL_ARGUMENT: &str = "java/lang/IllegalArgumentException";
const NULL_POINTER: &str = "java/lang/NullPointerException";
const ROCKCASK: &str = "org/rockcask/RockCaskException";
/// Caught by the drop-in's classes, which turn it into an error code and a failure value.
const CASKET: &str = "tokyocabinet/CasketException";
/// Thrown for input that is not a valid message; the message carries "type:offset:detail".
const CODEC: &str = "org/rockcask/codec/CodecException";
/// Thrown for a damaged or unreadable snapshot; the message carries "offset:frame:BadSnapshot: detail".
const SNAPSHOT: &str = "org/rockcask/SnapshotException";

/// A rolled-back transaction's error is thrown as its cause's class, status included, with a
/// message that says the transaction is gone.
fn rolled_back(class: &'static str, cause_message: String) -> (&'static str, String) {
    let status = cause_message.split_once(": ").filter(|_| class == ROCKCASK).map(|(s, _)| format!("{s}: ")).unwrap_or_default();
    (class, format!("{status}transaction rolled back: {cause_message}"))
}

fn core_class_and_message(e: &CoreError) -> (&'static str, String) {
    match e {
        CoreError::Closed(_) | CoreError::TransactionFinished(_) => (ILLEGAL_STATE, e.to_string()),
        CoreError::InvalidArgument(_) => (ILLEGAL_ARGUMENT, e.to_string()),
        CoreError::NoSuchObject(_) => (ROCKCASK, format!("NoSuchObject: {e}")),
        CoreError::ReadOnly(_) => (ROCKCASK, format!("ReadOnly: {e}")),
        CoreError::Locked { .. } => (ROCKCASK, format!("Locked: {e}")),
        CoreError::NotAStore { .. } => (ROCKCASK, format!("NotAStore: {e}")),
        CoreError::Corrupt(_) => (ROCKCASK, format!("Corruption: {e}")),
        CoreError::Internal(_) => (ROCKCASK, format!("Internal: {e}")),
        CoreError::RolledBack(cause) => {
            let (class, message) = core_class_and_message(cause);
            rolled_back(class, message)
        }
        CoreError::Snapshot { offset, frame, .. } => {
            (SNAPSHOT, format!("{offset}:{}:BadSnapshot: {e}", frame.map_or(-1, |f| f as i64)))
        }
        CoreError::TargetExists { .. } => (ROCKCASK, format!("TargetExists: {e}")),
        CoreError::Io { .. } => (ROCKCASK, format!("IOError: {e}")),
        // Display already starts with the RocksDB status name.
        CoreError::Rocks { .. } => (ROCKCASK, e.to_string()),
    }
}

impl BridgeError {
    fn java_class_and_message(&self) -> (&'static str, String) {
        match self {
            // The cause decides the class; the message says the transaction is gone.
            BridgeError::RolledBack(cause) => {
                let (class, message) = cause.java_class_and_message();
                rolled_back(class, format!("applying buffered operations failed: {message}"))
            }
            BridgeError::Core(e) => core_class_and_message(e),
            BridgeError::Casket(e) => (CASKET, format!("{}:{}", e.code as i32, e.detail)),
            BridgeError::Codec(e) => (CODEC, format!("{}:{}:{}", e.message, e.offset, e.detail)),
            BridgeError::Jni(e) => (ROCKCASK, format!("Internal: {e}")),
            BridgeError::Null(_) => (NULL_POINTER, self.to_string()),
            BridgeError::BadHandle(_) => (ILLEGAL_STATE, self.to_string()),
            BridgeError::InvalidArgument(_) => (ILLEGAL_ARGUMENT, self.to_string()),
        }
    }
}

fn throw(env: &mut Env<'_>, class: &str, message: String) {
    // FindClass, called from a native method, resolves through the loader of the class that
    // declared it: the exception class is the one this copy of the library serves, also when
    // the thread's context class loader (which a lookup by name tries first) holds another copy
    // of RockCask (another class loader in the same JVM), whose class the caller would not catch.
    // If throwing itself fails there is nothing better to do: the JVM has an exception pending
    // (OutOfMemoryError, NoClassDefFoundError) that describes the failure.
    match env.find_class(JNIString::from(class)) {
        Ok(found) => {
            let _ = env.throw_new(&found, JNIString::from(message));
        }
        Err(_) => {
            let _ = env.throw_new(JNIString::from(class), JNIString::from(message));
        }
    }
}

/// Throws the mapped exception for errors and `RockCaskException("Internal: ...")` for panics;
/// an exception already pending (from a failed JNI call) is left to propagate.
pub struct ThrowMapped;

impl<T: Default> ErrorPolicy<T, BridgeError> for ThrowMapped {
    type Captures<'unowned_env_local: 'native_method, 'native_method> = ();

    fn on_error<'unowned_env_local: 'native_method, 'native_method>(
        env: &mut Env<'unowned_env_local>,
        _cap: &mut (),
        err: BridgeError,
    ) -> jni::errors::Result<T> {
        if !env.exception_check() {
            let (class, message) = err.java_class_and_message();
            throw(env, class, message);
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
            None => payload.downcast_ref::<String>().cloned().unwrap_or_else(|| "non-string panic".into()),
        };
        // Dropping a payload can itself panic; leak it instead (it is tiny and this is a bug path).
        std::mem::forget(payload);
        if !env.exception_check() {
            throw(env, ROCKCASK, format!("Internal: RockCask native panic: {what}"));
        }
        Ok(T::default())
    }
}

