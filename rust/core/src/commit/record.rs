//! What only commit time knows, recorded under the commit lock: each queue's next sequence
//! numbers reserved for the commit's entries (new queues registered), the entries written as
//! records, consumed entries and the records they empty deleted, reference counts, dead-letter
//! records and head layouts written, dropped queues forgotten.

use std::collections::{BTreeSet, HashMap, VecDeque};

use super::buffered::Buffered;
use super::capacity::entries_bytes;
use super::group::Append;
use super::lock::Serial;
use super::references::Outcome;
use crate::batch::{BatchRep, CfIds};
use crate::error::Error;
use crate::keys::{self, Entry, QueueId};
use crate::queue::{ConsumedRecord, QueueState, Queues};
use crate::shared::Shared;

/// Write batch bytes of a single entry's put besides its value (type, column family, the key
/// and both lengths; lengths over 2^14 take a byte or two more, and the batch grows for them).
/// At least what an entry adds to a block's put (its length, and its share of the key).
const ENTRY_PUT_OVERHEAD: usize = 1 + 1 + 1 + 12 + 2;

/// Most write batch bytes of a consumed record's single delete (a block's; a commit deletes at
/// most one record per entry it consumes).
const ENTRY_DELETE_BYTES: usize = 1 + 1 + 1 + keys::BLOCK_KEY_BYTES;

/// Reserve sequence numbers and record what only commit time knows, into `tail`: entries
/// (each queue's next sequences, in commit order), deletion of consumed entries, reference
/// counts (kept in CF_REFS only while above one; an owned object at zero is deleted) and
/// queue layouts. Returns the entries to publish per queue once written.
pub(super) fn reserve_and_record(
    buf: &mut Buffered,
    store: &Shared,
    tail_batch: &mut BatchRep,
    outcomes: &[Outcome],
    serial: &Serial<'_>,
) -> Vec<Append> {
    let cf = store.cf_ids();
    let mut consuming: HashMap<QueueId, BTreeSet<u64>> = HashMap::new();
    for c in &buf.claims {
        consuming.entry(c.queue).or_default().insert(c.seq);
    }
    let mut appends = Vec::new();
    let mut layouts = Vec::with_capacity(consuming.len());
    // Delivery records that count no entry once this commit's are consumed.
    let mut spent_records = Vec::new();
    // Entry records holding nothing present once this commit's entries are consumed.
    let mut consumed_records = Vec::new();
    let forgotten;
    {
        let mut queues = store.queues();
        let mut own: Vec<&mut (String, VecDeque<Entry>)> =
            buf.enqueued.queues.iter_mut().filter(|(_, q)| !q.is_empty()).collect();
        own.sort_by(|a, b| a.0.cmp(&b.0));
        for (name, items) in own {
            let qid = queues.id_or_create(name, tail_batch, cf.meta, serial);
            let state = queues.state_mut(qid).expect("queue registered");
            let bytes = entries_bytes(items);
            let first = state.reserve(items.len() as u64, bytes);
            let dead_letters = buf.dead_letter_records.get(name.as_str());
            // Dead letters are single records: each has a record of its own beside it.
            let runs = if dead_letters.is_some() {
                vec![1; items.len()]
            } else {
                crate::entry_records::plan_records(items)
            };
            let mut at = 0usize;
            for n in runs {
                let seq = first + at as u64;
                let run = items.range(at..at + n as usize);
                at += n as usize;
                if n == 1 {
                    let entry = &items[at - 1];
                    tail_batch
                        .put_with::<Error>(
                            cf.entries,
                            &keys::entry_key(qid, seq),
                            keys::encoded_entry_len(entry),
                            |out| {
                                keys::encode_entry_into(entry, out);
                                Ok(())
                            },
                        )
                        .expect("an entry is far below 4 GiB");
                    continue;
                }
                tail_batch
                    .put_with::<Error>(
                        cf.entries,
                        &keys::block_key(qid, seq, n),
                        keys::block_value_len(run.clone()),
                        |out| {
                            keys::encode_block_into(run, out);
                            Ok(())
                        },
                    )
                    .expect("a block is bounded far below 4 GiB");
                state.note_block(seq, n);
            }
            for (i, record) in dead_letters.into_iter().flatten().enumerate() {
                tail_batch.put(cf.meta, &keys::meta_dead_letter_key(qid, first + i as u64), record);
                state.note_dead_letter(first + i as u64);
            }
            // Nothing can refuse the commit any more: its entries go with it, to be kept in
            // memory once published.
            let n = items.len() as u64;
            let entries = if dead_letters.is_some() {
                VecDeque::new()
            } else {
                std::mem::take(items)
            };
            appends.push(Append {
                queue: qid,
                first,
                n,
                entries,
                bytes,
            });
        }
        for (qid, seqs) in &consuming {
            if let Some(q) = queues.state_mut(*qid) {
                layouts.push((*qid, q.layout_after(seqs)));
                // Gone for every commit prepared after this one, with what was kept about them.
                for &seq in seqs {
                    q.consumed(seq);
                    spent_records.extend(q.detach_record(seq).map(|r| (*qid, r)));
                    if q.forget_dead_letter(seq) {
                        tail_batch.delete(cf.meta, &keys::meta_dead_letter_key(*qid, seq));
                    }
                }
                consumed_records.extend(q.records_consumed(seqs).into_iter().map(|r| (*qid, r)));
            }
            queues.metrics_mut().count_consumed(*qid, seqs.len() as u64);
        }
        for c in buf.claims.iter().filter(|c| c.record.is_some() || c.bytes > 0) {
            let Some(q) = queues.state_mut(c.queue) else { continue };
            q.consume_bytes(c.bytes);
            if let Some(r) = c.record.filter(|&r| q.release_record(r)) {
                spent_records.push((c.queue, r));
            }
        }
        if !consuming.is_empty() {
            // Room in a bounded queue, for a commit waiting for it.
            store.notify_arrivals();
        }
        forgotten = forget_dropped_queues(buf, &mut queues, &appends, tail_batch, cf, serial);
    }
    for (qid, record) in consumed_records {
        // Records are written exactly once, which is what SingleDelete requires.
        match record {
            ConsumedRecord::Single(seq) => tail_batch.single_delete(cf.entries, &keys::entry_key(qid, seq)),
            ConsumedRecord::Block { first, n } => tail_batch.single_delete(cf.entries, &keys::block_key(qid, first, n)),
        }
    }
    for (qid, record) in spent_records {
        tail_batch.delete(cf.meta, &keys::meta_deliveries_key(qid, record));
    }
    for o in outcomes {
        match o.count {
            n if n <= 0 => {
                tail_batch.delete(cf.objects, o.id.as_bytes());
                if o.counted {
                    tail_batch.delete(cf.refs, o.id.as_bytes());
                }
            }
            1 if o.counted => tail_batch.delete(cf.refs, o.id.as_bytes()),
            1 => {}
            n => {
                tail_batch.put(cf.refs, o.id.as_bytes(), &(n as u64).to_le_bytes());
            }
        }
    }
    for (qid, layout) in layouts.iter().filter(|(qid, _)| !forgotten.contains(qid)) {
        tail_batch.put(cf.meta, &keys::meta_head_key(*qid), &layout.encode());
    }
    appends
}

/// Forgets each queue this transaction dropped or moved away that has no entry left once it
/// commits (none committed since, none held by another transaction, none being written,
/// none it enqueued itself): its name and head layout are deleted, and the commits prepared
/// after this one create it anew under a new id. Returns the ids forgotten.
fn forget_dropped_queues(
    buf: &Buffered,
    queues: &mut Queues,
    appends: &[Append],
    tail_batch: &mut BatchRep,
    cf: CfIds,
    serial: &Serial<'_>,
) -> Vec<QueueId> {
    let mut forgotten = Vec::new();
    for name in &buf.dropped_queues {
        let Some(qid) = queues.id(name) else { continue };
        let idle = queues.state(qid).is_some_and(QueueState::is_empty_and_idle);
        if !idle || appends.iter().any(|a| a.queue == qid) {
            continue;
        }
        queues.forget(name, tail_batch, cf.meta, serial);
        forgotten.push(qid);
    }
    forgotten
}

/// At least what the entries' puts and the consumed records' deletes take in the write batch,
/// so that it is allocated once: a commit of 10^5 entries regrowing its 5 MB batch copied it
/// and touched fresh pages each time.
pub(super) fn tail_bytes(buf: &Buffered) -> usize {
    let puts: usize = buf
        .enqueued
        .queues
        .iter()
        .flat_map(|(_, q)| q.iter())
        .map(|e| ENTRY_PUT_OVERHEAD + keys::encoded_entry_len(e))
        .sum();
    puts + buf.claims.len() * ENTRY_DELETE_BYTES
}
