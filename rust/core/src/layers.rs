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
        &["batch", "commit::lock", "entry_cache", "queue_config", "store::tuning"],
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
fn code_only(text: &str) -> String {
    let chars: Vec<char> = text.chars().collect();
    let mut out = String::with_capacity(text.len());
    let blank = |out: &mut String, c: char| out.push(if c == '\n' { '\n' } else { ' ' });
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        let next = chars.get(i + 1).copied();
        if c == '/' && next == Some('/') {
            while i < chars.len() && chars[i] != '\n' {
                blank(&mut out, chars[i]);
                i += 1;
            }
        } else if c == '/' && next == Some('*') {
            let mut depth = 0;
            loop {
                if chars[i] == '/' && chars.get(i + 1) == Some(&'*') {
                    depth += 1;
                    out.push_str("  ");
                    i += 2;
                } else if chars[i] == '*' && chars.get(i + 1) == Some(&'/') {
                    depth -= 1;
                    out.push_str("  ");
                    i += 2;
                    if depth == 0 {
                        break;
                    }
                } else {
                    blank(&mut out, chars[i]);
                    i += 1;
                }
            }
        } else if c == 'r' && matches!(next, Some('"' | '#')) && !ident_char(chars.get(i.wrapping_sub(1)).copied()) {
            // A raw string: r"...", r#"..."#.
            let mut j = i + 1;
            while chars.get(j) == Some(&'#') {
                j += 1;
            }
            if chars.get(j) != Some(&'"') {
                out.push(c);
                i += 1;
                continue;
            }
            let hashes = j - i - 1;
            let end: String = std::iter::once('"').chain(std::iter::repeat_n('#', hashes)).collect();
            let body_end = text_find(&chars, j + 1, &end).expect("a raw string ends");
            for &ch in &chars[i..body_end + end.chars().count()] {
                blank(&mut out, ch);
            }
            i = body_end + end.chars().count();
        } else if c == '"' {
            blank(&mut out, c);
            i += 1;
            while i < chars.len() && chars[i] != '"' {
                if chars[i] == '\\' {
                    blank(&mut out, chars[i]);
                    i += 1;
                }
                blank(&mut out, chars[i]);
                i += 1;
            }
            blank(&mut out, '"');
            i += 1;
        } else if c == '\'' {
            // A character literal ('x', '\n', '\''), or a lifetime ('a), which is kept.
            let literal_end = if next == Some('\\') {
                (i + 2..chars.len()).find(|&k| chars[k] == '\'' && k > i + 2)
            } else if chars.get(i + 2) == Some(&'\'') {
                Some(i + 2)
            } else {
                None
            };
            match literal_end {
                Some(end) => {
                    for &ch in &chars[i..=end] {
                        blank(&mut out, ch);
                    }
                    i = end + 1;
                }
                None => {
                    out.push(c);
                    i += 1;
                }
            }
        } else {
            out.push(c);
            i += 1;
        }
    }
    without_test_modules(&out)
}

fn ident_char(c: Option<char>) -> bool {
    c.is_some_and(|c| c.is_alphanumeric() || c == '_')
}

fn text_find(chars: &[char], from: usize, needle: &str) -> Option<usize> {
    let needle: Vec<char> = needle.chars().collect();
    (from..chars.len()).find(|&k| chars[k..].starts_with(&needle))
}

/// `code` with the body of every `#[cfg(test)] mod name { ... }` blanked out.
fn without_test_modules(code: &str) -> String {
    let mut chars: Vec<char> = code.chars().collect();
    let mut from = 0;
    while let Some(at) = text_find(&chars, from, "#[cfg(test)]") {
        from = at + 1;
        let rest: String = chars[at + "#[cfg(test)]".len()..].iter().take(200).collect();
        let words: Vec<&str> = rest.split_whitespace().take(4).collect();
        let is_inline_module = match words.as_slice() {
            ["mod", _name, "{", ..] => true,
            [vis, "mod", _name, "{", ..] if vis.starts_with("pub") => true,
            _ => false,
        };
        if !is_inline_module {
            continue;
        }
        let open = (at..chars.len()).find(|&k| chars[k] == '{').expect("a module body");
        let mut depth = 0;
        let mut k = open;
        loop {
            match chars[k] {
                '{' => depth += 1,
                '}' => depth -= 1,
                _ => {}
            }
            if chars[k] != '\n' {
                chars[k] = ' ';
            }
            if depth == 0 {
                break;
            }
            k += 1;
        }
        for c in &mut chars[at..open] {
            if *c != '\n' {
                *c = ' ';
            }
        }
    }
    chars.into_iter().collect()
}

/// The child modules `code` declares in files (`mod name;`), each with whether it is test code.
fn child_modules(code: &str) -> Vec<(String, bool)> {
    let tokens = tokens(code);
    let mut out = Vec::new();
    for (k, (_, t)) in tokens.iter().enumerate() {
        if t != "mod" {
            continue;
        }
        let (Some((_, name)), Some((_, end))) = (tokens.get(k + 1), tokens.get(k + 2)) else {
            continue;
        };
        if end != ";" {
            continue;
        }
        // Before `mod`: an optional visibility, and before that the attributes.
        let mut b = k;
        if b > 0 && tokens[b - 1].1 == ")" {
            while b > 0 && tokens[b - 1].1 != "pub" {
                b -= 1;
            }
        }
        if b > 0 && tokens[b - 1].1 == "pub" {
            b -= 1;
        }
        let attributes: String = tokens[b.saturating_sub(7)..b].iter().map(|(_, t)| t.as_str()).collect();
        out.push((name.clone(), attributes.ends_with("#[cfg(test)]")));
    }
    out
}

/// The code's tokens with their line numbers: identifiers, `::`, and single characters.
fn tokens(code: &str) -> Vec<(usize, String)> {
    let chars: Vec<char> = code.chars().collect();
    let mut out = Vec::new();
    let mut line = 1;
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        if c == '\n' {
            line += 1;
            i += 1;
        } else if c.is_whitespace() {
            i += 1;
        } else if c.is_alphanumeric() || c == '_' {
            let start = i;
            while i < chars.len() && (chars[i].is_alphanumeric() || chars[i] == '_') {
                i += 1;
            }
            out.push((line, chars[start..i].iter().collect()));
        } else if c == ':' && chars.get(i + 1) == Some(&':') {
            out.push((line, "::".to_string()));
            i += 2;
        } else {
            out.push((line, c.to_string()));
            i += 1;
        }
    }
    out
}

/// Every path in `code` that starts with `crate`, `super`, `self` or a child module's name, as
/// its segments (a `use` group expanded into one path per member), with its line. A `pub(in
/// path)` visibility is no reference.
fn paths(code: &str, children: &[String]) -> Vec<(usize, Vec<String>)> {
    let tokens = tokens(code);
    let mut out = Vec::new();
    let mut k = 0;
    while k < tokens.len() {
        let (line, t) = &tokens[k];
        let starts = ["crate", "super", "self"].contains(&t.as_str()) || children.contains(t);
        let after_separator = k > 0 && (tokens[k - 1].1 == "::" || tokens[k - 1].1 == ".");
        let in_visibility = k >= 2 && tokens[k - 1].1 == "in" && tokens[k - 2].1 == "(";
        if starts && !after_separator && !in_visibility && tokens.get(k + 1).is_some_and(|(_, n)| n == "::") {
            let mut found = Vec::new();
            k = path_tree(&tokens, k, Vec::new(), &mut found);
            out.extend(found.into_iter().map(|p| (*line, p)));
        } else {
            k += 1;
        }
    }
    out
}

/// Reads the path (or `use` tree) starting at token `k`, below `prefix`; pushes each full path
/// to `out` and returns the index after it.
fn path_tree(tokens: &[(usize, String)], mut k: usize, mut prefix: Vec<String>, out: &mut Vec<Vec<String>>) -> usize {
    loop {
        match tokens.get(k).map(|(_, t)| t.as_str()) {
            Some("{") => {
                k += 1;
                loop {
                    match tokens.get(k).map(|(_, t)| t.as_str()) {
                        Some("}") => return k + 1,
                        Some(",") => k += 1,
                        Some(_) => k = path_tree(tokens, k, prefix.clone(), out),
                        None => return k,
                    }
                }
            }
            Some("*") => {
                out.push(prefix);
                return k + 1;
            }
            Some(t) if t.chars().all(|c| c.is_alphanumeric() || c == '_') => {
                // `self` in a group names the group's own path.
                if t != "self" || prefix.is_empty() {
                    prefix.push(t.to_string());
                }
                k += 1;
                if tokens.get(k).is_some_and(|(_, n)| n == "::") {
                    k += 1;
                    continue;
                }
                out.push(prefix);
                // `path as name`
                if tokens.get(k).is_some_and(|(_, n)| n == "as") {
                    k += 2;
                }
                return k;
            }
            _ => {
                out.push(prefix);
                return k;
            }
        }
    }
}

/// The module a path from `module` lands in: the longest module that is a prefix of the path
/// made absolute; `None` for a path outside the crate.
fn resolve<'m>(module: &str, path: &[String], modules: &BTreeSet<&'m str>) -> Option<&'m str> {
    let mut absolute: Vec<&str> = if module.is_empty() {
        Vec::new()
    } else {
        module.split("::").collect()
    };
    let mut rest = path;
    match path.first().map(String::as_str) {
        Some("crate") => {
            absolute.clear();
            rest = &path[1..];
        }
        Some("super") | Some("self") => {
            while let Some(first) = rest.first().map(String::as_str) {
                match first {
                    "super" => {
                        absolute.pop()?;
                    }
                    "self" => {}
                    _ => break,
                }
                rest = &rest[1..];
            }
        }
        Some(_) => {}
        None => return None,
    }
    absolute.extend(rest.iter().map(String::as_str));
    (0..=absolute.len())
        .rev()
        .map(|n| absolute[..n].join("::"))
        .find_map(|m| modules.get(m.as_str()).copied())
}

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
