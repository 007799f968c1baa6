//! `org.rockcask.Native.tx*` entry points.
//!
//! A transaction sits behind a mutex: Java code that shares one `Transaction` between threads
//! gets serialized calls, never a data race.

use std::time::Duration;

use jni::objects::{JByteArray, JByteBuffer, JClass};
use jni::sys::{jboolean, jint, jlong};
use jni::{Env, EnvUnowned};
use parking_lot::{Mutex, MutexGuard};
use rockcask_core::Transaction;

use crate::error::{BridgeError, BridgeResult, ThrowMapped};
use crate::handle::{borrow, free_handle, Tagged};
use crate::wire::{self, PendingOp, PendingOps};

pub struct TxHandle(Mutex<Transaction>);

impl TxHandle {
    pub fn new(tx: Transaction) -> Self {
        TxHandle(Mutex::new(tx))
    }
}

impl Tagged for TxHandle {
    const TAG: u64 = 0x526f_636b_5478_6e21; // "RockTxn!"
    const NAME: &'static str = "Transaction";
}

fn tx<'a>(handle: jlong) -> BridgeResult<MutexGuard<'a, Transaction>> {
    Ok(borrow::<TxHandle>(handle)?.0.lock())
}

/// Hands polled messages to Java. If the Java array cannot be had (the heap is full), the
/// transaction rolls back before the `OutOfMemoryError` propagates: what it claimed must not be
/// consumed by a later commit without having been delivered.
fn deliver<'local>(env: &mut Env<'local>, tx: &mut Transaction, packed: &[u8]) -> BridgeResult<JByteArray<'local>> {
    env.byte_array_from_slice(packed).map_err(|e| {
        let _ = tx.rollback();
        e.into()
    })
}

fn count(max: jint) -> BridgeResult<usize> {
    usize::try_from(max).map_err(|_| BridgeError::InvalidArgument(format!("item count must be positive, got {max}")))
}

/// Frees the transaction; an open one rolls back (its claimed entries go back to their queues).
#[unsafe(no_mangle)]
pub extern "system" fn Java_org_rockcask_Native_txFree<'local>(mut env: EnvUnowned<'local>, _class: JClass<'local>, tx: jlong) {
    env.with_env(|_env: &mut Env<'local>| -> BridgeResult<()> { free_handle::<TxHandle>(tx) }).resolve::<ThrowMapped>()
}

/// Applies `len` bytes of operations the Java side buffered in the direct buffer `ops` (see
/// `wire::PendingOps`). If any fails, the whole transaction rolls back: the caller was already
/// told those operations succeeded, so a partial application must not be committable.
#[unsafe(no_mangle)]
pub extern "system" fn Java_org_rockcask_Native_txApply<'local>(
    mut env: EnvUnowned<'local>,
    _class: JClass<'local>,
    handle: jlong,
    ops: JByteBuffer<'local>,
    len: jint,
) {
    env.with_env(|env: &mut Env<'local>| -> BridgeResult<()> {
        // SAFETY: used within this call only; Java waits for it before reusing the buffer.
        let buffer = unsafe { wire::direct_buffer(env, &ops, "pending operations buffer")? };
        let capacity = buffer.len();
        let bytes = usize::try_from(len).ok().and_then(|l| buffer.get(..l)).ok_or_else(|| {
            BridgeError::InvalidArgument(format!("pending length {len} outside the buffer's capacity {capacity}"))
        })?;
        let mut tx = tx(handle)?;
        let applied = PendingOps::new(bytes).try_for_each(|op| -> BridgeResult<()> {
            match op? {
                PendingOp::EnqueueNew { queue, id, payload } => tx.enqueue_new(queue, id, payload)?,
                PendingOp::Put { id, payload } => tx.put(id, payload)?,
                PendingOp::EnqueueExisting { queue, id } => tx.enqueue_id(queue, id)?,
            }
            Ok(())
        });
        if let Err(e) = applied {
            tx.rollback()?;
            return Err(BridgeError::RolledBack(Box::new(e)));
        }
        Ok(())
    })
    .resolve::<ThrowMapped>()
}

/// `enqueue_new` for a payload too large to buffer: copied once, straight into the batch.
#[unsafe(no_mangle)]
pub extern "system" fn Java_org_rockcask_Native_txEnqueueNew<'local>(
    mut env: EnvUnowned<'local>,
    _class: JClass<'local>,
    handle: jlong,
    queue: JByteArray<'local>,
    msb: jlong,
    lsb: jlong,
    payload: JByteArray<'local>,
) {
    env.with_env(|env: &mut Env<'local>| -> BridgeResult<()> {
        let queue = wire::QueueName::read(env, &queue)?;
        let len = wire::array_len(env, &payload, "payload")?;
        tx(handle)?.enqueue_new_with(queue.as_str(), wire::uuid(msb, lsb), len, |buf| -> BridgeResult<()> {
            Ok(payload.get_region(env, 0, wire::as_jbytes(buf))?)
        })
    })
    .resolve::<ThrowMapped>()
}

#[unsafe(no_mangle)]
pub extern "system" fn Java_org_rockcask_Native_txEnqueueId<'local>(
    mut env: EnvUnowned<'local>,
    _class: JClass<'local>,
    handle: jlong,
    queue: JByteArray<'local>,
    msb: jlong,
    lsb: jlong,
) {
    env.with_env(|env: &mut Env<'local>| -> BridgeResult<()> {
        let queue = wire::QueueName::read(env, &queue)?;
        Ok(tx(handle)?.enqueue_id(queue.as_str(), wire::uuid(msb, lsb))?)
    })
    .resolve::<ThrowMapped>()
}

#[unsafe(no_mangle)]
pub extern "system" fn Java_org_rockcask_Native_txPoll<'local>(
    mut env: EnvUnowned<'local>,
    _class: JClass<'local>,
    handle: jlong,
    queue: JByteArray<'local>,
    max: jint,
) -> JByteArray<'local> {
    env.with_env(|env: &mut Env<'local>| -> BridgeResult<JByteArray<'local>> {
        let queue = wire::QueueName::read(env, &queue)?;
        let max = count(max)?;
        let mut tx = tx(handle)?;
        let messages = tx.poll_within(queue.as_str(), max, wire::payload_budget(max))?;
        deliver(env, &mut tx, &wire::pack_messages(&messages))
    })
    .resolve::<ThrowMapped>()
}

#[unsafe(no_mangle)]
pub extern "system" fn Java_org_rockcask_Native_txPeek<'local>(
    mut env: EnvUnowned<'local>,
    _class: JClass<'local>,
    handle: jlong,
    queue: JByteArray<'local>,
    max: jint,
) -> JByteArray<'local> {
    env.with_env(|env: &mut Env<'local>| -> BridgeResult<JByteArray<'local>> {
        let queue = wire::QueueName::read(env, &queue)?;
        let max = count(max)?;
        let messages = tx(handle)?.peek_within(queue.as_str(), max, wire::payload_budget(max))?;
        Ok(env.byte_array_from_slice(&wire::pack_messages(&messages))?)
    })
    .resolve::<ThrowMapped>()
}

/// Packed list of zero or one message.
#[unsafe(no_mangle)]
pub extern "system" fn Java_org_rockcask_Native_txTake<'local>(
    mut env: EnvUnowned<'local>,
    _class: JClass<'local>,
    handle: jlong,
    queue: JByteArray<'local>,
    timeout_millis: jlong,
) -> JByteArray<'local> {
    env.with_env(|env: &mut Env<'local>| -> BridgeResult<JByteArray<'local>> {
        let queue = wire::QueueName::read(env, &queue)?;
        let millis = u64::try_from(timeout_millis)
            .map_err(|_| BridgeError::InvalidArgument(format!("timeout must not be negative, got {timeout_millis} ms")))?;
        let mut tx = tx(handle)?;
        let message = tx.take(queue.as_str(), Duration::from_millis(millis))?;
        deliver(env, &mut tx, &wire::pack_messages(message.as_slice()))
    })
    .resolve::<ThrowMapped>()
}

#[unsafe(no_mangle)]
pub extern "system" fn Java_org_rockcask_Native_txPut<'local>(
    mut env: EnvUnowned<'local>,
    _class: JClass<'local>,
    handle: jlong,
    msb: jlong,
    lsb: jlong,
    payload: JByteArray<'local>,
) {
    env.with_env(|env: &mut Env<'local>| -> BridgeResult<()> {
        let len = wire::array_len(env, &payload, "payload")?;
        tx(handle)?.put_with(wire::uuid(msb, lsb), len, |buf| -> BridgeResult<()> { Ok(payload.get_region(env, 0, wire::as_jbytes(buf))?) })
    })
    .resolve::<ThrowMapped>()
}

/// The payload, or null when there is no such object.
#[unsafe(no_mangle)]
pub extern "system" fn Java_org_rockcask_Native_txGet<'local>(
    mut env: EnvUnowned<'local>,
    _class: JClass<'local>,
    handle: jlong,
    msb: jlong,
    lsb: jlong,
) -> JByteArray<'local> {
    env.with_env(|env: &mut Env<'local>| -> BridgeResult<JByteArray<'local>> {
        match tx(handle)?.get(wire::uuid(msb, lsb))? {
            Some(p) => Ok(env.byte_array_from_slice(&p)?),
            None => Ok(JByteArray::default()),
        }
    })
    .resolve::<ThrowMapped>()
}

#[unsafe(no_mangle)]
pub extern "system" fn Java_org_rockcask_Native_txDelete<'local>(
    mut env: EnvUnowned<'local>,
    _class: JClass<'local>,
    handle: jlong,
    msb: jlong,
    lsb: jlong,
) -> jboolean {
    env.with_env(|_env: &mut Env<'local>| -> BridgeResult<jboolean> { Ok(tx(handle)?.delete(wire::uuid(msb, lsb))?) })
        .resolve::<ThrowMapped>()
}

#[unsafe(no_mangle)]
pub extern "system" fn Java_org_rockcask_Native_txCommit<'local>(mut env: EnvUnowned<'local>, _class: JClass<'local>, handle: jlong) {
    env.with_env(|_env: &mut Env<'local>| -> BridgeResult<()> { Ok(tx(handle)?.commit()?) }).resolve::<ThrowMapped>()
}

#[unsafe(no_mangle)]
pub extern "system" fn Java_org_rockcask_Native_txRollback<'local>(mut env: EnvUnowned<'local>, _class: JClass<'local>, handle: jlong) {
    env.with_env(|_env: &mut Env<'local>| -> BridgeResult<()> { Ok(tx(handle)?.rollback()?) }).resolve::<ThrowMapped>()
}
