//! `byte[]` in and out of Java with the fewest JNI calls: jni-rs asks the JVM whether an
//! exception is pending before and after every call it makes, and each of those questions is a
//! transition into the VM (a memory fence); a map read crossed about sixteen of them for its
//! three arrays. The calls here are made only where none can throw given their arguments, and
//! only while no exception is pending (every conversion stops at the first failure, and the
//! JVM enters a native method with none pending); the one that can fail, `NewByteArray`, says
//! so by returning null.

use jni::objects::JByteArray;
use jni::sys::{jbyte, jsize, JNIEnv, JNINativeInterface_};
use jni::Env;

use crate::error::{BridgeError, BridgeResult};

fn interface(env: &Env<'_>) -> (*mut JNIEnv, *const JNINativeInterface_) {
    let raw = env.get_raw();
    // SAFETY: `Env` wraps a valid, non-null JNIEnv pointer of the current thread.
    (raw, unsafe { *raw })
}

/// The length of a non-null `array`. `GetArrayLength` throws nothing.
pub fn len(env: &Env<'_>, array: &JByteArray<'_>) -> usize {
    debug_assert!(!array.is_null());
    let (raw, jni) = interface(env);
    // SAFETY: a valid local reference to a byte[] (the native method's own argument).
    let n = unsafe { ((*jni).v1_1.GetArrayLength)(raw, array.as_raw()) };
    // A Java array's length is never negative.
    n as usize
}

/// Copies all of the non-null `array`, whose length is `into.len()` (from `len`), into `into`.
/// `GetByteArrayRegion` throws only for a region outside the array, and Java arrays never
/// change length.
pub fn read(env: &Env<'_>, array: &JByteArray<'_>, into: &mut [u8]) {
    debug_assert_eq!(len(env, array), into.len());
    let (raw, jni) = interface(env);
    // SAFETY: as in `len`; `into` is valid for `into.len()` bytes, and i8 and u8 share size and
    // alignment.
    unsafe {
        ((*jni).v1_1.GetByteArrayRegion)(
            raw,
            array.as_raw(),
            0,
            into.len() as jsize,
            into.as_mut_ptr().cast::<jbyte>(),
        )
    };
}

/// A copy of the non-null `array`.
pub fn to_vec(env: &Env<'_>, array: &JByteArray<'_>) -> Vec<u8> {
    let mut out = vec![0u8; len(env, array)];
    read(env, array, &mut out);
    out
}

/// A new Java array holding `bytes`, which must fit one (`wire::check_fits_java_array`). When
/// the heap has no room for it, the JVM's OutOfMemoryError is cleared and reported as jni-rs
/// reports it (`NoMemory`), so that it is thrown again as every other failed result is.
pub fn new_array<'local>(env: &mut Env<'local>, bytes: &[u8]) -> BridgeResult<JByteArray<'local>> {
    let n = jsize::try_from(bytes.len())
        .map_err(|_| BridgeError::InvalidArgument(format!("{} bytes do not fit one Java array", bytes.len())))?;
    let (raw, jni) = interface(env);
    // SAFETY: no exception is pending (see the module); a null result means one is.
    let array = unsafe { ((*jni).v1_1.NewByteArray)(raw, n) };
    if array.is_null() {
        // SAFETY: clears the OutOfMemoryError just raised.
        unsafe { ((*jni).v1_1.ExceptionClear)(raw) };
        return Err(jni::errors::Error::JniCall(jni::errors::JniError::NoMemory).into());
    }
    // SAFETY: a new array of exactly `n` bytes (the region is inside it), filled from `bytes`.
    unsafe {
        ((*jni).v1_1.SetByteArrayRegion)(raw, array, 0, n, bytes.as_ptr().cast::<jbyte>());
        Ok(JByteArray::from_raw(env, array))
    }
}
