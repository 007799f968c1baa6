//! Argument conversion shared by the entry points, and the packed form in which messages cross
//! JNI: one byte[] per call instead of one Java object per item.
//!
//! Packed messages (big-endian, read by `org.rockcask.Wire`): i32 count, then per message
//! i64 msb, i64 lsb, i64 sequence (-1 when it has none yet), i32 deliveries, i32 payload length
//! (-1 when the object is gone), payload bytes.

use jni::objects::{JByteArray, JByteBuffer, JPrimitiveArray, TypeArray};
use jni::Env;
use rockcask_core::{DeadLetter, Message, QueueConfig, Uuid};

use crate::error::{BridgeError, BridgeResult};

pub fn bytes(env: &Env<'_>, array: &JByteArray<'_>, what: &'static str) -> BridgeResult<Vec<u8>> {
    if array.is_null() {
        return Err(BridgeError::Null(what));
    }
    Ok(env.convert_byte_array(array)?)
}

/// The memory of a direct buffer, all of its capacity.
///
/// Safety: the caller uses the slice only during the current native call (a local reference
/// keeps the buffer reachable) and Java does not touch the buffer meanwhile.
pub unsafe fn direct_buffer<'b>(env: &Env<'_>, buffer: &JByteBuffer<'_>, what: &'static str) -> BridgeResult<&'b mut [u8]> {
    if buffer.is_null() {
        return Err(BridgeError::Null(what));
    }
    let address = env.get_direct_buffer_address(buffer)?;
    let capacity = env.get_direct_buffer_capacity(buffer)?;
    // SAFETY: see the function contract.
    Ok(unsafe { std::slice::from_raw_parts_mut(address, capacity) })
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

impl crate::args::Arg for QueueName {
    type Raw<'local> = JByteArray<'local>;
    type Value<'local> = QueueName;
    const DESCRIPTOR: &'static str = "[B";
    fn from_java<'local>(env: &mut Env<'local>, raw: JByteArray<'local>, _name: &'static str) -> BridgeResult<QueueName> {
        QueueName::read(env, &raw)
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

/// Length of a non-null Java array of primitives.
pub fn array_len<T: TypeArray>(env: &Env<'_>, array: &JPrimitiveArray<'_, T>, what: &'static str) -> BridgeResult<usize> {
    if array.is_null() {
        return Err(BridgeError::Null(what));
    }
    Ok(array.len(env)?)
}

pub fn uuid(msb: i64, lsb: i64) -> Uuid {
    Uuid::from_u64_pair(msb as u64, lsb as u64)
}

/// Most bytes one Java array holds (HotSpot refuses `new byte[Integer.MAX_VALUE - 7]` and up).
pub const MAX_JAVA_ARRAY_BYTES: usize = i32::MAX as usize - 8;

/// Bytes `pack_messages` writes besides payloads: the count, then per message id and length.
const PACKED_HEADER_BYTES: usize = 4;
const PACKED_MESSAGE_BYTES: usize = 32;

/// Payload bytes a packed list of up to `max` messages may carry and still fit one Java array,
/// for `Transaction::poll_within` (so a poll of large payloads returns fewer, never fails).
pub fn payload_budget(max: usize) -> usize {
    MAX_JAVA_ARRAY_BYTES.saturating_sub(PACKED_HEADER_BYTES).saturating_sub(PACKED_MESSAGE_BYTES.saturating_mul(max))
}

/// i32 count, then per message: i64 msb, i64 lsb, i64 sequence (-1 for none), i32 deliveries,
/// i32 payload length (-1 for none), payload.
pub fn pack_messages(messages: &[Message]) -> Vec<u8> {
    let size = PACKED_HEADER_BYTES + messages.iter().map(|m| PACKED_MESSAGE_BYTES + m.payload.as_ref().map_or(0, Vec::len)).sum::<usize>();
    let mut out = Vec::with_capacity(size);
    out.extend_from_slice(&(messages.len() as i32).to_be_bytes());
    for m in messages {
        let (msb, lsb) = m.id.as_u64_pair();
        out.extend_from_slice(&msb.to_be_bytes());
        out.extend_from_slice(&lsb.to_be_bytes());
        // Sequences stay far below i64::MAX: one per entry ever committed to the queue.
        out.extend_from_slice(&m.sequence.map_or(-1, |s| s as i64).to_be_bytes());
        // Counts stay far below i32::MAX: one per delivery of one entry.
        out.extend_from_slice(&(m.deliveries.min(i32::MAX as u32) as i32).to_be_bytes());
        put_optional_bytes(&mut out, m.payload.as_deref());
    }
    out
}

/// i32 length (-1 for none), then the bytes.
pub fn put_optional_bytes(out: &mut Vec<u8>, bytes: Option<&[u8]>) {
    match bytes {
        Some(b) => {
            out.extend_from_slice(&(b.len() as i32).to_be_bytes());
            out.extend_from_slice(b);
        }
        None => out.extend_from_slice(&(-1i32).to_be_bytes()),
    }
}

/// A queue's settings for `Store.queueOptions`: i64 delivery limit (-1: the store's default),
/// i64 capacity and i64 byte capacity (0: none), dead-letter queue as i32 length (-1: the
/// default) + UTF-8 name.
pub fn pack_queue_config(config: &QueueConfig) -> Vec<u8> {
    let mut out = Vec::with_capacity(28);
    out.extend_from_slice(&config.max_deliveries.map_or(-1, i64::from).to_be_bytes());
    out.extend_from_slice(&(config.capacity as i64).to_be_bytes());
    out.extend_from_slice(&(config.capacity_bytes as i64).to_be_bytes());
    put_optional_bytes(&mut out, config.dead_letter_queue.as_deref().map(str::as_bytes));
    out
}

/// Dead letters for `Store.deadLetters`: i32 count, then per dead letter: i64 msb, i64 lsb,
/// i64 sequence, i64 origin sequence, i32 deliveries, i64 dead-at millis, origin queue and
/// reason as i32 length + UTF-8, payload as i32 length (-1 for none) + bytes.
pub fn pack_dead_letters(letters: &[DeadLetter]) -> Vec<u8> {
    let mut out = Vec::new();
    out.extend_from_slice(&(letters.len() as i32).to_be_bytes());
    for d in letters {
        let (msb, lsb) = d.id.as_u64_pair();
        for n in [msb as i64, lsb as i64, d.sequence as i64, d.record.origin_sequence as i64] {
            out.extend_from_slice(&n.to_be_bytes());
        }
        out.extend_from_slice(&(d.record.deliveries.min(i32::MAX as u32) as i32).to_be_bytes());
        out.extend_from_slice(&(d.record.dead_at_millis as i64).to_be_bytes());
        put_optional_bytes(&mut out, Some(d.record.origin_queue.as_bytes()));
        put_optional_bytes(&mut out, Some(d.record.reason.as_bytes()));
        put_optional_bytes(&mut out, d.payload.as_deref());
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

/// Per-queue codecs from `StoreOptions.packedQueueCompression`: i32 count, then per queue i32
/// length, UTF-8 name, i32 code (big-endian).
pub fn unpack_queue_codecs(buf: &[u8]) -> BridgeResult<Vec<(String, i32)>> {
    let bad = || BridgeError::InvalidArgument("malformed per-queue compression".into());
    let mut pos = 0usize;
    let int = |pos: &mut usize| -> BridgeResult<i32> {
        let b = buf.get(*pos..*pos + 4).ok_or_else(bad)?;
        *pos += 4;
        Ok(i32::from_be_bytes(b.try_into().expect("4 bytes")))
    };
    let n = int(&mut pos)?;
    let mut out = Vec::new();
    for _ in 0..n {
        let len = usize::try_from(int(&mut pos)?).map_err(|_| bad())?;
        let name = buf.get(pos..pos + len).ok_or_else(bad)?;
        pos += len;
        let name = String::from_utf8(name.to_vec()).map_err(|_| bad())?;
        out.push((name, int(&mut pos)?));
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use rockcask_core::DeadLetterRecord;

    #[test]
    fn packed_messages_have_count_ids_sequences_lengths_and_missing_markers() {
        let id = Uuid::from_u64_pair(1, 2);
        let packed = pack_messages(&[
            Message { id, payload: Some(b"ab".to_vec()), sequence: Some(7), deliveries: 3 },
            Message { id, payload: None, sequence: None, deliveries: 1 },
        ]);
        assert_eq!(&packed[..4], &2i32.to_be_bytes());
        assert_eq!(&packed[4..12], &1u64.to_be_bytes());
        assert_eq!(&packed[12..20], &2u64.to_be_bytes());
        assert_eq!(&packed[20..28], &7i64.to_be_bytes());
        assert_eq!(&packed[28..32], &3i32.to_be_bytes());
        assert_eq!(&packed[32..36], &2i32.to_be_bytes());
        assert_eq!(&packed[36..38], b"ab");
        assert_eq!(&packed[54..62], &(-1i64).to_be_bytes());
        assert_eq!(&packed[62..66], &1i32.to_be_bytes());
        assert_eq!(&packed[66..70], &(-1i32).to_be_bytes());
        assert_eq!(packed.len(), 70);
    }

    #[test]
    fn packed_queue_settings_and_dead_letters_have_their_documented_layout() {
        let config = QueueConfig { max_deliveries: None, dead_letter_queue: Some("dl".into()), capacity: 9, capacity_bytes: 10 };
        let packed = pack_queue_config(&config);
        assert_eq!(&packed[..8], &(-1i64).to_be_bytes());
        assert_eq!(&packed[8..16], &9i64.to_be_bytes());
        assert_eq!(&packed[16..24], &10i64.to_be_bytes());
        assert_eq!(&packed[24..], &[0, 0, 0, 2, b'd', b'l']);
        assert_eq!(&pack_queue_config(&QueueConfig::default())[24..], &(-1i32).to_be_bytes());
        let record = DeadLetterRecord { origin_queue: "q".into(), origin_sequence: 4, deliveries: 2, reason: "r".into(), dead_at_millis: 5 };
        let packed = pack_dead_letters(&[DeadLetter { sequence: 3, id: Uuid::from_u64_pair(1, 2), payload: None, record }]);
        assert_eq!(&packed[..4], &1i32.to_be_bytes());
        assert_eq!(&packed[20..28], &3i64.to_be_bytes());
        assert_eq!(&packed[28..36], &4i64.to_be_bytes());
        assert_eq!(&packed[36..40], &2i32.to_be_bytes());
        assert_eq!(&packed[40..48], &5i64.to_be_bytes());
        assert_eq!(&packed[48..], &[0, 0, 0, 1, b'q', 0, 0, 0, 1, b'r', 0xFF, 0xFF, 0xFF, 0xFF]);
    }
}

/// The byte each buffered operation starts with; `org.rockcask.PendingOps` repeats them as
/// constants the library checks (`contract::PENDING_OPS`).
pub const OP_ENQUEUE_NEW: u8 = 1;
pub const OP_PUT: u8 = 2;
pub const OP_ENQUEUE_EXISTING: u8 = 3;

/// Operations the Java `Transaction` buffered without crossing JNI (layout defined here,
/// written by `org.rockcask.PendingOps`, big-endian):
/// `OP_ENQUEUE_NEW`: u16 name length, UTF-8 name, i64 msb, i64 lsb, i32 payload length, payload;
/// `OP_PUT`: i64 msb, i64 lsb, i32 payload length, payload;
/// `OP_ENQUEUE_EXISTING`: u16 name length, UTF-8 name, i64 msb, i64 lsb.
#[derive(Debug, PartialEq, Eq)]
pub enum PendingOp<'a> {
    EnqueueNew { queue: &'a str, id: Uuid, payload: &'a [u8] },
    Put { id: Uuid, payload: &'a [u8] },
    EnqueueExisting { queue: &'a str, id: Uuid },
}

pub struct PendingOps<'a> {
    buf: &'a [u8],
    at: usize,
}

impl<'a> PendingOps<'a> {
    pub fn new(buf: &'a [u8]) -> Self {
        PendingOps { buf, at: 0 }
    }

    fn take(&mut self, n: usize) -> BridgeResult<&'a [u8]> {
        let end = self.at.checked_add(n).filter(|&e| e <= self.buf.len()).ok_or_else(|| {
            BridgeError::InvalidArgument(format!("pending operations truncated at byte {} of {}", self.at, self.buf.len()))
        })?;
        let s = &self.buf[self.at..end];
        self.at = end;
        Ok(s)
    }

    fn id(&mut self) -> BridgeResult<Uuid> {
        let b = self.take(16)?;
        Ok(Uuid::from_slice(b).expect("16 bytes"))
    }

    fn queue(&mut self) -> BridgeResult<&'a str> {
        let len = u16::from_be_bytes(self.take(2)?.try_into().expect("2 bytes")) as usize;
        std::str::from_utf8(self.take(len)?).map_err(|_| not_utf8())
    }

    fn payload(&mut self) -> BridgeResult<&'a [u8]> {
        let len = i32::from_be_bytes(self.take(4)?.try_into().expect("4 bytes"));
        let len = usize::try_from(len).map_err(|_| BridgeError::InvalidArgument(format!("negative payload length {len}")))?;
        self.take(len)
    }

    fn next_op(&mut self) -> BridgeResult<PendingOp<'a>> {
        match self.take(1)?[0] {
            OP_ENQUEUE_NEW => {
                let queue = self.queue()?;
                let id = self.id()?;
                Ok(PendingOp::EnqueueNew { queue, id, payload: self.payload()? })
            }
            OP_ENQUEUE_EXISTING => {
                let queue = self.queue()?;
                Ok(PendingOp::EnqueueExisting { queue, id: self.id()? })
            }
            OP_PUT => {
                let id = self.id()?;
                Ok(PendingOp::Put { id, payload: self.payload()? })
            }
            k => Err(BridgeError::InvalidArgument(format!("unknown pending operation {k} at byte {}", self.at - 1))),
        }
    }
}

impl<'a> Iterator for PendingOps<'a> {
    type Item = BridgeResult<PendingOp<'a>>;

    fn next(&mut self) -> Option<Self::Item> {
        if self.at >= self.buf.len() {
            return None;
        }
        let op = self.next_op();
        if op.is_err() {
            self.at = self.buf.len();
        }
        Some(op)
    }
}

#[cfg(test)]
mod pending_tests {
    use super::*;

    #[test]
    fn pending_operations_parse_and_truncation_is_an_error() {
        let id = Uuid::from_u64_pair(7, 9);
        let mut buf = vec![1u8, 0, 1, b'q'];
        buf.extend_from_slice(id.as_bytes());
        buf.extend_from_slice(&2i32.to_be_bytes());
        buf.extend_from_slice(b"hi");
        buf.push(2);
        buf.extend_from_slice(id.as_bytes());
        buf.extend_from_slice(&0i32.to_be_bytes());
        buf.extend_from_slice(&[3, 0, 2, b'r', b's']);
        buf.extend_from_slice(id.as_bytes());
        let ops: Vec<_> = PendingOps::new(&buf).collect::<BridgeResult<_>>().unwrap();
        assert_eq!(
            ops,
            vec![
                PendingOp::EnqueueNew { queue: "q", id, payload: b"hi" },
                PendingOp::Put { id, payload: b"" },
                PendingOp::EnqueueExisting { queue: "rs", id }
            ]
        );
        let cut: Vec<_> = PendingOps::new(&buf[..buf.len() - 2]).collect();
        assert!(cut.last().unwrap().is_err());
        assert!(PendingOps::new(&[9]).next().unwrap().is_err());
    }
}
