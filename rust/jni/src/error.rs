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

/// A rolled-back transaction's error is thrown as its cause's class and (for a
/// `RockCaskException`) status, with a message that says once that the transaction is gone,
/// what was being done (`doing`, if anything) and the cause without its status:
/// "IOError: transaction rolled back: applying buffered operations failed: store at ...".
fn rolled_back(cause: (&'static str, String), doing: Option<&str>) -> (&'static str, String) {
    let (class, message) = cause;
    let (status, detail) = match message.split_once(": ") {
        Some((status, detail)) if class == ROCKCASK => (format!("{status}: "), detail),
        _ => (String::new(), message.as_str()),
    };
    let doing = doing.map(|d| format!("{d}: ")).unwrap_or_default();
    (class, format!("{status}transaction rolled back: {doing}{detail}"))
}

/// Whether an error already says that its transaction was rolled back.
fn says_rolled_back(e: &BridgeError) -> bool {
    matches!(e, BridgeError::RolledBack(_) | BridgeError::Core(CoreError::RolledBack(_)))
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
        CoreError::RolledBack(cause) if matches!(**cause, CoreError::RolledBack(_)) => core_class_and_message(cause),
        CoreError::RolledBack(cause) => rolled_back(core_class_and_message(cause), None),
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
            BridgeError::RolledBack(cause) if says_rolled_back(cause) => cause.java_class_and_message(),
            BridgeError::RolledBack(cause) => rolled_back(cause.java_class_and_message(), Some("applying buffered operations failed")),
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
    // If finding or throwing fails there is nothing better to do (and no JNI call may be made
    // with that exception pending): the JVM has an exception pending (OutOfMemoryError,
    // NoClassDefFoundError) that describes the failure.
    if let Ok(found) = env.find_class(JNIString::from(class)) {
        let _ = env.throw_new(&found, JNIString::from(message));
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


#[cfg(test)]
mod tests {
    use std::path::PathBuf;

    use rockcask_core::RocksStatus;

    use super::*;

    fn refused_after_full_disk() -> CoreError {
        CoreError::Rocks {
            status: RocksStatus::IOError,
            context: "store at /data/s refuses writes after a failed write; reopen it".into(),
            message: "IO error: No space left on device: While appending to file: /data/s/000009.log: No space left on device".into(),
        }
    }

    #[test]
    fn buffered_operations_refused_by_a_failed_store_keep_the_causes_status_and_say_everything_once() {
        let e = BridgeError::RolledBack(Box::new(BridgeError::Core(refused_after_full_disk())));
        let (class, message) = e.java_class_and_message();
        assert_eq!(class, ROCKCASK);
        assert_eq!(
            message,
            "IOError: transaction rolled back: applying buffered operations failed: store at /data/s refuses writes after a failed \
             write; reopen it: IO error: No space left on device: While appending to file: /data/s/000009.log: No space left on device"
        );
    }

    #[test]
    fn a_rolled_back_transaction_is_reported_once_with_its_causes_class_and_status() {
        let poll = CoreError::RolledBack(Box::new(CoreError::Corrupt("queue 'q' entry 7 is missing".into())));
        assert_eq!(
            core_class_and_message(&poll),
            (ROCKCASK, "Corruption: transaction rolled back: corrupt store data at queue 'q' entry 7 is missing".to_string())
        );
        let nested = BridgeError::RolledBack(Box::new(BridgeError::Core(poll)));
        assert_eq!(nested.java_class_and_message(), core_class_and_message(&CoreError::RolledBack(Box::new(CoreError::Corrupt("queue 'q' entry 7 is missing".into())))));
        let read_only = BridgeError::RolledBack(Box::new(BridgeError::Core(CoreError::ReadOnly(PathBuf::from("/data/s")))));
        assert_eq!(read_only.java_class_and_message().1, "ReadOnly: transaction rolled back: applying buffered operations failed: store at /data/s is open read-only");
        let bad = BridgeError::RolledBack(Box::new(BridgeError::InvalidArgument("payload too large".into())));
        assert_eq!(bad.java_class_and_message(), (ILLEGAL_ARGUMENT, "transaction rolled back: applying buffered operations failed: payload too large".to_string()));
    }
}
