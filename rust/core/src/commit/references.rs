//! What a commit does to objects, decided under the commit lock against the store as it will
//! be once the commits prepared before it are written: the objects it relies on must still be
//! there, each queue-owned object it changes gets its new owning-entry count (deleted at zero),
//! and its marks tell the commits prepared after it what it did.

use uuid::Uuid;

use super::buffered::Buffered;
use super::lock::{CommitState, PendingObject};
use crate::error::{Result, RocksContext};
use crate::keys::{self, CF_OBJECTS, CF_REFS};
use crate::object_reads::{is_owned_value, is_put_value, ObjectWrite};
use crate::shared::DbRef;

/// An object this transaction found committed and relied on (enqueued by id, or replaced while
/// queue-owned) that is deleted in the store as it will be once the
/// commits prepared before this one are written; for a replaced one, also if what is under
/// its id then is an object put since (the queue-owned one it replaced was deleted). Called
/// under the commit lock, so no commit can delete it between this check and this commit's
/// place in the order.
pub(super) fn check_relied_objects(buf: &Buffered, db: &DbRef<'_>, serial: &CommitState) -> Result<Option<Uuid>> {
    let relied = buf
        .enqueued_by_id
        .keys()
        // An object this transaction writes itself exists when its entries are written,
        // unless that write is a put relying on a queue-owned object (checked below).
        .filter(|id| !buf.objects.contains_key(id))
        .chain(buf.owned_puts.iter());
    let mut on_disk: Vec<&Uuid> = Vec::new();
    for id in relied {
        match serial.pending_objects.get(id).map(|(state, _)| *state) {
            Some(PendingObject::Deleted) => return Ok(Some(*id)),
            Some(PendingObject::Put) if buf.owned_puts.contains(id) => return Ok(Some(*id)),
            Some(PendingObject::Count(_) | PendingObject::Put) => {}
            None => on_disk.push(id),
        }
    }
    if on_disk.is_empty() {
        return Ok(None);
    }
    let keys = on_disk.iter().map(|id| &id.as_bytes()[..]);
    for (id, found) in on_disk
        .iter()
        .zip(db.db().batched_multi_get_cf(db.cf(CF_OBJECTS), keys, false))
    {
        let gone = match found.context(|| format!("reading object {id}"))? {
            None => true,
            Some(v) => buf.owned_puts.contains(*id) && !is_owned_value(&v),
        };
        if gone {
            return Ok(Some(**id));
        }
    }
    Ok(None)
}

/// New owning-entry count of every queue-owned object this transaction changed, as the
/// store will be once the commits prepared before it are written, sorted by id (so that
/// their writes land in key order), and whether a `refs` record holds its count then (one
/// does only above one; without one there is nothing to delete). Objects it deletes are
/// left out: their count goes with them. So is an object that is not queue-owned any more
/// (deleted, perhaps put again, since the entries were written): the owned entries this
/// transaction consumes or adds for it own nothing, and their consumption must never delete
/// what was put under that id since. A poll reads that with the payload; what it cannot
/// have seen (a delete written after it read, entries dropped unread) is read here. Counts
/// and ownership not marked by a prepared commit are read in batched lookups.
pub(super) fn decide(buf: &Buffered, db: &DbRef<'_>, serial: &CommitState) -> Result<Vec<Outcome>> {
    let deletes_unseen = match (serial.last_delete, buf.owners_read_below) {
        (Some(delete), Some(read_below)) => delete >= read_below,
        _ => false,
    };
    let mut outcomes = Vec::with_capacity(buf.ref_delta.len());
    let mut unread = Vec::new();
    let mut ownership_unknown = Vec::new();
    for (id, delta) in buf.ref_delta.iter().filter(|(_, d)| **d != 0) {
        let own_write = match buf.objects.get(id) {
            Some(ObjectWrite::Delete { .. }) => continue,
            Some(&ObjectWrite::Put { at, len }) => Some(is_owned_value(buf.batch.slice(at, len))),
            None => None,
        };
        let pending = serial.pending_objects.get(id).map(|(state, _)| *state);
        let owned = match (own_write, pending) {
            (Some(owned), _) => owned,
            (None, Some(PendingObject::Count(_))) => true,
            (None, Some(PendingObject::Deleted | PendingObject::Put)) => false,
            (None, None) => {
                if *delta < 0 && (deletes_unseen || buf.unread_owners.contains(id)) {
                    ownership_unknown.push(outcomes.len());
                }
                true
            }
        };
        if !owned {
            continue;
        }
        let current = match pending {
            Some(PendingObject::Count(n)) => Some((n as i64, record_exists(n as i64))),
            // Deleted by an earlier commit (its count with it): only this transaction's own
            // write (an object it created) can be alive with entries (`check_relied_objects`
            // refused the rest).
            Some(PendingObject::Deleted | PendingObject::Put) => Some((i64::from(own_write.is_some()), false)),
            None => None,
        };
        if current.is_none() {
            unread.push(outcomes.len());
        }
        let (count, counted) = current.unwrap_or((0, false));
        outcomes.push(Outcome {
            id: *id,
            count: count + delta,
            counted,
            owned: true,
        });
    }
    read_for(
        db,
        CF_OBJECTS,
        "reading object",
        &mut outcomes,
        &ownership_unknown,
        |o, value| {
            o.owned = value.is_some_and(is_owned_value);
            Ok(())
        },
    )?;
    unread.retain(|&i| outcomes[i].owned);
    read_for(
        db,
        CF_REFS,
        "reading references of",
        &mut outcomes,
        &unread,
        |o, record| {
            // No record: exactly one owning entry.
            let count = match record {
                Some(v) => keys::decode_u64(v, "reference count")? as i64,
                None => 1,
            };
            o.count += count;
            o.counted = record_exists(count);
            Ok(())
        },
    )?;
    outcomes.retain(|o| o.owned);
    outcomes.sort_unstable_by_key(|o| o.id);
    Ok(outcomes)
}

/// What this commit does to objects, as the commits prepared after it are to see it until
/// it is on disk (read from the batch, so before it is taken to be written).
pub(super) fn pending_marks(buf: &Buffered, serial: &CommitState, outcomes: &[Outcome]) -> Vec<(Uuid, PendingObject)> {
    let mut marks = Vec::with_capacity(outcomes.len());
    for (id, w) in &buf.objects {
        let state = match *w {
            ObjectWrite::Delete { .. } => Some(PendingObject::Deleted),
            // Alive again after a delete (an earlier commit's or its own): queue-owned with
            // its one entry when this transaction created it so, otherwise put (`put` over
            // an object it read as queue-owned is refused when that object is deleted,
            // `check_relied_objects`).
            ObjectWrite::Put { at, len }
                if buf.deleted.contains(id)
                    || matches!(serial.pending_objects.get(id), Some((PendingObject::Deleted, _))) =>
            {
                Some(if is_put_value(buf.batch.slice(at, len)) {
                    PendingObject::Put
                } else {
                    PendingObject::Count(1)
                })
            }
            ObjectWrite::Put { .. } => None,
        };
        marks.extend(state.map(|state| (*id, state)));
    }
    for o in outcomes {
        marks.push((
            o.id,
            if o.count <= 0 {
                PendingObject::Deleted
            } else {
                PendingObject::Count(o.count as u64)
            },
        ));
    }
    marks
}

/// A queue-owned object's owning-entry count once a commit is written, and whether a `refs`
/// record holds the count before it.
pub(super) struct Outcome {
    pub(super) id: Uuid,
    pub(super) count: i64,
    pub(super) counted: bool,
    /// Still the queue-owned object its entries were written for (read at commit when unknown;
    /// the others are dropped before the outcomes are used).
    pub(super) owned: bool,
}

/// `read` of each outcome at `indexes` with what column family `cf` holds under its id, read in
/// one batched lookup (`what` names the read in errors).
fn read_for(
    db: &DbRef<'_>,
    cf: &str,
    what: &str,
    outcomes: &mut [Outcome],
    indexes: &[usize],
    mut read: impl FnMut(&mut Outcome, Option<&[u8]>) -> Result<()>,
) -> Result<()> {
    if indexes.is_empty() {
        return Ok(());
    }
    let keys: Vec<[u8; 16]> = indexes.iter().map(|&i| *outcomes[i].id.as_bytes()).collect();
    let found = db
        .db()
        .batched_multi_get_cf(db.cf(cf), keys.iter().map(|k| &k[..]), false);
    for (&i, found) in indexes.iter().zip(found) {
        let o = &mut outcomes[i];
        let value = found.context(|| format!("{what} {}", o.id))?;
        read(o, value.as_deref())?;
    }
    Ok(())
}

/// `refs` holds a count only above one (absent means exactly one).
fn record_exists(count: i64) -> bool {
    count > 1
}
