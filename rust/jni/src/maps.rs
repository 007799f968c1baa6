//! `org.rockcask.internal.MapNative`: a transaction's calls on named maps, and the store's list
//! of them.
//!
//! Keys and values cross as byte[]. Lists cross packed (big-endian): keys for `getAll` as i32
//! count then per key i32 length + bytes; `getAll`'s answer as i32 count then per value i32
//! length (-1 for none) + bytes; a scan's pairs as i32 count then per pair the key and the value,
//! each i32 length + bytes.

use jni::objects::JByteBuffer;
use jni::Env;
use rockcask_core::maps::{Direction, KeyRange};
use rockcask_core::options::MAX_BATCH_ITEMS;

use crate::args::Count;
use crate::error::{BridgeError, BridgeResult};
use crate::native_table::native_class;
use crate::store::StoreHandle;
use crate::transaction::TxHandle;
use crate::wire::{self, QueueName};

native_class! {
    pub const NATIVES = "org/rockcask/internal/MapNative", constants [] {
        fn put(tx: &TxHandle, map: QueueName, key: Vec<u8>, value: Vec<u8>) -> () = put;
        fn get(tx: &TxHandle, map: QueueName, key: Vec<u8>) -> Option<Vec<u8>> = get;
        fn getAll(tx: &TxHandle, map: QueueName, keys: Vec<u8>) -> Vec<u8> = get_all;
        fn delete(tx: &TxHandle, map: QueueName, key: Vec<u8>) -> bool = delete;
        fn add(tx: &TxHandle, map: QueueName, key: Vec<u8>, delta: i64) -> () = add;
        fn scan(tx: &TxHandle, map: QueueName, from: Option<Vec<u8>>, to: Option<Vec<u8>>, reverse: bool, limit: Count) -> Vec<u8> = scan;
        fn names(store: &StoreHandle) -> Vec<u8> = names;
        fn storeGet(store: &StoreHandle, map: QueueName, key: Vec<u8>) -> Option<Vec<u8>> = store_get;
        fn storeGetInto(store: &StoreHandle, map: QueueName, key: Vec<u8>, into: JByteBuffer, position: i32, room: i32) -> i32 = store_get_into;
    }
}

fn put(_env: &mut Env<'_>, tx: &TxHandle, map: QueueName, key: Vec<u8>, value: Vec<u8>) -> BridgeResult<()> {
    Ok(tx.lock()?.map_put(map.as_str(), &key, &value)?)
}

fn get(_env: &mut Env<'_>, tx: &TxHandle, map: QueueName, key: Vec<u8>) -> BridgeResult<Option<Vec<u8>>> {
    Ok(tx.lock()?.map_get(map.as_str(), &key)?)
}

fn get_all(_env: &mut Env<'_>, tx: &TxHandle, map: QueueName, keys: Vec<u8>) -> BridgeResult<Vec<u8>> {
    let keys = unpack_keys(&keys)?;
    let values = tx.lock()?.map_get_many(map.as_str(), &keys)?;
    let mut out = Vec::new();
    out.extend_from_slice(&(values.len() as i32).to_be_bytes());
    for v in &values {
        wire::put_optional_bytes(&mut out, v.as_deref());
    }
    Ok(out)
}

fn delete(_env: &mut Env<'_>, tx: &TxHandle, map: QueueName, key: Vec<u8>) -> BridgeResult<bool> {
    Ok(tx.lock()?.map_delete(map.as_str(), &key)?)
}

fn add(_env: &mut Env<'_>, tx: &TxHandle, map: QueueName, key: Vec<u8>, delta: i64) -> BridgeResult<()> {
    Ok(tx.lock()?.map_add(map.as_str(), &key, delta)?)
}

fn scan(_env: &mut Env<'_>, tx: &TxHandle, map: QueueName, from: Option<Vec<u8>>, to: Option<Vec<u8>>, reverse: bool, limit: Count) -> BridgeResult<Vec<u8>> {
    let direction = if reverse { Direction::Reverse } else { Direction::Forward };
    let pairs = tx.lock()?.map_scan(map.as_str(), &KeyRange { from, to }, direction, limit.0)?;
    let mut out = Vec::new();
    out.extend_from_slice(&(pairs.len() as i32).to_be_bytes());
    for (k, v) in &pairs {
        wire::put_optional_bytes(&mut out, Some(k));
        wire::put_optional_bytes(&mut out, Some(v));
    }
    Ok(out)
}

fn store_get(_env: &mut Env<'_>, store: &StoreHandle, map: QueueName, key: Vec<u8>) -> BridgeResult<Option<Vec<u8>>> {
    Ok(store.0.map_get(map.as_str(), &key)?)
}

/// The committed value's length (-1: none), copied into the direct buffer `into` at `position`
/// when it fits in its `room` bytes there (else nothing is copied: the caller asks again with
/// room enough).
fn store_get_into(env: &mut Env<'_>, store: &StoreHandle, map: QueueName, key: Vec<u8>, into: JByteBuffer<'_>, position: i32, room: i32) -> BridgeResult<i32> {
    // SAFETY: used within this call only; the caller does not touch the buffer meanwhile.
    let buffer = unsafe { wire::direct_buffer(env, &into, "value buffer")? };
    let capacity = buffer.len();
    let window = usize::try_from(position)
        .ok()
        .zip(usize::try_from(room).ok())
        .and_then(|(at, n)| buffer.get_mut(at..at.checked_add(n)?))
        .ok_or_else(|| BridgeError::InvalidArgument(format!("{room} bytes at {position} are outside the value buffer's capacity {capacity}")))?;
    let length = store.0.map_get_with(map.as_str(), &key, |value| {
        value.map(|v| {
            if let Some(dst) = window.get_mut(..v.len()) {
                dst.copy_from_slice(v);
            }
            v.len()
        })
    })?;
    match length {
        None => Ok(-1),
        Some(n) => i32::try_from(n).map_err(|_| BridgeError::InvalidArgument(format!("a value of {n} bytes does not fit a Java buffer"))),
    }
}

fn names(_env: &mut Env<'_>, store: &StoreHandle) -> BridgeResult<Vec<u8>> {
    Ok(wire::pack_strings(&store.0.map_names()?))
}

/// Keys packed by `MapNative.getAll`'s caller; at most `MAX_BATCH_ITEMS`.
fn unpack_keys(buf: &[u8]) -> BridgeResult<Vec<Vec<u8>>> {
    let bad = || BridgeError::InvalidArgument("malformed packed map keys".into());
    let int = |at: usize| buf.get(at..at + 4).map(|b| i32::from_be_bytes(b.try_into().expect("4 bytes"))).ok_or_else(bad);
    let n = usize::try_from(int(0)?).map_err(|_| bad())?;
    if n > MAX_BATCH_ITEMS {
        return Err(BridgeError::InvalidArgument(format!("{n} keys are more than the {MAX_BATCH_ITEMS} one call reads")));
    }
    let mut keys = Vec::with_capacity(n);
    let mut at = 4;
    for _ in 0..n {
        let len = usize::try_from(int(at)?).map_err(|_| bad())?;
        keys.push(buf.get(at + 4..at + 4 + len).ok_or_else(bad)?.to_vec());
        at += 4 + len;
    }
    if at != buf.len() {
        return Err(bad());
    }
    Ok(keys)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn packed_keys_are_read_whole_or_refused() {
        let packed = [&2i32.to_be_bytes()[..], &1i32.to_be_bytes(), b"a", &0i32.to_be_bytes()].concat();
        assert_eq!(unpack_keys(&packed).unwrap(), vec![b"a".to_vec(), vec![]]);
        assert!(unpack_keys(&packed[..packed.len() - 1]).is_err());
        assert!(unpack_keys(&[&packed[..], b"x"].concat()).is_err());
        assert!(unpack_keys(&(-1i32).to_be_bytes()).is_err());
        assert!(unpack_keys(&i32::MAX.to_be_bytes()).is_err());
    }
}
