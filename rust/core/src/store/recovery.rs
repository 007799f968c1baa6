//! Recovering a store's state at open: every queue's head, tail and the entries below its head
//! from its persisted layout and a bounded seek, the queues' settings, delivery counts and dead
//! letters.

use std::collections::HashMap;

use rocksdb::{ReadOptions, DB};

use crate::entry_records::for_each_per_entry_record;
use crate::error::{Error, Result, RocksContext};
use crate::keys::{self, QueueId, CF_ENTRIES, CF_META};
use crate::queue::{HeadLayout, QueueState, Queues};
use crate::queue_config::QueueConfig;
use crate::registry::{for_each_named, Registry};

/// Rebuild every queue's state from its persisted head layout plus a bounded seek for the
/// tail. Consumed entries all lie below the persisted head, so their tombstones are walked only
/// by the look for a block holding the head of a queue with no record above it, at most
/// `MAX_BLOCK_ENTRIES - 1` of them.
/// Then the queues' settings, their entries' delivery counts and their dead letters.
/// Also returns the delivery records that count nothing any more (to be deleted by a writer).
pub(super) fn recover_queues(
    db: &DB,
    default_max_deliveries: u32,
    queue_cache_bytes: usize,
) -> Result<(Queues, Vec<(QueueId, u64)>)> {
    let meta = db.cf_handle(CF_META).expect("opened with all column families");
    let entries = db.cf_handle(CF_ENTRIES).expect("opened with all column families");
    let mut configs = HashMap::new();
    for_each_named(
        db,
        ReadOptions::default(),
        keys::meta_config_prefix(),
        "queue settings",
        |name, v| {
            let config = QueueConfig::decode(v, &name)?;
            configs.insert(name, config);
            Ok(())
        },
    )?;
    let names = Registry::recover(db, keys::meta_queue_prefix(), "queues", "queue id")?;
    let mut queues = Queues::new(names, configs, default_max_deliveries, queue_cache_bytes);
    let named: Vec<(String, QueueId)> = queues.names().map(|(name, id)| (name.to_string(), id)).collect();
    for (name, id) in named {
        let layout = match db
            .get_pinned_cf(meta, keys::meta_head_key(id))
            .context(|| format!("reading head of queue '{name}'"))?
        {
            Some(v) => {
                HeadLayout::decode(&v).ok_or_else(|| Error::Corrupt(format!("head layout of queue '{name}'")))?
            }
            None => HeadLayout::default(),
        };
        let tail = recover_tail(db, entries, id, layout.head, &name)?;
        queues.recover_state(
            &name,
            QueueState::recovered(id, layout.head, tail, layout.below_head_set()),
        );
    }
    let mut records: Vec<(QueueId, u64)> = Vec::new();
    let all = |prefix: &[u8]| (prefix.to_vec(), [prefix, &[0xFF; 13][..]].concat());
    for_each_per_entry_record(
        db,
        all(keys::meta_deliveries_prefix()),
        "delivery records",
        |queue, record, v| {
            records.push((queue, record));
            queues.recover_delivery_record(record);
            if let Some(q) = queues.state_mut(queue) {
                for (seq, deliveries) in crate::deliveries::decode(v)? {
                    q.recover_deliveries(seq, deliveries, record);
                }
            }
            Ok(true)
        },
    )?;
    for_each_per_entry_record(
        db,
        all(keys::meta_dead_letter_prefix()),
        "dead letters",
        |queue, seq, _| {
            if let Some(q) = queues.state_mut(queue) {
                q.note_dead_letter(seq);
            }
            Ok(true)
        },
    )?;
    // Records that count no present entry (all consumed or counted again since): stale.
    let stale = records
        .into_iter()
        .filter(|(queue, record)| queues.state(*queue).is_none_or(|q| q.record_counts_nothing(*record)))
        .collect();
    Ok((queues, stale))
}

/// One past the last entry of queue `id` whose head is `head`: the end of its last record from
/// the head on; when it has none, the end of the block holding the head, if one does (its
/// consumed entries lie below the head), else the head. The second look goes at most
/// `MAX_BLOCK_ENTRIES - 1` keys below the head, the lowest first sequence such a block can have.
fn recover_tail(db: &DB, entries: &rocksdb::ColumnFamily, id: QueueId, head: u64, name: &str) -> Result<u64> {
    let last_record_end = |lowest: u64| -> Result<Option<u64>> {
        let mut ro = ReadOptions::default();
        ro.set_iterate_lower_bound(keys::entry_key(id, lowest).to_vec());
        ro.set_iterate_upper_bound(keys::queue_upper_bound(id));
        let mut it = db.raw_iterator_cf_opt(entries, ro);
        it.seek_to_last();
        let end = it
            .key()
            .map(keys::record_span)
            .transpose()?
            .map(|(first, n)| first + u64::from(n));
        it.status().context(|| format!("recovering queue '{name}'"))?;
        Ok(end)
    };
    if let Some(end) = last_record_end(head)? {
        return Ok(end.max(head));
    }
    let lowest = keys::lowest_block_start(head);
    Ok(if lowest < head {
        last_record_end(lowest)?.map_or(head, |end| end.max(head))
    } else {
        head
    })
}
