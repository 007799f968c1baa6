//! Operations on a whole queue: dropping it, and moving all of it into another.

use super::Transaction;
use crate::error::{Error, Result};
use crate::keys::{self, Entry};
use crate::queue::Take;

impl Transaction {
    /// Remove every entry of `queue`: claims each one no other transaction holds (as a poll of
    /// all of them would, without reading payloads), those handed back with a delay that has not
    /// passed included, and takes back this transaction's own enqueues to it. The commit deletes them (a queue-owned object goes with its last entry)
    /// and, if nothing is left in the queue then (no entry committed since, none held by another
    /// transaction), forgets its name: `queue_names` no longer lists it and a later enqueue
    /// creates it anew, numbering from 0. Returns how many entries it removes.
    ///
    /// If reading the claimed entries fails, the whole transaction rolls back, as with `poll`.
    pub fn drop_queue(&mut self, queue: &str) -> Result<u64> {
        let entries = self.claim_everything(queue)?;
        for e in entries.iter().filter(|e| e.owns_an_object()) {
            self.buf.consume_owned(e.id, None);
        }
        let own = self.buf.own_enqueues(queue).map_or(0, |items| items.len());
        self.buf.take_back_own_enqueues(queue, own);
        self.buf.drop_queue(queue);
        Ok((entries.len() + own) as u64)
    }

    /// Move every entry of `from` to the tail of `to`, in order: claims each one no other
    /// transaction holds, as `drop_queue` does (delayed ones included), and enqueues the same
    /// object in `to` (no payload is read or copied; a queue-owned object stays queue-owned, now
    /// by its entry in `to`), this transaction's own enqueues to `from` included. Each lands in
    /// `to` as a new entry: its delivery count starts over and it carries no delay (a delay is
    /// what a consumer of `from` asked of `from`). The commit then forgets `from` as
    /// `drop_queue` does. Returns how many entries it moves.
    ///
    /// A rollback hands every claimed entry back to `from` as it was, with its delay if that
    /// has not passed.
    pub fn move_queue(&mut self, from: &str, to: &str) -> Result<u64> {
        keys::validate_queue_name(to)?;
        if from == to {
            return Err(Error::InvalidArgument(format!(
                "queue '{from}' cannot be moved into itself"
            )));
        }
        let mut moved = self.claim_everything(from)?;
        moved.extend(self.buf.move_own_enqueues(from));
        let n = moved.len() as u64;
        // An inline entry moves with its payload.
        for item in moved {
            self.buf.enqueue(to, item);
        }
        self.buf.drop_queue(from);
        Ok(n)
    }

    /// Claims every committed entry of `queue` that no other transaction holds, in delivery
    /// order, those handed back with a delay that has not passed included, and returns what
    /// each points at. A failure rolls the transaction back.
    fn claim_everything(&mut self, queue: &str) -> Result<Vec<Entry>> {
        self.check_open()?;
        let store = self.store.clone();
        let db = store.writable_db()?;
        keys::validate_queue_name(queue)?;
        let claimed = self.claim_entries(&db, queue, Take::Everything);
        Ok(self.or_roll_back(claimed)?.map_or_else(Vec::new, |c| c.entries))
    }
}
