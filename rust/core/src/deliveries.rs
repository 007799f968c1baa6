//! Delivery records: how a queue with a delivery limit keeps its entries' counts across the
//! process ending. Each poll that delivers entries of such a queue writes one record, before it
//! returns, under a number no other record of the store has: `meta` key `d/` + queue id + record
//! number, value the delivered entries as runs of consecutive positions that share a count
//! (usually one run: a poll takes consecutive entries, each at its first delivery). The write
//! goes to the write-ahead log without an fsync: it survives the process ending, costs no sync,
//! and is synced by the next synced commit.
//!
//! A record is deleted once it counts no present entry: when the last of its entries is
//! consumed, or delivered again (and so counted in a newer record). At open, records are read in
//! number order, so a later count replaces an earlier one; those that count nothing are deleted.

use crate::error::{Error, Result};

/// Bytes of one run: first position (u64 LE), length (u32 LE), count (u32 LE).
const RUN_BYTES: usize = 16;

/// `(position, count)` pairs, in the order given, as runs.
pub fn encode(entries: impl IntoIterator<Item = (u64, u32)>) -> Vec<u8> {
    let mut runs: Vec<(u64, u32, u32)> = Vec::new();
    for (seq, count) in entries {
        match runs.last_mut() {
            Some((start, len, c))
                if *c == count && start.checked_add(u64::from(*len)) == Some(seq) && *len < u32::MAX =>
            {
                *len += 1
            }
            _ => runs.push((seq, 1, count)),
        }
    }
    let mut v = Vec::with_capacity(runs.len() * RUN_BYTES);
    for (start, len, count) in runs {
        v.extend_from_slice(&start.to_le_bytes());
        v.extend_from_slice(&len.to_le_bytes());
        v.extend_from_slice(&count.to_le_bytes());
    }
    v
}

/// The `(position, count)` pairs of a record.
pub fn decode(v: &[u8]) -> Result<Vec<(u64, u32)>> {
    if !v.len().is_multiple_of(RUN_BYTES) {
        return Err(Error::Corrupt(format!("delivery record of {} bytes", v.len())));
    }
    let mut out = Vec::new();
    for run in v.chunks_exact(RUN_BYTES) {
        let start = u64::from_le_bytes(run[..8].try_into().expect("8 bytes"));
        let len = u32::from_le_bytes(run[8..12].try_into().expect("4 bytes"));
        let count = u32::from_le_bytes(run[12..].try_into().expect("4 bytes"));
        let last = len
            .checked_sub(1)
            .and_then(|l| start.checked_add(u64::from(l)))
            .ok_or_else(|| Error::Corrupt(format!("delivery record run {start}+{len}")))?;
        out.extend((start..=last).map(|seq| (seq, count)));
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{keys, QueueConfig, Store, StoreOptions};

    fn open(dir: &std::path::Path) -> Store {
        Store::open(
            dir,
            StoreOptions {
                sync_on_commit: false,
                ..StoreOptions::default()
            },
        )
        .unwrap()
    }

    /// The delivery records on disk, as (queue id, record number, entries counted).
    fn records(store: &Store) -> Vec<(u32, u64, usize)> {
        let db = store.shared.db().unwrap();
        let mut out = Vec::new();
        for item in db
            .db()
            .prefix_iterator_cf(db.cf(keys::CF_META), keys::meta_deliveries_prefix())
        {
            let (k, v) = item.unwrap();
            if !k.starts_with(keys::meta_deliveries_prefix()) {
                break;
            }
            let (queue, record) = keys::decode_per_entry_meta_key(&k).unwrap();
            out.push((queue, record, decode(&v).unwrap().len()));
        }
        out
    }

    #[test]
    fn a_poll_writes_one_record_which_goes_once_it_counts_no_entry() {
        let dir = tempfile::tempdir().unwrap();
        let store = open(dir.path());
        store
            .configure_queue(
                "q",
                QueueConfig {
                    max_deliveries: Some(5),
                    ..QueueConfig::default()
                },
            )
            .unwrap();
        let mut tx = store.begin().unwrap();
        for i in 0..10u8 {
            tx.enqueue("q", &[i]).unwrap();
        }
        tx.commit().unwrap();

        let mut tx = store.begin().unwrap();
        tx.poll("q", 4).unwrap();
        assert_eq!(
            records(&store).iter().map(|r| r.2).collect::<Vec<_>>(),
            vec![4],
            "one record for the poll"
        );
        tx.commit().unwrap();
        assert!(records(&store).is_empty(), "consumed: nothing left to count");

        let mut tx = store.begin().unwrap();
        tx.poll("q", 3).unwrap();
        tx.rollback().unwrap();
        let kept = records(&store);
        assert_eq!(kept.len(), 1, "a rollback keeps the counts");
        let mut tx = store.begin().unwrap();
        let again = tx.poll("q", 2).unwrap();
        assert_eq!(again.iter().map(|m| m.deliveries).collect::<Vec<_>>(), vec![2, 2]);
        let now = records(&store);
        assert_eq!(now.len(), 2, "the old record still counts one entry: {now:?}");
        assert_eq!((now[0].1, now[1].2), (kept[0].1, 2));
        let mut other = store.begin().unwrap();
        assert_eq!(other.poll("q", 1).unwrap()[0].deliveries, 2);
        assert_eq!(records(&store).len(), 2, "the old one, counting nothing now, is gone");
        assert!(records(&store).iter().all(|r| r.1 != kept[0].1));
        tx.commit().unwrap();
        other.commit().unwrap();
        assert!(records(&store).is_empty());

        // A crash leaves the record; the next open reads it and keeps it while it counts.
        let mut tx = store.begin().unwrap();
        tx.poll("q", 2).unwrap();
        std::mem::forget(tx);
        store.close().unwrap();
        let store = open(dir.path());
        assert_eq!(records(&store).len(), 1);
        let mut tx = store.begin().unwrap();
        assert_eq!(
            tx.poll("q", 10)
                .unwrap()
                .iter()
                .map(|m| m.deliveries)
                .collect::<Vec<_>>(),
            vec![2, 2, 1]
        );
        tx.commit().unwrap();
        assert!(records(&store).is_empty());
        let next = store.shared.queues().next_delivery_record();
        assert!(next > kept[0].1 + 3, "record numbers are never reused: {next}");
    }

    #[test]
    fn records_counting_no_present_entry_are_deleted_at_open() {
        let dir = tempfile::tempdir().unwrap();
        let store = open(dir.path());
        let mut tx = store.begin().unwrap();
        tx.enqueue("q", b"x").unwrap();
        tx.commit().unwrap();
        let qid = store.shared.queues().id("q").unwrap();
        {
            let db = store.shared.db().unwrap();
            // One for an entry long consumed, one for the present entry, superseded by a later one.
            db.db()
                .put_cf(
                    db.cf(keys::CF_META),
                    keys::meta_deliveries_key(qid, 7),
                    encode([(99, 3)]),
                )
                .unwrap();
            db.db()
                .put_cf(
                    db.cf(keys::CF_META),
                    keys::meta_deliveries_key(qid, 8),
                    encode([(0, 1)]),
                )
                .unwrap();
            db.db()
                .put_cf(
                    db.cf(keys::CF_META),
                    keys::meta_deliveries_key(qid, 9),
                    encode([(0, 2)]),
                )
                .unwrap();
        }
        store.close().unwrap();
        let store = open(dir.path());
        assert_eq!(records(&store), vec![(qid, 9, 1)]);
        assert_eq!(store.begin().unwrap().peek("q", 1).unwrap()[0].deliveries, 3);
        assert_eq!(store.shared.queues().next_delivery_record(), 10);
    }

    #[test]
    fn consecutive_entries_with_one_count_take_one_run_and_all_round_trip() {
        let first: Vec<(u64, u32)> = (10..110).map(|s| (s, 1)).collect();
        assert_eq!(encode(first.clone()).len(), RUN_BYTES);
        assert_eq!(decode(&encode(first.clone())).unwrap(), first);
        let mixed = vec![(3, 2), (4, 2), (5, 1), (9, 1), (u64::MAX, 7)];
        assert_eq!(encode(mixed.clone()).len(), 4 * RUN_BYTES);
        assert_eq!(decode(&encode(mixed.clone())).unwrap(), mixed);
        assert!(decode(&[0; 15]).is_err());
        let mut overflowing = encode([(u64::MAX, 1)]);
        overflowing[8] = 2;
        assert!(decode(&overflowing).is_err());
        overflowing[8] = 0;
        assert!(decode(&overflowing).is_err(), "an empty run");
        assert!(decode(&[]).unwrap().is_empty());
    }
}
