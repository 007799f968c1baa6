//! A queue's capacity at commit: a commit that would put a queue it enqueues to over its
//! capacity (in entries or payload bytes) is refused before anything is prepared, and may wait
//! for room.

use std::collections::VecDeque;
use std::time::Instant;

use super::buffered::Buffered;
use super::QueueFull;
use crate::error::{Error, Result};
use crate::keys::Entry;
use crate::queue::Queues;
use crate::shared::Shared;

/// The queue `buf`'s commit would overfill, if, once it is written after the commits prepared
/// before it, a queue it enqueues to would hold more than its capacity (what it consumes from
/// that queue makes room first). Called under the commit lock, which every change of a queue's
/// reserved tail is made under, so concurrent committers can never together overfill it.
pub(super) fn check(buf: &Buffered, queues: &Queues) -> std::result::Result<(), QueueFull> {
    if buf.exempt_from_capacity {
        return Ok(());
    }
    for (name, items) in buf.enqueued.queues.iter().filter(|(_, items)| !items.is_empty()) {
        let config;
        let (capacity, capacity_bytes, depth, bytes, consuming, consuming_bytes) = match queues.get(name) {
            Some(q) if q.capacity() == (0, 0) => continue,
            Some(q) => {
                let mine = buf.claims.iter().filter(|c| c.queue == q.id());
                let (n, b) = mine.fold((0, 0), |(n, b), c| (n + 1, b + c.bytes));
                let (capacity, capacity_bytes) = q.capacity();
                (
                    capacity,
                    capacity_bytes,
                    q.committed_len() + q.being_written(),
                    q.bytes_held(),
                    n,
                    b,
                )
            }
            None => {
                config = queues.config(name);
                (config.capacity, config.capacity_bytes, 0, 0, 0, 0)
            }
        };
        let adding = items.len() as u64;
        if capacity > 0 && depth - consuming + adding > capacity {
            return Err(QueueFull {
                queue: name.clone(),
                capacity,
                depth: depth - consuming,
                adding,
                unit: "entries",
            });
        }
        let adding_bytes = entries_bytes(items);
        let held = bytes.saturating_sub(consuming_bytes);
        if capacity_bytes > 0 && held + adding_bytes > capacity_bytes {
            return Err(QueueFull {
                queue: name.clone(),
                capacity: capacity_bytes,
                depth: held,
                adding: adding_bytes,
                unit: "payload bytes",
            });
        }
    }
    Ok(())
}

/// After `CommitOutcome::QueueFull`: waits (until `deadline`) for a commit to make room in the
/// full queues; returns whether `buf`'s commit would fit now (false once the deadline has passed
/// without).
pub(crate) fn wait_for_room(store: &Shared, buf: &Buffered, deadline: Instant) -> Result<bool> {
    let mut queues = store.queues();
    loop {
        if store.is_closed() {
            return Err(Error::Closed("store"));
        }
        if check(buf, &queues).is_ok() {
            return Ok(true);
        }
        if !store.wait_for_arrivals(&mut queues, deadline) {
            return Ok(check(buf, &queues).is_ok());
        }
    }
}

/// What entries about to be written count against a byte capacity (an entry without a recorded
/// size, moved from a store written before sizes were kept, counts 0 here and its object's size
/// when counted at open).
pub(super) fn entries_bytes(items: &VecDeque<Entry>) -> u64 {
    items.iter().map(|e| u64::from(e.bytes.unwrap_or(0))).sum()
}
