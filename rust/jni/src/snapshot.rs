//! `org.rockcask.SnapshotNative`: snapshots (export, import, verify) and checkpoints.

use std::path::PathBuf;
use std::sync::OnceLock;

use jni::objects::JLongArray;
use jni::signature::{Primitive, ReturnType};
use jni::strings::JNIString;
use jni::sys::jvalue;
use jni::{Env, JValue};
use rockcask_core::snapshot::{self, ImportOptions, Progress, Summary};
use rockcask_core::Error as CoreError;

use crate::args::{java_object, QueueCodecs};
use crate::contract::{self, ExportSlot, InfoSlot, Record, StoreSlot};
use crate::error::{cached, BridgeError, BridgeResult};
use crate::handle::StoreHandle;
use crate::native_table::native_class;
use crate::options::{export_options, store_options, workers};
use crate::wire;

native_class! {
    pub const NATIVES = "org/rockcask/SnapshotNative", constants [ExportSlot::JAVA, InfoSlot::JAVA, contract::EXPORT_LIMITS, contract::COMPRESSION_CODES] {
        fn exportStore(store: &StoreHandle, file: PathBuf, options: Record<ExportSlot>, progress: Relay, info: JLongArray) -> Vec<u8> = export_store;
        fn importStore(file: PathBuf, dir: PathBuf, workers: i32, store: Record<StoreSlot>, queue_codecs: QueueCodecs, progress: Relay, info: JLongArray) -> Vec<u8> = import_store;
        fn verify(file: PathBuf, workers: i32, progress: Relay, info: JLongArray) -> Vec<u8> = verify;
        fn checkpoint(store: &StoreHandle, dir: PathBuf) -> () = checkpoint;
        fn exportCasket(casket: PathBuf, file: PathBuf, options: Record<ExportSlot>, progress: Relay, info: JLongArray) -> Vec<u8> = export_casket;
        fn importCasket(file: PathBuf, casket: PathBuf, workers: i32, progress: Relay, info: JLongArray) -> Vec<u8> = import_casket;
    }
}

java_object!(
    /// The progress listener of a long call (`ProgressRelay`), or null.
    Relay,
    "Lorg/rockcask/internal/ProgressRelay;"
);

/// `ProgressRelay.report`, looked up on first use (`ProgressRelay` is RockCask's own class, so
/// one id per copy of this library serves it).
static REPORT: OnceLock<jni::objects::JMethodID> = OnceLock::new();

fn report_method(env: &mut Env<'_>) -> BridgeResult<jni::objects::JMethodID> {
    let id = cached(&REPORT, || {
        let class = env.find_class(JNIString::from("org/rockcask/internal/ProgressRelay"))?;
        env.get_method_id(
            &class,
            JNIString::from("report"),
            jni::jni_sig!((a: jlong, b: jlong, c: jlong, d: jlong, e: jboolean) -> void),
        )
    })?;
    Ok(*id)
}

/// Hands each progress report to the Java relay (when there is one). An exception thrown by the
/// listener stays pending, stops the work, and reaches the caller.
fn relay<'a, 'local>(
    env: &'a mut Env<'local>,
    relay: &'a Relay<'local>,
) -> impl FnMut(&Progress) -> rockcask_core::Result<()> + use<'a, 'local> {
    move |p: &Progress| {
        if relay.0.is_null() {
            return Ok(());
        }
        let failed = |e: BridgeError| CoreError::InvalidArgument(format!("the progress listener failed: {e}"));
        let report = report_method(env).map_err(failed)?;
        let args: [jvalue; 5] = [
            JValue::Long(p.records as i64).as_jni(),
            JValue::Long(p.records_expected as i64).as_jni(),
            JValue::Long(p.bytes as i64).as_jni(),
            JValue::Long(p.bytes_expected as i64).as_jni(),
            JValue::Bool(p.done).as_jni(),
        ];
        // SAFETY: `report` is `ProgressRelay.report(JJJJZ)V`; `relay` is a non-null ProgressRelay (its descriptor says so).
        unsafe { env.call_method_unchecked(&relay.0, report, ReturnType::Primitive(Primitive::Void), &args) }
            .map(|_| ())
            .map_err(|e| failed(e.into()))
    }
}

/// Fills `info` with the numbers of a summary and returns its strings packed: content,
/// created by, source.
fn summary_out(env: &mut Env<'_>, s: &Summary, info: &JLongArray<'_>) -> BridgeResult<Vec<u8>> {
    let c = &s.counts;
    let values = contract::record_out(|slot| match slot {
        InfoSlot::FileBytes => s.file_bytes as i64,
        InfoSlot::Frames => c.frames as i64,
        InfoSlot::Records => c.records as i64,
        InfoSlot::Queues => c.queues as i64,
        InfoSlot::Entries => c.entries as i64,
        InfoSlot::Objects => c.objects as i64,
        InfoSlot::Keys => c.keys as i64,
        InfoSlot::Values => c.values as i64,
        InfoSlot::PayloadBytes => c.payload_bytes as i64,
        InfoSlot::FormatVersion => i64::from(s.format_version),
        InfoSlot::Compression => i64::from(s.header.compression),
        InfoSlot::CreatedAtMillis => s.header.created_unix_millis,
        InfoSlot::Maps => c.maps as i64,
        InfoSlot::MapEntries => c.map_entries as i64,
    });
    contract::fill(env, info, "info", &values)?;
    let content = match s.header.content() {
        snapshot::Content::Casket => "CASKET",
        _ => "STORE",
    };
    Ok(wire::pack_strings(&[
        content,
        s.header.created_by.as_str(),
        s.header.source.as_str(),
    ]))
}

fn export_store<'local>(
    env: &mut Env<'local>,
    store: &StoreHandle,
    file: PathBuf,
    options: Record<ExportSlot>,
    progress: Relay<'local>,
    info: JLongArray<'_>,
) -> BridgeResult<Vec<u8>> {
    let options = export_options(&options)?;
    let summary = store.0.export_to(&file, &options, &mut relay(env, &progress))?;
    summary_out(env, &summary, &info)
}

// The Java method's seven parameters, and the environment.
#[allow(clippy::too_many_arguments)]
fn import_store<'local>(
    env: &mut Env<'local>,
    file: PathBuf,
    dir: PathBuf,
    workers_wanted: i32,
    store: Record<StoreSlot>,
    queue_codecs: QueueCodecs,
    progress: Relay<'local>,
    info: JLongArray<'_>,
) -> BridgeResult<Vec<u8>> {
    let options = ImportOptions {
        workers: workers(workers_wanted)?,
        store: store_options(&store, queue_codecs)?,
    };
    let summary = snapshot::import_store(&file, &dir, &options, &mut relay(env, &progress))?;
    summary_out(env, &summary, &info)
}

fn verify<'local>(
    env: &mut Env<'local>,
    file: PathBuf,
    workers_wanted: i32,
    progress: Relay<'local>,
    info: JLongArray<'_>,
) -> BridgeResult<Vec<u8>> {
    let summary = snapshot::verify(&file, workers(workers_wanted)?, &mut relay(env, &progress))?;
    summary_out(env, &summary, &info)
}

fn checkpoint(_env: &mut Env<'_>, store: &StoreHandle, dir: PathBuf) -> BridgeResult<()> {
    Ok(store.0.checkpoint(&dir)?)
}

fn export_casket<'local>(
    env: &mut Env<'local>,
    casket: PathBuf,
    file: PathBuf,
    options: Record<ExportSlot>,
    progress: Relay<'local>,
    info: JLongArray<'_>,
) -> BridgeResult<Vec<u8>> {
    let options = export_options(&options)?;
    let summary = snapshot::export_casket(&casket, &file, &options, &mut relay(env, &progress))?;
    summary_out(env, &summary, &info)
}

fn import_casket<'local>(
    env: &mut Env<'local>,
    file: PathBuf,
    casket: PathBuf,
    workers_wanted: i32,
    progress: Relay<'local>,
    info: JLongArray<'_>,
) -> BridgeResult<Vec<u8>> {
    let summary = snapshot::import_casket(&file, &casket, workers(workers_wanted)?, &mut relay(env, &progress))?;
    summary_out(env, &summary, &info)
}
