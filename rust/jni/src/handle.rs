//! Native objects handed to Java as `long` handles, and the types of those objects.
//!
//! A handle is a pointer to a boxed `Handle<T>` that starts with a per-type tag, so a handle of
//! the wrong type (or zero) is refused with IllegalStateException instead of being used. Java's
//! `NativeResource` guarantees that no call is in flight when a handle is freed, and that no
//! call starts after; the tag is the second line of defence. Handles reach Rust code only as
//! arguments: `args.rs` turns them into references (`borrow`) or takes them back (`take`), and
//! says there why that is sound.

use std::ptr::NonNull;

use jni::sys::jlong;
use parking_lot::{Mutex, MutexGuard};
use rockcask_core::casket::Casket;
use rockcask_core::{Store, Transaction};

use crate::error::{BridgeError, BridgeResult};

pub trait Tagged {
    const TAG: u64;
    const NAME: &'static str;
}

#[repr(C)]
pub struct Handle<T> {
    tag: u64,
    value: T,
}

pub fn into_handle<T: Tagged>(value: T) -> jlong {
    Box::into_raw(Box::new(Handle { tag: T::TAG, value })) as jlong
}

/// The `Handle<T>` behind a non-zero `handle`, its alignment and tag checked.
///
/// # Safety
///
/// `handle` came from `into_handle` (of any type) and has not been taken back by `take`.
unsafe fn tagged<T: Tagged>(handle: jlong) -> BridgeResult<NonNull<Handle<T>>> {
    let ptr = NonNull::new(handle as *mut Handle<T>)
        .ok_or_else(|| BridgeError::BadHandle(format!("{} is closed", T::NAME)))?;
    if !(ptr.as_ptr() as usize).is_multiple_of(std::mem::align_of::<Handle<T>>()) {
        return Err(BridgeError::BadHandle(format!(
            "invalid {} handle {handle:#x}",
            T::NAME
        )));
    }
    // SAFETY: a live `Handle` of some type (the contract), and every `Handle` starts with its
    // `u64` tag (`repr(C)`), so the tag can be read whatever the type.
    if unsafe { ptr.cast::<u64>().read() } != T::TAG {
        return Err(BridgeError::BadHandle(format!(
            "handle {handle:#x} is not a {}",
            T::NAME
        )));
    }
    Ok(ptr)
}

/// The object behind `handle`.
///
/// # Safety
///
/// `handle` is zero or came from `into_handle` (of any type: the tag refuses other types), and
/// is not taken back by `take` while the reference lives.
pub unsafe fn borrow<'a, T: Tagged>(handle: jlong) -> BridgeResult<&'a T> {
    // SAFETY: the contract; the reference lives no longer than the object.
    Ok(unsafe { &tagged::<T>(handle)?.as_ref().value })
}

/// Takes the object behind `handle` back from Java, which must not use the handle again; zero
/// is none (an idempotent close).
///
/// # Safety
///
/// `handle` is zero or came from `into_handle` (of any type), has not been taken back before,
/// and no reference `borrow` gave for it is used afterwards.
pub unsafe fn take<T: Tagged>(handle: jlong) -> BridgeResult<Option<T>> {
    if handle == 0 {
        return Ok(None);
    }
    // SAFETY: the contract.
    let ptr = unsafe { tagged::<T>(handle)? }.as_ptr();
    // SAFETY: a live `Handle<T>` (tag checked) that nothing else uses (the contract). The tag is
    // cleared first, volatile so that it is not optimized away, so that a stale handle passed
    // again (a bug on the Java side) is refused as long as the memory is not reused.
    let boxed = unsafe {
        std::ptr::write_volatile(&raw mut (*ptr).tag, 0);
        Box::from_raw(ptr)
    };
    Ok(Some(boxed.value))
}

/// `org.rockcask.Store`'s native object.
pub struct StoreHandle(pub Store);

impl Tagged for StoreHandle {
    const TAG: u64 = 0x526f_636b_5374_6f72; // "RockStor"
    const NAME: &'static str = "Store";
}

/// `org.rockcask.Transaction`'s native object.
///
/// Java's `Transaction` serializes its calls (its methods are synchronized: it also guards the
/// operations it buffers). The native side does not wait a second time: it only refuses, with
/// IllegalStateException, a call that finds the transaction busy, so that no data race is
/// possible even if Java broke that rule.
pub struct TxHandle(Mutex<Transaction>);

impl TxHandle {
    pub fn new(tx: Transaction) -> Self {
        TxHandle(Mutex::new(tx))
    }

    pub fn lock(&self) -> BridgeResult<MutexGuard<'_, Transaction>> {
        self.0
            .try_lock()
            .ok_or_else(|| BridgeError::BadHandle("the transaction is busy with a call from another thread".into()))
    }
}

impl Tagged for TxHandle {
    const TAG: u64 = 0x526f_636b_5478_6e21; // "RockTxn!"
    const NAME: &'static str = "Transaction";
}

/// An open database of the Tokyo Cabinet drop-in (`tokyocabinet.BDB`, `HDB`).
pub struct CasketHandle(pub Casket);

impl Tagged for CasketHandle {
    const TAG: u64 = 0x5463_4361_736b_6574; // "TcCasket"
    const NAME: &'static str = "database";
}

#[cfg(test)]
mod tests {
    use super::*;

    struct Small(u8);

    impl Tagged for Small {
        const TAG: u64 = 1;
        const NAME: &'static str = "small";
    }

    struct Other;

    impl Tagged for Other {
        const TAG: u64 = 2;
        const NAME: &'static str = "other";
    }

    #[test]
    fn a_handle_is_borrowed_as_its_own_type_only_and_taken_back_once() {
        let h = into_handle(Small(7));
        // SAFETY: `h` is live until the `take` below, after which it is not borrowed again.
        unsafe {
            assert_eq!(borrow::<Small>(h).unwrap().0, 7);
            assert!(matches!(borrow::<Other>(h), Err(BridgeError::BadHandle(m)) if m.contains("is not a other")));
            assert!(matches!(borrow::<Small>(0), Err(BridgeError::BadHandle(m)) if m == "small is closed"));
            assert!(
                matches!(borrow::<Small>(h + 1), Err(BridgeError::BadHandle(m)) if m.starts_with("invalid small handle"))
            );
            assert!(take::<Other>(h).is_err());
            assert_eq!(take::<Small>(h).unwrap().map(|s| s.0), Some(7));
            assert!(take::<Small>(0).unwrap().is_none());
        }
    }
}
