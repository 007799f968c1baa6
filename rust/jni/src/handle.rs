//! Native objects handed to Java as `long` handles.
//!
//! A handle is a pointer to a boxed `Handle<T>` that starts with a per-type tag, so a handle of
//! the wrong type (or zero) is refused with IllegalStateException instead of being used. Java's
//! `NativeResource` guarantees that no call is in flight when a handle is freed, and that no
//! call starts after; the tag is the second line of defence.

use crate::error::{BridgeError, BridgeResult};
use jni::sys::jlong;

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

/// Borrow the object behind `handle`.
///
/// Safety contract (upheld by the Java side): `handle` came from `into_handle::<T>` and has not
/// been passed to `free_handle`.
pub fn borrow<'a, T: Tagged>(handle: jlong) -> BridgeResult<&'a T> {
    if handle == 0 {
        return Err(BridgeError::BadHandle(format!("{} is closed", T::NAME)));
    }
    let ptr = handle as *const Handle<T>;
    if !(ptr as usize).is_multiple_of(std::mem::align_of::<Handle<T>>()) {
        return Err(BridgeError::BadHandle(format!("invalid {} handle {handle:#x}", T::NAME)));
    }
    // SAFETY: see the function contract; the tag check rejects handles of other types.
    let h = unsafe { &*ptr };
    if h.tag != T::TAG {
        return Err(BridgeError::BadHandle(format!("handle {handle:#x} is not a {}", T::NAME)));
    }
    Ok(&h.value)
}

/// Release the object behind `handle`. Zero is ignored (idempotent close).
pub fn free_handle<T: Tagged>(handle: jlong) -> BridgeResult<()> {
    if handle == 0 {
        return Ok(());
    }
    borrow::<T>(handle)?;
    // SAFETY: tag checked above; the Java side frees each handle once, with no call in flight.
    let mut boxed = unsafe { Box::from_raw(handle as *mut Handle<T>) };
    boxed.tag = 0;
    drop(boxed);
    Ok(())
}
