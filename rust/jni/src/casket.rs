//! `tokyocabinet.CasketNative` entry points: the Tokyo Cabinet drop-in's native side.
//!
//! Every failure of the casket is thrown as `tokyocabinet.CasketException` with the message
//! "<ecode>:<detail>"; the Java classes catch it, record the code for `ecode()` and return the
//! original binding's failure value. Lists cross as one packed byte[] (`pack_list`).

use std::cmp::Ordering;
use std::path::Path;
use std::sync::Arc;

use jni::objects::{Global, JByteArray, JClass, JObject, JString};
use jni::sys::{jboolean, jdouble, jint, jlong};
use jni::{jni_sig, jni_str, Env, EnvUnowned, JValue};
use rockcask_core::casket::{
    appended_len, report_comparison_failure, Casket, CasketOptions, Compression, CursorPut, ExternalCompare, KeyOrder, Kind,
    LockMode, PutMode, Range, MAX_VALUE_LEN,
};

use crate::error::{BridgeError, BridgeResult, ThrowMapped};
use crate::handle::{borrow, free_handle, into_handle, Tagged};
use crate::wire;

pub struct CasketHandle(Casket);

impl Tagged for CasketHandle {
    const TAG: u64 = 0x5463_4361_736b_6574; // "TcCasket"
    const NAME: &'static str = "database";
}

// Open modes of the original binding.
const OWRITER: jint = 2;
const OCREAT: jint = 4;
const OTRUNC: jint = 8;
const ONOLCK: jint = 16;
const OLCKNB: jint = 32;
const OTSYNC: jint = 64;

fn casket<'a>(handle: jlong) -> BridgeResult<&'a Casket> {
    Ok(&borrow::<CasketHandle>(handle)?.0)
}

fn key(env: &Env<'_>, array: &JByteArray<'_>) -> BridgeResult<Vec<u8>> {
    wire::bytes(env, array, "key")
}

fn optional(env: &Env<'_>, array: &JByteArray<'_>) -> BridgeResult<Option<Vec<u8>>> {
    if array.is_null() {
        Ok(None)
    } else {
        Ok(Some(env.convert_byte_array(array)?))
    }
}

fn bytes_out<'local>(env: &mut Env<'local>, bytes: &[u8]) -> BridgeResult<JByteArray<'local>> {
    Ok(env.byte_array_from_slice(bytes)?)
}

/// i32 count, then per item i32 length (-1: absent) and bytes. Read by `CasketNative.unpack`.
fn pack_list<'i>(items: impl IntoIterator<Item = Option<&'i [u8]>>) -> Vec<u8> {
    let mut out = vec![0; 4];
    let mut n = 0i32;
    for item in items {
        n += 1;
        match item {
            Some(b) => {
                out.extend_from_slice(&(b.len() as i32).to_be_bytes());
                out.extend_from_slice(b);
            }
            None => out.extend_from_slice(&(-1i32).to_be_bytes()),
        }
    }
    out[..4].copy_from_slice(&n.to_be_bytes());
    out
}

fn packed<'local>(env: &mut Env<'local>, items: &[Vec<u8>]) -> BridgeResult<JByteArray<'local>> {
    bytes_out(env, &pack_list(items.iter().map(|v| Some(v.as_slice()))))
}

/// Set by `Database.Comparison.compareChecked` above the comparator's result (its low 32 bits) when the
/// comparator called a database of the drop-in (which refused the call) while comparing.
const CALLED_A_DATABASE: i64 = 1 << 32;

/// A Java `BDBCMP` as a key order, called through the drop-in's `Database.Comparison` wrapper
/// (`comparator`), which refuses calls into a database from inside `compare` and says so in
/// its result: the comparator's answer is used, and the casket call that made the comparison
/// fails before it writes (`report_comparison_failure`). RocksDB may compare from its own
/// threads, which are attached to the JVM for the call. Like the original binding, a
/// comparator that throws counts as "equal" (the exception is cleared).
fn java_order(env: &mut Env<'_>, comparator: &JObject<'_>, name: String) -> BridgeResult<KeyOrder> {
    let vm = env.get_java_vm()?;
    let target: Global<JObject<'static>> = env.new_global_ref(comparator)?;
    let compare_in_java = move |a: &[u8], b: &[u8]| -> Ordering {
        attach_as_daemon(&vm);
        let result = vm.attach_current_thread(|env: &mut Env<'_>| -> jni::errors::Result<Option<i64>> {
            let ja = env.byte_array_from_slice(a)?;
            let jb = env.byte_array_from_slice(b)?;
            let args = [JValue::Object(&ja), JValue::Object(&jb)];
            match env.call_method(&target, jni_str!("compareChecked"), jni_sig!((a: [jbyte], b: [jbyte]) -> jlong), &args) {
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

#[unsafe(no_mangle)]
#[allow(clippy::too_many_arguments)]
pub extern "system" fn Java_tokyocabinet_CasketNative_open<'local>(
    mut env: EnvUnowned<'local>,
    _class: JClass<'local>,
    path: JString<'local>,
    omode: jint,
    hash: jboolean,
    builtin_order: jint,
    comparator: JObject<'local>,
    comparator_name: JString<'local>,
    cache_bytes: jlong,
    write_buffer_bytes: jlong,
    compression: jint,
) -> jlong {
    env.with_env(|env: &mut Env<'local>| -> BridgeResult<jlong> {
        if path.is_null() {
            return Err(BridgeError::Null("path"));
        }
        let path: String = path.try_to_string(env)?;
        let mut o = CasketOptions::new(if hash { Kind::Hash } else { Kind::Btree }, omode & OWRITER != 0);
        o.create = omode & OCREAT != 0;
        o.truncate = omode & OTRUNC != 0;
        o.sync_transactions = omode & OTSYNC != 0;
        o.lock = if omode & ONOLCK != 0 {
            LockMode::None
        } else if omode & OLCKNB != 0 {
            LockMode::NonBlocking
        } else {
            LockMode::Blocking
        };
        o.order = if !comparator.is_null() {
            if comparator_name.is_null() {
                return Err(BridgeError::Null("comparator name"));
            }
            let name = comparator_name.try_to_string(env)?;
            java_order(env, &comparator, name)?
        } else {
            match builtin_order {
                0 => KeyOrder::Lexical,
                1 => KeyOrder::Decimal,
                2 => KeyOrder::Int32,
                3 => KeyOrder::Int64,
                other => return Err(BridgeError::InvalidArgument(format!("unknown comparison function {other}"))),
            }
        };
        o.cache_bytes = usize::try_from(cache_bytes).unwrap_or(0);
        o.write_buffer_bytes = usize::try_from(write_buffer_bytes).unwrap_or(64 << 20).max(1 << 20);
        o.compression = match compression {
            1 => Compression::Lz4,
            2 => Compression::Zstd,
            _ => Compression::None,
        };
        Ok(into_handle(CasketHandle(Casket::open(Path::new(&path), o)?)))
    })
    .resolve::<ThrowMapped>()
}

/// Entry points taking only the handle. `read` ones return what they read through
/// `Casket::call`, so a caller's comparator that fails fails them.
macro_rules! handle_call {
    (read $name:ident, $ret:ty, |$env:ident, $c:ident| $body:expr) => {
        #[unsafe(no_mangle)]
        pub extern "system" fn $name<'local>(mut env: EnvUnowned<'local>, _class: JClass<'local>, handle: jlong) -> $ret {
            #[allow(unused_variables)]
            env.with_env(|$env: &mut Env<'local>| -> BridgeResult<$ret> { casket(handle)?.call(|$c| -> BridgeResult<$ret> { Ok($body) }) })
                .resolve::<ThrowMapped>()
        }
    };
    ($name:ident, $ret:ty, |$env:ident, $c:ident| $body:expr) => {
        #[unsafe(no_mangle)]
        pub extern "system" fn $name<'local>(mut env: EnvUnowned<'local>, _class: JClass<'local>, handle: jlong) -> $ret {
            #[allow(unused_variables)]
            env.with_env(|$env: &mut Env<'local>| -> BridgeResult<$ret> {
                let $c = casket(handle)?;
                Ok($body)
            })
            .resolve::<ThrowMapped>()
        }
    };
}

handle_call!(Java_tokyocabinet_CasketNative_close, (), |env, c| c.close()?);
handle_call!(Java_tokyocabinet_CasketNative_sync, (), |env, c| c.sync()?);
handle_call!(Java_tokyocabinet_CasketNative_optimize, (), |env, c| c.optimize()?);
handle_call!(read Java_tokyocabinet_CasketNative_vanish, (), |env, c| c.vanish()?);
handle_call!(Java_tokyocabinet_CasketNative_tranbegin, (), |env, c| c.tranbegin()?);
handle_call!(Java_tokyocabinet_CasketNative_trancommit, (), |env, c| c.trancommit()?);
handle_call!(Java_tokyocabinet_CasketNative_tranabort, (), |env, c| c.tranabort()?);
handle_call!(Java_tokyocabinet_CasketNative_rnum, jlong, |env, c| c.rnum()? as jlong);
handle_call!(Java_tokyocabinet_CasketNative_fsiz, jlong, |env, c| c.fsiz()? as jlong);

/// The largest value a casket holds, for the Java side's copy of the figure.
#[unsafe(no_mangle)]
pub extern "system" fn Java_tokyocabinet_CasketNative_maxValueSize<'local>(_env: EnvUnowned<'local>, _class: JClass<'local>) -> jint {
    const { assert!(MAX_VALUE_LEN <= jint::MAX as usize) };
    MAX_VALUE_LEN as jint
}

#[unsafe(no_mangle)]
pub extern "system" fn Java_tokyocabinet_CasketNative_free<'local>(mut env: EnvUnowned<'local>, _class: JClass<'local>, handle: jlong) {
    env.with_env(|_env: &mut Env<'local>| -> BridgeResult<()> { free_handle::<CasketHandle>(handle) }).resolve::<ThrowMapped>()
}

/// Values of at least this many bytes are checked against the limit before they are copied.
const LARGE_VALUE: usize = 64 << 20;

#[unsafe(no_mangle)]
pub extern "system" fn Java_tokyocabinet_CasketNative_put<'local>(
    mut env: EnvUnowned<'local>,
    _class: JClass<'local>,
    handle: jlong,
    k: JByteArray<'local>,
    v: JByteArray<'local>,
    mode: jint,
) {
    env.with_env(|env: &mut Env<'local>| -> BridgeResult<()> {
        let mode = match mode {
            0 => PutMode::Over,
            1 => PutMode::Keep,
            2 => PutMode::Cat,
            3 => PutMode::Dup,
            other => return Err(BridgeError::InvalidArgument(format!("unknown put mode {other}"))),
        };
        let c = casket(handle)?;
        let k = key(env, &k)?;
        if !v.is_null() {
            // A value (or an append) that cannot fit is refused before a large array is copied;
            // the casket checks again, under its lock, once the value is here.
            let len = v.len(env)?;
            if len >= LARGE_VALUE {
                let current = if mode == PutMode::Cat { c.call(|c| c.vsiz(&k)).unwrap_or(0) } else { 0 };
                appended_len(current, len)?;
            }
        }
        let v = wire::bytes(env, &v, "value")?;
        c.call(|c| Ok(c.put(&k, &v, mode)?))
    })
    .resolve::<ThrowMapped>()
}

#[unsafe(no_mangle)]
pub extern "system" fn Java_tokyocabinet_CasketNative_out<'local>(
    mut env: EnvUnowned<'local>,
    _class: JClass<'local>,
    handle: jlong,
    k: JByteArray<'local>,
    all: jboolean,
) {
    env.with_env(|env: &mut Env<'local>| -> BridgeResult<()> {
        let k = key(env, &k)?;
        casket(handle)?.call(|c| if all { c.out_list(&k) } else { c.out(&k) })?;
        Ok(())
    })
    .resolve::<ThrowMapped>()
}

/// Entry points taking the handle and one byte[] (a key or a cursor position); all read records,
/// so they run through `Casket::call`.
macro_rules! bytes_call {
    ($name:ident, $ret:ty, |$env:ident, $c:ident, $k:ident| $body:expr) => {
        #[unsafe(no_mangle)]
        pub extern "system" fn $name<'local>(
            mut env: EnvUnowned<'local>,
            _class: JClass<'local>,
            handle: jlong,
            arg: JByteArray<'local>,
        ) -> $ret {
            env.with_env(|$env: &mut Env<'local>| -> BridgeResult<$ret> {
                let $k = key($env, &arg)?;
                casket(handle)?.call(|$c| -> BridgeResult<$ret> { Ok($body) })
            })
            .resolve::<ThrowMapped>()
        }
    };
}

bytes_call!(Java_tokyocabinet_CasketNative_get, JByteArray<'local>, |env, c, k| bytes_out(env, &c.get(&k)?)?);
bytes_call!(Java_tokyocabinet_CasketNative_getlist, JByteArray<'local>, |env, c, k| packed(env, &c.get_list(&k)?)?);
bytes_call!(Java_tokyocabinet_CasketNative_vnum, jint, |env, c, k| c.vnum(&k)?.min(jint::MAX as usize) as jint);
bytes_call!(Java_tokyocabinet_CasketNative_vsiz, jint, |env, c, k| c.vsiz(&k)?.min(jint::MAX as usize) as jint);
bytes_call!(Java_tokyocabinet_CasketNative_curJump, JByteArray<'local>, |env, c, k| bytes_out(env, &c.cursor_jump(&k)?)?);
bytes_call!(Java_tokyocabinet_CasketNative_curNext, JByteArray<'local>, |env, c, k| bytes_out(env, &c.cursor_next(&k)?)?);
bytes_call!(Java_tokyocabinet_CasketNative_curPrev, JByteArray<'local>, |env, c, k| bytes_out(env, &c.cursor_prev(&k)?)?);
bytes_call!(Java_tokyocabinet_CasketNative_curKey, JByteArray<'local>, |env, c, k| bytes_out(env, &c.cursor_key(&k)?)?);
bytes_call!(Java_tokyocabinet_CasketNative_curVal, JByteArray<'local>, |env, c, k| bytes_out(env, &c.cursor_value(&k)?)?);
// Removes the entry at the cursor; packed [next position or absent].
bytes_call!(Java_tokyocabinet_CasketNative_curOut, JByteArray<'local>, |env, c, k| {
    let next = c.cursor_out(&k)?;
    bytes_out(env, &pack_list([next.as_deref()]))?
});
// One step of iteration: packed [key, next position or absent].
bytes_call!(Java_tokyocabinet_CasketNative_curKeyNext, JByteArray<'local>, |env, c, k| {
    let (key, _value, next) = c.cursor_key_value_next(&k)?;
    bytes_out(env, &pack_list([Some(key.as_slice()), next.as_deref()]))?
});

handle_call!(read Java_tokyocabinet_CasketNative_curFirst, JByteArray<'local>, |env, c| bytes_out(env, &c.cursor_first()?)?);
handle_call!(read Java_tokyocabinet_CasketNative_curLast, JByteArray<'local>, |env, c| bytes_out(env, &c.cursor_last()?)?);

#[unsafe(no_mangle)]
pub extern "system" fn Java_tokyocabinet_CasketNative_addint<'local>(
    mut env: EnvUnowned<'local>,
    _class: JClass<'local>,
    handle: jlong,
    k: JByteArray<'local>,
    num: jint,
) -> jint {
    env.with_env(|env: &mut Env<'local>| -> BridgeResult<jint> {
        let k = key(env, &k)?;
        casket(handle)?.call(|c| Ok(c.add_int(&k, num)?))
    })
        .resolve::<ThrowMapped>()
}

#[unsafe(no_mangle)]
pub extern "system" fn Java_tokyocabinet_CasketNative_adddouble<'local>(
    mut env: EnvUnowned<'local>,
    _class: JClass<'local>,
    handle: jlong,
    k: JByteArray<'local>,
    num: jdouble,
) -> jdouble {
    env.with_env(|env: &mut Env<'local>| -> BridgeResult<jdouble> {
        let k = key(env, &k)?;
        casket(handle)?.call(|c| Ok(c.add_double(&k, num)?))
    })
        .resolve::<ThrowMapped>()
}

#[unsafe(no_mangle)]
pub extern "system" fn Java_tokyocabinet_CasketNative_range<'local>(
    mut env: EnvUnowned<'local>,
    _class: JClass<'local>,
    handle: jlong,
    begin: JByteArray<'local>,
    begin_inclusive: jboolean,
    end: JByteArray<'local>,
    end_inclusive: jboolean,
    max: jint,
) -> JByteArray<'local> {
    env.with_env(|env: &mut Env<'local>| -> BridgeResult<JByteArray<'local>> {
        let (b, e) = (optional(env, &begin)?, optional(env, &end)?);
        let range = Range { begin: b.as_deref(), begin_inclusive, end: e.as_deref(), end_inclusive, max: max.into() };
        let keys = casket(handle)?.call(|c| c.range(&range))?;
        packed(env, &keys)
    })
    .resolve::<ThrowMapped>()
}

#[unsafe(no_mangle)]
pub extern "system" fn Java_tokyocabinet_CasketNative_fwmkeys<'local>(
    mut env: EnvUnowned<'local>,
    _class: JClass<'local>,
    handle: jlong,
    prefix: JByteArray<'local>,
    max: jint,
) -> JByteArray<'local> {
    env.with_env(|env: &mut Env<'local>| -> BridgeResult<JByteArray<'local>> {
        let prefix = key(env, &prefix)?;
        let keys = casket(handle)?.call(|c| c.fwmkeys(&prefix, max.into()))?;
        packed(env, &keys)
    })
    .resolve::<ThrowMapped>()
}

#[unsafe(no_mangle)]
pub extern "system" fn Java_tokyocabinet_CasketNative_copy<'local>(
    mut env: EnvUnowned<'local>,
    _class: JClass<'local>,
    handle: jlong,
    dest: JString<'local>,
) {
    env.with_env(|env: &mut Env<'local>| -> BridgeResult<()> {
        if dest.is_null() {
            return Err(BridgeError::Null("path"));
        }
        let dest: String = dest.try_to_string(env)?;
        Ok(casket(handle)?.copy(Path::new(&dest))?)
    })
    .resolve::<ThrowMapped>()
}

#[unsafe(no_mangle)]
pub extern "system" fn Java_tokyocabinet_CasketNative_curPut<'local>(
    mut env: EnvUnowned<'local>,
    _class: JClass<'local>,
    handle: jlong,
    pos: JByteArray<'local>,
    value: JByteArray<'local>,
    mode: jint,
) -> JByteArray<'local> {
    env.with_env(|env: &mut Env<'local>| -> BridgeResult<JByteArray<'local>> {
        let mode = match mode {
            0 => CursorPut::Current,
            1 => CursorPut::Before,
            2 => CursorPut::After,
            other => return Err(BridgeError::InvalidArgument(format!("unknown cursor put mode {other}"))),
        };
        let (pos, value) = (wire::bytes(env, &pos, "position")?, wire::bytes(env, &value, "value")?);
        let pos = casket(handle)?.call(|c| c.cursor_put(&pos, &value, mode))?;
        bytes_out(env, &pos)
    })
    .resolve::<ThrowMapped>()
}

#[cfg(test)]
mod tests {
    #[test]
    fn packed_lists_carry_count_lengths_and_absent_items() {
        let p = super::pack_list([Some(&b"ab"[..]), None]);
        assert_eq!(p, [0, 0, 0, 2, 0, 0, 0, 2, b'a', b'b', 0xff, 0xff, 0xff, 0xff]);
    }
}
pub const NATIVES: crate::native_table::NativeClass = crate::native_table::NativeClass { class: "TODO/casket", methods: &[], constants: &[] };
