//! A queue's settings and dead letters going out (read by `Wire.queueOptions` and
//! `Wire.deadLetters`), and the store's per-queue codecs coming in (written by
//! `Wire.queueCodecs`).

use rockcask_core::{DeadLetter, QueueConfig};

use super::put_optional_bytes;
use crate::error::{BridgeError, BridgeResult};

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
        for n in [
            msb as i64,
            lsb as i64,
            d.sequence as i64,
            d.record.origin_sequence as i64,
        ] {
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

/// The per-queue codecs of `StoreOptions`, as `Wire.queueCodecs` writes them: i32 count, then
/// per queue i32 length, UTF-8 name, i32 compression code.
pub fn unpack_queue_codecs(buf: &[u8]) -> BridgeResult<Vec<(String, i32)>> {
    let bad = || BridgeError::InvalidArgument("malformed per-queue compression".into());
    let mut pos = 0usize;
    let int = |pos: &mut usize| -> BridgeResult<i32> {
        let b = buf.get(*pos..*pos + 4).ok_or_else(bad)?;
        *pos += 4;
        Ok(i32::from_be_bytes(b.try_into().expect("4 bytes")))
    };
    let n = usize::try_from(int(&mut pos)?).map_err(|_| bad())?;
    let mut out = Vec::new();
    for _ in 0..n {
        let len = usize::try_from(int(&mut pos)?).map_err(|_| bad())?;
        let name = buf.get(pos..pos + len).ok_or_else(bad)?;
        pos += len;
        let name = String::from_utf8(name.to_vec()).map_err(|_| bad())?;
        out.push((name, int(&mut pos)?));
    }
    if pos != buf.len() {
        return Err(bad());
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use rockcask_core::{DeadLetterRecord, Uuid};

    use super::*;

    #[test]
    fn packed_queue_settings_and_dead_letters_have_their_documented_layout() {
        let config = QueueConfig {
            max_deliveries: None,
            dead_letter_queue: Some("dl".into()),
            capacity: 9,
            capacity_bytes: 10,
        };
        let packed = pack_queue_config(&config);
        assert_eq!(&packed[..8], &(-1i64).to_be_bytes());
        assert_eq!(&packed[8..16], &9i64.to_be_bytes());
        assert_eq!(&packed[16..24], &10i64.to_be_bytes());
        assert_eq!(&packed[24..], &[0, 0, 0, 2, b'd', b'l']);
        assert_eq!(
            &pack_queue_config(&QueueConfig::default())[24..],
            &(-1i32).to_be_bytes()
        );
        let record = DeadLetterRecord {
            origin_queue: "q".into(),
            origin_sequence: 4,
            deliveries: 2,
            reason: "r".into(),
            dead_at_millis: 5,
        };
        let packed = pack_dead_letters(&[DeadLetter {
            sequence: 3,
            id: Uuid::from_u64_pair(1, 2),
            payload: None,
            record,
        }]);
        assert_eq!(&packed[..4], &1i32.to_be_bytes());
        assert_eq!(&packed[20..28], &3i64.to_be_bytes());
        assert_eq!(&packed[28..36], &4i64.to_be_bytes());
        assert_eq!(&packed[36..40], &2i32.to_be_bytes());
        assert_eq!(&packed[40..48], &5i64.to_be_bytes());
        assert_eq!(
            &packed[48..],
            &[0, 0, 0, 1, b'q', 0, 0, 0, 1, b'r', 0xFF, 0xFF, 0xFF, 0xFF]
        );
    }

    #[test]
    fn per_queue_codecs_are_read_whole_or_refused() {
        let packed = [&1i32.to_be_bytes()[..], &1i32.to_be_bytes(), b"q", &2i32.to_be_bytes()].concat();
        assert_eq!(unpack_queue_codecs(&packed).unwrap(), vec![("q".to_string(), 2)]);
        assert!(unpack_queue_codecs(&packed[..packed.len() - 1]).is_err());
        assert!(unpack_queue_codecs(&[&packed[..], b"x"].concat()).is_err());
        assert!(unpack_queue_codecs(&(-1i32).to_be_bytes()).is_err());
    }
}
