//! The present entries of one queue under a RocksDB snapshot, for readers that go by the disk
//! rather than by the queue's state (dumps, exports): the head layout read under the same
//! snapshot says which entries of the records are present.

use std::collections::BTreeSet;

use rocksdb::{DBRawIteratorWithThreadMode, ReadOptions, DB};

use super::{reading_entries, seek_record_holding, RecordEntries};
use crate::error::{Error, Result, RocksContext};
use crate::keys::{self, QueueId, CF_ENTRIES};
use crate::queue::HeadLayout;

/// Which entries of a queue are present in a RocksDB snapshot: those at or above the head its
/// head layout records and those it lists below it.
struct Presence {
    head: u64,
    below_head: BTreeSet<u64>,
}

impl Presence {
    fn holds(&self, seq: u64) -> bool {
        seq >= self.head || self.below_head.contains(&seq)
    }

    fn lowest(&self) -> u64 {
        self.below_head.first().map_or(self.head, |&b| b.min(self.head))
    }
}

/// The present entries of one queue under a RocksDB snapshot, in sequence order (FIFO order:
/// entries handed back below the head are taken before the head), each as its entry value.
pub(crate) struct PresentEntries<'a> {
    it: DBRawIteratorWithThreadMode<'a, DB>,
    presence: Presence,
    record: Option<RecordEntries>,
}

impl<'a> PresentEntries<'a> {
    /// `read_options` gives the options of every read (the snapshot, cache use); `name` names
    /// the queue in errors.
    pub fn new(
        db: &'a DB,
        read_options: impl Fn() -> Result<ReadOptions>,
        qid: QueueId,
        name: &str,
    ) -> Result<PresentEntries<'a>> {
        let meta = db.cf_handle(keys::CF_META).expect("opened with all column families");
        let layout = match db
            .get_pinned_cf_opt(meta, keys::meta_head_key(qid), &read_options()?)
            .context(|| format!("reading the head of queue '{name}'"))?
        {
            Some(v) => {
                HeadLayout::decode(&v).ok_or_else(|| Error::Corrupt(format!("head layout of queue '{name}'")))?
            }
            None => HeadLayout::default(),
        };
        let presence = Presence {
            head: layout.head,
            below_head: layout.below_head_set(),
        };
        let mut ro = read_options()?;
        ro.set_iterate_lower_bound(keys::entry_key(qid, keys::lowest_block_start(presence.lowest())).to_vec());
        ro.set_iterate_upper_bound(keys::queue_upper_bound(qid));
        let mut it = db.raw_iterator_cf_opt(db.cf_handle(CF_ENTRIES).expect("opened with all column families"), ro);
        seek_record_holding(&mut it, qid, presence.lowest())?;
        Ok(PresentEntries {
            it,
            presence,
            record: None,
        })
    }

    /// The next present entry: its sequence and value.
    pub fn next(&mut self) -> Result<Option<(u64, &[u8])>> {
        loop {
            if let Some(record) = &mut self.record {
                let value = self.it.value().expect("on a record");
                if let Some((seq, range)) = record.next(value)? {
                    if self.presence.holds(seq) {
                        return Ok(Some((seq, &self.it.value().expect("on a record")[range])));
                    }
                    continue;
                }
                self.record = None;
                self.it.next();
            }
            let Some(k) = self.it.key() else {
                self.it.status().context(reading_entries)?;
                return Ok(None);
            };
            self.record = Some(RecordEntries::of(k)?);
        }
    }
}
