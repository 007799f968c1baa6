//! Staging queues: where an exactly-once writer (rockcask-flink's sink) durably parks the records
//! of one checkpoint before they are committed to their target queue. Their names say what they
//! belong to: `<target>.staging/<lineage>/<subtask>/<epoch>` (the format is shared with the Java
//! side through `tests/golden/staging-queue-names.tsv`). Committing moves a staging queue's
//! entries to the tail of its target without copying payloads; aborting drops them. Both are
//! what the command line offers for the staging queues of a job that will never come back.

use rockcask_core::{Result, Store};

/// What separates the target's name from the rest.
pub const STAGING_INFIX: &str = ".staging/";

/// The parts of a staging queue's name.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct StagingQueue {
    /// The queue its records are committed to.
    pub target: String,
    /// The run of the sink that wrote it (its job id and its own id combined, carried across
    /// restores).
    pub lineage: String,
    /// The writer's subtask index (a Java int: at most `i32::MAX`).
    pub subtask: u32,
    /// The checkpoint its records were written for (a Java long: at most `i64::MAX`).
    pub epoch: u64,
}

impl StagingQueue {
    pub fn name(&self) -> String {
        format!(
            "{}{STAGING_INFIX}{}/{}/{}",
            self.target, self.lineage, self.subtask, self.epoch
        )
    }

    /// The parts of `name`, or `None` when it is not a staging queue's name in canonical form
    /// (non-empty target and lineage, decimal numbers without sign or leading zero).
    pub fn parse(name: &str) -> Option<StagingQueue> {
        let at = name.rfind(STAGING_INFIX)?;
        let (target, rest) = (&name[..at], &name[at + STAGING_INFIX.len()..]);
        let mut parts = rest.split('/');
        let (lineage, subtask, epoch) = (parts.next()?, parts.next()?, parts.next()?);
        if target.is_empty() || lineage.is_empty() || parts.next().is_some() {
            return None;
        }
        let subtask = canonical_number(subtask, i32::MAX as u64)? as u32;
        Some(StagingQueue {
            target: target.to_string(),
            lineage: lineage.to_string(),
            subtask,
            epoch: canonical_number(epoch, i64::MAX as u64)?,
        })
    }
}

/// A decimal number without sign or leading zero, at most `max`.
fn canonical_number(s: &str, max: u64) -> Option<u64> {
    let canonical = !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit()) && (s == "0" || !s.starts_with('0'));
    canonical.then(|| s.parse().ok()).flatten().filter(|&n| n <= max)
}

/// A staging queue found in a store, with its committed entries.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StagedQueue {
    pub queue: StagingQueue,
    pub entries: u64,
}

/// Every staging queue in `store`, ordered by target, lineage, subtask and epoch (the order in
/// which committing them keeps each writer's records in order).
pub fn list(store: &Store) -> Result<Vec<StagedQueue>> {
    let mut found = Vec::new();
    for name in store.queue_names()? {
        if let Some(queue) = StagingQueue::parse(&name) {
            found.push(StagedQueue {
                entries: store.queue_size(&name)?,
                queue,
            });
        }
    }
    found.sort_by(|a, b| a.queue.cmp(&b.queue));
    Ok(found)
}

/// Moves the staging queue's entries to the tail of its target in one transaction and forgets
/// the staging queue; returns how many moved.
pub fn commit(store: &Store, queue: &StagingQueue) -> Result<u64> {
    let mut tx = store.begin()?;
    let moved = tx.move_queue(&queue.name(), &queue.target)?;
    tx.commit()?;
    Ok(moved)
}

/// Drops the staging queue's entries (and their objects) in one transaction; returns how many.
pub fn abort(store: &Store, queue: &StagingQueue) -> Result<u64> {
    let mut tx = store.begin()?;
    let dropped = tx.drop_queue(&queue.name())?;
    tx.commit()?;
    Ok(dropped)
}

#[cfg(test)]
mod tests {
    use rockcask_core::StoreOptions;

    use super::*;

    #[test]
    fn names_format_and_parse_as_the_shared_golden_vectors_say() {
        let path = concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../../tests/golden/staging-queue-names.tsv"
        );
        let text = std::fs::read_to_string(path).unwrap();
        let mut checked = 0;
        for line in text.lines().filter(|l| !l.starts_with('#') && !l.is_empty()) {
            let cols: Vec<&str> = line.split('\t').collect();
            let parsed = StagingQueue::parse(cols[0]);
            if cols[1] == "invalid" {
                assert_eq!(parsed, None, "{line}");
            } else {
                let expected = StagingQueue {
                    target: cols[1].into(),
                    lineage: cols[2].into(),
                    subtask: cols[3].parse().unwrap(),
                    epoch: cols[4].parse().unwrap(),
                };
                assert_eq!(parsed.as_ref(), Some(&expected), "{line}");
                assert_eq!(expected.name(), cols[0]);
            }
            checked += 1;
        }
        assert!(checked >= 10, "the vectors were read");
    }

    #[test]
    fn committing_moves_to_the_target_in_order_and_aborting_drops_and_both_forget_the_queue() {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::open(
            dir.path(),
            StoreOptions {
                sync_on_commit: false,
                ..StoreOptions::default()
            },
        )
        .unwrap();
        let stage = |subtask, epoch, items: &[&str]| {
            let q = StagingQueue {
                target: "out".into(),
                lineage: "job".into(),
                subtask,
                epoch,
            };
            let mut tx = store.begin().unwrap();
            for item in items {
                tx.enqueue(&q.name(), item.as_bytes()).unwrap();
            }
            tx.commit().unwrap();
            q
        };
        let late = stage(0, 10, &["c"]);
        let early = stage(0, 9, &["a", "b"]);
        let other = stage(1, 9, &["x"]);
        let mut tx = store.begin().unwrap();
        tx.enqueue("out.staging/not-a-staging-queue", b"-").unwrap();
        tx.commit().unwrap();

        let listed = list(&store).unwrap();
        assert_eq!(
            listed.iter().map(|s| (&s.queue, s.entries)).collect::<Vec<_>>(),
            vec![(&early, 2), (&late, 1), (&other, 1)]
        );
        assert_eq!(commit(&store, &early).unwrap(), 2);
        assert_eq!(commit(&store, &late).unwrap(), 1);
        assert_eq!(abort(&store, &other).unwrap(), 1);
        assert_eq!(commit(&store, &early).unwrap(), 0, "committing again finds nothing");
        let out = store.begin().unwrap().peek("out", 10).unwrap();
        assert_eq!(
            out.iter().map(|m| m.payload.clone().unwrap()).collect::<Vec<_>>(),
            vec![b"a".to_vec(), b"b".to_vec(), b"c".to_vec()]
        );
        assert!(list(&store).unwrap().is_empty());
        assert_eq!(
            store.queue_names().unwrap(),
            vec!["out", "out.staging/not-a-staging-queue"]
        );
    }
}
