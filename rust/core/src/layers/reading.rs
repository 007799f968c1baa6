//! Reading Rust source for the layering test: code without comments and literals, the child
//! modules a file declares (and which are test-only), and the module paths the code names.

use std::collections::BTreeSet;

pub(super) fn code_only(text: &str) -> String {
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

pub(super) fn ident_char(c: Option<char>) -> bool {
    c.is_some_and(|c| c.is_alphanumeric() || c == '_')
}

pub(super) fn text_find(chars: &[char], from: usize, needle: &str) -> Option<usize> {
    let needle: Vec<char> = needle.chars().collect();
    (from..chars.len()).find(|&k| chars[k..].starts_with(&needle))
}

/// `code` with the body of every `#[cfg(test)] mod name { ... }` blanked out.
pub(super) fn without_test_modules(code: &str) -> String {
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
pub(super) fn child_modules(code: &str) -> Vec<(String, bool)> {
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
pub(super) fn tokens(code: &str) -> Vec<(usize, String)> {
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
pub(super) fn paths(code: &str, children: &[String]) -> Vec<(usize, Vec<String>)> {
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
pub(super) fn path_tree(
    tokens: &[(usize, String)],
    mut k: usize,
    mut prefix: Vec<String>,
    out: &mut Vec<Vec<String>>,
) -> usize {
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
pub(super) fn resolve<'m>(module: &str, path: &[String], modules: &BTreeSet<&'m str>) -> Option<&'m str> {
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
