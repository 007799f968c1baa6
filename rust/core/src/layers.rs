//! The floor plan of the crate, declared once: `LAYERS` lists its modules in layers, bottom
//! first, and the test below reads every file under `src/` and fails when a module refers to
//! one in its own layer or a higher one, naming the file, the line and both modules, or when a
//! module is in no layer. So every arrow between the modules listed points down, and there is
//! no ring. docs/INTERNALS.md ("How the code is laid out") is written from this list.
//!
//! What counts as a reference: every path in the code (`use` lines, their `{...}` groups
//! expanded, and paths inline) that starts with `crate::`, `super::`, `self::` or the name of a
//! child module. An entry names a module and everything below it (a folder such as `casket/` is
//! one entry: its files refer to each other freely), except what a longer entry names
//! (`store::tuning` is a layer below `store`). Test code (`#[cfg(test)]` modules) is not read:
//! tests drive the crate from the top.

/// The layers, bottom first: each one's name, and the modules (entries) in it.
const LAYERS: &[(&str, &[&str])] = &[
    (
        "foundations",
        &[
            "commit::rhythm",
            "error",
            "hash",
            "manifest_record",
            "metrics",
            "read_cache",
            "wal_files",
        ],
    ),
    ("layouts and limits", &["deliveries", "keys", "lock", "maps", "options"]),
    (
        "batches, settings, tuning and the commit lock",
        &[
            "batch",
            "commit::key_locks",
            "commit::key_writes",
            "commit::lock",
            "entry_cache",
            "queue_config",
            "store::tuning",
        ],
    ),
    (
        "registries, the group commit and the drop-in",
        &["casket", "commit::group", "registry"],
    ),
    ("the queues in memory", &["queue"]),
    ("the state an open store shares", &["shared"]),
    (
        "reads of entries, map values and objects",
        &["entry_records", "map_reads", "object_reads"],
    ),
    ("commits and dead-letter records", &["commit", "dead_letter"]),
    ("transactions", &["transaction"]),
    ("the store", &["store"]),
    ("snapshots", &["snapshot"]),
    ("the crate root", &["crate"]),
];

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

mod reading;

use reading::{child_modules, code_only, paths, resolve};

/// One `.rs` file of the crate: its module path (`""` for the root), and its code with
/// comments, string and character literals blanked out (lines keep their numbers).
struct Source {
    module: String,
    file: PathBuf,
    code: String,
}

#[test]
fn every_module_refers_only_to_modules_in_lower_layers() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut sources = Vec::new();
    read_sources(&src, &src, &mut sources);
    let mut test_only = BTreeSet::new();
    for s in &sources {
        for (child, is_test) in child_modules(&s.code) {
            if is_test {
                test_only.insert(join(&s.module, &child));
            }
        }
    }
    let in_tests = |module: &str| {
        test_only
            .iter()
            .any(|t| module == t || module.starts_with(&format!("{t}::")))
    };
    let sources: Vec<Source> = sources.into_iter().filter(|s| !in_tests(&s.module)).collect();
    let modules: BTreeSet<&str> = sources.iter().map(|s| s.module.as_str()).collect();

    let mut layer_of: BTreeMap<&str, usize> = BTreeMap::new();
    let mut failures = Vec::new();
    for (layer, (_, entries)) in LAYERS.iter().enumerate() {
        for &entry in *entries {
            if layer_of.insert(entry, layer).is_some() {
                failures.push(format!("LAYERS lists '{entry}' twice"));
            }
            if !modules.contains(module_named(entry)) {
                failures.push(format!("LAYERS lists '{entry}', which is no module of the crate"));
            }
        }
    }
    // The longest entry naming `module` or a module above it; `crate` when no other does.
    let entry_of = |module: &str| -> Option<&str> {
        let names = |e: &str| e == "crate" || module == e || module.starts_with(&format!("{e}::"));
        layer_of
            .keys()
            .copied()
            .filter(|e| names(e))
            .max_by_key(|e| if *e == "crate" { 0 } else { e.len() + 1 })
    };
    for s in &sources {
        let file = s.file.strip_prefix(&src).unwrap_or(&s.file).display().to_string();
        let Some(own) = entry_of(&s.module).filter(|&e| e != "crate" || s.module.is_empty()) else {
            failures.push(format!("{file}: module '{}' is in no layer of LAYERS", s.module));
            continue;
        };
        let children: Vec<String> = child_modules(&s.code).into_iter().map(|(name, _)| name).collect();
        for (line, path) in paths(&s.code, &children) {
            let Some(target) = resolve(&s.module, &path, &modules) else {
                continue;
            };
            let target_entry = entry_of(target).expect("every module has an entry, `crate` at least");
            if target_entry == own {
                continue;
            }
            let (from, to) = (layer_of[own], layer_of[target_entry]);
            if to >= from {
                let how = if to == from {
                    "in its own layer"
                } else {
                    "in a higher layer"
                };
                failures.push(format!(
                    "{file}:{line}: {} ('{own}', layer {} {:?}) refers to {} ('{target_entry}', {how}, {} {:?}) \
                     through `{}`",
                    show(&s.module),
                    from + 1,
                    LAYERS[from].0,
                    show(target),
                    to + 1,
                    LAYERS[to].0,
                    path.join("::"),
                ));
            }
        }
    }
    assert!(
        failures.is_empty(),
        "the layering in src/layers.rs is broken:\n{}",
        failures.join("\n")
    );
}

/// The module an entry names (`crate` is the root, `""`).
fn module_named(entry: &str) -> &str {
    if entry == "crate" {
        ""
    } else {
        entry
    }
}

fn show(module: &str) -> &str {
    if module.is_empty() {
        "the crate root"
    } else {
        module
    }
}

fn join(parent: &str, child: &str) -> String {
    if parent.is_empty() {
        child.to_string()
    } else {
        format!("{parent}::{child}")
    }
}

fn read_sources(src: &Path, dir: &Path, out: &mut Vec<Source>) {
    let mut entries: Vec<PathBuf> = std::fs::read_dir(dir).unwrap().map(|e| e.unwrap().path()).collect();
    entries.sort();
    for path in entries {
        if path.is_dir() {
            read_sources(src, &path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            let rel = path.strip_prefix(src).unwrap().with_extension("");
            let mut parts: Vec<String> = rel.iter().map(|p| p.to_string_lossy().into_owned()).collect();
            if parts.last().is_some_and(|p| p == "mod" || p == "lib") {
                parts.pop();
            }
            let code = code_only(&std::fs::read_to_string(&path).unwrap());
            out.push(Source {
                module: parts.join("::"),
                file: path,
                code,
            });
        }
    }
}

/// `text` with comments and string and character literals replaced by spaces (newlines kept),
/// and the bodies of `#[cfg(test)]` modules too.
#[test]
fn paths_are_read_as_the_layering_test_needs() {
    let code = code_only(
        "use crate::{a::{self, B}, c::D as E};\n\
         pub(in crate::x) fn f() { let s = \"crate::y::Z\"; // crate::w\n\
         super::v::g(); files::h(); x.crate_like::i(); }\n\
         #[cfg(test)]\nmod tests {\n use crate::t::U;\n}\n",
    );
    let found: Vec<(usize, String)> = paths(&code, &["files".to_string()])
        .into_iter()
        .map(|(l, p)| (l, p.join("::")))
        .collect();
    let expected = [
        (1, "crate::a"),
        (1, "crate::a::B"),
        (1, "crate::c::D"),
        (3, "super::v::g"),
        (3, "files::h"),
    ];
    assert_eq!(
        found,
        expected.iter().map(|(l, p)| (*l, p.to_string())).collect::<Vec<_>>()
    );
    let modules: BTreeSet<&str> = ["", "a", "store", "store::tuning"].into_iter().collect();
    let path = |p: &str| p.split("::").map(str::to_string).collect::<Vec<_>>();
    assert_eq!(resolve("store::open", &path("super::Store"), &modules), Some("store"));
    assert_eq!(
        resolve("store", &path("tuning::cf_options"), &modules),
        Some("store::tuning")
    );
    assert_eq!(resolve("x", &path("crate::Error"), &modules), Some(""));
    let declared = child_modules("#[cfg(test)]\nmod tests;\npub(crate) mod a;\nmod b;");
    assert_eq!(
        declared,
        vec![("tests".into(), true), ("a".into(), false), ("b".into(), false)]
    );
}
