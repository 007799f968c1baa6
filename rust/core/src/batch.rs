//! A RocksDB write batch assembled directly as bytes, with offsets back into it.
//!
//! rust-rocksdb has no WriteBatchWithIndex, and adding records one FFI call at a time costs
//! about 100 ns per record. RockCask appends records to a `Vec<u8>` in RocksDB's own write batch
//! format (the WAL record format: a 12-byte header of sequence and count, then per record a
//! type byte, the column family id and length-prefixed key and value) and remembers where each
//! object's value lies, which gives read-your-own-writes for free. The format is checked against
//! RocksDB's own encoder when a store opens (`verify_format`).

use rocksdb::{ColumnFamily, WriteBatch, DB};

use crate::error::{Error, Result};

const HEADER: usize = 12;
const TYPE_CF_DELETION: u8 = 0x4;
const TYPE_CF_VALUE: u8 = 0x5;
const TYPE_CF_SINGLE_DELETION: u8 = 0x8;

/// Column family ids as RocksDB numbers them in write batches.
#[derive(Clone, Copy, Debug)]
pub(crate) struct CfIds {
    pub entries: u32,
    pub objects: u32,
    pub refs: u32,
    pub meta: u32,
    /// `None` in a read-only open of a store without maps.
    pub maps: Option<u32>,
}

/// Where a batch stood, to undo what a failed commit appended.
#[derive(Clone, Copy)]
pub(crate) struct Mark {
    len: usize,
    count: u32,
}

pub(crate) struct BatchRep {
    rep: Vec<u8>,
    count: u32,
}

impl Default for BatchRep {
    fn default() -> Self {
        BatchRep::with_capacity(0)
    }
}

fn put_varint32(out: &mut Vec<u8>, mut v: u32) {
    while v >= 0x80 {
        out.push((v as u8) | 0x80);
        v >>= 7;
    }
    out.push(v as u8);
}

fn len32(n: usize, what: &str) -> Result<u32> {
    u32::try_from(n)
        .map_err(|_| Error::InvalidArgument(format!("{what} of {n} bytes is too large for one write batch record")))
}

impl BatchRep {
    pub fn with_capacity(bytes: usize) -> BatchRep {
        let mut rep = Vec::with_capacity(HEADER + bytes);
        rep.resize(HEADER, 0);
        BatchRep { rep, count: 0 }
    }

    /// An empty batch in `spare`'s memory when it has room for `bytes` more (else in new memory).
    pub fn reusing(mut spare: Vec<u8>, bytes: usize) -> BatchRep {
        if spare.capacity() < HEADER + bytes {
            return BatchRep::with_capacity(bytes);
        }
        spare.clear();
        spare.resize(HEADER, 0);
        BatchRep { rep: spare, count: 0 }
    }

    /// The batch's memory, for `reusing`.
    pub fn into_buffer(self) -> Vec<u8> {
        self.rep
    }

    fn record(&mut self, kind: u8, cf: u32, key: &[u8]) {
        self.rep.push(kind);
        put_varint32(&mut self.rep, cf);
        put_varint32(&mut self.rep, key.len() as u32);
        self.rep.extend_from_slice(key);
        self.count += 1;
    }

    /// Append a put whose value of `len` bytes is written in place by `fill`; returns the offset
    /// of the value. On a fill error the batch is left as it was.
    pub fn put_with<E: From<Error>>(
        &mut self,
        cf: u32,
        key: &[u8],
        len: usize,
        fill: impl FnOnce(&mut [u8]) -> std::result::Result<(), E>,
    ) -> std::result::Result<usize, E> {
        let len32 = len32(len, "value")?;
        let mark = self.mark();
        self.record(TYPE_CF_VALUE, cf, key);
        put_varint32(&mut self.rep, len32);
        let at = self.rep.len();
        self.rep.resize(at + len, 0);
        if let Err(e) = fill(&mut self.rep[at..]) {
            self.truncate(mark);
            return Err(e);
        }
        Ok(at)
    }

    pub fn put(&mut self, cf: u32, key: &[u8], value: &[u8]) -> usize {
        self.put_with::<Error>(cf, key, value.len(), |buf| {
            buf.copy_from_slice(value);
            Ok(())
        })
        .expect("keys and values RockCask builds are far below 4 GiB")
    }

    pub fn delete(&mut self, cf: u32, key: &[u8]) {
        self.record(TYPE_CF_DELETION, cf, key);
    }

    /// For keys written exactly once (queue entries).
    pub fn single_delete(&mut self, cf: u32, key: &[u8]) {
        self.record(TYPE_CF_SINGLE_DELETION, cf, key);
    }

    /// The bytes at `at..at + len` (a value previously appended).
    pub fn slice(&self, at: usize, len: usize) -> &[u8] {
        &self.rep[at..at + len]
    }

    pub fn mark(&self) -> Mark {
        Mark {
            len: self.rep.len(),
            count: self.count,
        }
    }

    pub fn truncate(&mut self, mark: Mark) {
        self.rep.truncate(mark.len);
        self.count = mark.count;
    }

    /// Append every record of `other`; into an empty batch, `other` is moved rather than copied
    /// (a commit of 10^5 entries is a 5 MB batch, and copying it into fresh memory costs page
    /// faults as well as the copy). Returns `other`'s memory when it was copied (for `reusing`).
    pub fn append(&mut self, other: BatchRep) -> Option<Vec<u8>> {
        if self.count == 0 && self.rep.len() == HEADER {
            *self = other;
            return None;
        }
        self.rep.extend_from_slice(&other.rep[HEADER..]);
        self.count += other.count;
        Some(other.rep)
    }

    /// The RocksDB write batch of these records (their count written into the header first).
    pub fn write_batch(&mut self) -> WriteBatch {
        self.rep[8..12].copy_from_slice(&self.count.to_le_bytes());
        WriteBatch::from_data(&self.rep)
    }
}

/// The id RocksDB gives column family `cf` in write batches, read from its encoding of a probe
/// record. Not for the default column family (its records carry no id).
pub(crate) fn cf_id(cf: &ColumnFamily, name: &str) -> Result<u32> {
    let mut probe = WriteBatch::default();
    probe.put_cf(cf, b"k", b"v");
    let data = probe.data();
    match data.get(HEADER) {
        Some(&TYPE_CF_VALUE) => {
            let mut id = 0u32;
            for (i, b) in data[HEADER + 1..].iter().enumerate().take(5) {
                id |= u32::from(b & 0x7f) << (7 * i);
                if b & 0x80 == 0 {
                    return Ok(id);
                }
            }
            Err(Error::Internal(
                "unreadable column family id in RocksDB's write batch".into(),
            ))
        }
        _ => Err(Error::Internal(format!(
            "RocksDB's write batch format is not the one RockCask writes (column family '{name}')"
        ))),
    }
}

/// Checks that `BatchRep` encodes a put and a delete to `cf` (id `id`) exactly as RocksDB does.
pub(crate) fn check_encoding(cf: &ColumnFamily, id: u32) -> Result<()> {
    let mut theirs = WriteBatch::default();
    theirs.put_cf(cf, b"key", vec![7u8; 300]);
    theirs.delete_cf(cf, b"key2");
    let mut ours = BatchRep::default();
    ours.put(id, b"key", &[7u8; 300]);
    ours.delete(id, b"key2");
    if ours.write_batch().data() != theirs.data() {
        return Err(Error::Internal(
            "RocksDB's write batch format is not the one RockCask writes".into(),
        ));
    }
    Ok(())
}

/// Learn each column family's id from RocksDB's own encoding of a probe record, then check that
/// this module encodes puts, deletes and single deletes exactly as RocksDB does.
pub(crate) fn verify_format(db: &DB) -> Result<CfIds> {
    let cf = |name: &str| -> &ColumnFamily { db.cf_handle(name).expect("opened with all column families") };
    use crate::keys::{CF_ENTRIES, CF_META, CF_OBJECTS, CF_REFS};
    let id_of = |name: &str| cf_id(cf(name), name);
    let maps = db
        .cf_handle(crate::keys::CF_MAPS)
        .map(|cf| cf_id(cf, crate::keys::CF_MAPS))
        .transpose()?;
    let ids = CfIds {
        entries: id_of(CF_ENTRIES)?,
        objects: id_of(CF_OBJECTS)?,
        refs: id_of(CF_REFS)?,
        meta: id_of(CF_META)?,
        maps,
    };
    let mut theirs = WriteBatch::default();
    theirs.put_cf(cf(CF_OBJECTS), b"key", vec![7u8; 300]);
    theirs.delete_cf(cf(CF_REFS), b"key2");
    theirs.single_delete_cf(cf(CF_ENTRIES), b"k3");
    let mut ours = BatchRep::default();
    ours.put(ids.objects, b"key", &[7u8; 300]);
    ours.delete(ids.refs, b"key2");
    ours.single_delete(ids.entries, b"k3");
    if ours.write_batch().data() != theirs.data() {
        return Err(Error::Internal(
            "RocksDB's write batch format is not the one RockCask writes".into(),
        ));
    }
    Ok(ids)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn varints_match_rocksdb_encoding() {
        let mut v = Vec::new();
        put_varint32(&mut v, 300);
        assert_eq!(v, vec![0xAC, 0x02]);
        v.clear();
        put_varint32(&mut v, 127);
        assert_eq!(v, vec![0x7F]);
    }

    #[test]
    fn a_failed_fill_leaves_the_batch_unchanged_and_marks_undo_appends() {
        let mut b = BatchRep::default();
        b.put(1, b"a", b"x");
        let before = b.rep.clone();
        let r = b.put_with::<Error>(1, b"b", 4, |_| Err(Error::InvalidArgument("no".into())));
        assert!(r.is_err());
        assert_eq!(b.rep, before);
        assert_eq!(b.count, 1);
        let m = b.mark();
        b.delete(2, b"c");
        b.truncate(m);
        assert_eq!(b.rep, before);
        let at = b.put(3, b"k", b"value");
        assert_eq!(b.slice(at, 5), b"value");
        let mut other = BatchRep::default();
        other.delete(2, b"c");
        let mut expected = b.rep.clone();
        expected.extend_from_slice(&other.rep[HEADER..]);
        b.append(other);
        assert_eq!((b.rep, b.count), (expected, 3));
    }

    #[test]
    fn appending_to_an_empty_batch_gives_the_other_batch_and_appending_an_empty_one_changes_nothing() {
        let mut other = BatchRep::default();
        other.put(1, b"k", b"v");
        other.single_delete(2, b"e");
        let (rep, count) = (other.rep.clone(), other.count);
        let mut b = BatchRep::default();
        b.append(other);
        assert_eq!((&b.rep, b.count), (&rep, count));
        b.append(BatchRep::default());
        assert_eq!((&b.rep, b.count), (&rep, count));
        assert_eq!(b.write_batch().len(), 2);
    }
}
