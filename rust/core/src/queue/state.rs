//! One queue's state in memory: which sequence numbers are committed, which are claimed by
//! open transactions, which were handed back by a rollback, which are being written, and what
//! the queue's entries count against its capacity. Its delivery counts are in
//! `delivery_counts.rs`, the layout of its entries on disk in `layout.rs`.
//!
//! Keeping head and tail here means a consumer never iterates over the tombstones that consumed
//! entries leave behind (the classic RocksDB-queue trap); entries are fetched by point lookups.

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::time::Instant;

use crate::keys::QueueId;
use crate::queue_config::QueueConfig;

#[derive(Debug)]
pub(crate) struct QueueState {
    pub(super) id: QueueId,
    /// Next sequence handed out from the contiguous committed range `[head, tail)`.
    pub(super) head: u64,
    /// One past the last committed entry consumers may see (published).
    pub(super) tail: u64,
    /// One past the last entry assigned to a commit: at or above `tail` while commits are being
    /// written; the range between is published in commit order once on disk.
    pub(super) reserved_tail: u64,
    /// False for a queue created by a commit still being written: not listed yet.
    pub(super) published: bool,
    /// Entries given back by a rollback: handed out again before anything at `head`, lowest
    /// first, which keeps FIFO order across rollbacks. All are below `head`.
    pub(super) returned: BTreeSet<u64>,
    /// Entries claimed by open transactions: still on disk, invisible to other consumers.
    pub(super) in_flight: BTreeSet<u64>,
    /// Deliveries that ended without the entry being consumed (a rollback, a failed commit, a
    /// crash), for the entries still present that had any. Kept only for those, so the first
    /// delivery and the consumption of an entry cost nothing here.
    pub(super) failed_deliveries: HashMap<u64, u32>,
    /// Handed-back entries not to be claimed before their time (a rollback with a delay).
    pub(super) not_before: HashMap<u64, Instant>,
    /// The delays of entries claimed before they were due (by a drop or a move of the whole
    /// queue, or a claim of that entry alone): they come back with the entry if its claim is
    /// handed back, and go when it is consumed.
    pub(super) claimed_delays: HashMap<u64, Instant>,
    /// For queues with a delivery limit: the delivery record (`deliveries.rs`) that holds the
    /// count of each handed-back entry (a claimed one's is in its claim)...
    pub(super) record_of: HashMap<u64, u64>,
    /// ... and, per record, how many entries (claimed or handed back) it is the current record
    /// of: at zero it is deleted.
    pub(super) record_live: HashMap<u64, u32>,
    /// Entries that are dead letters (they carry a record of why): never dead-lettered again.
    pub(super) dead_letters: BTreeSet<u64>,
    /// The queue's delivery limit in force (0: none); its entries' counts are kept on disk.
    pub(super) max_deliveries: u32,
    /// Most entries the queue may hold at commit (0: no limit).
    pub(super) capacity: u64,
    /// Most payload bytes its entries may hold at commit (0: no limit), and, while it has
    /// such a limit, the bytes its present entries count (`None`: not counted).
    pub(super) capacity_bytes: u64,
    pub(super) bytes: Option<u64>,
    /// Bytes of the entries reserved by commits not yet published.
    pub(super) reserved_bytes: u64,
    /// The blocks (`entry_records.rs`) known to hold entries of this queue that are not all
    /// consumed: first sequence -> entries. Those written since the open are noted when their
    /// commit is prepared, the others when an entry is read from them, which every claimed
    /// entry is before its consumption. The commit that consumes the last entry of one deletes it.
    pub(super) blocks: BTreeMap<u64, u32>,
}

impl QueueState {
    pub fn id(&self) -> QueueId {
        self.id
    }

    /// False for a queue created by a commit still being written: not listed yet.
    pub fn is_published(&self) -> bool {
        self.published
    }

    /// The delivery limit in force (0: none).
    pub fn max_deliveries(&self) -> u32 {
        self.max_deliveries
    }

    /// Most entries, and most payload bytes, the queue may hold at commit (0: no limit).
    pub fn capacity(&self) -> (u64, u64) {
        (self.capacity, self.capacity_bytes)
    }

    /// Whether entry `seq` is a dead letter (it carries a record of why).
    pub fn is_dead_letter(&self, seq: u64) -> bool {
        self.dead_letters.contains(&seq)
    }

    /// The dead letters among its entries, lowest first.
    pub fn dead_letters(&self) -> impl Iterator<Item = u64> + '_ {
        self.dead_letters.iter().copied()
    }

    /// Entry `seq` is a dead letter (written with its record, or found at open).
    pub fn note_dead_letter(&mut self, seq: u64) {
        self.dead_letters.insert(seq);
    }

    /// Entry `seq` is consumed: returns whether it was a dead letter (whose record goes too).
    pub fn forget_dead_letter(&mut self, seq: u64) -> bool {
        self.dead_letters.remove(&seq)
    }

    pub fn new(id: QueueId, head: u64, tail: u64) -> Self {
        QueueState::recovered(id, head, tail, BTreeSet::new())
    }

    /// A queue a commit creates: listed once that commit is published. It has no entry, so
    /// its bytes are counted from 0 if its settings bound them.
    pub fn unpublished(id: QueueId) -> Self {
        QueueState {
            published: false,
            bytes: Some(0),
            ..QueueState::new(id, 0, 0)
        }
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
            claimed_delays: HashMap::new(),
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

    /// Whether entry `seq` may be claimed at `now` (it was not handed back with a delay that
    /// is not over).
    pub fn is_due(&self, seq: u64, now: Instant) -> bool {
        self.not_before.get(&seq).is_none_or(|&t| t <= now)
    }

    /// No entry at all: none committed, claimed, handed back or being written. Such a queue
    /// may be forgotten.
    pub fn is_empty_and_idle(&self) -> bool {
        self.head == self.tail
            && self.reserved_tail == self.tail
            && self.returned.is_empty()
            && self.in_flight.is_empty()
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
            let due: Vec<u64> = self
                .returned
                .iter()
                .copied()
                .filter(|&s| self.is_due(s, now))
                .take(max - out.len().min(max))
                .collect();
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

    /// Claims every entry no transaction holds, delayed ones included (their delays kept in
    /// `claimed_delays`), in delivery order: the handed-back ones, lowest first, then from the
    /// head. What a drop or a move of the whole queue takes.
    pub fn claim_all(&mut self, out: &mut Vec<u64>) {
        if !self.not_before.is_empty() {
            let now = Instant::now();
            let waiting = self.not_before.drain().filter(|&(_, t)| t > now);
            self.claimed_delays.extend(waiting);
        }
        let first = out.len();
        out.extend(std::mem::take(&mut self.returned));
        out.extend(self.head..self.tail);
        self.head = self.tail;
        self.in_flight.extend(&out[first..]);
    }

    /// Entry `seq`, handed back with a delay, is claimed before it is due: its delay is kept
    /// for a hand-back.
    fn hold_delay(&mut self, seq: u64) {
        if let Some(t) = self.not_before.remove(&seq) {
            if t > Instant::now() {
                self.claimed_delays.insert(seq, t);
            }
        }
    }

    /// Entry `seq` goes back unclaimed: with the delay it had when it was claimed, if that has
    /// not passed.
    pub(super) fn resume_delay(&mut self, seq: u64) {
        if self.claimed_delays.is_empty() {
            return;
        }
        if let Some(t) = self.claimed_delays.remove(&seq) {
            self.not_before.insert(seq, t);
        }
    }

    /// Whether entry `seq` is present and claimed by no transaction.
    pub fn is_claimable(&self, seq: u64) -> bool {
        self.returned.contains(&seq) || (self.head..self.tail).contains(&seq)
    }

    /// Claims entry `seq` wherever it is, if it is claimable (not claimed, present); entries
    /// between the head and it become handed-back ones, so they keep their turn.
    pub fn claim_exact(&mut self, seq: u64) -> bool {
        if self.returned.remove(&seq) {
            self.hold_delay(seq);
        } else if (self.head..self.tail).contains(&seq) {
            self.returned.extend(self.head..seq);
            self.head = seq + 1;
        } else {
            return false;
        }
        self.in_flight.insert(seq);
        true
    }

    /// The first `max` claimable entries, without claiming them (what the tests below look at:
    /// a transaction's peek reads its snapshot).
    #[cfg(test)]
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
            self.resume_delay(seq);
        }
    }

    /// A commit consumed a claimed entry.
    pub fn consumed(&mut self, seq: u64) {
        self.in_flight.remove(&seq);
        if !self.failed_deliveries.is_empty() {
            self.failed_deliveries.remove(&seq);
        }
        if !self.claimed_delays.is_empty() {
            self.claimed_delays.remove(&seq);
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

    /// One past the last published entry.
    pub fn tail(&self) -> u64 {
        self.tail
    }

    /// The lowest entry still present (claimed, handed back or at the head), if any.
    pub fn lowest_present(&self) -> Option<u64> {
        [
            self.returned.first().copied(),
            self.in_flight.first().copied(),
            (self.head < self.tail).then_some(self.head),
        ]
        .into_iter()
        .flatten()
        .min()
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
    fn a_claim_of_everything_takes_delayed_entries_and_a_hand_back_keeps_their_delays() {
        let mut q = QueueState::new(0, 0, 5);
        let mut a = Vec::new();
        q.claim(3, &mut a); // 0, 1, 2
        let later = Instant::now() + std::time::Duration::from_secs(3600);
        q.give_back_delivered(0, 1, None, Some(later));
        q.give_back_delivered(2, 1, None, Some(later));
        q.give_back(1);
        let mut due = Vec::new();
        q.claim(10, &mut due);
        assert_eq!(due, vec![1, 3, 4], "a poll skips the delayed ones");
        due.iter().rev().for_each(|&s| q.give_back(s));

        let mut all = Vec::new();
        q.claim_all(&mut all);
        assert_eq!(all, vec![0, 1, 2, 3, 4], "delivery order, delayed ones included");
        assert_eq!((q.available(), q.next_due()), (0, None));
        all.iter().rev().for_each(|&s| q.give_back(s));
        assert_eq!(q.available(), 3, "0 and 2 wait again");
        assert_eq!(q.next_due(), Some(later));

        assert!(q.claim_exact(2));
        q.give_back(2);
        let mut p = Vec::new();
        q.peek(10, &mut p);
        assert_eq!(p, vec![1, 3, 4], "an exact claim handed back keeps the delay too");

        let mut all = Vec::new();
        q.claim_all(&mut all);
        all.iter().for_each(|&s| q.consumed(s));
        assert!(q.is_empty_and_idle());
        assert!(
            q.claimed_delays.is_empty() && q.not_before.is_empty(),
            "nothing kept of them"
        );
    }
}
