//! Where every native method is declared: one table per Java class, registered with
//! `RegisterNatives` when the class initializes.
//!
//! A table line names the Java method, its parameters with their Rust types and its result; the
//! `native_class!` macro writes the `extern "system"` entry point (panics trapped, errors thrown
//! as Java exceptions, each argument converted by its type's `Arg` impl, which also gives its
//! JNI descriptor) and the descriptor `RegisterNatives` checks against the Java declaration. A
//! declaration that disagrees fails at class initialization, naming the method, instead of at
//! the first call; a Java `native` method missing from the table is reported there too (see
//! `NativeLibrary.register`).

use std::ffi::c_void;

use jni::objects::{JClass, JString};
use jni::strings::JNIString;
use jni::{Env, EnvUnowned, NativeMethod};

use crate::contract::{self, JavaConstants};
use crate::error::{BridgeError, BridgeResult, ThrowMapped};

/// One native method: its Java name, JNI parameter and result descriptors, and entry point.
pub struct NativeFn {
    pub name: &'static str,
    pub params: &'static [&'static str],
    pub ret: &'static str,
    pub entry: *mut c_void,
}

impl NativeFn {
    /// The JNI method descriptor, such as `(J[BI)[B`.
    pub fn descriptor(&self) -> String {
        format!("({}){}", self.params.concat(), self.ret)
    }
}

/// The native methods of one Java class, with the constants that class must agree on.
pub struct NativeClass {
    /// Binary name with slashes, as `FindClass` spells it.
    pub class: &'static str,
    pub methods: &'static [NativeFn],
    /// Constants (in this or another Java class) that the Java side repeats and that must
    /// equal the native ones; checked when the class registers.
    pub constants: &'static [JavaConstants],
}

/// Declares a table of native methods:
///
/// ```ignore
/// native_class! {
///     pub const STORE = "org/rockcask/StoreNative", constants [contract::STORE_LIMITS] {
///         fn storeBegin(store: &StoreHandle) -> NewHandle<TxHandle> = begin;
///     }
/// }
/// ```
///
/// Each function is a plain Rust function `fn(&mut Env, args...) -> BridgeResult<R>`.
macro_rules! native_class {
    ($vis:vis const $table:ident = $class:literal $(, constants [$($constants:expr),* $(,)?])? {
        $( fn $java:ident ( $( $arg:ident : $ty:ty ),* $(,)? ) -> $ret:ty = $imp:path; )*
    }) => {
        $vis const $table: $crate::native_table::NativeClass = $crate::native_table::NativeClass {
            class: $class,
            methods: &[ $( {
                extern "system" fn entry<'local>(
                    mut env: ::jni::EnvUnowned<'local>,
                    _class: ::jni::objects::JClass<'local>,
                    $( $arg: <$ty as $crate::args::Arg>::Raw<'local> ),*
                ) -> <$ret as $crate::args::Ret>::Raw<'local> {
                    env.with_env(|env: &mut ::jni::Env<'local>| -> $crate::error::BridgeResult<_> {
                        $( let $arg = <$ty as $crate::args::Arg>::from_java(env, $arg, stringify!($arg))?; )*
                        let result = $imp(env, $($arg),*)?;
                        <$ret as $crate::args::Ret>::into_java(result, env)
                            .map_err(|e| e.returned_by(concat!($class, ".", stringify!($java))))
                    })
                    .resolve::<$crate::error::ThrowMapped>()
                }
                $crate::native_table::NativeFn {
                    name: stringify!($java),
                    params: &[ $( <$ty as $crate::args::Arg>::DESCRIPTOR ),* ],
                    ret: <$ret as $crate::args::Ret>::DESCRIPTOR,
                    entry: entry as *mut ::std::ffi::c_void,
                }
            } ),* ],
            constants: &[ $( $($constants),* )? ],
        };
    };
}
pub(crate) use native_class;

fn table_for(class: &str) -> Option<&'static NativeClass> {
    crate::TABLES.iter().copied().find(|t| t.class == class)
}

/// Registers the table of `class` (after checking its constants) and returns the names of the
/// registered methods, one per line.
fn register(env: &mut Env<'_>, class: &JClass<'_>) -> BridgeResult<String> {
    let name = class.get_name(env)?.try_to_string(env)?;
    let slashed = name.replace('.', "/");
    let table = table_for(&slashed)
        .ok_or_else(|| BridgeError::InvalidArgument(format!("no native methods are declared for class {name}")))?;
    let loader = class.get_class_loader(env)?;
    for constants in table.constants {
        contract::check(env, &loader, constants)?;
    }
    let names: Vec<(JNIString, JNIString)> = table
        .methods
        .iter()
        .map(|m| (JNIString::from(m.name), JNIString::from(m.descriptor())))
        .collect();
    let methods: Vec<NativeMethod<'_>> = table
        .methods
        .iter()
        .zip(&names)
        // SAFETY: `entry` is the function `native_class!` wrote for exactly this descriptor.
        .map(|(m, (n, d))| unsafe { NativeMethod::from_raw_parts(n, d, m.entry) })
        .collect();
    // SAFETY: as above, every pointer matches its descriptor.
    unsafe { env.register_native_methods(class, &methods) }.map_err(|e| match e {
        jni::errors::Error::NoSuchMethod(detail) => BridgeError::InvalidArgument(format!(
            "{name} does not declare a native method the library has ({detail}); native methods of the library: {}",
            table
                .methods
                .iter()
                .map(|m| format!("{}{}", m.name, m.descriptor()))
                .collect::<Vec<_>>()
                .join(", ")
        )),
        other => other.into(),
    })?;
    Ok(table.methods.iter().map(|m| m.name).collect::<Vec<_>>().join("\n"))
}

/// `NativeLibrary.registerNatives(Class)`: the one entry point besides `nativeVersion` that the
/// JVM finds by its name.
#[unsafe(no_mangle)]
pub extern "system" fn Java_org_rockcask_internal_NativeLibrary_registerNatives<'local>(
    mut env: EnvUnowned<'local>,
    _class: JClass<'local>,
    target: JClass<'local>,
) -> JString<'local> {
    env.with_env(|env: &mut Env<'local>| -> BridgeResult<JString<'local>> {
        if target.is_null() {
            return Err(BridgeError::Null("class"));
        }
        let names = register(env, &target)?;
        Ok(JString::from_str(env, names)?)
    })
    .resolve::<ThrowMapped>()
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

#[cfg(test)]
mod tests {
    use std::collections::HashSet;

    use crate::TABLES;

    #[test]
    fn every_table_has_one_class_and_unique_method_names_with_well_formed_descriptors() {
        let mut classes = HashSet::new();
        for table in TABLES {
            assert!(classes.insert(table.class), "{} has two tables", table.class);
            assert!(
                !table.class.contains('.'),
                "{} must be spelled with slashes",
                table.class
            );
            let mut names = HashSet::new();
            for m in table.methods {
                assert!(names.insert(m.name), "{}.{} is declared twice", table.class, m.name);
                let d = m.descriptor();
                assert!(
                    d.starts_with('(') && !d.ends_with(')'),
                    "{}.{}: {d}",
                    table.class,
                    m.name
                );
                for p in m.params {
                    assert_ne!(*p, "V", "{}.{} has a void parameter", table.class, m.name);
                }
            }
        }
    }

    /// The value of `static final int|long NAME = <expr>;` in a Java source: a literal,
    /// `Integer.MAX_VALUE`, `a << b`, `a - b`, or another constant of the same file.
    fn java_constant(source: &str, name: &str) -> Option<i64> {
        // Interface fields are static final without saying so.
        let declares = |l: &str| {
            l.contains("static final") || l.trim_start().starts_with("int ") || l.trim_start().starts_with("long ")
        };
        let line = source
            .lines()
            .find(|l| declares(l) && l.contains(&format!(" {name} = ")))?;
        let expr = line.split_once(" = ")?.1.trim().trim_end_matches(';').trim();
        let term = |t: &str| -> Option<i64> {
            let t = t.trim().trim_end_matches('L');
            match t {
                "Integer.MAX_VALUE" => Some(i64::from(i32::MAX)),
                // A literal may group its digits with underscores (10_000).
                _ => t
                    .replace('_', "")
                    .parse::<i64>()
                    .ok()
                    .or_else(|| java_constant(source, t.rsplit('.').next()?)),
            }
        };
        if let Some((base, shift)) = expr.split_once("<<") {
            return Some(term(base)? << term(shift)?);
        }
        if let Some((a, b)) = expr.split_once(" - ") {
            return Some(term(a)? - term(b)?);
        }
        term(expr)
    }

    /// The path and text of the Java source of `class` (slashed), in the jar that has it.
    fn java_source(class: &str) -> (String, String) {
        let root = concat!(env!("CARGO_MANIFEST_DIR"), "/../../java");
        let file = ["rockcask", "tokyocabinet"]
            .iter()
            .map(|module| format!("{root}/{module}/src/main/java/{class}.java"))
            .find(|f| std::path::Path::new(f).exists())
            .unwrap_or_else(|| panic!("no Java source for {class}"));
        let source = std::fs::read_to_string(&file).unwrap();
        (file, source)
    }

    /// What the library checks at registration, checked here against the Java sources too, so
    /// that a drift shows in the Rust tests, before any JVM runs.
    #[test]
    fn the_java_sides_limits_are_the_native_ones() {
        let mut checked = 0;
        for table in TABLES {
            for group in table.constants {
                let (file, source) = java_source(group.class);
                for c in group.values {
                    let java = java_constant(&source, c.name)
                        .unwrap_or_else(|| panic!("{file} declares no readable constant {}", c.name));
                    assert_eq!(
                        java, c.value,
                        "{}.{} differs between Java and the native library",
                        group.class, c.name
                    );
                    checked += 1;
                }
            }
        }
        assert!(checked > 100, "only {checked} constants checked");
    }

    /// A native method takes handles it trusts (see `args`'s "Handles"): the classes declaring
    /// them are package-private, beside their only callers, and so are the methods.
    #[test]
    fn every_native_class_and_method_is_package_private_and_declares_the_tables_methods() {
        for table in TABLES {
            let (file, source) = java_source(table.class);
            let simple = table.class.rsplit('/').next().unwrap();
            let declaration = source
                .lines()
                .find(|l| l.contains(&format!("class {simple} ")))
                .unwrap_or_else(|| panic!("{file} declares no class {simple}"));
            assert!(
                !declaration.contains("public"),
                "{file}: {simple} must be package-private: {declaration}"
            );
            let declares_native = |l: &&str| {
                let l = l.trim_start();
                !l.starts_with('*') && !l.starts_with('/') && l.contains(" native ")
            };
            let natives: Vec<&str> = source.lines().filter(declares_native).collect();
            for line in &natives {
                assert!(
                    !line.trim_start().starts_with("public") && !line.contains("protected"),
                    "{file}: a native method must be package-private: {line}"
                );
            }
            for m in table.methods {
                assert!(
                    natives.iter().any(|l| l.contains(&format!(" {}(", m.name))),
                    "{file} declares no native {}",
                    m.name
                );
            }
        }
    }
}
