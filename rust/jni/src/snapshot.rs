//! `org.rockcask.Native` entry points for snapshots and checkpoints.

use std::path::PathBuf;

use jni::objects::{JByteArray, JClass, JLongArray, JObject};
use jni::sys::{jboolean, jint, jlong};
use jni::{jni_sig, jni_str, Env, EnvUnowned, JValue};
use rockcask_core::snapshot::{self, ExportOptions, ImportOptions, Progress, Summary};
use rockcask_core::options::MAX_WORKERS;
use rockcask_core::Error as CoreError;

use crate::error::{BridgeError, BridgeResult, ThrowMapped};
use crate::handle::borrow;
use crate::store::{codec, store_options, StoreHandle};
use crate::wire;

fn path_arg(env: &Env<'_>, bytes: &JByteArray<'_>, what: &'static str) -> BridgeResult<PathBuf> {
    String::from_utf8(wire::bytes(env, bytes, what)?).map(PathBuf::from).map_err(|_| BridgeError::InvalidArgument(format!("{what} is not valid UTF-8")))
}

fn workers_arg(workers: jint) -> BridgeResult<usize> {
    usize::try_from(workers)
        .ok()
        .filter(|w| (1..=MAX_WORKERS).contains(w))
        .ok_or_else(|| BridgeError::InvalidArgument(format!("workers must be 1 to {MAX_WORKERS}, got {workers}")))
}

/// Hands each progress report to the Java `SnapshotProgress.Relay` (when there is one). An
/// exception thrown by the listener stays pending, stops the work, and reaches the caller.
fn relay<'a, 'local>(env: &'a mut Env<'local>, relay: &'a JObject<'local>) -> impl FnMut(&Progress) -> rockcask_core::Result<()> + use<'a, 'local> {
    move |p: &Progress| {
        if relay.is_null() {
            return Ok(());
        }
        let args = [
            JValue::Long(p.records as jlong),
            JValue::Long(p.records_expected as jlong),
            JValue::Long(p.bytes as jlong),
            JValue::Long(p.bytes_expected as jlong),
            JValue::Bool(p.done),
        ];
        env.call_method(relay, jni_str!("report"), jni_sig!((a: jlong, b: jlong, c: jlong, d: jlong, e: jboolean) -> void), &args)
            .map(|_| ())
            .map_err(|e| CoreError::InvalidArgument(format!("the progress listener failed: {e}")))
    }
}

/// Fills `info` with the numbers of a summary (the order `Store.snapshotInfo` reads) and
/// returns its strings packed: content, created by, source.
fn summary_out<'local>(env: &mut Env<'local>, s: &Summary, info: &JLongArray<'local>) -> BridgeResult<JByteArray<'local>> {
    if info.is_null() {
        return Err(BridgeError::Null("info array"));
    }
    let c = &s.counts;
    let values = [
        s.file_bytes,
        c.frames,
        c.records,
        c.queues,
        c.entries,
        c.objects,
        c.keys,
        c.values,
        c.payload_bytes,
        s.format_version as u64,
        s.header.compression as u64,
    ]
    .map(|v| v as jlong);
    info.set_region(env, 0, &values)?;
    info.set_region(env, values.len() as i32, &[s.header.created_unix_millis])?;
    let content = match s.header.content() {
        snapshot::Content::Casket => "CASKET",
        _ => "STORE",
    };
    let strings = [content.to_string(), s.header.created_by.clone(), s.header.source.clone()];
    Ok(env.byte_array_from_slice(&wire::pack_strings(&strings))?)
}

#[unsafe(no_mangle)]
#[allow(clippy::too_many_arguments)]
pub extern "system" fn Java_org_rockcask_Native_storeExport<'local>(
    mut env: EnvUnowned<'local>,
    _class: JClass<'local>,
    store: jlong,
    file: JByteArray<'local>,
    workers: jint,
    compression: jint,
    frame_bytes: jint,
    fixed_time: jboolean,
    created_at_millis: jlong,
    overwrite: jboolean,
    progress: JObject<'local>,
    info: JLongArray<'local>,
) -> JByteArray<'local> {
    env.with_env(|env: &mut Env<'local>| -> BridgeResult<JByteArray<'local>> {
        let store = borrow::<StoreHandle>(store)?;
        let file = path_arg(env, &file, "file")?;
        let options = export_options(workers, compression, frame_bytes, fixed_time, created_at_millis, overwrite)?;
        let summary = store.0.export_to(&file, &options, &mut relay(env, &progress))?;
        summary_out(env, &summary, &info)
    })
    .resolve::<ThrowMapped>()
}

/// Export options from the arguments `ExportOptions` is passed as.
fn export_options(workers: jint, compression: jint, frame_bytes: jint, fixed_time: jboolean, created_at_millis: jlong, overwrite: jboolean) -> BridgeResult<ExportOptions> {
    Ok(ExportOptions {
        workers: workers_arg(workers)?,
        compression: codec(compression)?,
        frame_bytes: usize::try_from(frame_bytes).ok().filter(|&b| b >= 1).ok_or_else(|| BridgeError::InvalidArgument(format!("frame bytes must be at least 1, got {frame_bytes}")))?,
        created_unix_millis: fixed_time.then_some(created_at_millis),
        overwrite,
    })
}

#[unsafe(no_mangle)]
#[allow(clippy::too_many_arguments)]
pub extern "system" fn Java_org_rockcask_Native_casketExport<'local>(
    mut env: EnvUnowned<'local>,
    _class: JClass<'local>,
    casket: JByteArray<'local>,
    file: JByteArray<'local>,
    workers: jint,
    compression: jint,
    frame_bytes: jint,
    fixed_time: jboolean,
    created_at_millis: jlong,
    overwrite: jboolean,
    progress: JObject<'local>,
    info: JLongArray<'local>,
) -> JByteArray<'local> {
    env.with_env(|env: &mut Env<'local>| -> BridgeResult<JByteArray<'local>> {
        let casket = path_arg(env, &casket, "casket path")?;
        let file = path_arg(env, &file, "file")?;
        let options = export_options(workers, compression, frame_bytes, fixed_time, created_at_millis, overwrite)?;
        let summary = snapshot::export_casket(&casket, &file, &options, &mut relay(env, &progress))?;
        summary_out(env, &summary, &info)
    })
    .resolve::<ThrowMapped>()
}

#[unsafe(no_mangle)]
pub extern "system" fn Java_org_rockcask_Native_casketImport<'local>(
    mut env: EnvUnowned<'local>,
    _class: JClass<'local>,
    file: JByteArray<'local>,
    casket: JByteArray<'local>,
    workers: jint,
    progress: JObject<'local>,
    info: JLongArray<'local>,
) -> JByteArray<'local> {
    env.with_env(|env: &mut Env<'local>| -> BridgeResult<JByteArray<'local>> {
        let file = path_arg(env, &file, "file")?;
        let casket = path_arg(env, &casket, "casket path")?;
        let summary = snapshot::import_casket(&file, &casket, workers_arg(workers)?, &mut relay(env, &progress))?;
        summary_out(env, &summary, &info)
    })
    .resolve::<ThrowMapped>()
}

#[unsafe(no_mangle)]
#[allow(clippy::too_many_arguments)]
pub extern "system" fn Java_org_rockcask_Native_snapshotImport<'local>(
    mut env: EnvUnowned<'local>,
    _class: JClass<'local>,
    file: JByteArray<'local>,
    dir: JByteArray<'local>,
    workers: jint,
    sync_on_commit: jboolean,
    block_cache_bytes: jlong,
    write_buffer_bytes: jlong,
    compression: jint,
    compression_threshold: jint,
    queue_compression: JByteArray<'local>,
    progress: JObject<'local>,
    info: JLongArray<'local>,
) -> JByteArray<'local> {
    env.with_env(|env: &mut Env<'local>| -> BridgeResult<JByteArray<'local>> {
        let file = path_arg(env, &file, "file")?;
        let dir = path_arg(env, &dir, "directory")?;
        let store = store_options(env, sync_on_commit, block_cache_bytes, write_buffer_bytes, true, false, compression, compression_threshold, &queue_compression)?;
        let options = ImportOptions { workers: workers_arg(workers)?, store };
        let summary = snapshot::import_store(&file, &dir, &options, &mut relay(env, &progress))?;
        summary_out(env, &summary, &info)
    })
    .resolve::<ThrowMapped>()
}

#[unsafe(no_mangle)]
pub extern "system" fn Java_org_rockcask_Native_snapshotVerify<'local>(
    mut env: EnvUnowned<'local>,
    _class: JClass<'local>,
    file: JByteArray<'local>,
    workers: jint,
    progress: JObject<'local>,
    info: JLongArray<'local>,
) -> JByteArray<'local> {
    env.with_env(|env: &mut Env<'local>| -> BridgeResult<JByteArray<'local>> {
        let file = path_arg(env, &file, "file")?;
        let summary = snapshot::verify(&file, workers_arg(workers)?, &mut relay(env, &progress))?;
        summary_out(env, &summary, &info)
    })
    .resolve::<ThrowMapped>()
}

#[unsafe(no_mangle)]
pub extern "system" fn Java_org_rockcask_Native_storeCheckpoint<'local>(mut env: EnvUnowned<'local>, _class: JClass<'local>, store: jlong, dir: JByteArray<'local>) {
    env.with_env(|env: &mut Env<'local>| -> BridgeResult<()> {
        let store = borrow::<StoreHandle>(store)?;
        let dir = path_arg(env, &dir, "directory")?;
        Ok(store.0.checkpoint(&dir)?)
    })
    .resolve::<ThrowMapped>()
}
