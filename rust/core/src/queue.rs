//! In-memory state of every queue: which sequence numbers are committed, which are claimed by
//! open transactions and which were handed back by a rollback.
//!
//! Keeping head and tail here means a consumer never iterates over the tombstones that consumed
//! entries leave behind (the classic RocksDB-queue trap); entries are fetched by point lookups.

use std::collections::{BTreeMap, BTreeSet, HashMap, VecDeque};
use std::time::Instant;

use crate::entry_cache::EntryCache;
use crate::keys::{Entry, QueueId};
use crate::queue_config::QueueConfig;

#[derive(Debug)]
pub(crate) struct QueueState {
    pub id: QueueId,
    /// Next sequence handed out from the contiguous committed range `[head, tail)`.
    head: u64,
    /// One past the last committed entry consumers may see (published).
    tail: u64,
    /// One past the last entry assigned to a commit: at or above `tail` while commits are being
    /// written; the range between is published in commit order once on disk.
    reserved_tail: u64,
    /// False for a queue created by a commit still being written: not listed yet.
    pub published: bool,
    /// Entries given back by a rollback: handed out again before anything at `head`, lowest
    /// first, which keeps FIFO order across rollbacks. All are below `head`.
    returned: BTreeSet<u64>,
    /// Entries claimed by open transactions: still on disk, invisible to other consumers.
    in_flight: BTreeSet<u64>,
    /// Deliveries that ended without the entry being consumed (a rollback, a failed commit, a
    /// crash), for the entries still present that had any. Kept only for those, so the first
    /// delivery and the consumption of an entry cost nothing here.
    failed_deliveries: HashMap<u64, u32>,
    /// Handed-back entries not to be claimed before their time (a rollback with a delay).
    not_before: HashMap<u64, Instant>,
    /// For queues with a delivery limit: the delivery record (`deliveries.rs`) that holds the
    /// count of each handed-back entry (a claimed one's is in its claim)...
    record_of: HashMap<u64, u64>,
    /// ... and, per record, how many entries (claimed or handed back) it is the current record
    /// of: at zero it is deleted.
    record_live: HashMap<u64, u32>,
    /// Entries that are dead letters (they carry a record of why): never dead-lettered again.
    pub dead_letters: BTreeSet<u64>,
    /// The queue's delivery limit in force (0: none); its entries' counts are kept on disk.
    pub max_deliveries: u32,
    /// Most entries the queue may hold at commit (0: no limit).
    pub capacity: u64,
    /// Most payload bytes its entries may hold at commit (0: no limit), and, while it has
    /// such a limit, the bytes its present entries count (`None`: not counted).
    pub capacity_bytes: u64,
    bytes: Option<u64>,
    /// Bytes of the entries reserved by commits not yet published.
    reserved_bytes: u64,
    /// The blocks (`entry_records.rs`) known to hold entries of this queue that are not all
    /// consumed: first sequence -> entries. Those written since the open are noted when their
    /// commit is prepared, the others when an entry is read from them, which every claimed
    /// entry is before its consumption. The commit that consumes the last entry of one deletes it.
    blocks: BTreeMap<u64, u32>,
}

impl QueueState {
    pub fn new(id: QueueId, head: u64, tail: u64) -> Self {
        QueueState::recovered(id, head, tail, BTreeSet::new())
    }

    /// A queue a commit creates: listed once that commit is published. It has no entry, so
    /// its bytes are counted from 0 if its settings bound them.
    pub fn unpublished(id: QueueId) -> Self {
        QueueState { published: false, bytes: Some(0), ..QueueState::new(id, 0, 0) }
    }

    /// State rebuilt at open: `below_head` are entries still on disk under `head` (claimed or
    /// handed back before the restart); they are handed out first, lowest first.
    pub fn recovered(id: QueueId, head: u64, tail: u64, below_head: BTreeSet<u64>) -> Self {
        QueueState {
            id,
            head,
            tail,
            reserved_tail: tail,
            published: true,
            returned: below_head,
            in_flight: BTreeSet::new(),
            failed_deliveries: HashMap::new(),
            not_before: HashMap::new(),
            record_of: HashMap::new(),
            record_live: HashMap::new(),
            dead_letters: BTreeSet::new(),
            max_deliveries: 0,
            capacity: 0,
            capacity_bytes: 0,
            bytes: None,
            reserved_bytes: 0,
            blocks: BTreeMap::new(),
        }
    }

    /// Takes on the settings `config` gives (with the store's default delivery limit).
    pub fn configure(&mut self, config: &QueueConfig, default_max_deliveries: u32) {
        self.max_deliveries = config.effective_max_deliveries(default_max_deliveries);
        self.capacity = config.capacity;
        self.capacity_bytes = config.capacity_bytes;
        if config.capacity_bytes == 0 {
            self.bytes = None;
        }
    }

    /// Whether the bytes of this queue's entries are to be counted but are not yet (the caller
    /// then counts them, `present_entries`, and sets them with `start_counting_bytes`).
    pub fn needs_byte_count(&self) -> bool {
        self.capacity_bytes > 0 && self.bytes.is_none()
    }

    /// Every entry present: at the head, handed back, or claimed.
    pub fn present_entries(&self) -> Vec<u64> {
        let mut seqs: Vec<u64> = self.returned.iter().chain(&self.in_flight).copied().collect();
        seqs.extend(self.head..self.tail);
        seqs.sort_unstable();
        seqs
    }

    pub fn start_counting_bytes(&mut self, present: u64) {
        self.bytes = Some(present);
    }

    /// Bytes the queue counts once the commits prepared so far are written (0 when it has no
    /// byte capacity).
    pub fn bytes_held(&self) -> u64 {
        self.bytes.map_or(0, |b| b + self.reserved_bytes)
    }

    /// A commit consumes (or, its write failed, gives back) entries counting `n` bytes.
    pub fn consume_bytes(&mut self, n: u64) {
        if let Some(b) = &mut self.bytes {
            *b = b.saturating_sub(n);
        }
    }

    pub fn restore_bytes(&mut self, n: u64) {
        if let Some(b) = &mut self.bytes {
            *b += n;
        }
    }

    /// Whether entries' bytes are counted (a claim then records what its entry counts).
    pub fn counts_bytes(&self) -> bool {
        self.bytes.is_some()
    }

    /// Entries being written by commits prepared but not yet published.
    pub fn being_written(&self) -> u64 {
        self.reserved_tail - self.tail
    }

    /// Entries committed and still present (including those claimed by open transactions).
    pub fn committed_len(&self) -> u64 {
        (self.tail - self.head) + self.returned.len() as u64 + self.in_flight.len() as u64
    }

    /// Entries claimed by open transactions.
    pub fn claimed_len(&self) -> u64 {
        self.in_flight.len() as u64
    }

    /// Entries a consumer could claim right now.
    pub fn available(&self) -> u64 {
        (self.tail - self.head) + self.returned.len() as u64 - self.delayed_now(Instant::now())
    }

    /// Handed-back entries whose delay has not passed at `now`.
    fn delayed_now(&self, now: Instant) -> u64 {
        self.not_before.values().filter(|&&t| t > now).count() as u64
    }

    /// When the next delayed entry becomes claimable, if one is waiting.
    pub fn next_due(&self) -> Option<Instant> {
        let now = Instant::now();
        self.not_before.values().copied().filter(|&t| t > now).min()
    }

    fn is_due(&self, seq: u64, now: Instant) -> bool {
        self.not_before.get(&seq).is_none_or(|&t| t <= now)
    }

    /// No entry at all: none committed, claimed, handed back or being written. Such a queue
    /// may be forgotten.
    pub fn is_empty_and_idle(&self) -> bool {
        self.head == self.tail && self.reserved_tail == self.tail && self.returned.is_empty() && self.in_flight.is_empty()
    }

    /// Assign `n` sequence numbers to a commit, whose entries count `bytes`; returns the first.
    pub fn reserve(&mut self, n: u64, bytes: u64) -> u64 {
        let first = self.reserved_tail;
        self.reserved_tail += n;
        self.reserved_bytes += bytes;
        first
    }

    /// Claim up to `max` entries in FIFO order: the handed-back ones that are due, lowest
    /// first, then from the head.
    pub fn claim(&mut self, max: usize, out: &mut Vec<u64>) {
        if self.not_before.is_empty() {
            while out.len() < max {
                let Some(seq) = self.returned.pop_first() else { break };
                self.in_flight.insert(seq);
                out.push(seq);
            }
        } else {
            let now = Instant::now();
            let due: Vec<u64> = self.returned.iter().copied().filter(|&s| self.is_due(s, now)).take(max - out.len().min(max)).collect();
            for seq in due {
                self.returned.remove(&seq);
                self.not_before.remove(&seq);
                self.in_flight.insert(seq);
                out.push(seq);
            }
        }
        while out.len() < max && self.head < self.tail {
            let seq = self.head;
            self.head += 1;
            self.in_flight.insert(seq);
            out.push(seq);
        }
    }

    /// Whether entry `seq` is present and claimed by no transaction.
    pub fn is_claimable(&self, seq: u64) -> bool {
        self.returned.contains(&seq) || (self.head..self.tail).contains(&seq)
    }

    /// Whether entry `seq` is present: claimable, or claimed by a transaction not yet committed.
    pub fn is_present(&self, seq: u64) -> bool {
        self.is_claimable(seq) || self.in_flight.contains(&seq)
    }

    /// Claims entry `seq` wherever it is, if it is claimable (not claimed, present); entries
    /// between the head and it become handed-back ones, so they keep their turn.
    pub fn claim_exact(&mut self, seq: u64) -> bool {
        if self.returned.remove(&seq) {
            self.not_before.remove(&seq);
        } else if (self.head..self.tail).contains(&seq) {
            self.returned.extend(self.head..seq);
            self.head = seq + 1;
        } else {
            return false;
        }
        self.in_flight.insert(seq);
        true
    }

    /// The first `max` claimable entries, without claiming them.
    pub fn peek(&self, max: usize, out: &mut Vec<u64>) {
        let now = Instant::now();
        out.extend(self.returned.iter().copied().filter(|&s| self.is_due(s, now)).take(max));
        let rest = (max - out.len().min(max)) as u64;
        out.extend(self.head..self.tail.min(self.head.saturating_add(rest)));
    }

    /// A rollback hands claimed entries back; they go to the front again.
    pub fn give_back(&mut self, seq: u64) {
        if self.in_flight.remove(&seq) {
            self.returned.insert(seq);
        }
    }

    /// `give_back` of an entry that was delivered (its `deliveries`-th delivery, counted in
    /// delivery record `record` if the queue keeps them) and is not to be claimed again before
    /// `not_before`.
    pub fn give_back_delivered(&mut self, seq: u64, deliveries: u32, record: Option<u64>, not_before: Option<Instant>) {
        if self.in_flight.remove(&seq) {
            self.returned.insert(seq);
            self.note_failed_deliveries(seq, deliveries);
            if let Some(r) = record {
                self.record_of.insert(seq, r);
            }
            if let Some(t) = not_before {
                self.not_before.insert(seq, t);
            }
        }
    }

    /// Entry `seq` is counted in delivery record `record` (again, after a failed write; or as
    /// found at open), no longer in the one it had.
    pub fn give_back_record(&mut self, seq: u64, record: u64) {
        if let Some(old) = self.record_of.insert(seq, record) {
            self.release_record(old);
        }
        self.attach_record(record, 1);
    }

    /// Delivery record `record` now holds the counts of `entries` entries (just delivered, or
    /// found at open).
    pub fn attach_record(&mut self, record: u64, entries: u32) {
        if entries > 0 {
            *self.record_live.entry(record).or_insert(0) += entries;
        }
    }

    /// One entry of delivery record `record` is consumed or counted in a newer record; returns
    /// whether the record counts none any more (and is to be deleted).
    pub fn release_record(&mut self, record: u64) -> bool {
        match self.record_live.get_mut(&record) {
            Some(n) if *n > 1 => {
                *n -= 1;
                false
            }
            Some(_) => {
                self.record_live.remove(&record);
                true
            }
            None => false,
        }
    }

    /// Entry `seq` leaves the record that held its count (it is delivered again, counted in a
    /// new record, or consumed); returns that record when it counts nothing any more.
    pub fn detach_record(&mut self, seq: u64) -> Option<u64> {
        if self.record_of.is_empty() {
            return None;
        }
        let record = self.record_of.remove(&seq)?;
        self.release_record(record).then_some(record)
    }

    /// At open: entry `seq` (if still present) had `deliveries` by delivery record `record`,
    /// read in record order, so a later record's count replaces an earlier one's.
    pub fn recover_deliveries(&mut self, seq: u64, deliveries: u32, record: u64) {
        if !self.is_claimable(seq) {
            return; // consumed since: the record is stale for it
        }
        self.note_failed_deliveries(seq, deliveries);
        self.give_back_record(seq, record);
    }

    /// Whether delivery record `record` counts no present entry (it is then to be deleted).
    pub fn record_counts_nothing(&self, record: u64) -> bool {
        !self.record_live.contains_key(&record)
    }

    /// Entry `seq` has come back unconsumed from `deliveries` deliveries so far.
    pub fn note_failed_deliveries(&mut self, seq: u64, deliveries: u32) {
        self.failed_deliveries.insert(seq, deliveries);
    }

    /// Deliveries of `seq` that ended without it being consumed.
    pub fn failed_deliveries(&self, seq: u64) -> u32 {
        self.failed_deliveries.get(&seq).copied().unwrap_or(0)
    }

    /// Entries over the delivery limit (none unless a crash left them so): to be dead-lettered.
    pub fn over_limit(&self) -> Vec<(u64, u32)> {
        if self.max_deliveries == 0 {
            return Vec::new();
        }
        let mut over: Vec<(u64, u32)> = self
            .failed_deliveries
            .iter()
            .filter(|&(seq, &n)| n >= self.max_deliveries && !self.dead_letters.contains(seq))
            .map(|(&seq, &n)| (seq, n))
            .collect();
        over.sort_unstable();
        over
    }

    /// A commit consumed a claimed entry.
    pub fn consumed(&mut self, seq: u64) {
        self.in_flight.remove(&seq);
        if !self.failed_deliveries.is_empty() {
            self.failed_deliveries.remove(&seq);
        }
    }

    /// The commit that was to consume `seq` failed to write it: the entry is still on disk and
    /// goes back to the front, as a rollback would have handed it back.
    pub fn restore(&mut self, seq: u64) {
        if seq < self.head && !self.in_flight.contains(&seq) {
            self.returned.insert(seq);
        }
    }

    /// A commit's `n` reserved entries are on disk: consumers may take them.
    pub fn publish(&mut self, n: u64, bytes: u64) {
        self.tail += n;
        self.published = true;
        self.reserved_bytes = self.reserved_bytes.saturating_sub(bytes);
        if let Some(b) = &mut self.bytes {
            *b += bytes;
        }
    }

    /// Where this queue's entries on disk will be once the claims in `consuming` are deleted:
    /// every sequence in `[head, tail)` (never claimed, so all present) plus the returned and
    /// still-claimed ones below `head`, as sorted `(start, len)` runs. Persisted by each
    /// consuming commit so that recovery is exact even when entries were consumed out of order.
    pub fn layout_after(&self, consuming: &BTreeSet<u64>) -> HeadLayout {
        let mut below: Vec<u64> = self.returned.iter().copied().collect();
        below.extend(self.in_flight.iter().copied().filter(|s| !consuming.contains(s)));
        below.sort_unstable();
        let mut runs: Vec<(u64, u64)> = Vec::new();
        for seq in below {
            match runs.last_mut() {
                Some((start, len)) if *start + *len == seq => *len += 1,
                _ => runs.push((seq, 1)),
            }
        }
        HeadLayout { head: self.head, below_head: runs }
    }

    /// The block of `n` entries from sequence `first` on holds entries of this queue.
    pub fn note_block(&mut self, first: u64, n: u32) {
        self.blocks.insert(first, n);
    }

    /// `note_block` of each `(first, n)` (the blocks a read found).
    pub fn note_blocks(&mut self, blocks: impl IntoIterator<Item = (u64, u32)>) {
        self.blocks.extend(blocks);
    }

    /// The record deletes a commit consuming `seqs` (called once it has marked them consumed)
    /// writes: every block holding one of them that holds no present entry any more (forgotten
    /// here), and the single-entry record of each of them no known block holds.
    pub fn records_consumed(&mut self, seqs: &BTreeSet<u64>) -> Vec<ConsumedRecord> {
        let mut out = Vec::new();
        let mut block: Option<(u64, u64)> = None;
        for &seq in seqs {
            if block.is_some_and(|(first, end)| (first..end).contains(&seq)) {
                continue;
            }
            block = self.blocks.range(..=seq).next_back().map(|(&first, &n)| (first, first + u64::from(n))).filter(|&(_, end)| seq < end);
            match block {
                Some((first, end)) if !self.holds_any(first, end) => {
                    self.blocks.remove(&first);
                    out.push(ConsumedRecord::Block { first, n: (end - first) as u32 });
                }
                Some(_) => {}
                None => out.push(ConsumedRecord::Single(seq)),
            }
        }
        out
    }

    /// Whether any of the entries `first..end` (published ones) is present.
    fn holds_any(&self, first: u64, end: u64) -> bool {
        self.head < end || self.returned.range(first..end).next().is_some() || self.in_flight.range(first..end).next().is_some()
    }

    /// One past the last published entry.
    pub fn tail(&self) -> u64 {
        self.tail
    }

    /// The lowest entry still present (claimed, handed back or at the head), if any.
    pub fn lowest_present(&self) -> Option<u64> {
        [self.returned.first().copied(), self.in_flight.first().copied(), (self.head < self.tail).then_some(self.head)].into_iter().flatten().min()
    }
}

/// A record of a queue's entries that a commit deletes: every entry in it is consumed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum ConsumedRecord {
    Single(u64),
    Block { first: u64, n: u32 },
}

/// Persisted per queue: the head and the runs of entries still on disk below it.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(crate) struct HeadLayout {
    pub head: u64,
    pub below_head: Vec<(u64, u64)>,
}

impl HeadLayout {
    pub fn encode(&self) -> Vec<u8> {
        let mut v = Vec::with_capacity(8 + 16 * self.below_head.len());
        v.extend_from_slice(&self.head.to_le_bytes());
        for (start, len) in &self.below_head {
            v.extend_from_slice(&start.to_le_bytes());
            v.extend_from_slice(&len.to_le_bytes());
        }
        v
    }

    pub fn decode(v: &[u8]) -> Option<HeadLayout> {
        if v.len() < 8 || (v.len() - 8) % 16 != 0 {
            return None;
        }
        let word = |i: usize| u64::from_le_bytes(v[i..i + 8].try_into().expect("8 bytes"));
        let below_head = (8..v.len()).step_by(16).map(|i| (word(i), word(i + 8))).collect();
        Some(HeadLayout { head: word(0), below_head })
    }

    pub fn below_head_set(&self) -> BTreeSet<u64> {
        self.below_head.iter().flat_map(|&(start, len)| start..start + len).collect()
    }
}

#[derive(Debug, Default)]
pub(crate) struct Queues {
    pub by_name: HashMap<String, QueueId>,
    pub states: HashMap<QueueId, QueueState>,
    pub next_id: QueueId,
    /// Settings of the queues that have any (by name: a queue may be configured before it
    /// exists).
    pub configs: HashMap<String, QueueConfig>,
    /// `StoreOptions::max_deliveries`.
    pub default_max_deliveries: u32,
    /// The number of the next delivery record (`deliveries.rs`), above every one on disk.
    pub next_delivery_record: u64,
    pub metrics: crate::metrics::QueueMetrics,
    /// Committed entries not yet claimed, kept in memory (`entry_cache.rs`). Filled and taken
    /// only through `publish`, `claim` and `claim_exact` below, which keep it in step with the
    /// states.
    pub entry_cache: EntryCache,
}

impl Queues {
    pub fn get(&self, name: &str) -> Option<&QueueState> {
        self.by_name.get(name).and_then(|id| self.states.get(id))
    }

    pub fn get_mut(&mut self, name: &str) -> Option<&mut QueueState> {
        let id = *self.by_name.get(name)?;
        self.states.get_mut(&id)
    }

    pub fn config(&self, name: &str) -> QueueConfig {
        self.configs.get(name).cloned().unwrap_or_default()
    }

    /// Registers the state of queue `name` with its settings.
    pub fn insert(&mut self, name: String, mut state: QueueState) {
        state.configure(&self.config(&name), self.default_max_deliveries);
        self.by_name.insert(name, state.id);
        self.states.insert(state.id, state);
    }

    /// A commit's `n` entries, reserved in queue `id` from sequence `first` on, are on disk:
    /// consumers may take them, from memory those of `entries` (the first of them, or none)
    /// the entry cache keeps.
    pub fn publish(&mut self, id: QueueId, first: u64, n: u64, entries: VecDeque<Entry>, bytes: u64) {
        if let Some(q) = self.states.get_mut(&id) {
            q.publish(n, bytes);
            self.entry_cache.publish(id, first, entries.into_iter());
        }
        self.count_published(id, n);
    }

    /// `QueueState::claim` of queue `name`, with the claimed entries the entry cache keeps
    /// taken out of it (`None` for each it does not).
    pub fn claim(&mut self, name: &str, max: usize, seqs: &mut Vec<u64>) -> Option<(&QueueState, Vec<Option<Entry>>)> {
        let id = *self.by_name.get(name)?;
        let q = self.states.get_mut(&id)?;
        q.claim(max, seqs);
        let kept = self.entry_cache.take_all(id, seqs);
        Some((q, kept))
    }

    /// `QueueState::claim_exact` of entry `seq` of queue `id`; its kept copy, if any, is
    /// dropped (the caller reads the entry from RocksDB: these claims are rare).
    pub fn claim_exact(&mut self, id: QueueId, seq: u64) -> bool {
        let claimed = self.states.get_mut(&id).is_some_and(|q| q.claim_exact(seq));
        if claimed {
            self.entry_cache.take(id, seq);
        }
        claimed
    }

    /// Queue `id` is forgotten (it holds nothing).
    pub fn forget(&mut self, id: QueueId) {
        self.states.remove(&id);
        self.entry_cache.forget(id);
        self.metrics.forget(id);
    }

    /// The name of queue `id` (a scan: for the rare paths that start from an id).
    pub fn name_of(&self, id: QueueId) -> Option<&str> {
        self.by_name.iter().find(|&(_, &q)| q == id).map(|(name, _)| name.as_str())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn claims_are_fifo_and_rollback_returns_them_to_the_front_in_order() {
        let mut q = QueueState::new(0, 0, 5);
        let mut a = Vec::new();
        q.claim(2, &mut a);
        assert_eq!(a, vec![0, 1]);
        let mut b = Vec::new();
        q.claim(2, &mut b);
        assert_eq!(b, vec![2, 3]);
        // First transaction rolls back: 0 and 1 come before 4.
        q.give_back(1);
        q.give_back(0);
        let mut c = Vec::new();
        q.claim(10, &mut c);
        assert_eq!(c, vec![0, 1, 4]);
        assert_eq!(q.available(), 0);
        assert_eq!(q.committed_len(), 5);
        // Reserved entries stay invisible until published.
        assert_eq!(q.reserve(2, 0), 5);
        assert_eq!(q.available(), 0);
        q.publish(2, 0);
        assert_eq!(q.available(), 2);
        assert_eq!(q.committed_len(), 7);
    }

    #[test]
    fn peek_shows_returned_then_head_without_claiming() {
        let mut q = QueueState::new(0, 0, 4);
        let mut a = Vec::new();
        q.claim(2, &mut a);
        q.give_back(1);
        let mut p = Vec::new();
        q.peek(3, &mut p);
        assert_eq!(p, vec![1, 2, 3]);
        let mut p = Vec::new();
        q.peek(1, &mut p);
        assert_eq!(p, vec![1]);
        assert_eq!(q.available(), 3);
    }

    #[test]
    fn entries_of_a_failed_commit_come_back_first_in_their_order() {
        let mut q = QueueState::new(0, 0, 6);
        let mut a = Vec::new();
        q.claim(3, &mut a); // 0, 1, 2
        let mut b = Vec::new();
        q.claim(1, &mut b); // 3, still claimed by another transaction
        for &seq in &a {
            q.consumed(seq); // prepared for writing
        }
        for &seq in a.iter().rev() {
            q.restore(seq); // the write failed
        }
        let mut p = Vec::new();
        q.peek(10, &mut p);
        assert_eq!(p, vec![0, 1, 2, 4, 5]);
        assert_eq!(q.committed_len(), 6);
        q.restore(3); // claimed elsewhere: not handed out twice
        q.restore(5); // never claimed
        let mut c = Vec::new();
        q.claim(10, &mut c);
        assert_eq!(c, vec![0, 1, 2, 4, 5]);
    }

    #[test]
    fn layout_after_commit_lists_entries_left_below_head_as_runs() {
        let mut q = QueueState::new(0, 10, 20);
        let mut a = Vec::new();
        q.claim(3, &mut a); // 10, 11, 12 claimed by one transaction
        let mut b = Vec::new();
        q.claim(3, &mut b); // 13, 14, 15 claimed by another
        // The second commits first: 10..=12 stay on disk below head 16.
        let consuming: BTreeSet<u64> = b.iter().copied().collect();
        let layout = q.layout_after(&consuming);
        assert_eq!(layout, HeadLayout { head: 16, below_head: vec![(10, 3)] });
        assert_eq!(HeadLayout::decode(&layout.encode()), Some(layout.clone()));
        assert_eq!(layout.below_head_set(), [10, 11, 12].into_iter().collect());
        let everything: BTreeSet<u64> = a.iter().chain(&b).copied().collect();
        assert_eq!(q.layout_after(&everything).below_head, vec![]);
        assert_eq!(HeadLayout::decode(&[1, 2, 3]), None);
    }

    fn consume(q: &mut QueueState, seqs: &[u64]) -> Vec<ConsumedRecord> {
        for &s in seqs {
            q.consumed(s);
        }
        q.records_consumed(&seqs.iter().copied().collect())
    }

    /// A block goes with the commit that consumes its last present entry, whoever consumed the
    /// others, and whatever order they were consumed in; entries outside known blocks are
    /// single records.
    #[test]
    fn a_block_is_deleted_by_the_commit_that_consumes_its_last_present_entry() {
        let mut q = QueueState::new(1, 0, 12);
        q.note_block(0, 4); // 0..4
        q.note_block(4, 4); // 4..8; 8..12 are single records
        let (mut a, mut b) = (Vec::new(), Vec::new());
        q.claim(2, &mut a); // 0, 1
        q.claim(5, &mut b); // 2..7
        assert_eq!(consume(&mut q, &[2, 3, 4, 5, 6]), vec![], "0 and 1 are held, 7 is at the head");
        let mut c = Vec::new();
        q.claim(2, &mut c); // 7, 8
        q.give_back(1);
        assert_eq!(consume(&mut q, &[0]), vec![], "1 was handed back");
        assert_eq!(consume(&mut q, &[7, 8]), vec![ConsumedRecord::Block { first: 4, n: 4 }, ConsumedRecord::Single(8)]);
        let mut d = Vec::new();
        q.claim(1, &mut d);
        assert_eq!(d, vec![1]);
        assert_eq!(consume(&mut q, &[1]), vec![ConsumedRecord::Block { first: 0, n: 4 }]);
        assert!(q.blocks.is_empty(), "both forgotten once deleted");
    }
}
