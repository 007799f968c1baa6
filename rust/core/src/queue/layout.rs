//! Where a queue's entries are on disk: the head layout each consuming commit persists (the
//! head and the runs of entries still present below it), and the blocks (`entry_records.rs`)
//! known to hold present entries, with the record deletes a commit consuming entries writes.

use std::collections::BTreeSet;

use super::state::QueueState;

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
        if v.len() < 8 || !(v.len() - 8).is_multiple_of(16) {
            return None;
        }
        let word = |i: usize| u64::from_le_bytes(v[i..i + 8].try_into().expect("8 bytes"));
        let below_head = (8..v.len()).step_by(16).map(|i| (word(i), word(i + 8))).collect();
        Some(HeadLayout {
            head: word(0),
            below_head,
        })
    }

    pub fn below_head_set(&self) -> BTreeSet<u64> {
        self.below_head
            .iter()
            .flat_map(|&(start, len)| start..start + len)
            .collect()
    }
}

impl QueueState {
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
        HeadLayout {
            head: self.head,
            below_head: runs,
        }
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
            block = self
                .blocks
                .range(..=seq)
                .next_back()
                .map(|(&first, &n)| (first, first + u64::from(n)))
                .filter(|&(_, end)| seq < end);
            match block {
                Some((first, end)) if !self.holds_any(first, end) => {
                    self.blocks.remove(&first);
                    out.push(ConsumedRecord::Block {
                        first,
                        n: (end - first) as u32,
                    });
                }
                Some(_) => {}
                None => out.push(ConsumedRecord::Single(seq)),
            }
        }
        out
    }

    /// Whether any of the entries `first..end` (published ones) is present.
    fn holds_any(&self, first: u64, end: u64) -> bool {
        self.head < end
            || self.returned.range(first..end).next().is_some()
            || self.in_flight.range(first..end).next().is_some()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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
        assert_eq!(
            layout,
            HeadLayout {
                head: 16,
                below_head: vec![(10, 3)]
            }
        );
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
        assert_eq!(
            consume(&mut q, &[2, 3, 4, 5, 6]),
            vec![],
            "0 and 1 are held, 7 is at the head"
        );
        let mut c = Vec::new();
        q.claim(2, &mut c); // 7, 8
        q.give_back(1);
        assert_eq!(consume(&mut q, &[0]), vec![], "1 was handed back");
        assert_eq!(
            consume(&mut q, &[7, 8]),
            vec![ConsumedRecord::Block { first: 4, n: 4 }, ConsumedRecord::Single(8)]
        );
        let mut d = Vec::new();
        q.claim(1, &mut d);
        assert_eq!(d, vec![1]);
        assert_eq!(consume(&mut q, &[1]), vec![ConsumedRecord::Block { first: 0, n: 4 }]);
        assert!(q.blocks.is_empty(), "both forgotten once deleted");
    }
}
