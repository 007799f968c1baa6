//! `org.rockcask.MapNative`: a transaction's calls on named maps, and the store's list of them.
//!
//! Keys and values cross as byte[]; lists in the list layout (`wire::pack_list`): keys for
//! `getAll` (none absent), its answer (one value or absent per key), a scan's pairs as key and
//! value alternating (`wire::ScanPacker`). `getAll` and `scan` bound their results by
//! `MAX_RESULT_BYTES`, so that each fits one Java array.

use jni::objects::JByteBuffer;
use jni::Env;
use rockcask_core::maps::{Direction, KeyRange};
use rockcask_core::options::{MAX_BATCH_ITEMS, MAX_RESULT_BYTES};

use crate::args::{self, Count, MapName};
use crate::contract;
use crate::error::{BridgeError, BridgeResult};
use crate::handle::{StoreHandle, TxHandle};
use crate::native_table::native_class;
use crate::wire;

native_class! {
    pub const NATIVES = "org/rockcask/MapNative", constants [contract::MAP_LIMITS, contract::STORE_LIMITS] {
        fn put(tx: &TxHandle, map: MapName, key: Vec<u8>, value: Vec<u8>) -> () = put;
        fn get(tx: &TxHandle, map: MapName, key: Vec<u8>) -> Option<Vec<u8>> = get;
        fn getForUpdate(tx: &TxHandle, map: MapName, key: Vec<u8>) -> Option<Vec<u8>> = get_for_update;
        fn getAll(tx: &TxHandle, map: MapName, keys: Vec<u8>) -> Vec<u8> = get_all;
        fn delete(tx: &TxHandle, map: MapName, key: Vec<u8>) -> bool = delete;
        fn add(tx: &TxHandle, map: MapName, key: Vec<u8>, delta: i64) -> () = add;
        fn scan(tx: &TxHandle, map: MapName, from: Option<Vec<u8>>, to: Option<Vec<u8>>, reverse: bool, limit: Count) -> Vec<u8> = scan;
        fn names(store: &StoreHandle) -> Vec<u8> = names;
        fn storeGet(store: &StoreHandle, map: MapName, key: Vec<u8>) -> Option<Vec<u8>> = store_get;
        fn storeGetInto(store: &StoreHandle, map: MapName, key: Vec<u8>, into: JByteBuffer, position: i32, room: i32) -> i32 = store_get_into;
    }
}

fn put(_env: &mut Env<'_>, tx: &TxHandle, map: MapName, key: Vec<u8>, value: Vec<u8>) -> BridgeResult<()> {
    Ok(tx.lock()?.map_put(map.as_str(), &key, &value)?)
}

fn get(_env: &mut Env<'_>, tx: &TxHandle, map: MapName, key: Vec<u8>) -> BridgeResult<Option<Vec<u8>>> {
    Ok(tx.lock()?.map_get(map.as_str(), &key)?)
}

fn get_for_update(_env: &mut Env<'_>, tx: &TxHandle, map: MapName, key: Vec<u8>) -> BridgeResult<Option<Vec<u8>>> {
    Ok(tx.lock()?.map_get_for_update(map.as_str(), &key)?)
}

fn get_all(_env: &mut Env<'_>, tx: &TxHandle, map: MapName, keys: Vec<u8>) -> BridgeResult<Vec<u8>> {
    let keys = unpack_keys(&keys)?;
    let values = tx.lock()?.map_get_many_within(map.as_str(), &keys, MAX_RESULT_BYTES)?;
    Ok(wire::pack_list(values.iter().map(Option::as_deref)))
}

fn delete(_env: &mut Env<'_>, tx: &TxHandle, map: MapName, key: Vec<u8>) -> BridgeResult<bool> {
    Ok(tx.lock()?.map_delete(map.as_str(), &key)?)
}

fn add(_env: &mut Env<'_>, tx: &TxHandle, map: MapName, key: Vec<u8>, delta: i64) -> BridgeResult<()> {
    Ok(tx.lock()?.map_add(map.as_str(), &key, delta)?)
}

fn scan(
    _env: &mut Env<'_>,
    tx: &TxHandle,
    map: MapName,
    from: Option<Vec<u8>>,
    to: Option<Vec<u8>>,
    reverse: bool,
    limit: Count,
) -> BridgeResult<Vec<u8>> {
    let direction = if reverse {
        Direction::Reverse
    } else {
        Direction::Forward
    };
    let mut packed = wire::ScanPacker::default();
    let cut = tx.lock()?.map_scan_visit(
        map.as_str(),
        &KeyRange { from, to },
        direction,
        limit.0,
        MAX_RESULT_BYTES,
        |k, v| packed.pair(k, v),
    )?;
    Ok(packed.finish(cut))
}

fn store_get(_env: &mut Env<'_>, store: &StoreHandle, map: MapName, key: Vec<u8>) -> BridgeResult<Option<Vec<u8>>> {
    Ok(store.0.map_get(map.as_str(), &key)?)
}

/// The committed value's length (-1: none), copied into the direct buffer `into` at `position`
/// when it fits in its `room` bytes there (else nothing is copied: the caller asks again with
/// room enough).
fn store_get_into(
    env: &mut Env<'_>,
    store: &StoreHandle,
    map: MapName,
    key: Vec<u8>,
    into: JByteBuffer<'_>,
    position: i32,
    room: i32,
) -> BridgeResult<i32> {
    // SAFETY: used within this call only; the caller does not touch the buffer meanwhile.
    let buffer = unsafe { args::direct_buffer(env, &into, "value buffer")? };
    let capacity = buffer.len();
    let window = usize::try_from(position)
        .ok()
        .zip(usize::try_from(room).ok())
        .and_then(|(at, n)| buffer.get_mut(at..at.checked_add(n)?))
        .ok_or_else(|| {
            BridgeError::InvalidArgument(format!(
                "{room} bytes at {position} are outside the value buffer's capacity {capacity}"
            ))
        })?;
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
        Some(n) => i32::try_from(n)
            .map_err(|_| BridgeError::InvalidArgument(format!("a value of {n} bytes does not fit a Java buffer"))),
    }
}

fn names(_env: &mut Env<'_>, store: &StoreHandle) -> BridgeResult<Vec<u8>> {
    Ok(wire::pack_strings(&store.0.map_names()?))
}

/// Keys packed by `MapNative.getAll`'s caller (`Wire.list`); at most `MAX_BATCH_ITEMS`, none
/// absent.
fn unpack_keys(buf: &[u8]) -> BridgeResult<Vec<Vec<u8>>> {
    let absent = || BridgeError::InvalidArgument("an absent map key".into());
    let keys = wire::unpack_list_with(buf, |k| k.map(<[u8]>::to_vec).ok_or_else(absent))?;
    if keys.len() > MAX_BATCH_ITEMS {
        return Err(BridgeError::InvalidArgument(format!(
            "{} keys are more than the {MAX_BATCH_ITEMS} one call reads",
            keys.len()
        )));
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
        assert!(unpack_keys(&wire::pack_list([None])).is_err());
    }
}
