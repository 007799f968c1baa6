//! `org.rockcask.codec.CodecNative`: one call per message, the content in one direct buffer
//! in the flat form (`rockcask_core::codec::flat`).

use jni::objects::{JByteArray, JByteBuffer};
use jni::Env;
use rockcask_core::codec::{self, flat, ColumnRef, MessageType};
use rockcask_core::compress::{self, Compression, Policy};

use crate::args::{self, code_arg, JavaByteArray};
use crate::contract::{self, decode_code};
use crate::error::{BridgeError, BridgeResult};
use crate::native_table::native_class;

native_class! {
    pub const NATIVES = "org/rockcask/codec/CodecNative", constants [contract::MESSAGE_TYPES, contract::FLAT_LAYOUT, contract::COMPRESSION_CODES] {
        fn encode(message_type: MessageType, input: JByteBuffer, len: i32) -> Vec<u8> = encode;
        fn decode(message_type: MessageType, message: JByteArray, output: JByteBuffer) -> i32 = decode;
        fn compress(codec: Compression, payload: Vec<u8>) -> Vec<u8> = compress;
        fn decompress(stored: Vec<u8>) -> JavaByteArray = decompress;
    }
}

// The codes are `MessageType::code` and `Compression::code`.
code_arg! {
    MessageType => |code, name| decode_code(code, name, "message type", MessageType::from_code),
    Compression => contract::compression,
}

/// Messages up to this size are decoded where they are in the Java heap (no copy); the GC waits
/// meanwhile, so larger ones are copied first.
const IN_PLACE_LIMIT: usize = 1 << 20;

/// A Java byte[] held with `GetPrimitiveArrayCritical`, called through the raw function table:
/// between get and release no JNI function at all may be called (the jni crate's wrapper checks
/// for exceptions in between, which -Xcheck:jni reports).
struct InPlace {
    env: *mut jni::sys::JNIEnv,
    array: jni::sys::jarray,
    ptr: *mut std::ffi::c_void,
    len: usize,
}

impl InPlace {
    fn new(env: &Env<'_>, array: &JByteArray<'_>, len: usize) -> BridgeResult<InPlace> {
        let raw_env = env.get_raw();
        let raw_array = array.as_raw();
        // SAFETY: a valid env and a live, non-null byte[] local reference; released in Drop
        // before any other JNI call.
        let ptr = unsafe { ((**raw_env).v1_2.GetPrimitiveArrayCritical)(raw_env, raw_array, std::ptr::null_mut()) };
        if ptr.is_null() {
            return Err(BridgeError::InvalidArgument(
                "could not access the message bytes".into(),
            ));
        }
        Ok(InPlace {
            env: raw_env,
            array: raw_array,
            ptr,
            len,
        })
    }

    /// Decodes and releases the array (no JNI call in between).
    fn decode(self, ty: MessageType) -> Result<codec::Decoded, codec::CodecError> {
        // SAFETY: `ptr` points at `len` bytes of the pinned array until released in Drop.
        let bytes = unsafe { std::slice::from_raw_parts(self.ptr as *const u8, self.len) };
        codec::decode(ty, bytes)
    }
}

impl Drop for InPlace {
    fn drop(&mut self) {
        // SAFETY: pairs the GetPrimitiveArrayCritical of `new`; JNI_ABORT: nothing to copy back.
        unsafe {
            ((**self.env).v1_2.ReleasePrimitiveArrayCritical)(self.env, self.array, self.ptr, jni::sys::JNI_ABORT)
        };
    }
}

/// Encodes the message whose flat content fills the first `len` bytes of `input`.
fn encode(env: &mut Env<'_>, ty: MessageType, input: JByteBuffer<'_>, len: i32) -> BridgeResult<Vec<u8>> {
    // SAFETY: used within this call only.
    let buf = unsafe { args::direct_buffer(env, &input, "input buffer")? };
    let len = usize::try_from(len)
        .ok()
        .filter(|&l| l <= buf.len())
        .ok_or_else(|| BridgeError::InvalidArgument(format!("length {len} outside the buffer")))?;
    let invalid = |e: String| BridgeError::InvalidArgument(format!("{}: {e}", ty.name()));
    // Viewed in place (a direct buffer is aligned); copied only if it were not.
    match flat::read_borrowed(&buf[..len]).map_err(invalid)? {
        Some((names, columns)) => codec::encode(ty, names, &columns),
        None => {
            let (names, columns) = flat::read(&buf[..len]).map_err(invalid)?;
            let refs: Vec<ColumnRef<'_>> = columns.iter().map(codec::Column::as_ref).collect();
            codec::encode(ty, names.as_ref(), &refs)
        }
    }
    .map_err(BridgeError::InvalidArgument)
}

/// Decodes `message` as `ty` into `output` in the flat form; returns the bytes written, or, if
/// `output` is too small, minus the bytes needed (nothing written; call again).
fn decode(env: &mut Env<'_>, ty: MessageType, message: JByteArray<'_>, output: JByteBuffer<'_>) -> BridgeResult<i32> {
    if message.is_null() {
        return Err(BridgeError::Null("message"));
    }
    // SAFETY: used within this call only.
    let out = unsafe { args::direct_buffer(env, &output, "output buffer")? };
    let len = message.len(env)?;
    let decoded = if len <= IN_PLACE_LIMIT {
        InPlace::new(env, &message, len)?.decode(ty)
    } else {
        // Large messages are copied: holding the array would keep the GC waiting.
        codec::decode(ty, &args::java_bytes::to_vec(env, &message))
    }?;
    let needed = flat::len(&decoded);
    if needed > out.len() {
        return i32::try_from(needed)
            .map(|n| -n)
            .map_err(|_| BridgeError::InvalidArgument(format!("decoded {} is too large ({needed} bytes)", ty.name())));
    }
    Ok(flat::write(&decoded, out).map_err(BridgeError::InvalidArgument)? as i32)
}

/// `payload` in the stored form: a codec byte, then the body (compressed with `codec` if that
/// makes it smaller; no threshold).
fn compress(_env: &mut Env<'_>, codec: Compression, payload: Vec<u8>) -> BridgeResult<Vec<u8>> {
    let (used, body) = Policy { codec, threshold: 0 }.compress(&payload);
    let mut out = Vec::with_capacity(body.len() + 1);
    out.push(used.code());
    out.extend_from_slice(&body);
    Ok(out)
}

/// The payload of a stored form made by `compress`.
fn decompress<'local>(env: &mut Env<'local>, stored: Vec<u8>) -> BridgeResult<JByteArray<'local>> {
    let (&code, body) = stored
        .split_first()
        .ok_or_else(|| BridgeError::InvalidArgument("empty stored form".into()))?;
    let codec = contract::compression(i64::from(code), "stored form")?;
    let payload = compress::decompress(codec, body)
        .map_err(|e| BridgeError::InvalidArgument(format!("damaged {} data: {e}", codec.name())))?;
    args::java_bytes::new_array(env, &payload)
}
