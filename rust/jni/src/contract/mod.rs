//! The numbers Java and Rust must agree on, defined here (or in `rockcask-core`) once.
//!
//! Java repeats some of them as `static final` constants, where it checks arguments before a
//! call or reads a slot of an array the native side filled. Each group below names the Java
//! class holding them (the groups of `org.rockcask` are in `rockcask.rs`, the drop-in's in
//! `casket.rs`); `check` reads every one through JNI when the native class that depends
//! on them registers, so a constant that drifts fails the class's initialization with the
//! name, the Java value and the native one, before any call uses it.
//!
//! Slot orders (`slots!`) are the layouts of `long[]` records crossing JNI: options going in,
//! statistics coming out. Each slot's Java constant is its index.

use jni::objects::{JClass, JClassLoader, JString};
use jni::signature::{FieldSignature, RuntimeFieldSignature};
use jni::strings::JNIString;
use jni::Env;

use crate::error::{BridgeError, BridgeResult};

/// Constants of one Java class and their native values.
pub struct JavaConstants {
    /// Binary name with slashes.
    pub class: &'static str,
    pub values: &'static [JavaConstant],
}

pub struct JavaConstant {
    pub name: &'static str,
    pub value: i64,
    /// `'I'` for an `int` field, `'J'` for a `long`.
    pub kind: char,
}

impl JavaConstant {
    pub const fn int(name: &'static str, value: i64) -> Self {
        JavaConstant { name, value, kind: 'I' }
    }

    pub const fn long(name: &'static str, value: i64) -> Self {
        JavaConstant { name, value, kind: 'J' }
    }
}

/// Compares every constant of `group` with the Java field of that name, in the class of that
/// name that `loader` (the registering class's loader) sees.
pub fn check(env: &mut Env<'_>, loader: &JClassLoader<'_>, group: &JavaConstants) -> BridgeResult<()> {
    let name = JString::from_str(env, group.class.replace('/', "."))?;
    let class = JClass::for_name_with_loader(env, &name, false, loader)?;
    for c in group.values {
        let sig = RuntimeFieldSignature::from_str(c.kind.to_string())?;
        let java = env
            .get_static_field(&class, JNIString::from(c.name), FieldSignature::from(&sig))
            .map_err(|e| {
                // The NoSuchFieldError says less than this.
                env.exception_clear();
                BridgeError::InvalidArgument(format!(
                    "{} has no static {} field {} ({e})",
                    group.class,
                    if c.kind == 'I' { "int" } else { "long" },
                    c.name
                ))
            })?;
        let java = if c.kind == 'I' {
            java.i().map(i64::from)?
        } else {
            java.j()?
        };
        if java != c.value {
            return Err(BridgeError::InvalidArgument(format!(
                "{}.{} is {java} in Java but {} in the native library: the jar and the library disagree",
                group.class, c.name, c.value
            )));
        }
    }
    Ok(())
}

/// Declares the slots of a `long[]` record: an enum with one variant per slot, its length, and
/// the Java constants (`PREFIX_SLOT_NAME = index`, `PREFIX_SLOTS = length`) of `class` that
/// must match.
macro_rules! slots {
    ($(#[$meta:meta])* $vis:vis enum $name:ident in $class:literal as $prefix:literal { $($slot:ident = $java:literal),* $(,)? }) => {
        $(#[$meta])*
        #[derive(Clone, Copy, Debug, PartialEq, Eq)]
        #[repr(usize)]
        $vis enum $name { $($slot),* }

        impl $name {
            pub const JAVA: $crate::contract::JavaConstants = $crate::contract::JavaConstants {
                class: $class,
                values: &[
                    $($crate::contract::JavaConstant::int(concat!($prefix, $java), $name::$slot as i64),)*
                    $crate::contract::JavaConstant::int(concat!($prefix, "SLOTS"), <$name as $crate::contract::Slots>::LEN as i64),
                ],
            };
        }

        impl $crate::contract::Slots for $name {
            const ALL: &'static [Self] = &[$($name::$slot),*];
            const WHAT: &'static str = stringify!($name);
            fn index(self) -> usize {
                self as usize
            }
        }
    };
}

/// The slots of a record, declared with `slots!`.
pub trait Slots: Copy + 'static {
    /// Every slot, in index order.
    const ALL: &'static [Self];
    const LEN: usize = Self::ALL.len();
    /// The record's name in errors.
    const WHAT: &'static str;
    fn index(self) -> usize;
}

/// A `long[]` record from Java, checked to have exactly the slots of `S`.
pub struct Record<S> {
    values: Vec<i64>,
    slots: std::marker::PhantomData<S>,
}

impl<S: Slots> Record<S> {
    pub fn new(values: Vec<i64>) -> BridgeResult<Self> {
        if values.len() != S::LEN {
            return Err(BridgeError::InvalidArgument(format!(
                "a {} record has {} slots, not {}",
                S::WHAT,
                S::LEN,
                values.len()
            )));
        }
        Ok(Record {
            values,
            slots: std::marker::PhantomData,
        })
    }

    pub fn get(&self, slot: S) -> i64 {
        self.values[slot.index()]
    }

    pub fn flag(&self, slot: S) -> bool {
        self.get(slot) != 0
    }
}

/// Copies a record into the `long[]` Java passed for it, which must have its length.
pub fn fill(
    env: &mut Env<'_>,
    array: &jni::objects::JLongArray<'_>,
    what: &'static str,
    values: &[i64],
) -> BridgeResult<()> {
    if array.is_null() {
        return Err(BridgeError::Null(what));
    }
    let len = array.len(env)?;
    if len != values.len() {
        return Err(BridgeError::InvalidArgument(format!(
            "the {what} array holds {len} values, not {}",
            values.len()
        )));
    }
    Ok(array.set_region(env, 0, values)?)
}

/// A record going out: `value` gives each slot's value (write it as an exhaustive `match`, so
/// that a new slot cannot be forgotten).
pub fn record_out<S: Slots>(value: impl Fn(S) -> i64) -> Vec<i64> {
    S::ALL.iter().map(|&s| value(s)).collect()
}

/// Codes Java passes for the variants of a Rust enum: each code is defined here once, and the
/// Java constants naming them (`java`) are checked when the class using them registers.
pub struct Codes<T: 'static> {
    /// What the codes select, in errors ("put mode").
    pub what: &'static str,
    pub java: JavaConstants,
    /// The variant of each code of `java`, in the same order.
    pub variants: &'static [T],
}

impl<T: Clone> Codes<T> {
    /// The variant of `code`; an unknown one is refused, naming the parameter and the value.
    pub fn decode(&self, code: i64, name: &str) -> BridgeResult<T> {
        self.java
            .values
            .iter()
            .zip(self.variants)
            .find(|(c, _)| c.value == code)
            .map(|(_, v)| v.clone())
            .ok_or_else(|| BridgeError::InvalidArgument(format!("{name}: unknown {} {code}", self.what)))
    }
}

/// The variant `from_code` finds for `code`, or an error naming the parameter (or field), what
/// the code selects and the value: "mode: unknown put mode code 7". For enums whose codes their
/// own crate defines (the others are declared here with `codes!`).
pub fn decode_code<C: TryFrom<i64>, T>(
    code: i64,
    name: &str,
    what: &str,
    from_code: impl FnOnce(C) -> Option<T>,
) -> BridgeResult<T> {
    C::try_from(code)
        .ok()
        .and_then(from_code)
        .ok_or_else(|| BridgeError::InvalidArgument(format!("{name}: unknown {what} code {code}")))
}

/// Declares the `Codes` of an enum: `JAVA_NAME = code => Variant` for each variant.
macro_rules! codes {
    ($(#[$meta:meta])* $vis:vis const $name:ident: Codes<$ty:ty> = $what:literal in $class:tt { $($java:literal = $code:literal => $variant:expr),* $(,)? }) => {
        $(#[$meta])*
        $vis const $name: Codes<$ty> = Codes {
            what: $what,
            java: JavaConstants { class: $class, values: &[$(JavaConstant::int($java, $code)),*] },
            variants: &[$($variant),*],
        };
    };
}

mod casket;
mod metrics;
mod rockcask;

pub use casket::*;
pub use metrics::*;
pub use rockcask::*;
