//! What a consumer gets from a queue: `poll` claims and reads entries, `take` waits for one,
//! `peek` reads without claiming.

use std::collections::HashSet;
use std::time::{Duration, Instant};

use uuid::Uuid;

use super::{Message, Transaction};
use crate::entry_records::PresentEntries;
use crate::error::{Error, Result, RocksContext};
use crate::keys::{self, Ownership, CF_META};
use crate::map_reads::ReadView;
use crate::options::MAX_BATCH_ITEMS;
use crate::queue::Take;
use crate::shared::DbRef;

impl Transaction {
    /// Remove up to `max` items from the head of `queue`: committed entries first (FIFO), then
    /// this transaction's own enqueues. Others never receive them unless this rolls back.
    ///
    /// If reading what was claimed fails, the whole transaction rolls back (and the error says
    /// so): claimed entries must never be consumed by a later commit without being delivered.
    pub fn poll(&mut self, queue: &str, max: usize) -> Result<Vec<Message>> {
        self.poll_within(queue, max, usize::MAX)
    }

    /// `poll` that also stops before the message whose payload would bring the payload bytes
    /// returned over `max_payload_bytes` (for a caller whose result must fit one buffer). The
    /// first message is always returned, whatever its size; the ones left go back to the head
    /// of the queue for the next poll, in order.
    pub fn poll_within(&mut self, queue: &str, max: usize, max_payload_bytes: usize) -> Result<Vec<Message>> {
        self.check_open()?;
        let store = self.store.clone();
        let db = store.writable_db()?;
        keys::validate_queue_name(queue)?;
        check_batch(max)?;
        let read = self.claim_and_read(&db, queue, max, max_payload_bytes);
        self.or_roll_back(read)
    }

    fn claim_and_read(
        &mut self,
        db: &DbRef<'_>,
        queue: &str,
        max: usize,
        max_payload_bytes: usize,
    ) -> Result<Vec<Message>> {
        let mut out = Vec::new();
        if let Some(claimed) = self.claim_entries(db, queue, Take::Due(max))? {
            let ids: Vec<Uuid> = claimed.entries.iter().map(|e| e.id).collect();
            let objects = self.buf.object_reads().read_entry_payloads(db, &claimed.entries)?;
            let kept = within_budget(
                objects.iter().map(|o| o.as_ref().map_or(0, |(_, p)| p.len())),
                max_payload_bytes,
                0,
            );
            // The claims past the budget go back, to be the head of the next poll.
            self.hand_back_claims(self.buf.claims().len() - (claimed.seqs.len() - kept), |q, c| {
                q.give_back(c.seq)
            });
            self.deliver_last_claims(db, &claimed, kept)?;
            for (e, object) in claimed.entries[..kept].iter().zip(&objects) {
                if e.owns_an_object() {
                    self.buf
                        .consume_owned(e.id, Some(matches!(object, Some((Ownership::Owned, _)))));
                }
            }
            let payloads = objects.into_iter().map(|o| o.map(|(_, p)| p));
            let delivered = ids
                .into_iter()
                .zip(payloads)
                .zip(claimed.seqs.iter().zip(&claimed.failed))
                .take(kept);
            out.extend(delivered.map(|((id, payload), (&seq, &failed))| Message {
                id,
                payload,
                sequence: Some(seq),
                deliveries: failed + 1,
            }));
            if kept < claimed.seqs.len() {
                return Ok(out);
            }
        }
        if out.len() < max {
            let used: usize = out.iter().map(|m| m.payload.as_ref().map_or(0, Vec::len)).sum();
            let available = self.buf.own_enqueues(queue).map_or(0, |items| items.len());
            let n = (max - out.len()).min(available);
            let mut taken = Vec::with_capacity(n);
            for i in 0..n {
                let e = &self.buf.own_enqueues(queue).expect("counted above")[i];
                taken.push((e.id, self.buf.object_reads().own_entry_payload(db, e)?));
            }
            let kept = within_budget(
                taken.iter().map(|(_, p)| p.as_ref().map_or(0, Vec::len)),
                max_payload_bytes.saturating_sub(used),
                out.len(),
            );
            let own_items = self.buf.take_back_own_enqueues(queue, kept);
            for (e, (_, payload)) in own_items.into_iter().zip(taken) {
                out.push(Message {
                    id: e.id,
                    payload,
                    sequence: None,
                    deliveries: 1,
                });
            }
        }
        Ok(out)
    }

    /// Poll one item, waiting up to `timeout` for one to be committed to `queue`.
    pub fn take(&mut self, queue: &str, timeout: Duration) -> Result<Option<Message>> {
        let deadline = Instant::now()
            .checked_add(timeout)
            .ok_or_else(|| Error::InvalidArgument("timeout is too long".into()))?;
        loop {
            if let Some(m) = self.poll(queue, 1)?.pop() {
                return Ok(Some(m));
            }
            let mut queues = self.store.queues();
            loop {
                if self.store.is_closed() {
                    return Err(Error::Closed("store"));
                }
                let (available, next_due) = queues
                    .get(queue)
                    .map_or((false, None), |q| (q.available() > 0, q.next_due()));
                if available {
                    break;
                }
                // A delayed entry becoming due arrives without anyone committing.
                let until = next_due.map_or(deadline, |due| due.min(deadline));
                if !self.store.wait_for_arrivals(&mut queues, until) && until == deadline {
                    return Ok(None);
                }
            }
        }
    }

    /// The first `max` items of `queue` in this transaction's snapshot, without removing them:
    /// the committed entries (in FIFO order) the store held when the snapshot was taken, less
    /// those this transaction polled, then its own enqueues. The snapshot is the one its map
    /// reads see (taken at its first read, a peek or a map read). Entries that other open
    /// transactions have polled are still committed, so a peek shows them; a poll claims from
    /// the latest state and may get other entries. Entries handed back with a delay that is
    /// not over are left out, as a poll now would leave them.
    pub fn peek(&mut self, queue: &str, max: usize) -> Result<Vec<Message>> {
        self.peek_within(queue, max, usize::MAX)
    }

    /// `peek` that also stops before the message whose payload would bring the payload bytes
    /// returned over `max_payload_bytes` (the first is always returned), as `poll_within` does.
    pub fn peek_within(&mut self, queue: &str, max: usize, max_payload_bytes: usize) -> Result<Vec<Message>> {
        self.check_open()?;
        keys::validate_queue_name(queue)?;
        check_batch(max)?;
        let store = self.store.clone();
        let db = store.db()?;
        let view = self.view.get_or_insert_with(|| ReadView::take(&store, &db));
        let ro = || view.read_options(&store, &db);
        let mut out = Vec::new();
        // The queue's id as the snapshot has it: one created after it is not there yet, one
        // dropped after it still is.
        let queue_id = db
            .db()
            .get_pinned_cf_opt(db.cf(CF_META), keys::meta_queue_key(queue), &ro()?)
            .context(|| format!("looking up queue '{queue}'"))?
            .map(|v| keys::decode_u32(&v, "queue id"))
            .transpose()?;
        if let Some(qid) = queue_id {
            let own_claims: HashSet<u64> = self
                .buf
                .claims()
                .iter()
                .filter(|c| c.queue == qid)
                .map(|c| c.seq)
                .collect();
            let mut present = PresentEntries::new(db.db(), ro, qid, queue)?;
            let (mut seqs, mut entries) = (Vec::new(), Vec::new());
            {
                let queues = store.queues();
                let state = queues.state(qid);
                let now = Instant::now();
                while seqs.len() < max {
                    let Some((seq, value)) = present.next()? else { break };
                    if own_claims.contains(&seq) || state.is_some_and(|q| !q.is_due(seq, now)) {
                        continue;
                    }
                    seqs.push((seq, state.map_or(0, |q| q.failed_deliveries(seq))));
                    entries.push(keys::decode_entry(value)?);
                }
            }
            let payloads = self.buf.object_reads().entry_payloads(&db, &entries, ro()?)?;
            out.extend(
                entries
                    .iter()
                    .zip(payloads)
                    .zip(seqs)
                    .map(|((e, payload), (seq, failed))| Message {
                        id: e.id,
                        payload,
                        sequence: Some(seq),
                        deliveries: failed + 1,
                    }),
            );
        }
        if let Some(own_items) = self.buf.own_enqueues(queue) {
            for e in own_items.iter().take(max - out.len()) {
                out.push(Message {
                    id: e.id,
                    payload: self.buf.object_reads().own_entry_payload(&db, e)?,
                    sequence: None,
                    deliveries: 1,
                });
            }
        }
        out.truncate(within_budget(
            out.iter().map(|m| m.payload.as_ref().map_or(0, Vec::len)),
            max_payload_bytes,
            0,
        ));
        Ok(out)
    }
}

/// How many of the payloads (of these lengths, in order) fit in `budget` bytes; the first always
/// counts as fitting when nothing was returned before it (`already` messages), so a poll of one
/// large payload never comes back empty.
fn within_budget(lengths: impl Iterator<Item = usize>, budget: usize, already: usize) -> usize {
    let mut used = 0usize;
    let mut n = 0;
    for len in lengths {
        used = used.saturating_add(len);
        if used > budget && n + already > 0 {
            break;
        }
        n += 1;
    }
    n
}

pub(super) fn check_batch(max: usize) -> Result<()> {
    if max == 0 || max > MAX_BATCH_ITEMS {
        return Err(Error::InvalidArgument(format!(
            "item count {max} is outside 1..={MAX_BATCH_ITEMS}"
        )));
    }
    Ok(())
}
