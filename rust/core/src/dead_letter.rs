//! Dead letters: what one records (where it came from, how often it was delivered, why the
//! last delivery failed and when), the layout of that record, reading the records of a
//! dead-letter queue back, and which dead letters a call means. Moving entries to their
//! dead-letter queue, and the transaction's operations on dead letters, are in
//! `transaction/dead_letters.rs`.

use std::collections::BTreeMap;

use uuid::Uuid;

use crate::entry_records::for_each_per_entry_record;
use crate::error::{Error, Result};
use crate::keys::{self, QueueId};
use crate::shared::DbRef;

/// Longest reason kept, in UTF-8 bytes; a longer one is cut at a character boundary.
pub const MAX_REASON_BYTES: usize = 4096;

/// Layout version of a dead-letter record (its first byte).
const FORMAT: u8 = 1;

/// One dead letter, as `Store::dead_letters` lists it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DeadLetter {
    /// Its position in the dead-letter queue.
    pub sequence: u64,
    pub id: Uuid,
    /// `None` when its object was deleted with `delete`.
    pub payload: Option<Vec<u8>>,
    pub record: DeadLetterRecord,
}

/// What a dead letter records about itself.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DeadLetterRecord {
    /// The queue it was dead-lettered from, and its position there.
    pub origin_queue: String,
    pub origin_sequence: u64,
    /// Deliveries it had, the last one included.
    pub deliveries: u32,
    /// Why the last delivery failed: the caller's reason, or what ended it.
    pub reason: String,
    /// When it was dead-lettered, in milliseconds since the Unix epoch.
    pub dead_at_millis: u64,
}

impl DeadLetterRecord {
    pub fn encode(&self) -> Vec<u8> {
        let name = self.origin_queue.as_bytes();
        let mut v = Vec::with_capacity(23 + name.len() + self.reason.len());
        v.push(FORMAT);
        v.extend_from_slice(&self.deliveries.to_le_bytes());
        v.extend_from_slice(&self.dead_at_millis.to_le_bytes());
        v.extend_from_slice(&self.origin_sequence.to_le_bytes());
        v.extend_from_slice(&(name.len() as u16).to_le_bytes());
        v.extend_from_slice(name);
        v.extend_from_slice(self.reason.as_bytes());
        v
    }

    pub fn decode(v: &[u8]) -> Result<DeadLetterRecord> {
        let corrupt = || Error::Corrupt(format!("dead-letter record of {} bytes", v.len()));
        if v.len() < 23 || v[0] != FORMAT {
            return Err(corrupt());
        }
        let u64_at = |i: usize| u64::from_le_bytes(v[i..i + 8].try_into().expect("8 bytes"));
        let name_len = u16::from_le_bytes([v[21], v[22]]) as usize;
        let name = v.get(23..23 + name_len).ok_or_else(corrupt)?;
        let text = |b: &[u8]| String::from_utf8(b.to_vec()).map_err(|_| corrupt());
        Ok(DeadLetterRecord {
            deliveries: u32::from_le_bytes(v[1..5].try_into().expect("4 bytes")),
            dead_at_millis: u64_at(5),
            origin_sequence: u64_at(13),
            origin_queue: text(name)?,
            reason: text(&v[23 + name_len..])?,
        })
    }
}

/// `reason` cut to `MAX_REASON_BYTES` at a character boundary.
pub fn bounded_reason(reason: &str) -> &str {
    if reason.len() <= MAX_REASON_BYTES {
        return reason;
    }
    let mut end = MAX_REASON_BYTES;
    while !reason.is_char_boundary(end) {
        end -= 1;
    }
    &reason[..end]
}

/// The reason recorded for an entry whose last delivery ended with the process.
pub const PROCESS_ENDED: &str = "the process ended while the entry was being delivered";

/// The dead letters of `dead_letter_queue` (id `qid`), lowest first, at most `max`, each with
/// its record.
pub(crate) fn records_of(db: &DbRef<'_>, qid: QueueId, max: usize) -> Result<BTreeMap<u64, DeadLetterRecord>> {
    let mut out = BTreeMap::new();
    if max == 0 {
        return Ok(out);
    }
    for_each_per_entry_record(
        db.db(),
        keys::meta_dead_letter_range(qid),
        "dead letters",
        |_, seq, v| {
            out.insert(seq, DeadLetterRecord::decode(v)?);
            Ok(out.len() < max)
        },
    )?;
    Ok(out)
}

/// Which dead letters of a queue a call means.
#[derive(Clone, Copy, Debug)]
pub enum Selection<'a> {
    All,
    /// These positions in the dead-letter queue; each must be a dead letter no other
    /// transaction holds.
    Only(&'a [u64]),
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn records_round_trip_and_garbage_is_refused() {
        let r = DeadLetterRecord {
            origin_queue: "parse €".into(),
            origin_sequence: u64::MAX,
            deliveries: 3,
            reason: "bad input: 'x'".into(),
            dead_at_millis: 1_700_000_000_000,
        };
        assert_eq!(DeadLetterRecord::decode(&r.encode()).unwrap(), r);
        let empty = DeadLetterRecord {
            origin_queue: String::new(),
            reason: String::new(),
            ..r.clone()
        };
        assert_eq!(DeadLetterRecord::decode(&empty.encode()).unwrap(), empty);
        assert!(DeadLetterRecord::decode(&r.encode()[..20]).is_err());
        let mut bad = r.encode();
        bad[0] = 9;
        assert!(DeadLetterRecord::decode(&bad).is_err());
        let mut long_name = r.encode();
        long_name[21] = 0xFF;
        assert!(DeadLetterRecord::decode(&long_name).is_err());
    }

    #[test]
    fn reasons_are_cut_at_a_character_boundary() {
        assert_eq!(bounded_reason("short"), "short");
        let long = "é".repeat(MAX_REASON_BYTES); // two bytes each
        let cut = bounded_reason(&long);
        assert!(cut.len() <= MAX_REASON_BYTES && cut.len() >= MAX_REASON_BYTES - 1);
        assert!(long.starts_with(cut));
    }
}
