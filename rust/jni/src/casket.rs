//! `tokyocabinet.CasketNative`: the Tokyo Cabinet drop-in's native side.
//!
//! Every failure of the casket is thrown as `tokyocabinet.CasketException(code, detail)`; the
//! Java classes catch it, record the code for `ecode()` and return the original binding's
//! failure value. Lists cross as one byte[] in the list layout (`wire::pack_list`). The codes
//! and bits Java passes (open modes, put modes, orders, compression) and the error codes are
//! defined in `contract/casket.rs` and checked against their Java constants when `CasketNative`
//! registers.

use std::cmp::Ordering;
use std::path::PathBuf;
use std::sync::Arc;

use jni::objects::{Global, JByteArray, JMethodID, JObject};
use jni::signature::{Primitive, ReturnType};
use jni::strings::JNIString;
use jni::{Env, JValue};
use rockcask_core::casket::{
    appended_len, report_comparison_failure, Casket, CasketOptions, CursorPut, ExternalCompare, KeyOrder, Kind,
    LockMode, PutMode, Range,
};

use crate::args::{self, code_arg, java_object, Freed, NewHandle, Text};
use crate::contract::{self, omode, CasketSlot, Record, CALLED_A_DATABASE};
use crate::error::{BridgeError, BridgeResult};
use crate::handle::CasketHandle;
use crate::native_table::native_class;
use crate::wire::{pack_list, unpack_list};

native_class! {
    pub const NATIVES = "tokyocabinet/CasketNative", constants [
        CasketSlot::JAVA,
        contract::CASKET_OPEN_MODES,
        contract::PUT_MODES.java,
        contract::CURSOR_PUT_MODES.java,
        contract::KEY_ORDERS.java,
        contract::CASKET_COMPRESSION.java,
        contract::CASKET_ERROR_CODES,
        contract::CASKET_LIMITS,
        contract::CASKET_COMPARATOR,
    ] {
        fn open(path: PathBuf, options: Record<CasketSlot>, comparator: Comparator, comparator_name: Option<Text>) -> NewHandle<CasketHandle> = open;
        fn close(db: &CasketHandle) -> () = close;
        fn free(db: Freed<CasketHandle>) -> () = free;
        fn put(db: &CasketHandle, key: Vec<u8>, value: JByteArray, mode: PutMode) -> () = put;
        fn putdups(db: &CasketHandle, packed: Vec<u8>) -> () = putdups;
        fn out(db: &CasketHandle, key: Vec<u8>, all: bool) -> () = out;
        fn get(db: &CasketHandle, key: Vec<u8>) -> Vec<u8> = get;
        fn getlist(db: &CasketHandle, key: Vec<u8>) -> Vec<u8> = getlist;
        fn vnum(db: &CasketHandle, key: Vec<u8>) -> i32 = vnum;
        fn vsiz(db: &CasketHandle, key: Vec<u8>) -> i32 = vsiz;
        fn range(db: &CasketHandle, bkey: Option<Vec<u8>>, binc: bool, ekey: Option<Vec<u8>>, einc: bool, max: i32) -> Vec<u8> = range;
        fn fwmkeys(db: &CasketHandle, prefix: Vec<u8>, max: i32) -> Vec<u8> = fwmkeys;
        fn addint(db: &CasketHandle, key: Vec<u8>, num: i32) -> i32 = addint;
        fn adddouble(db: &CasketHandle, key: Vec<u8>, num: f64) -> f64 = adddouble;
        fn sync(db: &CasketHandle) -> () = sync;
        fn optimize(db: &CasketHandle) -> () = optimize;
        fn vanish(db: &CasketHandle) -> () = vanish;
        fn copy(db: &CasketHandle, path: PathBuf) -> () = copy;
        fn tranbegin(db: &CasketHandle) -> () = tranbegin;
        fn trancommit(db: &CasketHandle) -> () = trancommit;
        fn tranabort(db: &CasketHandle) -> () = tranabort;
        fn rnum(db: &CasketHandle) -> i64 = rnum;
        fn fsiz(db: &CasketHandle) -> i64 = fsiz;
        fn curFirst(db: &CasketHandle) -> Vec<u8> = cur_first;
        fn curLast(db: &CasketHandle) -> Vec<u8> = cur_last;
        fn curJump(db: &CasketHandle, key: Vec<u8>) -> Vec<u8> = cur_jump;
        fn curNext(db: &CasketHandle, position: Vec<u8>) -> Vec<u8> = cur_next;
        fn curPrev(db: &CasketHandle, position: Vec<u8>) -> Vec<u8> = cur_prev;
        fn curKey(db: &CasketHandle, position: Vec<u8>) -> Vec<u8> = cur_key;
        fn curVal(db: &CasketHandle, position: Vec<u8>) -> Vec<u8> = cur_val;
        fn curPut(db: &CasketHandle, position: Vec<u8>, value: Vec<u8>, mode: CursorPut) -> Vec<u8> = cur_put;
        fn curOut(db: &CasketHandle, position: Vec<u8>) -> Vec<u8> = cur_out;
        fn curKeyNext(db: &CasketHandle, position: Vec<u8>) -> Vec<u8> = cur_key_next;
    }
}

java_object!(
    /// The comparator of a casket opened with a `BDBCMP` (`CasketComparator`), or null for a
    /// built-in order.
    Comparator,
    "Ltokyocabinet/internal/CasketComparator;"
);

code_arg! {
    PutMode => |code, name| contract::PUT_MODES.decode(code, name),
    CursorPut => |code, name| contract::CURSOR_PUT_MODES.decode(code, name),
}

fn packed(items: &[Vec<u8>]) -> Vec<u8> {
    pack_list(items.iter().map(|v| Some(v.as_slice())))
}

/// `compareChecked` of the comparator's own class, looked up once per open database. Not once
/// per process: the drop-in's classes may be loaded by several class loaders beside one copy of
/// this library (which belongs to RockCask's loader), each with its own `CasketComparator`.
fn compare_method(env: &mut Env<'_>, comparator: &JObject<'_>) -> BridgeResult<JMethodID> {
    let class = env.get_object_class(comparator)?;
    Ok(env.get_method_id(
        &class,
        JNIString::from("compareChecked"),
        jni::jni_sig!((a: [jbyte], b: [jbyte]) -> jlong),
    )?)
}

/// A Java `BDBCMP` as a key order, called through the drop-in's `Database.Comparison` wrapper
/// (`comparator`, a `CasketComparator`), which refuses calls into a database from inside
/// `compare` and says so in its result: the comparator's answer is used, and the casket call that made the comparison
/// fails before it writes (`report_comparison_failure`). RocksDB may compare from its own
/// threads, which are attached to the JVM for the call. Like the original binding, a
/// comparator that throws counts as "equal" (the exception is cleared).
fn java_order(env: &mut Env<'_>, comparator: &JObject<'_>, name: String) -> BridgeResult<KeyOrder> {
    let compare_checked = compare_method(env, comparator)?;
    let vm = env.get_java_vm()?;
    let target: Global<JObject<'static>> = env.new_global_ref(comparator)?;
    let compare_in_java = move |a: &[u8], b: &[u8]| -> Ordering {
        attach_as_daemon(&vm);
        let result = vm.attach_current_thread(|env: &mut Env<'_>| -> jni::errors::Result<Option<i64>> {
            let ja = env.byte_array_from_slice(a)?;
            let jb = env.byte_array_from_slice(b)?;
            let args = [JValue::Object(&ja).as_jni(), JValue::Object(&jb).as_jni()];
            // SAFETY: `compare_checked` is `compareChecked([B[B)J` of `target`'s own class, which
            // `target` (a global reference) keeps loaded; `open` checked it is not null.
            match unsafe {
                env.call_method_unchecked(&target, compare_checked, ReturnType::Primitive(Primitive::Long), &args)
            } {
                Ok(v) => v.j().map(Some),
                // Cleared here, inside the call's local frame. Left pending, jni-rs catches it
                // after the frame and renders its name, message and stack trace on every
                // comparison, with local references that pile up in the caller's frame.
                Err(jni::errors::Error::JavaException) => {
                    env.exception_clear();
                    Ok(None)
                }
                Err(e) => Err(e),
            }
        });
        match result {
            Ok(Some(v)) => {
                if v & CALLED_A_DATABASE != 0 {
                    report_comparison_failure("the BDBCMP comparator called a database from inside compare (a comparator must not use any database)");
                }
                (v as i32).cmp(&0)
            }
            Ok(None) => Ordering::Equal,
            Err(_) => {
                let _ = vm.attach_current_thread(|env: &mut Env<'_>| -> jni::errors::Result<()> {
                    env.exception_clear();
                    Ok(())
                });
                Ordering::Equal
            }
        }
    };
    // RocksDB calls this from C++: a panic must not unwind through it.
    let compare: ExternalCompare = Arc::new(move |a: &[u8], b: &[u8]| {
        std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| compare_in_java(a, b))).unwrap_or(Ordering::Equal)
    });
    Ok(KeyOrder::External { name, compare })
}

/// RocksDB's background threads (flush, compaction) compare keys too. They are attached as
/// daemon threads, so they never keep the JVM from exiting; jni-rs then finds them attached.
fn attach_as_daemon(vm: &jni::JavaVM) {
    if vm.is_thread_attached().unwrap_or(false) {
        return;
    }
    let raw = vm.get_raw();
    let mut env = std::ptr::null_mut();
    // SAFETY: `raw` is the JVM this library was loaded into (from `get_java_vm`); attaching the
    // calling native thread is what the function is for. A failure leaves the thread detached,
    // and the call below then attaches it the ordinary way.
    unsafe {
        ((*(*raw)).v1_4.AttachCurrentThreadAsDaemon)(raw, &mut env, std::ptr::null_mut());
    }
}

fn open(
    env: &mut Env<'_>,
    path: PathBuf,
    options: Record<CasketSlot>,
    comparator: Comparator<'_>,
    comparator_name: Option<Text>,
) -> BridgeResult<NewHandle<CasketHandle>> {
    let mode = options.get(CasketSlot::Omode);
    let kind = if options.flag(CasketSlot::Hash) {
        Kind::Hash
    } else {
        Kind::Btree
    };
    let mut o = CasketOptions::new(kind, mode & omode::OWRITER != 0);
    o.create = mode & omode::OCREAT != 0;
    o.truncate = mode & omode::OTRUNC != 0;
    o.sync_transactions = mode & omode::OTSYNC != 0;
    o.lock = if mode & omode::ONOLCK != 0 {
        LockMode::None
    } else if mode & omode::OLCKNB != 0 {
        LockMode::NonBlocking
    } else {
        LockMode::Blocking
    };
    o.order = if !comparator.0.is_null() {
        let name = comparator_name.ok_or(BridgeError::Null("comparator name"))?;
        java_order(env, &comparator.0, name.0)?
    } else {
        contract::KEY_ORDERS.decode(options.get(CasketSlot::Cmpfunc), "cmpfunc")?
    };
    o.compression = contract::CASKET_COMPRESSION.decode(options.get(CasketSlot::Compression), "compression")?;
    o.set_sizes(
        options.get(CasketSlot::CacheBytes),
        options.get(CasketSlot::WriteBufferBytes),
    );
    Ok(NewHandle(CasketHandle(Casket::open(path, o)?)))
}

fn close(_env: &mut Env<'_>, db: &CasketHandle) -> BridgeResult<()> {
    Ok(db.0.close()?)
}

fn free(_env: &mut Env<'_>, db: Freed<CasketHandle>) -> BridgeResult<()> {
    drop(db);
    Ok(())
}

/// Values of at least this many bytes are checked against the limit before they are copied.
const LARGE_VALUE: usize = 64 << 20;

/// `value` stays in the JVM until it is known to fit.
fn put<'local>(
    env: &mut Env<'local>,
    db: &CasketHandle,
    key: Vec<u8>,
    value: JByteArray<'local>,
    mode: PutMode,
) -> BridgeResult<()> {
    let c = &db.0;
    if !value.is_null() {
        // A value (or an append) that cannot fit is refused before a large array is copied;
        // the casket checks again, under its lock, once the value is here.
        let len = value.len(env)?;
        if len >= LARGE_VALUE {
            let current = if mode == PutMode::Cat {
                c.call(|c| c.vsiz(&key)).unwrap_or(0)
            } else {
                0
            };
            appended_len(current, len)?;
        }
    }
    let value = args::bytes(env, &value, "value")?;
    c.call(|c| Ok(c.put(&key, &value, mode)?))
}

/// `putdup` of each (key, value) pair of a packed list (keys and values alternating), in
/// order, as the drop-in gathers them during a transaction: one call instead of one per pair.
/// Stops at the first failure (the pairs before it are written).
fn putdups(_env: &mut Env<'_>, db: &CasketHandle, packed: Vec<u8>) -> BridgeResult<()> {
    let items = unpack_list(&packed)?;
    if items.len() % 2 != 0 {
        return Err(BridgeError::InvalidArgument(format!(
            "{} packed items are not (key, value) pairs",
            items.len()
        )));
    }
    let pairs = items.chunks_exact(2).map(|pair| pair[0].zip(pair[1]));
    let pairs = pairs
        .collect::<Option<Vec<_>>>()
        .ok_or_else(|| BridgeError::InvalidArgument("an absent key or value in packed pairs".into()))?;
    db.0.call(|c| {
        pairs
            .iter()
            .try_for_each(|(key, value)| c.put(key, value, PutMode::Dup))
    })?;
    Ok(())
}

fn out(_env: &mut Env<'_>, db: &CasketHandle, key: Vec<u8>, all: bool) -> BridgeResult<()> {
    db.0.call(|c| if all { c.out_list(&key) } else { c.out(&key) })?;
    Ok(())
}

/// The operations below that read records run through `Casket::call`, so a caller's comparator
/// that fails fails them.
fn get(_env: &mut Env<'_>, db: &CasketHandle, key: Vec<u8>) -> BridgeResult<Vec<u8>> {
    Ok(db.0.call(|c| c.get(&key))?)
}

fn getlist(_env: &mut Env<'_>, db: &CasketHandle, key: Vec<u8>) -> BridgeResult<Vec<u8>> {
    Ok(packed(&db.0.call(|c| c.get_list(&key))?))
}

fn vnum(_env: &mut Env<'_>, db: &CasketHandle, key: Vec<u8>) -> BridgeResult<i32> {
    Ok(db.0.call(|c| c.vnum(&key))?.min(i32::MAX as usize) as i32)
}

fn vsiz(_env: &mut Env<'_>, db: &CasketHandle, key: Vec<u8>) -> BridgeResult<i32> {
    Ok(db.0.call(|c| c.vsiz(&key))?.min(i32::MAX as usize) as i32)
}

fn range(
    _env: &mut Env<'_>,
    db: &CasketHandle,
    bkey: Option<Vec<u8>>,
    binc: bool,
    ekey: Option<Vec<u8>>,
    einc: bool,
    max: i32,
) -> BridgeResult<Vec<u8>> {
    let range = Range {
        begin: bkey.as_deref(),
        begin_inclusive: binc,
        end: ekey.as_deref(),
        end_inclusive: einc,
        max: max.into(),
    };
    Ok(packed(&db.0.call(|c| c.range(&range))?))
}

fn fwmkeys(_env: &mut Env<'_>, db: &CasketHandle, prefix: Vec<u8>, max: i32) -> BridgeResult<Vec<u8>> {
    Ok(packed(&db.0.call(|c| c.fwmkeys(&prefix, max.into()))?))
}

fn addint(_env: &mut Env<'_>, db: &CasketHandle, key: Vec<u8>, num: i32) -> BridgeResult<i32> {
    Ok(db.0.call(|c| c.add_int(&key, num))?)
}

fn adddouble(_env: &mut Env<'_>, db: &CasketHandle, key: Vec<u8>, num: f64) -> BridgeResult<f64> {
    Ok(db.0.call(|c| c.add_double(&key, num))?)
}

fn sync(_env: &mut Env<'_>, db: &CasketHandle) -> BridgeResult<()> {
    Ok(db.0.sync()?)
}

fn optimize(_env: &mut Env<'_>, db: &CasketHandle) -> BridgeResult<()> {
    Ok(db.0.optimize()?)
}

fn vanish(_env: &mut Env<'_>, db: &CasketHandle) -> BridgeResult<()> {
    Ok(db.0.call(|c| c.vanish())?)
}

fn copy(_env: &mut Env<'_>, db: &CasketHandle, path: PathBuf) -> BridgeResult<()> {
    Ok(db.0.copy(&path)?)
}

fn tranbegin(_env: &mut Env<'_>, db: &CasketHandle) -> BridgeResult<()> {
    Ok(db.0.tranbegin()?)
}

fn trancommit(_env: &mut Env<'_>, db: &CasketHandle) -> BridgeResult<()> {
    Ok(db.0.trancommit()?)
}

fn tranabort(_env: &mut Env<'_>, db: &CasketHandle) -> BridgeResult<()> {
    Ok(db.0.tranabort()?)
}

fn rnum(_env: &mut Env<'_>, db: &CasketHandle) -> BridgeResult<i64> {
    Ok(db.0.rnum()? as i64)
}

fn fsiz(_env: &mut Env<'_>, db: &CasketHandle) -> BridgeResult<i64> {
    Ok(db.0.fsiz()? as i64)
}

fn cur_first(_env: &mut Env<'_>, db: &CasketHandle) -> BridgeResult<Vec<u8>> {
    Ok(db.0.call(|c| c.cursor_first())?)
}

fn cur_last(_env: &mut Env<'_>, db: &CasketHandle) -> BridgeResult<Vec<u8>> {
    Ok(db.0.call(|c| c.cursor_last())?)
}

fn cur_jump(_env: &mut Env<'_>, db: &CasketHandle, key: Vec<u8>) -> BridgeResult<Vec<u8>> {
    Ok(db.0.call(|c| c.cursor_jump(&key))?)
}

fn cur_next(_env: &mut Env<'_>, db: &CasketHandle, position: Vec<u8>) -> BridgeResult<Vec<u8>> {
    Ok(db.0.call(|c| c.cursor_next(&position))?)
}

fn cur_prev(_env: &mut Env<'_>, db: &CasketHandle, position: Vec<u8>) -> BridgeResult<Vec<u8>> {
    Ok(db.0.call(|c| c.cursor_prev(&position))?)
}

fn cur_key(_env: &mut Env<'_>, db: &CasketHandle, position: Vec<u8>) -> BridgeResult<Vec<u8>> {
    Ok(db.0.call(|c| c.cursor_key(&position))?)
}

fn cur_val(_env: &mut Env<'_>, db: &CasketHandle, position: Vec<u8>) -> BridgeResult<Vec<u8>> {
    Ok(db.0.call(|c| c.cursor_value(&position))?)
}

/// Returns the new position.
fn cur_put(
    _env: &mut Env<'_>,
    db: &CasketHandle,
    position: Vec<u8>,
    value: Vec<u8>,
    mode: CursorPut,
) -> BridgeResult<Vec<u8>> {
    Ok(db.0.call(|c| c.cursor_put(&position, &value, mode))?)
}

/// Removes the entry at the cursor; packed [next position or absent].
fn cur_out(_env: &mut Env<'_>, db: &CasketHandle, position: Vec<u8>) -> BridgeResult<Vec<u8>> {
    let next = db.0.call(|c| c.cursor_out(&position))?;
    Ok(pack_list([next.as_deref()]))
}

/// One step of iteration: packed [key, next position or absent].
fn cur_key_next(_env: &mut Env<'_>, db: &CasketHandle, position: Vec<u8>) -> BridgeResult<Vec<u8>> {
    let (key, _value, next) = db.0.call(|c| c.cursor_key_value_next(&position))?;
    Ok(pack_list([Some(key.as_slice()), next.as_deref()]))
}
