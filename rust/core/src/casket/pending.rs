//! Writes of a running transaction not yet applied to RocksDB.
//!
//! Each write keeps what undoes it (the key's previous value, or nothing if the key is new), so
//! undo records can be written if the writes must be applied before commit. When applied, the
//! writes go into the batch sorted by key: RocksDB's memtable inserts a sorted run several times
//! faster than keys in random order (a transaction that adds random keys is the common case).

use rocksdb::WriteBatch;

use crate::batch::BatchRep;

use super::undo::Undo;

struct Op {
    key: Vec<u8>,
    /// `None`: delete the key.
    value: Option<Vec<u8>>,
    /// The key's value before this write; `None` if it did not exist.
    before: Option<Vec<u8>>,
}

#[derive(Default)]
pub struct Pending {
    ops: Vec<Op>,
    bytes: usize,
}

impl Pending {
    pub fn put(&mut self, key: Vec<u8>, value: &[u8], before: Option<Vec<u8>>) {
        self.bytes += key.len() + value.len() + before.as_ref().map_or(0, Vec::len) + 32;
        self.ops.push(Op { key, value: Some(value.to_vec()), before });
    }

    pub fn delete(&mut self, key: Vec<u8>, before: Vec<u8>) {
        self.bytes += key.len() + before.len() + 32;
        self.ops.push(Op { key, value: None, before: Some(before) });
    }

    pub fn is_empty(&self) -> bool {
        self.ops.is_empty()
    }

    pub fn bytes(&self) -> usize {
        self.bytes
    }

    pub fn clear(&mut self) {
        self.ops.clear();
        self.bytes = 0;
    }

    /// The inverse of every write, in the order the writes were made.
    pub fn undo_records(&self) -> impl Iterator<Item = Undo> + '_ {
        self.ops.iter().map(|op| match &op.before {
            None => Undo::Delete(op.key.clone()),
            Some(v) => Undo::Restore(op.key.clone(), v.clone()),
        })
    }

    /// Every write as a RocksDB write batch to the data column family (id `cf`). With `sort`,
    /// in key order (writes to one key keep their order); only valid when RocksDB orders the
    /// column family bytewise. Records are appended as bytes, not one FFI call each.
    pub fn take_batch(&mut self, cf: u32, sort: bool) -> WriteBatch {
        let ops = std::mem::take(&mut self.ops);
        let mut rep = BatchRep::with_capacity(self.bytes);
        self.bytes = 0;
        let mut order: Vec<(u128, u32)> = ops.iter().enumerate().map(|(i, op)| (prefix(&op.key), i as u32)).collect();
        if sort {
            // Most comparisons are settled by the 16-byte prefix, without touching the keys.
            order.sort_unstable_by(|a, b| {
                a.0.cmp(&b.0).then_with(|| ops[a.1 as usize].key.cmp(&ops[b.1 as usize].key)).then(a.1.cmp(&b.1))
            });
        }
        for (_, i) in order {
            let op = &ops[i as usize];
            match &op.value {
                Some(v) => {
                    rep.put(cf, &op.key, v);
                }
                None => rep.delete(cf, &op.key),
            }
        }
        rep.to_write_batch()
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
    use super::prefix;

    #[test]
    fn prefixes_never_contradict_key_order() {
        let keys: [&[u8]; 6] = [b"", b"a", b"a\0", b"a\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\x01", b"ab", b"\xff"];
        for a in keys {
            for b in keys {
                if a < b {
                    assert!(prefix(a) <= prefix(b), "{a:?} {b:?}");
                }
            }
        }
    }
}
