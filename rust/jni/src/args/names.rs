//! Queue and map names: `byte[]`s of UTF-8 that Java encoded (`String.getBytes(UTF_8)`, so no
//! modified UTF-8 is involved) and checked for length (`Wire.checkedQueueName`,
//! `Wire.checkedMapName`); here they are checked to be UTF-8, and the core checks them again.

use std::marker::PhantomData;

use jni::objects::JByteArray;
use jni::Env;

use super::{as_jbytes, Arg};
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
        let len = array.len(env)?;
        let mut name = Name {
            inline: [0; 128],
            len,
            heap: None,
            kind: PhantomData,
        };
        if len <= name.inline.len() {
            array.get_region(env, 0, as_jbytes(&mut name.inline[..len]))?;
            std::str::from_utf8(&name.inline[..len]).map_err(|_| not_utf8(K::WHAT))?;
        } else {
            name.heap = Some(String::from_utf8(env.convert_byte_array(array)?).map_err(|_| not_utf8(K::WHAT))?);
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

/// "queue name is not valid UTF-8".
fn not_utf8(what: &str) -> BridgeError {
    BridgeError::InvalidArgument(format!("{what} is not valid UTF-8"))
}
