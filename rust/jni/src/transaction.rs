//! `org.rockcask.TransactionNative`: the calls of one transaction.

use std::time::Duration;

use jni::objects::{JByteArray, JByteBuffer, JObjectArray};
use jni::Env;
use rockcask_core::dead_letter::Selection;
use rockcask_core::options::MAX_RESULT_BYTES;
use rockcask_core::Transaction;

use crate::args::{self, Count, Freed, Ids, JavaByteArray, JavaByteArrays, QueueName, Sequences, Text};
use crate::contract;
use crate::error::{BridgeError, BridgeResult};
use crate::handle::TxHandle;
use crate::native_table::native_class;
use crate::wire::{self, PendingOp, PendingOps};

native_class! {
    pub const NATIVES = "org/rockcask/TransactionNative", constants [contract::PENDING_OPS] {
        fn free(tx: Freed<TxHandle>) -> () = free;
        fn apply(tx: &TxHandle, pending: JByteBuffer, length: i32) -> () = apply;
        fn enqueueNew(tx: &TxHandle, queue: QueueName, msb: i64, lsb: i64, payload: JByteArray) -> () = enqueue_new;
        fn enqueueId(tx: &TxHandle, queue: QueueName, msb: i64, lsb: i64) -> () = enqueue_id;
        fn poll(tx: &TxHandle, queue: QueueName, max: Count) -> JavaByteArray = poll;
        fn peek(tx: &TxHandle, queue: QueueName, max: Count) -> Vec<u8> = peek;
        fn take(tx: &TxHandle, queue: QueueName, timeout: Duration) -> JavaByteArray = take;
        fn put(tx: &TxHandle, msb: i64, lsb: i64, payload: JByteArray) -> () = put;
        fn get(tx: &TxHandle, msb: i64, lsb: i64) -> Option<Vec<u8>> = get;
        fn getAll(tx: &TxHandle, ids: Ids) -> JavaByteArrays = get_all;
        fn delete(tx: &TxHandle, msb: i64, lsb: i64) -> bool = delete;
        fn commitWaiting(tx: &TxHandle, wait_millis: Duration) -> () = commit_waiting;
        fn restart(tx: &TxHandle) -> () = restart;
        fn rollback(tx: &TxHandle) -> () = rollback;
        fn rollbackBecause(tx: &TxHandle, reason: Text, retry_after_millis: Duration) -> () = rollback_because;
        fn requeueDeadLetters(tx: &TxHandle, queue: QueueName, sequences: Sequences) -> i64 = requeue_dead_letters;
        fn dropDeadLetters(tx: &TxHandle, queue: QueueName, sequences: Sequences) -> i64 = drop_dead_letters;
        fn dropQueue(tx: &TxHandle, queue: QueueName) -> i64 = drop_queue;
        fn moveQueue(tx: &TxHandle, from: QueueName, to: QueueName) -> i64 = move_queue;
    }
}

/// Hands polled messages to Java. If the Java array cannot be had (the heap is full; or the
/// result does not fit one, which the poll's byte bound rules out), the transaction rolls back
/// before the exception propagates: what it claimed must not be consumed by a later commit
/// without having been delivered.
fn deliver<'local>(env: &mut Env<'local>, tx: &mut Transaction, packed: &[u8]) -> BridgeResult<JByteArray<'local>> {
    let made = wire::check_fits_java_array(packed.len()).and_then(|()| args::java_bytes::new_array(env, packed));
    made.inspect_err(|_| {
        let _ = tx.rollback();
    })
}

/// Frees the transaction; an open one rolls back (its claimed entries go back to their queues).
fn free(_env: &mut Env<'_>, tx: Freed<TxHandle>) -> BridgeResult<()> {
    drop(tx);
    Ok(())
}

/// Applies `length` bytes of operations the Java side buffered in the direct buffer `pending`
/// (see `wire::PendingOps`). If any fails, the whole transaction rolls back: the caller was
/// already told those operations succeeded, so a partial application must not be committable.
fn apply(env: &mut Env<'_>, tx: &TxHandle, pending: JByteBuffer<'_>, length: i32) -> BridgeResult<()> {
    // SAFETY: used within this call only; Java waits for it before reusing the buffer.
    let buffer = unsafe { args::direct_buffer(env, &pending, "pending operations buffer")? };
    let capacity = buffer.len();
    let bytes = usize::try_from(length)
        .ok()
        .and_then(|l| buffer.get(..l))
        .ok_or_else(|| {
            BridgeError::InvalidArgument(format!(
                "pending length {length} outside the buffer's capacity {capacity}"
            ))
        })?;
    let mut tx = tx.lock()?;
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
}

/// `enqueue_new` for a payload too large to buffer: copied once, straight into the batch.
fn enqueue_new(
    env: &mut Env<'_>,
    tx: &TxHandle,
    queue: QueueName,
    msb: i64,
    lsb: i64,
    payload: JByteArray<'_>,
) -> BridgeResult<()> {
    let len = args::array_len(env, &payload, "payload")?;
    tx.lock()?
        .enqueue_new_with(queue.as_str(), args::uuid(msb, lsb), len, |buf| -> BridgeResult<()> {
            Ok(payload.get_region(env, 0, args::as_jbytes(buf))?)
        })
}

fn enqueue_id(_env: &mut Env<'_>, tx: &TxHandle, queue: QueueName, msb: i64, lsb: i64) -> BridgeResult<()> {
    Ok(tx.lock()?.enqueue_id(queue.as_str(), args::uuid(msb, lsb))?)
}

fn poll<'local>(
    env: &mut Env<'local>,
    tx: &TxHandle,
    queue: QueueName,
    max: Count,
) -> BridgeResult<JByteArray<'local>> {
    let mut tx = tx.lock()?;
    let messages = tx.poll_within(queue.as_str(), max.0, MAX_RESULT_BYTES)?;
    deliver(env, &mut tx, &wire::pack_messages(&messages))
}

fn peek(_env: &mut Env<'_>, tx: &TxHandle, queue: QueueName, max: Count) -> BridgeResult<Vec<u8>> {
    let messages = tx.lock()?.peek_within(queue.as_str(), max.0, MAX_RESULT_BYTES)?;
    Ok(wire::pack_messages(&messages))
}

/// A packed list of zero or one message.
fn take<'local>(
    env: &mut Env<'local>,
    tx: &TxHandle,
    queue: QueueName,
    timeout: Duration,
) -> BridgeResult<JByteArray<'local>> {
    let mut tx = tx.lock()?;
    let message = tx.take(queue.as_str(), timeout)?;
    deliver(env, &mut tx, &wire::pack_messages(message.as_slice()))
}

fn put(env: &mut Env<'_>, tx: &TxHandle, msb: i64, lsb: i64, payload: JByteArray<'_>) -> BridgeResult<()> {
    let len = args::array_len(env, &payload, "payload")?;
    tx.lock()?
        .put_with(args::uuid(msb, lsb), len, |buf| -> BridgeResult<()> {
            Ok(payload.get_region(env, 0, args::as_jbytes(buf))?)
        })
}

/// The payload, or null when there is no such object.
fn get(_env: &mut Env<'_>, tx: &TxHandle, msb: i64, lsb: i64) -> BridgeResult<Option<Vec<u8>>> {
    Ok(tx.lock()?.get(args::uuid(msb, lsb))?)
}

/// Ids read per batched lookup: bounds the native copies of payloads waiting to become Java
/// arrays, whatever the number of ids asked for.
const GET_ALL_CHUNK: usize = 1024;

/// One `byte[]` (or null) per id, in order.
fn get_all<'local>(
    env: &mut Env<'local>,
    tx: &TxHandle,
    ids: Ids,
) -> BridgeResult<JObjectArray<'local, JByteArray<'local>>> {
    let tx = tx.lock()?;
    let out = JObjectArray::<JByteArray>::new(env, ids.0.len(), JByteArray::null())?;
    for (chunk_index, chunk) in ids.0.chunks(GET_ALL_CHUNK).enumerate() {
        for (i, payload) in tx.get_many(chunk)?.into_iter().enumerate() {
            if let Some(payload) = payload {
                let array = args::java_bytes::new_array(env, &payload)?;
                out.set_element(env, chunk_index * GET_ALL_CHUNK + i, &array)?;
                // One local reference per element would overflow the frame of a large call.
                env.delete_local_ref(array);
            }
        }
    }
    Ok(out)
}

fn delete(_env: &mut Env<'_>, tx: &TxHandle, msb: i64, lsb: i64) -> BridgeResult<bool> {
    Ok(tx.lock()?.delete(args::uuid(msb, lsb))?)
}

/// Once committed, the transaction starts again as a new one: Java returns it to the store's
/// pool of native transactions, and a commit saves the call that would restart it.
fn commit_waiting(_env: &mut Env<'_>, tx: &TxHandle, wait: Duration) -> BridgeResult<()> {
    let mut tx = tx.lock()?;
    tx.commit_waiting(wait)?;
    tx.restart();
    Ok(())
}

fn restart(_env: &mut Env<'_>, tx: &TxHandle) -> BridgeResult<()> {
    tx.lock()?.restart();
    Ok(())
}

fn rollback(_env: &mut Env<'_>, tx: &TxHandle) -> BridgeResult<()> {
    Ok(tx.lock()?.rollback()?)
}

/// A retry delay of 0 means none.
fn rollback_because(_env: &mut Env<'_>, tx: &TxHandle, reason: Text, retry_after: Duration) -> BridgeResult<()> {
    Ok(tx
        .lock()?
        .rollback_because(&reason.0, (!retry_after.is_zero()).then_some(retry_after))?)
}

/// `None` (a null array) selects every dead letter of the queue.
fn selection(sequences: &Sequences) -> Selection<'_> {
    sequences.0.as_deref().map_or(Selection::All, Selection::Only)
}

fn requeue_dead_letters(
    _env: &mut Env<'_>,
    tx: &TxHandle,
    queue: QueueName,
    sequences: Sequences,
) -> BridgeResult<i64> {
    Ok(tx.lock()?.requeue_dead_letters(queue.as_str(), selection(&sequences))? as i64)
}

fn drop_dead_letters(_env: &mut Env<'_>, tx: &TxHandle, queue: QueueName, sequences: Sequences) -> BridgeResult<i64> {
    Ok(tx.lock()?.drop_dead_letters(queue.as_str(), selection(&sequences))? as i64)
}

fn drop_queue(_env: &mut Env<'_>, tx: &TxHandle, queue: QueueName) -> BridgeResult<i64> {
    Ok(tx.lock()?.drop_queue(queue.as_str())? as i64)
}

fn move_queue(_env: &mut Env<'_>, tx: &TxHandle, from: QueueName, to: QueueName) -> BridgeResult<i64> {
    Ok(tx.lock()?.move_queue(from.as_str(), to.as_str())? as i64)
}
