//! Polled and peeked messages (read by `Wire.messages`): the one packed result on the hot path.

use rockcask_core::Message;

use super::put_optional_bytes;

/// Bytes `pack_messages` writes besides payloads: the count, then per message id and length.
pub(super) const PACKED_HEADER_BYTES: usize = 4;
pub(super) const PACKED_MESSAGE_BYTES: usize = 32;

/// i32 count, then per message: i64 msb, i64 lsb, i64 sequence (-1 for none), i32 deliveries,
/// i32 payload length (-1 for none), payload.
pub fn pack_messages(messages: &[Message]) -> Vec<u8> {
    let size = PACKED_HEADER_BYTES
        + messages
            .iter()
            .map(|m| PACKED_MESSAGE_BYTES + m.payload.as_ref().map_or(0, Vec::len))
            .sum::<usize>();
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

#[cfg(test)]
mod tests {
    use rockcask_core::Uuid;

    use super::*;

    #[test]
    fn packed_messages_have_count_ids_sequences_lengths_and_missing_markers() {
        let id = Uuid::from_u64_pair(1, 2);
        let packed = pack_messages(&[
            Message {
                id,
                payload: Some(b"ab".to_vec()),
                sequence: Some(7),
                deliveries: 3,
            },
            Message {
                id,
                payload: None,
                sequence: None,
                deliveries: 1,
            },
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
}
