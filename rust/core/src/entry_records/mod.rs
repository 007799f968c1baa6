//! Queue entries as RocksDB records: a commit's run of entries to one queue is one record (a
//! block, `keys.rs`) instead of one record per entry, which is what a commit's write costs in
//! RocksDB (one memtable insert and one delete per record). Single-entry records remain: what a
//! commit enqueues alone, dead letters (each carries a record of its own under its sequence)
//! and what stores written before blocks, and snapshot imports, hold.
//!
//! A block is written once and deleted (`SingleDelete`) by the commit that consumes the last of
//! its entries (`QueueState::blocks` knows which blocks hold the queue's present entries); until
//! then its consumed entries stay in it, and the queue's head layout, written by every commit
//! that consumes, says which of its entries are present. Readers that go by the queue's state
//! (polls) read only present sequences; readers of a RocksDB snapshot (dumps, exports) read the
//! head layout under the same snapshot (`present.rs`).
//!
//! Finding the record that holds a sequence: a seek for the greatest key at or below the
//! largest block key the sequence could start (`seek_for_prev`). No record and no deleted
//! record has a key between the record holding a present sequence and that key (records never
//! overlap), so the seek lands on it without walking tombstones.

mod present;

use std::collections::VecDeque;
use std::ops::Range;

use rocksdb::{DBRawIteratorWithThreadMode, ReadOptions, DB};

use crate::error::{Error, Result, RocksContext};
use crate::keys::{self, Entry, QueueId, CF_ENTRIES, CF_META, MAX_BLOCK_BYTES, MAX_BLOCK_ENTRIES};
use crate::shared::{DbRef, Shared};

pub(crate) use present::PresentEntries;

/// How a commit lays out its `items` to one queue: the number of entries of each record, in
/// order (1: a single-entry record). Blocks take entries up to `MAX_BLOCK_ENTRIES` and
/// `MAX_BLOCK_BYTES`; a lone entry left over is a single record.
pub(crate) fn plan_records(items: &VecDeque<Entry>) -> Vec<u32> {
    let mut runs = Vec::new();
    let (mut n, mut bytes) = (0u32, 0usize);
    for e in items {
        let len = keys::BLOCK_ENTRY_LENGTH_BYTES + keys::encoded_entry_len(e);
        if n > 0 && (n == MAX_BLOCK_ENTRIES || bytes + len > MAX_BLOCK_BYTES) {
            runs.push(n);
            (n, bytes) = (0, 0);
        }
        n += 1;
        bytes += len;
    }
    if n > 0 {
        runs.push(n);
    }
    runs
}

/// What `read_entries` found: the entry at each sequence asked for (`None` where there is none),
/// and the blocks they were read from (first sequence, entries), for the queue's state to learn.
pub(crate) struct Read {
    pub entries: Vec<Option<Entry>>,
    pub blocks: Vec<(u64, u32)>,
}

/// The entries at `seqs` of queue `qid`, read with one bounded iterator: each run of consecutive
/// sequences (what a poll usually claims) with one seek, then a step per record.
pub(crate) fn read_entries(db: &DbRef<'_>, qid: QueueId, seqs: &[u64]) -> Result<Read> {
    let mut read = Read {
        entries: vec![None; seqs.len()],
        blocks: Vec::new(),
    };
    let (Some(&low), Some(&high)) = (seqs.iter().min(), seqs.iter().max()) else {
        return Ok(read);
    };
    let mut it = db.db().raw_iterator_cf_opt(db.cf(CF_ENTRIES), bounded(qid, low, high));
    let mut start = 0;
    while start < seqs.len() {
        let mut end = start + 1;
        while end < seqs.len() && seqs[end - 1].checked_add(1) == Some(seqs[end]) {
            end += 1;
        }
        read_run(
            &mut it,
            qid,
            seqs[start],
            &mut read.entries[start..end],
            &mut read.blocks,
        )?;
        start = end;
    }
    it.status().context(reading_entries)?;
    read.blocks.sort_unstable();
    read.blocks.dedup();
    Ok(read)
}

/// Calls `each` with the queue, number and value of every `meta` record in the key range
/// `[start, end)` of `d/` or `x/` records (`keys.rs`), in key order, until it returns false.
pub(crate) fn for_each_per_entry_record(
    db: &DB,
    (start, end): (Vec<u8>, Vec<u8>),
    what: &str,
    mut each: impl FnMut(QueueId, u64, &[u8]) -> Result<bool>,
) -> Result<()> {
    let meta = db.cf_handle(CF_META).expect("opened with all column families");
    let mut ro = ReadOptions::default();
    ro.set_iterate_upper_bound(end);
    let mut it = db.raw_iterator_cf_opt(meta, ro);
    it.seek(start);
    while let (Some(k), Some(v)) = (it.key(), it.value()) {
        let (queue, seq) = keys::decode_per_entry_meta_key(k)?;
        if !each(queue, seq, v)? {
            break;
        }
        it.next();
    }
    it.status().context(|| format!("reading {what}"))
}

/// The entries at `seqs` of queue `qid` (`None` where there is none), claimed to be consumed:
/// the queue's state learns the blocks they were read from, for the commit that consumes the
/// last entry of one to delete it.
pub(crate) fn read_claimed(store: &Shared, db: &DbRef<'_>, qid: QueueId, seqs: &[u64]) -> Result<Vec<Option<Entry>>> {
    let read = read_entries(db, qid, seqs)?;
    if !read.blocks.is_empty() {
        let mut queues = store.queues();
        if let Some(q) = queues.state_mut(qid) {
            q.note_blocks(read.blocks);
        }
    }
    Ok(read.entries)
}

/// Read options bounding an iterator to the records that may hold sequences `low..=high` of
/// queue `qid`: from the lowest first sequence a block holding `low` may have, to `high`.
fn bounded(qid: QueueId, low: u64, high: u64) -> ReadOptions {
    let mut ro = ReadOptions::default();
    ro.set_iterate_lower_bound(keys::entry_key(qid, keys::lowest_block_start(low)).to_vec());
    ro.set_iterate_upper_bound(match high.checked_add(1) {
        Some(next) => keys::entry_key(qid, next).to_vec(),
        None => keys::queue_upper_bound(qid),
    });
    ro
}

/// Fills `out` with the entries from sequence `first` on, one per slot. A failed read is an
/// error here, before the next seek resets the iterator's status.
fn read_run(
    it: &mut DBRawIteratorWithThreadMode<'_, DB>,
    qid: QueueId,
    first: u64,
    out: &mut [Option<Entry>],
    blocks: &mut Vec<(u64, u32)>,
) -> Result<()> {
    let last = first + (out.len() as u64 - 1);
    seek_record_holding(it, qid, first)?;
    while let (Some(k), Some(v)) = (it.key(), it.value()) {
        let mut record = RecordEntries::of(k)?;
        if record.next_seq > last {
            break;
        }
        if record.block {
            blocks.push((record.next_seq, (record.end - record.next_seq) as u32));
        }
        while let Some((seq, range)) = record.next(v)? {
            if let Some(slot) = seq.checked_sub(first).and_then(|i| out.get_mut(i as usize)) {
                *slot = Some(keys::decode_entry(&v[range])?);
            } else if seq > last {
                break;
            }
        }
        it.next();
    }
    it.status().context(reading_entries)
}

/// Puts `it` on the record holding sequence `seq` of queue `qid`, or, when none does, on the
/// first record after it.
pub(super) fn seek_record_holding(it: &mut DBRawIteratorWithThreadMode<'_, DB>, qid: QueueId, seq: u64) -> Result<()> {
    it.seek_for_prev(keys::block_key(qid, seq, u32::MAX));
    match it.key() {
        Some(k) => {
            let (start, n) = keys::record_span(k)?;
            if start + u64::from(n) <= seq {
                it.next();
            }
        }
        None => {
            // Nothing below, or a failed read: told apart before the seek resets the status.
            it.status().context(reading_entries)?;
            it.seek(keys::entry_key(qid, seq));
        }
    }
    Ok(())
}

/// The entries of one record, in order: `(sequence, where its value lies in the record's value)`.
pub(super) struct RecordEntries {
    block: bool,
    /// The sequence of the next entry given, and one past the record's last.
    next_seq: u64,
    end: u64,
    /// Where the next entry's length lies in a block's value.
    at: usize,
}

impl RecordEntries {
    /// The entries of the record under entry key `key`.
    pub(super) fn of(key: &[u8]) -> Result<RecordEntries> {
        let (first, n) = keys::record_span(key)?;
        Ok(RecordEntries::new(key.len() == keys::BLOCK_KEY_BYTES, first, n))
    }

    fn new(block: bool, first: u64, n: u32) -> RecordEntries {
        RecordEntries {
            block,
            next_seq: first,
            end: first + u64::from(n),
            at: 0,
        }
    }

    /// The next entry of the record whose value is `value`.
    pub(super) fn next(&mut self, value: &[u8]) -> Result<Option<(u64, Range<usize>)>> {
        if self.next_seq == self.end {
            if self.block && self.at != value.len() {
                return Err(Error::Corrupt(format!(
                    "block ending at sequence {}: {} bytes past its entries",
                    self.end,
                    value.len() - self.at
                )));
            }
            return Ok(None);
        }
        let seq = self.next_seq;
        self.next_seq += 1;
        if !self.block {
            self.at = value.len();
            return Ok(Some((seq, 0..value.len())));
        }
        let (range, next) = keys::block_entry_at(value, self.at)?;
        self.at = next;
        Ok(Some((seq, range)))
    }
}

pub(super) fn reading_entries() -> String {
    "reading queue entries".to_string()
}

#[cfg(test)]
mod tests;
