//! Writes of a running transaction not yet applied to RocksDB.
//!
//! Each write keeps what undoes it (the key's previous value, or nothing if the key is new), so
//! undo records can be written if the writes must be applied before commit. Keys and values are
//! appended to one arena (no allocation per write). When applied, the writes go into the batch
//! sorted by key: RocksDB's memtable inserts a sorted run several times faster than keys in
//! random order (a transaction that adds random keys is the common case).

use rocksdb::WriteBatch;

use super::undo::Undo;
use crate::batch::BatchRep;

/// One write: the key at `at`, then the value (absent for a delete), then the previous value.
struct Entry {
    /// The key's first 16 bytes as a number, ordered like the keys (ties go to the keys).
    prefix: u128,
    at: usize,
    key_len: usize,
    value_len: Option<usize>,
    before_len: Option<usize>,
}

#[derive(Default)]
pub struct Pending {
    arena: Vec<u8>,
    entries: Vec<Entry>,
}

impl Pending {
    /// Records a write whose key `write_key` appends to the arena; returns the key.
    pub fn push(&mut self, write_key: impl FnOnce(&mut Vec<u8>), value: Option<&[u8]>, before: Option<&[u8]>) -> &[u8] {
        let at = self.arena.len();
        write_key(&mut self.arena);
        let key_len = self.arena.len() - at;
        if let Some(v) = value {
            self.arena.extend_from_slice(v);
        }
        if let Some(b) = before {
            self.arena.extend_from_slice(b);
        }
        let key = &self.arena[at..at + key_len];
        self.entries.push(Entry {
            prefix: prefix(key),
            at,
            key_len,
            value_len: value.map(<[u8]>::len),
            before_len: before.map(<[u8]>::len),
        });
        key
    }

    fn key(&self, e: &Entry) -> &[u8] {
        &self.arena[e.at..e.at + e.key_len]
    }

    fn value(&self, e: &Entry) -> Option<&[u8]> {
        let start = e.at + e.key_len;
        e.value_len.map(|n| &self.arena[start..start + n])
    }

    fn before(&self, e: &Entry) -> Option<&[u8]> {
        let start = e.at + e.key_len + e.value_len.unwrap_or(0);
        e.before_len.map(|n| &self.arena[start..start + n])
    }

    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// Memory held, roughly.
    pub fn bytes(&self) -> usize {
        self.arena.len() + self.entries.len() * std::mem::size_of::<Entry>()
    }

    pub fn clear(&mut self) {
        self.arena.clear();
        self.entries.clear();
    }

    /// The inverse of every write, in the order the writes were made.
    pub fn undo_records(&self) -> impl Iterator<Item = Undo> + '_ {
        self.entries.iter().map(|e| match self.before(e) {
            None => Undo::Delete(self.key(e).to_vec()),
            Some(v) => Undo::Restore(self.key(e).to_vec(), v.to_vec()),
        })
    }

    /// Every write as a RocksDB write batch to the data column family (id `cf`), and clears.
    /// With `sort`, in key order (writes to one key keep their order); only valid when RocksDB
    /// orders the column family bytewise. Records are appended as bytes, not one FFI call each.
    pub fn take_batch(&mut self, cf: u32, sort: bool) -> WriteBatch {
        let mut entries = std::mem::take(&mut self.entries);
        if sort {
            // Most comparisons are settled by the prefix, without touching the arena.
            entries.sort_unstable_by(|a, b| {
                a.prefix
                    .cmp(&b.prefix)
                    .then_with(|| self.key(a).cmp(self.key(b)))
                    .then(a.at.cmp(&b.at))
            });
        }
        let mut rep = BatchRep::with_capacity(self.arena.len() + entries.len() * 8);
        for e in &entries {
            match self.value(e) {
                Some(v) => {
                    rep.put(cf, self.key(e), v);
                }
                None => rep.delete(cf, self.key(e)),
            }
        }
        self.arena.clear();
        rep.write_batch()
    }
}

/// The first 16 bytes of a key, zero-padded, as a number: ordered like the keys themselves
/// (where two prefixes are equal the keys decide).
fn prefix(key: &[u8]) -> u128 {
    let mut buf = [0u8; 16];
    let n = key.len().min(16);
    buf[..n].copy_from_slice(&key[..n]);
    u128::from_be_bytes(buf)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn prefixes_never_contradict_key_order() {
        let keys: [&[u8]; 6] = [
            b"",
            b"a",
            b"a\0",
            b"a\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\x01",
            b"ab",
            b"\xff",
        ];
        for a in keys {
            for b in keys {
                if a < b {
                    assert!(prefix(a) <= prefix(b), "{a:?} {b:?}");
                }
            }
        }
    }

    #[test]
    fn writes_keep_their_values_and_undo_information_in_order() {
        let mut p = Pending::default();
        p.push(|a| a.extend_from_slice(b"k2"), Some(b"v"), None);
        p.push(|a| a.extend_from_slice(b"k1"), None, Some(b"old"));
        p.push(|a| a.extend_from_slice(b"k1"), Some(b""), Some(b""));
        let undo: Vec<Undo> = p.undo_records().collect();
        assert_eq!(
            undo,
            vec![
                Undo::Delete(b"k2".to_vec()),
                Undo::Restore(b"k1".to_vec(), b"old".to_vec()),
                Undo::Restore(b"k1".to_vec(), vec![])
            ]
        );
        assert!(p.bytes() > 0);
        let batch = p.take_batch(1, true);
        assert_eq!(batch.len(), 3);
        assert!(p.is_empty());
    }
}
