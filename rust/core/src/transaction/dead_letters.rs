//! Moving entries to their dead-letter queue, and a transaction's operations on dead letters
//! (`dead_letter.rs` has the records). An entry that comes back unconsumed (a rollback, a
//! transaction dropped without commit, a refused commit, the process ending while it was
//! claimed) from as many deliveries as its queue allows is moved, with its object and in one
//! commit, to the tail of the queue's dead-letter queue, with a record of where it came from,
//! how often it was delivered, why the last delivery failed and when. A dead letter is never
//! dead-lettered again: it stays in its dead-letter queue until it is requeued, dropped or
//! consumed.

use std::sync::Arc;
use std::time::{SystemTime, UNIX_EPOCH};

use super::Transaction;
use crate::commit::buffered::Claim;
use crate::dead_letter::{bounded_reason, DeadLetterRecord, Selection, PROCESS_ENDED};
use crate::entry_records::read_claimed;
use crate::error::{Error, Result, RocksContext};
use crate::keys::{self, QueueId, CF_META};
use crate::shared::Shared;

/// An entry to dead-letter: claimed (in flight) for this move, with its deliveries so far.
pub(crate) struct Doomed {
    pub queue: QueueId,
    pub seq: u64,
    pub deliveries: u32,
    /// The delivery record holding its count, when its claim had one.
    pub record: Option<u64>,
}

/// Moves each doomed entry to its queue's dead-letter queue in one commit, recording `reason`.
/// If the commit fails, the entries go back to their queues (their counts noted, so the next
/// attempt finds them again) and the failure is returned.
pub(crate) fn move_to_dead_letter_queues(store: &Arc<Shared>, doomed: Vec<Doomed>, reason: &str) -> Result<()> {
    if doomed.is_empty() {
        return Ok(());
    }
    let now = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_millis() as u64);
    let reason = bounded_reason(reason);
    let mut tx = Transaction::new(store.clone());
    // Where each goes, worked out under the queues lock.
    let mut targets: Vec<(String, String)> = Vec::with_capacity(doomed.len());
    {
        let mut queues = store.queues();
        for d in &doomed {
            let origin = queues.name_of(d.queue).unwrap_or_default().to_string();
            let dlq = queues.config(&origin).dead_letter_queue_of(&origin);
            if let Some(q) = queues.state_mut(d.queue) {
                q.note_failed_deliveries(d.seq, d.deliveries);
            }
            targets.push((origin, dlq));
        }
    }
    // Claims first: whatever fails below hands every one of them back.
    for d in &doomed {
        tx.buf.add_claim(Claim {
            record: d.record,
            ..Claim::new(d.queue, d.seq)
        });
    }
    tx.buf.exempt_from_capacity();
    let moved = (|| {
        let db = store.writable_db()?;
        for (d, (origin, dlq)) in doomed.iter().zip(&targets) {
            let read = read_claimed(store, &db, d.queue, &[d.seq])?;
            let entry = read
                .into_iter()
                .flatten()
                .next()
                .ok_or_else(|| Error::Corrupt(format!("queue '{origin}' entry {} is missing", d.seq)))?;
            let record = DeadLetterRecord {
                origin_queue: origin.clone(),
                origin_sequence: d.seq,
                deliveries: d.deliveries,
                reason: reason.to_string(),
                dead_at_millis: now,
            };
            tx.buf.enqueue_dead_letter(dlq, entry, record.encode());
        }
        Ok(())
    })();
    if let Err(e) = moved {
        tx.rollback()?;
        return Err(e);
    }
    let committed = tx.commit();
    let mut queues = store.queues();
    for d in &doomed {
        match (&committed, queues.state_mut(d.queue)) {
            // Back in its queue (the commit handed it back): with its count, for the next try.
            (Err(_), Some(q)) => q.note_failed_deliveries(d.seq, d.deliveries),
            (Err(_), None) => {}
            (Ok(()), _) => queues.metrics_mut().count_dead_lettered(d.queue, 1),
        }
    }
    committed
}

/// At open: every entry whose recorded deliveries reached its queue's limit (its last delivery
/// ended with the process) is moved to its dead-letter queue.
pub(crate) fn dead_letter_over_limit(store: &Arc<Shared>) -> Result<()> {
    let mut doomed = Vec::new();
    {
        let mut queues = store.queues();
        let over: Vec<(QueueId, u64, u32)> = queues
            .states()
            .flat_map(|q| q.over_limit().into_iter().map(|(seq, n)| (q.id(), seq, n)))
            .collect();
        for (queue, seq, deliveries) in over {
            if queues.claim_exact(queue, seq) {
                doomed.push(Doomed {
                    queue,
                    seq,
                    deliveries,
                    record: None,
                });
            }
        }
    }
    move_to_dead_letter_queues(store, doomed, PROCESS_ENDED)
}

impl Transaction {
    /// Puts dead letters of `queue` (those in its dead-letter queue) back at the tail of the
    /// queue each came from, as new entries (their delivery counts start over); their records
    /// go with them. With `Selection::All`, those another transaction holds are left.
    /// Returns how many it requeues. Takes effect at commit, like everything in a transaction.
    pub fn requeue_dead_letters(&mut self, queue: &str, which: Selection<'_>) -> Result<u64> {
        let claimed = self.claim_dead_letters(queue, which)?;
        let n = claimed.len() as u64;
        for (record, entry) in claimed {
            self.buf.enqueue(&record.origin_queue, entry);
        }
        Ok(n)
    }

    /// Deletes dead letters of `queue`, as consuming them would (a queue-owned object goes with
    /// its last entry). Returns how many.
    pub fn drop_dead_letters(&mut self, queue: &str, which: Selection<'_>) -> Result<u64> {
        let claimed = self.claim_dead_letters(queue, which)?;
        for (_, e) in claimed.iter().filter(|(_, e)| e.owns_an_object()) {
            self.buf.consume_owned(e.id, None);
        }
        Ok(claimed.len() as u64)
    }

    /// Claims the selected dead letters of `queue` and reads each one's record and entry. A
    /// failure after claiming rolls the transaction back, as a poll's does.
    fn claim_dead_letters(
        &mut self,
        queue: &str,
        which: Selection<'_>,
    ) -> Result<Vec<(DeadLetterRecord, keys::Entry)>> {
        self.check_open()?;
        let store = self.store.clone();
        let db = store.writable_db()?;
        keys::validate_queue_name(queue)?;
        let (qid, seqs) = {
            let mut queues = store.queues();
            let dlq = queues.config(queue).dead_letter_queue_of(queue);
            let Some(q) = queues.get_mut(&dlq) else {
                return match which {
                    Selection::Only(&[first, ..]) => Err(Error::InvalidArgument(format!(
                        "queue '{queue}' has no dead letter {first}: '{dlq}' holds none"
                    ))),
                    _ => Ok(Vec::new()),
                };
            };
            let seqs: Vec<u64> = match which {
                Selection::All => q.dead_letters().filter(|&s| q.is_claimable(s)).collect(),
                Selection::Only(seqs) => {
                    let mut seqs = seqs.to_vec();
                    seqs.sort_unstable();
                    seqs.dedup();
                    if let Some(bad) = seqs.iter().find(|&&s| !q.is_dead_letter(s) || !q.is_claimable(s)) {
                        let why = if q.is_dead_letter(*bad) {
                            "another transaction holds it"
                        } else {
                            "there is no such dead letter"
                        };
                        return Err(Error::InvalidArgument(format!(
                            "dead letter {bad} of queue '{queue}' (in '{dlq}'): {why}"
                        )));
                    }
                    seqs
                }
            };
            let qid = q.id();
            for &seq in &seqs {
                queues.claim_exact(qid, seq);
            }
            (qid, seqs)
        };
        self.buf.add_claims(qid, &seqs);
        let read = (|| {
            let entries = read_claimed(&self.store, &db, qid, &seqs)?;
            let record_keys: Vec<[u8; 14]> = seqs.iter().map(|&s| keys::meta_dead_letter_key(qid, s)).collect();
            let records = db.db().batched_multi_get_cf(db.cf(CF_META), record_keys.iter(), true);
            seqs.iter()
                .zip(entries)
                .zip(records)
                .map(|((seq, entry), record)| {
                    let record = record.context(|| format!("reading dead letter {seq} of queue '{queue}'"))?;
                    let missing = || Error::Corrupt(format!("dead letter {seq} of queue '{queue}' is missing"));
                    Ok((
                        DeadLetterRecord::decode(&record.ok_or_else(missing)?)?,
                        entry.ok_or_else(missing)?,
                    ))
                })
                .collect::<Result<Vec<_>>>()
        })();
        self.or_roll_back(read)
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn a_failed_move_leaves_the_entry_in_its_queue_with_its_count_and_the_next_open_moves_it() {
        let dir = tempfile::tempdir().unwrap();
        let options = crate::StoreOptions {
            sync_on_commit: false,
            ..crate::StoreOptions::default()
        };
        let store = crate::Store::open(dir.path(), options.clone()).unwrap();
        store
            .configure_queue(
                "q",
                crate::QueueConfig {
                    max_deliveries: Some(1),
                    ..crate::QueueConfig::default()
                },
            )
            .unwrap();
        let mut tx = store.begin().unwrap();
        tx.enqueue("q", b"bad").unwrap();
        tx.commit().unwrap();
        let mut tx = store.begin().unwrap();
        tx.poll("q", 1).unwrap();
        store.shared.group_commit().fail_next_write();
        let failed = tx.rollback_because("cannot parse", None).unwrap_err();
        assert!(failed.to_string().contains("No space left on device"), "{failed}");
        assert!(!tx.is_open(), "the rollback ended the transaction anyway");
        assert_eq!(store.queue_size("q").unwrap(), 1, "the entry stayed in its queue");
        assert_eq!(store.begin().unwrap().peek("q", 1).unwrap()[0].deliveries, 2);
        assert!(store.dead_letters("q", 10).unwrap().is_empty());
        store.close().unwrap();
        let store = crate::Store::open(dir.path(), options).unwrap();
        let dead = store.dead_letters("q", 10).unwrap();
        assert_eq!((dead.len(), dead[0].record.deliveries), (1, 1));
        assert_eq!(store.queue_size("q").unwrap(), 0);
    }
}
