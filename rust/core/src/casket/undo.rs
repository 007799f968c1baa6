//! The undo log that gives a casket Tokyo Cabinet's transactions.
//!
//! Tokyo Cabinet applies a transaction's writes in place (other threads see them: "read
//! uncommitted") and keeps before-images in a write-ahead log so that abort, and recovery after
//! a crash, restore the state at `tranbegin`. A casket does the same on RocksDB: every write
//! batch that carries transaction writes also carries their inverse operations, so a crash can
//! never leave a write without its undo. Commit deletes the undo records in the batch that
//! writes the transaction's last operations; abort and recovery apply them newest first.
//! Writes not yet flushed (the common case for a transaction that only appends) need no undo
//! record at all: abort simply drops them.

/// Undo records live in the default column family under this prefix, keyed by a big-endian
/// index; index 0 is the header (the record count and record bytes at `tranbegin`).
pub const UNDO_PREFIX: &[u8] = b"u";

pub fn undo_key(index: u64) -> Vec<u8> {
    let mut k = UNDO_PREFIX.to_vec();
    k.extend_from_slice(&index.to_be_bytes());
    k
}

pub fn undo_range() -> (Vec<u8>, Vec<u8>) {
    (undo_key(0), {
        let mut end = UNDO_PREFIX.to_vec();
        end.extend_from_slice(&[0xFF; 9]);
        end
    })
}

/// The undo log's header: the record count and the record bytes (`fsiz`) at `tranbegin`.
pub fn header(rnum: u64, bytes: u64) -> Vec<u8> {
    let mut h = rnum.to_le_bytes().to_vec();
    h.extend_from_slice(&bytes.to_le_bytes());
    h
}

/// (record count, record bytes) from a header; the bytes are absent in headers written before
/// they were kept (8 bytes long).
pub fn parse_header(raw: &[u8]) -> Option<(u64, Option<u64>)> {
    let rnum = u64::from_le_bytes(raw.get(..8)?.try_into().ok()?);
    match raw.len() {
        8 => Some((rnum, None)),
        16 => Some((rnum, Some(u64::from_le_bytes(raw[8..].try_into().ok()?)))),
        _ => None,
    }
}

/// The inverse of one write to the data column family.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Undo {
    /// The key did not exist before: delete it.
    Delete(Vec<u8>),
    /// The key held this value before: put it back.
    Restore(Vec<u8>, Vec<u8>),
}

impl Undo {
    pub fn encode(&self) -> Vec<u8> {
        match self {
            Undo::Delete(k) => {
                let mut out = Vec::with_capacity(1 + k.len());
                out.push(0);
                out.extend_from_slice(k);
                out
            }
            Undo::Restore(k, v) => {
                let mut out = Vec::with_capacity(5 + k.len() + v.len());
                out.push(1);
                out.extend_from_slice(&(k.len() as u32).to_le_bytes());
                out.extend_from_slice(k);
                out.extend_from_slice(v);
                out
            }
        }
    }

    pub fn decode(raw: &[u8]) -> Option<Undo> {
        let (&tag, rest) = raw.split_first()?;
        match tag {
            0 => Some(Undo::Delete(rest.to_vec())),
            1 => {
                let len = u32::from_le_bytes(rest.get(..4)?.try_into().ok()?) as usize;
                let key = rest.get(4..4 + len)?;
                Some(Undo::Restore(key.to_vec(), rest[4 + len..].to_vec()))
            }
            _ => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn undo_records_round_trip_and_garbage_is_refused() {
        for u in [
            Undo::Delete(b"k\0".to_vec()),
            Undo::Restore(b"key".to_vec(), b"".to_vec()),
            Undo::Restore(vec![], b"v".to_vec()),
        ] {
            assert_eq!(Undo::decode(&u.encode()), Some(u));
        }
        assert_eq!(Undo::decode(&[]), None);
        assert_eq!(Undo::decode(&[1, 9, 0, 0, 0, b'a']), None);
        assert_eq!(Undo::decode(&[7]), None);
    }

    #[test]
    fn headers_carry_count_and_bytes_and_old_headers_only_the_count() {
        assert_eq!(parse_header(&header(3, 900)), Some((3, Some(900))));
        assert_eq!(parse_header(&7u64.to_le_bytes()), Some((7, None)));
        assert_eq!(parse_header(&[1, 2, 3]), None);
        assert_eq!(parse_header(&[0; 12]), None);
    }

    #[test]
    fn undo_keys_sort_by_index_inside_the_range() {
        let (lo, hi) = undo_range();
        assert!(
            lo <= undo_key(0) && undo_key(0) < undo_key(1) && undo_key(1) < undo_key(256) && undo_key(u64::MAX) < hi
        );
    }
}
