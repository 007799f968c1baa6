//! Argument conversion shared by the entry points, and the packed form in which messages cross
//! JNI: one byte[] per call instead of one Java object per item.
//!
//! Packed messages (big-endian, read by `org.rockcask.Wire`): i32 count, then per message
//! i64 msb, i64 lsb, i32 payload length (-1 when the object is gone), payload bytes.

use jni::objects::JByteArray;
use jni::Env;
use rockcask_core::{Message, Uuid};

use crate::error::{BridgeError, BridgeResult};

pub fn bytes(env: &Env<'_>, array: &JByteArray<'_>, what: &'static str) -> BridgeResult<Vec<u8>> {
    if array.is_null() {
        return Err(BridgeError::Null(what));
    }
    Ok(env.convert_byte_array(array)?)
}

/// Queue names arrive as UTF-8 encoded by Java (`String.getBytes(UTF_8)`), so they are valid
/// Rust strings and no modified-UTF-8 conversion is involved. Names that fit are read into a
/// stack buffer: this runs once per enqueue, and an allocation there shows in the item rate.
pub struct QueueName {
    inline: [u8; 128],
    len: usize,
    heap: Option<String>,
}

impl QueueName {
    pub fn read(env: &Env<'_>, array: &JByteArray<'_>) -> BridgeResult<QueueName> {
        if array.is_null() {
            return Err(BridgeError::Null("queue name"));
        }
        let len = array.len(env)?;
        let mut name = QueueName { inline: [0; 128], len, heap: None };
        if len <= name.inline.len() {
            array.get_region(env, 0, as_jbytes(&mut name.inline[..len]))?;
            std::str::from_utf8(&name.inline[..len]).map_err(|_| not_utf8())?;
        } else {
            name.heap = Some(String::from_utf8(env.convert_byte_array(array)?).map_err(|_| not_utf8())?);
        }
        Ok(name)
    }

    pub fn as_str(&self) -> &str {
        match &self.heap {
            Some(s) => s,
            // Checked to be UTF-8 in `read`.
            None => std::str::from_utf8(&self.inline[..self.len]).unwrap_or_default(),
        }
    }
}

fn not_utf8() -> BridgeError {
    BridgeError::InvalidArgument("queue name is not valid UTF-8".into())
}

/// View a byte buffer as the `jbyte` (i8) slice JNI region calls take.
pub fn as_jbytes(buf: &mut [u8]) -> &mut [i8] {
    // SAFETY: u8 and i8 have the same size and alignment; every bit pattern is valid for both.
    unsafe { std::slice::from_raw_parts_mut(buf.as_mut_ptr().cast::<i8>(), buf.len()) }
}

/// Length of a non-null Java byte array.
pub fn array_len(env: &Env<'_>, array: &JByteArray<'_>, what: &'static str) -> BridgeResult<usize> {
    if array.is_null() {
        return Err(BridgeError::Null(what));
    }
    Ok(array.len(env)?)
}

pub fn uuid(msb: i64, lsb: i64) -> Uuid {
    Uuid::from_u64_pair(msb as u64, lsb as u64)
}

pub fn pack_messages(messages: &[Message]) -> Vec<u8> {
    let size = 4 + messages.iter().map(|m| 20 + m.payload.as_ref().map_or(0, Vec::len)).sum::<usize>();
    let mut out = Vec::with_capacity(size);
    out.extend_from_slice(&(messages.len() as i32).to_be_bytes());
    for m in messages {
        let (msb, lsb) = m.id.as_u64_pair();
        out.extend_from_slice(&msb.to_be_bytes());
        out.extend_from_slice(&lsb.to_be_bytes());
        match &m.payload {
            Some(p) => {
                out.extend_from_slice(&(p.len() as i32).to_be_bytes());
                out.extend_from_slice(p);
            }
            None => out.extend_from_slice(&(-1i32).to_be_bytes()),
        }
    }
    out
}

/// Queue names for `Store.queues()`: i32 count, then per name i32 length + UTF-8 bytes.
pub fn pack_strings(strings: &[String]) -> Vec<u8> {
    let mut out = Vec::new();
    out.extend_from_slice(&(strings.len() as i32).to_be_bytes());
    for s in strings {
        out.extend_from_slice(&(s.len() as i32).to_be_bytes());
        out.extend_from_slice(s.as_bytes());
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn packed_messages_have_count_ids_lengths_and_missing_payload_marker() {
        let id = Uuid::from_u64_pair(1, 2);
        let packed = pack_messages(&[Message { id, payload: Some(b"ab".to_vec()) }, Message { id, payload: None }]);
        assert_eq!(&packed[..4], &2i32.to_be_bytes());
        assert_eq!(&packed[4..12], &1u64.to_be_bytes());
        assert_eq!(&packed[12..20], &2u64.to_be_bytes());
        assert_eq!(&packed[20..24], &2i32.to_be_bytes());
        assert_eq!(&packed[24..26], b"ab");
        assert_eq!(&packed[42..46], &(-1i32).to_be_bytes());
        assert_eq!(packed.len(), 46);
    }
}
