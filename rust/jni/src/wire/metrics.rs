//! A store's figures and every queue's in one result (`MetricsNative.snapshot`, read by
//! `StoreMetrics.unpack`). The records' slots are `contract/metrics.rs`'s.

/// The store record's longs, then i32 queue count, then per queue i32 name length, UTF-8 name
/// and the queue record's longs.
pub fn pack_metrics<'q>(store: &[i64], queues: impl ExactSizeIterator<Item = (&'q str, Vec<i64>)>) -> Vec<u8> {
    let mut out = Vec::new();
    longs(&mut out, store);
    out.extend_from_slice(&(queues.len() as i32).to_be_bytes());
    for (name, record) in queues {
        out.extend_from_slice(&(name.len() as i32).to_be_bytes());
        out.extend_from_slice(name.as_bytes());
        longs(&mut out, &record);
    }
    out
}

fn longs(out: &mut Vec<u8>, values: &[i64]) {
    values.iter().for_each(|v| out.extend_from_slice(&v.to_be_bytes()));
}
