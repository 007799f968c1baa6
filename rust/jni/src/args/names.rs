//! The strings Java hands over: queue and map names, and texts (a rollback's reason, a
//! comparator's class name). Every one crosses as a `byte[]` of UTF-8 that Java made in one
//! place, `org.rockcask.internal.Utf8`: a name that is not valid UTF-16 (an unpaired surrogate)
//! is refused there, naming the argument and the index, and a text is encoded as Java encodes
//! it (an unpaired surrogate as `'?'`). No string crosses as a JNI `String`: that is modified
//! UTF-8, which spells U+0000 and characters above U+FFFF otherwise and which jni-rs decodes
//! with replacement when malformed (three U+FFFD for a lone surrogate, where Java's encoder
//! writes `'?'`), so one Java string would name two things. Java checks names for length
//! (`Wire.checkedQueueName`, `Wire.checkedMapName`); here every string is checked to be UTF-8,
//! and the core checks names again.

use std::marker::PhantomData;

use jni::objects::JByteArray;
use jni::Env;

use super::{java_bytes, Arg};
use crate::error::{BridgeError, BridgeResult};

/// What a name names, for its errors.
pub trait Named {
    /// "queue name", "map name".
    const WHAT: &'static str;
}

pub enum Queue {}

impl Named for Queue {
    const WHAT: &'static str = "queue name";
}

pub enum Map {}

impl Named for Map {
    const WHAT: &'static str = "map name";
}

pub type QueueName = Name<Queue>;
pub type MapName = Name<Map>;

/// A name, valid UTF-8. Names that fit are read into a stack buffer: a queue name arrives with
/// every enqueue that does not go through the buffer, and an allocation there shows in the
/// item rate.
pub struct Name<K> {
    inline: [u8; 128],
    len: usize,
    heap: Option<String>,
    kind: PhantomData<K>,
}

impl<K: Named> Name<K> {
    fn read(env: &Env<'_>, array: &JByteArray<'_>) -> BridgeResult<Self> {
        if array.is_null() {
            return Err(BridgeError::Null(K::WHAT));
        }
        let len = java_bytes::len(env, array);
        let mut name = Name {
            inline: [0; 128],
            len,
            heap: None,
            kind: PhantomData,
        };
        if len <= name.inline.len() {
            java_bytes::read(env, array, &mut name.inline[..len]);
            std::str::from_utf8(&name.inline[..len]).map_err(|_| not_utf8(K::WHAT))?;
        } else {
            name.heap = Some(String::from_utf8(java_bytes::to_vec(env, array)).map_err(|_| not_utf8(K::WHAT))?);
        }
        Ok(name)
    }

    pub fn as_str(&self) -> &str {
        match &self.heap {
            Some(s) => s,
            // Checked to be UTF-8 in `read`.
            None => std::str::from_utf8(&self.inline[..self.len]).unwrap_or_default(),
        }
    }
}

impl<K: Named> Arg for Name<K> {
    type Raw<'local> = JByteArray<'local>;
    type Value<'local> = Name<K>;
    const DESCRIPTOR: &'static str = "[B";
    fn from_java<'local>(env: &mut Env<'local>, raw: JByteArray<'local>, _name: &'static str) -> BridgeResult<Name<K>> {
        Name::read(env, &raw)
    }
}

/// A name that may be absent (`null`), such as a queue's dead-letter queue.
impl<K: Named> Arg for Option<Name<K>> {
    type Raw<'local> = JByteArray<'local>;
    type Value<'local> = Option<Name<K>>;
    const DESCRIPTOR: &'static str = "[B";
    fn from_java<'local>(
        env: &mut Env<'local>,
        raw: JByteArray<'local>,
        _name: &'static str,
    ) -> BridgeResult<Option<Name<K>>> {
        if raw.is_null() {
            return Ok(None);
        }
        Name::read(env, &raw).map(Some)
    }
}

/// A text (not a name): UTF-8 bytes Java encoded with `Utf8.text`.
pub struct Text(pub String);

impl Arg for Text {
    type Raw<'local> = JByteArray<'local>;
    type Value<'local> = Text;
    const DESCRIPTOR: &'static str = "[B";
    fn from_java<'local>(env: &mut Env<'local>, raw: JByteArray<'local>, name: &'static str) -> BridgeResult<Text> {
        let bytes = super::bytes(env, &raw, name)?;
        String::from_utf8(bytes).map(Text).map_err(|_| not_utf8(name))
    }
}

/// "queue name is not valid UTF-8".
fn not_utf8(what: &str) -> BridgeError {
    BridgeError::InvalidArgument(format!("{what} is not valid UTF-8"))
}
