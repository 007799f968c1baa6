//! A transaction's claims: entries of committed queues it holds until it commits or rolls back.
//! Claimed first, then read, then delivered (counted, and recorded on disk for queues with a
//! delivery limit); handed back to the head of their queue, in order, by a rollback, a failed
//! commit, or a poll that returns fewer than it claimed.

use std::time::Instant;

use super::dead_letters::Doomed;
use super::Transaction;
use crate::commit::buffered::Claim;
use crate::entry_records::read_claimed;
use crate::error::{Error, Result, RocksContext};
use crate::keys::{self, Entry, QueueId};
use crate::queue::{QueueState, Take};
use crate::shared::{DbRef, Shared};

impl Transaction {
    /// `result`, or, when it failed, the failure after rolling the whole transaction back: entries
    /// this transaction claimed must never be consumed by a later commit without being delivered.
    pub(super) fn or_roll_back<T>(&mut self, result: Result<T>) -> Result<T> {
        result.or_else(|e| {
            self.rollback()?;
            Err(Error::RolledBack(Box::new(e)))
        })
    }

    /// Claims the committed entries of `queue` that `take` says and no other transaction holds,
    /// in delivery order, and reads what each points at; `None` when there were none. Claimed
    /// before they are read, so that a failure (the caller rolls back) gives every one of them
    /// back.
    pub(super) fn claim_entries(&mut self, db: &DbRef<'_>, queue: &str, take: Take) -> Result<Option<Claimed>> {
        let mut seqs = Vec::new();
        let mut queues = self.store.queues();
        let claimed = queues.claim(queue, take, &mut seqs).map(|(q, kept)| {
            let failed: Vec<u32> = seqs.iter().map(|&seq| q.failed_deliveries(seq)).collect();
            (q.id(), kept, failed, q.max_deliveries() > 0, q.counts_bytes())
        });
        if let Some((qid, ..)) = &claimed {
            queues.metrics_mut().count_claimed(*qid, seqs.len() as u64);
        }
        drop(queues);
        let Some((qid, kept, failed, tracked, counts_bytes)) = claimed.filter(|_| !seqs.is_empty()) else {
            return Ok(None);
        };
        // Before any of their objects is read.
        self.buf.note_owners_read(|| self.store.group_commit().written_below());
        let first = self.buf.add_claims(qid, &seqs);
        let entries = with_unkept_read(&self.store, db, qid, &seqs, kept)?
            .into_iter()
            .zip(&seqs)
            .map(|(entry, seq)| entry.ok_or_else(|| Error::Corrupt(format!("queue '{queue}' entry {seq} is missing"))))
            .collect::<Result<Vec<_>>>()?;
        if counts_bytes {
            self.buf
                .count_claim_bytes(first, crate::object_reads::counted_bytes(db, &entries)?);
        }
        Ok(Some(Claimed {
            queue: qid,
            seqs,
            entries,
            failed,
            tracked,
        }))
    }

    /// The last `n` claims are delivered now: each becomes its entry's next delivery, recorded
    /// on disk first when the queue has a delivery limit, in one delivery record for them all
    /// (`deliveries.rs`), written to the write-ahead log without a sync.
    pub(super) fn deliver_last_claims(&mut self, db: &DbRef<'_>, claimed: &Claimed, n: usize) -> Result<()> {
        let record = if claimed.tracked && n > 0 {
            Some(self.record_deliveries(db, claimed, n)?)
        } else {
            None
        };
        let from = self.buf.claims().len() - n;
        self.buf.deliver_claims(from, &claimed.failed, record);
        Ok(())
    }

    /// Writes the delivery record of the first `n` entries of `claimed` (deleting the records
    /// this supersedes, once they count nothing); returns its number.
    fn record_deliveries(&self, db: &DbRef<'_>, claimed: &Claimed, n: usize) -> Result<u64> {
        let delivered = claimed
            .seqs
            .iter()
            .copied()
            .zip(claimed.failed.iter().map(|f| f + 1))
            .take(n);
        let mut batch = rocksdb::WriteBatch::default();
        let record = {
            let mut queues = self.store.queues();
            let record = queues.new_delivery_record();
            if let Some(q) = queues.state_mut(claimed.queue) {
                for &seq in &claimed.seqs[..n] {
                    if let Some(superseded) = q.detach_record(seq) {
                        batch.delete_cf(
                            db.cf(keys::CF_META),
                            keys::meta_deliveries_key(claimed.queue, superseded),
                        );
                    }
                }
                q.attach_record(record, n as u32);
            }
            record
        };
        batch.put_cf(
            db.cf(keys::CF_META),
            keys::meta_deliveries_key(claimed.queue, record),
            crate::deliveries::encode(delivered),
        );
        let mut wo = rocksdb::WriteOptions::default();
        wo.set_sync(false);
        db.db()
            .write_opt(batch, &wo)
            .context(|| "recording deliveries".to_string())?;
        Ok(record)
    }

    /// A rollback hands every claim back, except the delivered ones that reached their queue's
    /// limit: those are returned, still claimed, to be dead-lettered (unless the store is closed
    /// or refuses writes, when they go back too, their counts kept).
    pub(super) fn hand_back_delivered(&mut self, not_before: Option<Instant>) -> Vec<Doomed> {
        let writable = !self.store.is_closed() && self.store.check_writable().is_ok();
        let mut doomed = Vec::new();
        self.hand_back_claims(0, |q, c| {
            if c.deliveries == 0 {
                q.give_back(c.seq);
            } else if writable
                && q.max_deliveries() > 0
                && c.deliveries >= q.max_deliveries()
                && !q.is_dead_letter(c.seq)
            {
                doomed.push(Doomed {
                    queue: c.queue,
                    seq: c.seq,
                    deliveries: c.deliveries,
                    record: c.record,
                });
            } else {
                q.give_back_delivered(c.seq, c.deliveries, c.record, not_before);
            }
        });
        doomed
    }

    /// After a failed write: the entries this commit was to consume are still on disk (and
    /// were taken out of every later commit's view when it was prepared); they go back to the
    /// head of their queues, lowest first, as a rollback hands them back, each delivery counted
    /// as failed.
    pub(crate) fn restore_claims(&mut self) {
        // A commit whose write failed consumed nothing: its claims come back out of the
        // consumed counts (and are counted as returned as they are handed back).
        {
            let mut queues = self.store.queues();
            for c in self.buf.claims() {
                queues.metrics_mut().uncount_consumed(c.queue, 1);
            }
        }
        self.hand_back_claims(0, |q, c| {
            q.restore(c.seq);
            q.restore_bytes(c.bytes);
            if c.deliveries > 0 {
                q.note_failed_deliveries(c.seq, c.deliveries);
            }
            if let Some(r) = c.record {
                // Released when the commit was prepared; the record is still on disk.
                q.give_back_record(c.seq, r);
            }
        });
    }

    /// Hands the claims from index `from` on back to their queues with `how`, and wakes
    /// waiting consumers (a poll that returns fewer than it claimed hands back its last ones).
    pub(super) fn hand_back_claims(&mut self, from: usize, mut how: impl FnMut(&mut QueueState, &Claim)) {
        if from >= self.buf.claims().len() {
            return;
        }
        let mut queues = self.store.queues();
        for c in self.buf.take_claims(from) {
            if let Some(q) = queues.state_mut(c.queue) {
                how(q, &c);
            }
            queues.metrics_mut().count_returned(c.queue, 1);
        }
        self.store.notify_arrivals();
    }
}

/// What `claim_entries` claimed of one queue: sequence numbers, the entries read, each one's
/// failed deliveries so far, and whether the queue records deliveries on disk.
pub(super) struct Claimed {
    pub(super) queue: QueueId,
    pub(super) seqs: Vec<u64>,
    pub(super) entries: Vec<Entry>,
    pub(super) failed: Vec<u32>,
    pub(super) tracked: bool,
}

/// `kept`, the entries `seqs` of queue `qid` the entry cache had, with the others read
/// (`read_claimed`).
fn with_unkept_read(
    store: &Shared,
    db: &DbRef<'_>,
    qid: QueueId,
    seqs: &[u64],
    mut kept: Vec<Option<Entry>>,
) -> Result<Vec<Option<Entry>>> {
    let unkept: Vec<u64> = seqs
        .iter()
        .zip(&kept)
        .filter(|(_, e)| e.is_none())
        .map(|(&seq, _)| seq)
        .collect();
    if unkept.is_empty() {
        return Ok(kept);
    }
    let mut read = read_claimed(store, db, qid, &unkept)?.into_iter();
    for slot in kept.iter_mut().filter(|e| e.is_none()) {
        *slot = read.next().expect("one read per entry not kept");
    }
    Ok(kept)
}
