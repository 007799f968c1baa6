//! `org.rockcask.Native.store*` entry points.

use jni::objects::{JByteArray, JClass, JLongArray, JString};
use jni::sys::{jboolean, jint, jlong};
use jni::{Env, EnvUnowned};
use rockcask_core::compress::{Compression, Policy};
use rockcask_core::{Store, StoreOptions};

use crate::error::{BridgeError, BridgeResult, ThrowMapped};
use crate::handle::{borrow, free_handle, into_handle, Tagged};
use crate::transaction::TxHandle;
use crate::wire;

pub struct StoreHandle(pub Store);

impl Tagged for StoreHandle {
    const TAG: u64 = 0x526f_636b_5374_6f72; // "RockStor"
    const NAME: &'static str = "Store";
}

/// A `Compression` code from Java (the enum's declaration order).
pub(crate) fn codec(code: jint) -> BridgeResult<Compression> {
    u8::try_from(code).ok().and_then(Compression::from_code).ok_or_else(|| BridgeError::InvalidArgument(format!("unknown compression code {code}")))
}

fn size_arg(v: jlong, what: &str) -> BridgeResult<usize> {
    usize::try_from(v).map_err(|_| BridgeError::InvalidArgument(format!("{what} must not be negative, got {v}")))
}

#[unsafe(no_mangle)]
pub extern "system" fn Java_org_rockcask_internal_NativeLibrary_nativeVersion<'local>(
    mut env: EnvUnowned<'local>,
    _class: JClass<'local>,
) -> JString<'local> {
    env.with_env(|env: &mut Env<'local>| -> BridgeResult<JString<'local>> {
        Ok(JString::from_str(env, env!("CARGO_PKG_VERSION"))?)
    })
    .resolve::<ThrowMapped>()
}

/// Store options from the arguments `Store.open` passes (also used by imports).
#[allow(clippy::too_many_arguments)]
pub(crate) fn store_options(
    env: &Env<'_>,
    sync_on_commit: jboolean,
    block_cache_bytes: jlong,
    write_buffer_bytes: jlong,
    create_if_missing: jboolean,
    read_only: jboolean,
    compression: jint,
    compression_threshold: jint,
    queue_compression: &JByteArray<'_>,
) -> BridgeResult<StoreOptions> {
    Ok(StoreOptions {
        sync_on_commit,
        block_cache_bytes: size_arg(block_cache_bytes, "block cache bytes")?,
        write_buffer_bytes: size_arg(write_buffer_bytes, "write buffer bytes")?,
        create_if_missing,
        read_only,
        compression: Policy {
            codec: codec(compression)?,
            threshold: usize::try_from(compression_threshold)
                .map_err(|_| BridgeError::InvalidArgument(format!("compression threshold must not be negative, got {compression_threshold}")))?,
        },
        queue_compression: wire::unpack_queue_codecs(&wire::bytes(env, queue_compression, "queue compression")?)?
            .into_iter()
            .map(|(q, c)| codec(c).map(|c| (q, c)))
            .collect::<BridgeResult<_>>()?,
    })
}

#[unsafe(no_mangle)]
#[allow(clippy::too_many_arguments)]
pub extern "system" fn Java_org_rockcask_Native_storeOpen<'local>(
    mut env: EnvUnowned<'local>,
    _class: JClass<'local>,
    path: JByteArray<'local>,
    sync_on_commit: jboolean,
    block_cache_bytes: jlong,
    write_buffer_bytes: jlong,
    create_if_missing: jboolean,
    read_only: jboolean,
    compression: jint,
    compression_threshold: jint,
    queue_compression: JByteArray<'local>,
) -> jlong {
    env.with_env(|env: &mut Env<'local>| -> BridgeResult<jlong> {
        let path = String::from_utf8(wire::bytes(env, &path, "path")?)
            .map_err(|_| BridgeError::InvalidArgument("path is not valid UTF-8".into()))?;
        let options = store_options(
            env,
            sync_on_commit,
            block_cache_bytes,
            write_buffer_bytes,
            create_if_missing,
            read_only,
            compression,
            compression_threshold,
            &queue_compression,
        )?;
        Ok(into_handle(StoreHandle(Store::open(path, options)?)))
    })
    .resolve::<ThrowMapped>()
}

/// Closes RocksDB (the handle stays valid until `storeFree`, so racing calls get
/// IllegalStateException "store is closed" rather than a dangling pointer).
#[unsafe(no_mangle)]
pub extern "system" fn Java_org_rockcask_Native_storeClose<'local>(mut env: EnvUnowned<'local>, _class: JClass<'local>, store: jlong) {
    env.with_env(|_env: &mut Env<'local>| -> BridgeResult<()> { Ok(borrow::<StoreHandle>(store)?.0.close()?) })
        .resolve::<ThrowMapped>()
}

#[unsafe(no_mangle)]
pub extern "system" fn Java_org_rockcask_Native_storeFree<'local>(mut env: EnvUnowned<'local>, _class: JClass<'local>, store: jlong) {
    env.with_env(|_env: &mut Env<'local>| -> BridgeResult<()> {
        if store != 0 {
            // Close first: a store released by the Cleaner was never closed explicitly.
            let _ = borrow::<StoreHandle>(store)?.0.close();
        }
        free_handle::<StoreHandle>(store)
    })
    .resolve::<ThrowMapped>()
}

#[unsafe(no_mangle)]
pub extern "system" fn Java_org_rockcask_Native_storeBegin<'local>(mut env: EnvUnowned<'local>, _class: JClass<'local>, store: jlong) -> jlong {
    env.with_env(|_env: &mut Env<'local>| -> BridgeResult<jlong> {
        let tx = borrow::<StoreHandle>(store)?.0.begin()?;
        Ok(into_handle(TxHandle::new(tx)))
    })
    .resolve::<ThrowMapped>()
}

#[unsafe(no_mangle)]
pub extern "system" fn Java_org_rockcask_Native_storeQueueNames<'local>(
    mut env: EnvUnowned<'local>,
    _class: JClass<'local>,
    store: jlong,
) -> JByteArray<'local> {
    env.with_env(|env: &mut Env<'local>| -> BridgeResult<JByteArray<'local>> {
        let names = borrow::<StoreHandle>(store)?.0.queue_names()?;
        Ok(env.byte_array_from_slice(&wire::pack_strings(&names))?)
    })
    .resolve::<ThrowMapped>()
}

#[unsafe(no_mangle)]
pub extern "system" fn Java_org_rockcask_Native_storeQueueSize<'local>(
    mut env: EnvUnowned<'local>,
    _class: JClass<'local>,
    store: jlong,
    queue: JByteArray<'local>,
) -> jlong {
    env.with_env(|env: &mut Env<'local>| -> BridgeResult<jlong> {
        let store = borrow::<StoreHandle>(store)?;
        Ok(store.0.queue_size(wire::QueueName::read(env, &queue)?.as_str())? as jlong)
    })
    .resolve::<ThrowMapped>()
}

/// Fills `out` with: queues, queued items, objects (estimate), disk bytes, memtable bytes,
/// block cache bytes, table reader bytes, payload bytes, stored payload bytes (the order of
/// `StoreStats`'s constructor).
#[unsafe(no_mangle)]
pub extern "system" fn Java_org_rockcask_Native_storeStats<'local>(
    mut env: EnvUnowned<'local>,
    _class: JClass<'local>,
    store: jlong,
    out: JLongArray<'local>,
) {
    env.with_env(|env: &mut Env<'local>| -> BridgeResult<()> {
        if out.is_null() {
            return Err(BridgeError::Null("stats array"));
        }
        let s = borrow::<StoreHandle>(store)?.0.stats()?;
        let values = [
            s.queues,
            s.queued_items,
            s.objects_estimate,
            s.disk_bytes,
            s.memtable_bytes,
            s.block_cache_bytes,
            s.table_reader_bytes,
            s.payload_bytes,
            s.stored_payload_bytes,
        ]
            .map(|v| v as jlong);
        out.set_region(env, 0, &values)?;
        Ok(())
    })
    .resolve::<ThrowMapped>()
}

#[unsafe(no_mangle)]
pub extern "system" fn Java_org_rockcask_Native_storeCompact<'local>(mut env: EnvUnowned<'local>, _class: JClass<'local>, store: jlong) {
    env.with_env(|_env: &mut Env<'local>| -> BridgeResult<()> { Ok(borrow::<StoreHandle>(store)?.0.compact()?) })
        .resolve::<ThrowMapped>()
}
