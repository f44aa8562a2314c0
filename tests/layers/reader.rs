//! Reading Rust source as text for the layer checks: comments, strings and test-only
//! items blanked out, `use` trees expanded, and every path a file names found.

use std::collections::BTreeSet;

/// Blanks comments, string and char literals (keeping newlines, so lines still count).
pub fn strip(text: &str) -> String {
    let b = text.as_bytes();
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        let after_ident = i > 0 && (b[i - 1].is_ascii_alphanumeric() || b[i - 1] == b'_');
        let end = if b[i..].starts_with(b"//") {
            b[i..].iter().position(|&c| c == b'\n').map_or(b.len(), |p| p + i)
        } else if b[i..].starts_with(b"/*") {
            block_comment_end(b, i)
        } else if b[i] == b'r' && !after_ident && matches!(b.get(i + 1), Some(b'"' | b'#')) {
            raw_string_end(b, i).unwrap_or(i + 1)
        } else if b[i] == b'"' {
            string_end(b, i)
        } else if b[i] == b'\'' {
            char_end(b, i).unwrap_or(i + 1)
        } else {
            out.push(b[i]);
            i += 1;
            continue;
        };
        if end == i + 1 && !matches!(b[i], b'"') {
            // Not a literal after all (`r` of an identifier, a lifetime's quote).
            out.push(b[i]);
        } else {
            out.extend(b[i..end].iter().map(|&c| if c == b'\n' { b'\n' } else { b' ' }));
        }
        i = end;
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// The byte past the (possibly nested) block comment that starts at `i`.
fn block_comment_end(b: &[u8], mut i: usize) -> usize {
    let mut depth = 0;
    while i < b.len() {
        if b[i..].starts_with(b"/*") {
            depth += 1;
            i += 2;
        } else if b[i..].starts_with(b"*/") {
            depth -= 1;
            i += 2;
            if depth == 0 {
                return i;
            }
        } else {
            i += 1;
        }
    }
    b.len()
}

/// The byte past the raw string (`r"…"`, `r#"…"#`) that starts at `i`, if it is one.
fn raw_string_end(b: &[u8], i: usize) -> Option<usize> {
    let mut j = i + 1;
    while b.get(j) == Some(&b'#') {
        j += 1;
    }
    if b.get(j) != Some(&b'"') {
        return None;
    }
    let mut close = vec![b'"'];
    close.extend(std::iter::repeat_n(b'#', j - i - 1));
    let end = b[j + 1..].windows(close.len()).position(|w| w == close.as_slice())? + j + 1;
    Some(end + close.len())
}

/// The byte past the string literal (with escapes) that starts at `i`.
fn string_end(b: &[u8], mut i: usize) -> usize {
    i += 1;
    while i < b.len() && b[i] != b'"' {
        i += if b[i] == b'\\' { 2 } else { 1 };
    }
    (i + 1).min(b.len())
}

/// The byte past the char literal (`'x'`, `'\n'`, `'\u{..}'`, a multi-byte char) that
/// starts at `i`; `None` for a lifetime's quote.
fn char_end(b: &[u8], i: usize) -> Option<usize> {
    let close = if b.get(i + 1) == Some(&b'\\') {
        b[i + 2..].iter().position(|&c| c == b'\'').map(|p| p + i + 2)
    } else if b.get(i + 2) == Some(&b'\'') {
        Some(i + 2)
    } else {
        (i + 2..(i + 6).min(b.len())).find(|&j| b[j] == b'\'' && b[i + 1] >= 0x80)
    };
    close.map(|c| c + 1)
}

/// The byte just past the item that starts at or after `from` (a `;` at depth 0, or the
/// brace block that closes it).
pub fn item_end(code: &[u8], from: usize) -> usize {
    let mut depth = 0i32;
    let mut i = from;
    while i < code.len() {
        match code[i] {
            b'{' => depth += 1,
            b'}' => {
                depth -= 1;
                if depth == 0 {
                    return i + 1;
                }
            }
            b';' if depth == 0 => return i + 1,
            _ => {}
        }
        i += 1;
    }
    code.len()
}

/// Blanks every item under a `#[cfg(...)]` that names `test` (not `not(test)`), and
/// returns the names of the test-only module files it declares (`mod loom_tests;`).
pub fn drop_test_items(code: &str) -> (String, Vec<String>) {
    let mut b = code.as_bytes().to_vec();
    let mut test_mods = Vec::new();
    let mut at = 0;
    while let Some(pos) = code[at..].find("#[cfg(").map(|p| p + at) {
        let close = code[pos..].find(")]").map(|p| p + pos + 2).unwrap();
        let cond = &code[pos..close];
        at = close;
        let names_test = cond.split(|c: char| !c.is_alphanumeric() && c != '_').any(|w| w == "test");
        if !names_test || cond.contains("not(test") {
            continue;
        }
        let end = item_end(&b, close);
        let item = code[close..end].trim();
        if let Some(rest) = item.strip_prefix("mod ").or_else(|| item.strip_prefix("pub mod ")) {
            if rest.ends_with(';') {
                test_mods.push(rest.trim_end_matches(';').trim().to_string());
            }
        }
        for c in &mut b[pos..end] {
            if *c != b'\n' {
                *c = b' ';
            }
        }
    }
    (String::from_utf8(b).unwrap(), test_mods)
}

pub fn is_ident(c: char) -> bool {
    c.is_alphanumeric() || c == '_'
}

/// Expands a use tree (`a::{b, c::{d, e}}`) into its paths.
pub fn expand_use(tree: &str) -> Vec<Vec<String>> {
    let tree: String = tree.chars().filter(|c| !c.is_whitespace()).collect();
    let mut out = Vec::new();
    expand_into(&tree, &[], &mut out);
    out
}

pub fn expand_into(tree: &str, prefix: &[String], out: &mut Vec<Vec<String>>) {
    if let Some(open) = tree.find('{') {
        let head = &tree[..open];
        let inner = &tree[open + 1..tree.len() - 1];
        let mut p = prefix.to_vec();
        p.extend(head.split("::").filter(|s| !s.is_empty()).map(str::to_string));
        let mut depth = 0;
        let mut start = 0;
        for (i, c) in inner.char_indices() {
            match c {
                '{' => depth += 1,
                '}' => depth -= 1,
                ',' if depth == 0 => {
                    expand_into(&inner[start..i], &p, out);
                    start = i + 1;
                }
                _ => {}
            }
        }
        if start < inner.len() {
            expand_into(&inner[start..], &p, out);
        }
    } else if !tree.is_empty() {
        let mut p = prefix.to_vec();
        p.extend(tree.split("::").filter(|s| !s.is_empty()).map(str::to_string));
        out.push(p);
    }
}

/// A path found in a file: its segments as written and the line it starts on.
pub struct Found {
    pub segments: Vec<String>,
    pub line: usize,
    /// The name it brings into scope, for a `use` (its last segment or its `as` name).
    pub binds: Option<String>,
    /// Whether it is a `pub use` (or `pub(crate) use`): a re-export.
    pub reexport: bool,
}

pub fn line_of(code: &str, pos: usize) -> usize {
    code[..pos].bytes().filter(|&c| c == b'\n').count() + 1
}

/// Every `use` path and every `crate::`/`super::`/`self::` path in `code`, plus paths
/// starting with a name in `children` (the file's child modules).
pub fn paths_in(code: &str, children: &BTreeSet<String>) -> Vec<Found> {
    let mut found = Vec::new();
    let bytes = code.as_bytes();
    let mut in_use = vec![false; bytes.len()];
    // `use` declarations, whole.
    let mut at = 0;
    while let Some(pos) = code[at..].find("use ").map(|p| p + at) {
        at = pos + 4;
        if pos > 0 && is_ident(bytes[pos - 1] as char) {
            continue;
        }
        let end = code[pos..].find(';').map(|p| p + pos).unwrap();
        let tree = &code[pos + 4..end];
        if tree.contains('(') || tree.contains('=') {
            continue;
        }
        for c in &mut in_use[pos..end] {
            *c = true;
        }
        let line = line_of(code, pos);
        let before = code[..pos].trim_end();
        let reexport = before.ends_with("pub")
            || (before.ends_with(')') && before.rfind("pub(").is_some_and(|p| !before[p..].contains('\n')));
        // `as` renames: `a::b as c` binds c.
        for segments in expand_use(&tree.replace(" as ", "@")) {
            let mut segments = segments;
            let last = segments.pop().unwrap();
            let (name, binds) = match last.split_once('@') {
                Some((name, alias)) => (name.to_string(), alias.to_string()),
                None => (last.clone(), last.clone()),
            };
            segments.push(name);
            found.push(Found { segments, line, binds: Some(binds), reexport });
        }
        at = end;
    }
    // Paths in code.
    let mut i = 0;
    while i < bytes.len() {
        let c = bytes[i] as char;
        if is_ident(c) && (i == 0 || !(is_ident(bytes[i - 1] as char) || bytes[i - 1] == b':')) && !in_use[i] {
            let mut j = i;
            let mut segments = Vec::new();
            loop {
                let s = j;
                while j < bytes.len() && is_ident(bytes[j] as char) {
                    j += 1;
                }
                segments.push(code[s..j].to_string());
                if code[j..].starts_with("::") && bytes.get(j + 2).is_some_and(|&c| is_ident(c as char)) {
                    j += 2;
                } else {
                    break;
                }
            }
            let first = segments[0].as_str();
            let visibility = code[..i].trim_end().ends_with("(in");
            if segments.len() > 1
                && !visibility
                && (matches!(first, "crate" | "super" | "self") || children.contains(first))
            {
                found.push(Found { segments, line: line_of(code, i), binds: None, reexport: false });
            }
            i = j.max(i + 1);
        } else {
            i += 1;
        }
    }
    found
}

pub fn defines(code: &str, name: &str) -> bool {
    const KINDS: &[&str] = &["fn", "struct", "enum", "trait", "type", "const", "static", "union", "mod"];
    let words: Vec<&str> = code.split(|c: char| !is_ident(c) && c != '!').filter(|w| !w.is_empty()).collect();
    words.windows(2).any(|w| (KINDS.contains(&w[0]) || w[0] == "macro_rules!") && w[1] == name)
}
