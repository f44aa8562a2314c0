//! The layers of the crate, enforced: every module under `src/` may import only from its
//! own layer or the layers below it, and no files and no top-level modules import each
//! other in a circle (docs/ARCHITECTURE.md, "Layers").
//!
//! The check reads the source as text: the `use` declarations and every `crate::`,
//! `super::` and child-module path in code (comments, strings and `#[cfg(test)]` items
//! left out: tests may reach across layers). A path is resolved to the file that defines
//! the item it names, following `use` re-exports, so that `super::Mode` counts as an
//! import of the file that declares `Mode`, not of the parent that re-exports it. A file
//! may use the modules that contain it: a folder's `mod.rs` and its files are one room.

use std::collections::{BTreeMap, BTreeSet};
use std::fs;
use std::path::{Path, PathBuf};

/// The layers, lowest first: a module may import from its own layer and those below.
/// The crate root (`lib.rs`) re-exports from all of them; the binary (`src/bin/`) is the
/// front end above them all and imports through the library's public paths.
const LAYERS: &[(&str, &[&str])] = &[
    ("atomics shim", &["sync"]),
    ("games and their capability traits", &["games"]),
    ("knowledge and baselines", &["weights", "evaluator", "solver", "alphabeta", "expectimax"]),
    ("tree", &["tree"]),
    ("policy", &["policy"]),
    ("search and its drivers", &["search"]),
    (
        "harness",
        &[
            "pool",
            "players",
            "cluster",
            "matches",
            "training",
            "benchmark",
            "report",
            "model",
            "scale",
            "review",
            "quality",
        ],
    ),
    ("front ends", &["gtp"]),
];

/// One source file, with its code with comments, strings and test-only items blanked
/// out (line numbers kept); keyed by its module path (`["search", "iteration"]`).
struct Source {
    path: PathBuf,
    code: String,
}

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let mut entries: Vec<_> = fs::read_dir(dir).unwrap().map(|e| e.unwrap().path()).collect();
    entries.sort();
    for path in entries {
        if path.is_dir() {
            if !path.ends_with("bin") {
                rust_files(&path, out);
            }
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

fn module_of(src: &Path, file: &Path) -> Vec<String> {
    let rel = file.strip_prefix(src).unwrap();
    let mut parts: Vec<String> = rel.iter().map(|p| p.to_string_lossy().into_owned()).collect();
    let last = parts.pop().unwrap();
    let stem = last.trim_end_matches(".rs");
    if stem != "mod" && stem != "lib" {
        parts.push(stem.to_string());
    }
    parts
}

/// Blanks comments, string and char literals (keeping newlines, so lines still count).
fn strip(text: &str) -> String {
    let b = text.as_bytes();
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    let blank = |c: u8| if c == b'\n' { b'\n' } else { b' ' };
    while i < b.len() {
        if b[i..].starts_with(b"//") {
            while i < b.len() && b[i] != b'\n' {
                out.push(b' ');
                i += 1;
            }
        } else if b[i..].starts_with(b"/*") {
            let mut depth = 0;
            while i < b.len() {
                if b[i..].starts_with(b"/*") {
                    depth += 1;
                    out.extend_from_slice(b"  ");
                    i += 2;
                } else if b[i..].starts_with(b"*/") {
                    depth -= 1;
                    out.extend_from_slice(b"  ");
                    i += 2;
                    if depth == 0 {
                        break;
                    }
                } else {
                    out.push(blank(b[i]));
                    i += 1;
                }
            }
        } else if b[i] == b'"' || (b[i] == b'r' && (b.get(i + 1) == Some(&b'"') || b.get(i + 1) == Some(&b'#'))) {
            // Raw strings: r"..." and r#"..."#; plain strings with escapes.
            if b[i] == b'r' && (i == 0 || !(b[i - 1].is_ascii_alphanumeric() || b[i - 1] == b'_')) {
                let mut j = i + 1;
                let mut hashes = 0;
                while b.get(j) == Some(&b'#') {
                    hashes += 1;
                    j += 1;
                }
                if b.get(j) == Some(&b'"') {
                    let mut close = vec![b'"'];
                    close.extend(std::iter::repeat_n(b'#', hashes));
                    let end = b[j + 1..].windows(close.len()).position(|w| w == close.as_slice()).unwrap() + j + 1;
                    for &c in &b[i..end + close.len()] {
                        out.push(blank(c));
                    }
                    i = end + close.len();
                    continue;
                }
                out.push(b[i]);
                i += 1;
                continue;
            } else if b[i] == b'r' {
                out.push(b[i]);
                i += 1;
                continue;
            }
            out.push(b' ');
            i += 1;
            while i < b.len() && b[i] != b'"' {
                let n = if b[i] == b'\\' { 2 } else { 1 };
                for k in 0..n {
                    if let Some(&c) = b.get(i + k) {
                        out.push(blank(c));
                    }
                }
                i += n;
            }
            out.push(b' ');
            i += 1;
        } else if b[i] == b'\'' {
            // A char literal ('x', '\n', '\u{..}'), or a lifetime (left as it is).
            let end = if b.get(i + 1) == Some(&b'\\') {
                b[i + 2..].iter().position(|&c| c == b'\'').map(|p| p + i + 2)
            } else if b.get(i + 2) == Some(&b'\'') {
                Some(i + 2)
            } else {
                // A multi-byte char: the closing quote within four bytes.
                (i + 2..(i + 6).min(b.len())).find(|&j| b[j] == b'\'' && b[i + 1] >= 0x80)
            };
            match end {
                Some(end) => {
                    out.extend(std::iter::repeat_n(b' ', end + 1 - i));
                    i = end + 1;
                }
                None => {
                    out.push(b[i]);
                    i += 1;
                }
            }
        } else {
            out.push(b[i]);
            i += 1;
        }
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// The byte just past the item that starts at or after `from` (a `;` at depth 0, or the
/// brace block that closes it).
fn item_end(code: &[u8], from: usize) -> usize {
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
fn drop_test_items(code: &str) -> (String, Vec<String>) {
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

fn is_ident(c: char) -> bool {
    c.is_alphanumeric() || c == '_'
}

/// Expands a use tree (`a::{b, c::{d, e}}`) into its paths.
fn expand_use(tree: &str) -> Vec<Vec<String>> {
    let tree: String = tree.chars().filter(|c| !c.is_whitespace()).collect();
    let mut out = Vec::new();
    expand_into(&tree, &mut Vec::new(), &mut out);
    out
}

fn expand_into(tree: &str, prefix: &mut Vec<String>, out: &mut Vec<Vec<String>>) {
    if let Some(open) = tree.find('{') {
        let head = &tree[..open];
        let inner = &tree[open + 1..tree.len() - 1];
        let mut p = prefix.clone();
        p.extend(head.split("::").filter(|s| !s.is_empty()).map(str::to_string));
        let mut depth = 0;
        let mut start = 0;
        for (i, c) in inner.char_indices() {
            match c {
                '{' => depth += 1,
                '}' => depth -= 1,
                ',' if depth == 0 => {
                    expand_into(&inner[start..i], &mut p.clone(), out);
                    start = i + 1;
                }
                _ => {}
            }
        }
        if start < inner.len() {
            expand_into(&inner[start..], &mut p, out);
        }
    } else if !tree.is_empty() {
        let mut p = prefix.clone();
        p.extend(tree.split("::").filter(|s| !s.is_empty()).map(str::to_string));
        out.push(p);
    }
}

/// A path found in a file: its segments as written and the line it starts on.
struct Found {
    segments: Vec<String>,
    line: usize,
    /// The name it brings into scope, for a `use` (its last segment or its `as` name).
    binds: Option<String>,
    /// Whether it is a `pub use` (or `pub(crate) use`): a re-export.
    reexport: bool,
}

fn line_of(code: &str, pos: usize) -> usize {
    code[..pos].bytes().filter(|&c| c == b'\n').count() + 1
}

/// Every `use` path and every `crate::`/`super::`/`self::` path in `code`, plus paths
/// starting with a name in `children` (the file's child modules).
fn paths_in(code: &str, children: &BTreeSet<String>) -> Vec<Found> {
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

struct Crate {
    src: PathBuf,
    files: BTreeMap<Vec<String>, Source>,
}

impl Crate {
    fn load() -> Crate {
        let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
        let mut paths = Vec::new();
        rust_files(&src, &mut paths);
        let mut files = BTreeMap::new();
        let mut test_only = BTreeSet::new();
        for path in paths {
            let text = fs::read_to_string(&path).unwrap();
            let (code, test_mods) = drop_test_items(&strip(&text));
            let module = module_of(&src, &path);
            for m in test_mods {
                let mut child = module.clone();
                child.push(m);
                test_only.insert(child);
            }
            files.insert(module, Source { path, code });
        }
        files.retain(|module, _| !test_only.iter().any(|t| module.starts_with(t)));
        Crate { src, files }
    }

    fn children(&self, module: &[String]) -> BTreeSet<String> {
        self.files
            .keys()
            .filter(|m| m.len() == module.len() + 1 && m.starts_with(module))
            .map(|m| m.last().unwrap().clone())
            .collect()
    }

    /// The module path `segments` names from `module`: absolute, as far as modules go,
    /// and the item named after the last module (if any).
    fn resolve(&self, module: &[String], segments: &[String]) -> Option<(Vec<String>, Option<String>)> {
        let mut at: Vec<String> = match segments[0].as_str() {
            "crate" => Vec::new(),
            "self" => module.to_vec(),
            "super" => module[..module.len().checked_sub(1)?].to_vec(),
            first if self.files.contains_key(&[module, &[first.to_string()]].concat()) => module.to_vec(),
            _ => return None,
        };
        let mut rest = &segments[if matches!(segments[0].as_str(), "crate" | "self" | "super") { 1 } else { 0 }..];
        while let Some(seg) = rest.first() {
            if seg == "super" {
                at.pop()?;
            } else {
                let mut next = at.clone();
                next.push(seg.clone());
                if self.files.contains_key(&next) {
                    at = next;
                } else {
                    return Some((at, Some(seg.clone())));
                }
            }
            rest = &rest[1..];
        }
        Some((at, None))
    }

    /// The file that defines `name` as seen from `module`: `module` itself, or where a
    /// `use` of `module` brings it from (followed a few steps).
    fn defining(&self, module: &[String], name: &str, depth: usize) -> Vec<String> {
        let Some(source) = self.files.get(module) else { return module.to_vec() };
        if depth > 8 || defines(&source.code, name) {
            return module.to_vec();
        }
        let children = self.children(module);
        for f in paths_in(&source.code, &children) {
            if f.binds.as_deref() == Some(name) {
                if let Some((target, item)) = self.resolve(module, &f.segments) {
                    return match item {
                        Some(item) => self.defining(&target, &item, depth + 1),
                        None => target,
                    };
                }
            }
        }
        module.to_vec()
    }

    /// Every import edge: (from file, line, to file).
    fn edges(&self) -> Vec<(Vec<String>, usize, Vec<String>)> {
        let mut edges = Vec::new();
        for (module, source) in &self.files {
            let children = self.children(module);
            for f in paths_in(&source.code, &children) {
                let Some((target, item)) = self.resolve(module, &f.segments) else { continue };
                let target = match item {
                    Some(item) => self.defining(&target, &item, 0),
                    None => target,
                };
                // A parent's re-export of its own descendants is its facade, not a
                // dependency: what imports the name is charged to the defining file.
                let facade = f.reexport && target.starts_with(module);
                // A file may use the modules that contain it (`super::`): a folder's
                // `mod.rs` and its files are one room, and only the parent's own items
                // count there (re-exports are followed to their files).
                let container = module.starts_with(&target);
                if &target != module && !facade && !container {
                    edges.push((module.clone(), f.line, target));
                }
            }
        }
        edges.sort();
        edges.dedup();
        edges
    }

    fn display(&self, module: &[String]) -> String {
        let path = &self.files[module].path;
        format!("src/{}", path.strip_prefix(&self.src).unwrap().display())
    }
}

fn defines(code: &str, name: &str) -> bool {
    const KINDS: &[&str] = &["fn", "struct", "enum", "trait", "type", "const", "static", "union", "mod"];
    let words: Vec<&str> = code.split(|c: char| !is_ident(c) && c != '!').filter(|w| !w.is_empty()).collect();
    words.windows(2).any(|w| (KINDS.contains(&w[0]) || w[0] == "macro_rules!") && w[1] == name)
}

fn layer_of(top: &str) -> Option<usize> {
    LAYERS.iter().position(|(_, modules)| modules.contains(&top))
}

/// Strongly connected components with more than one member (Tarjan).
fn circles<T: Ord + Clone>(edges: &BTreeMap<T, BTreeSet<T>>) -> Vec<Vec<T>> {
    let nodes: Vec<T> =
        edges.keys().cloned().chain(edges.values().flatten().cloned()).collect::<BTreeSet<_>>().into_iter().collect();
    let index_of: BTreeMap<&T, usize> = nodes.iter().enumerate().map(|(i, n)| (n, i)).collect();
    let succ: Vec<Vec<usize>> = nodes
        .iter()
        .map(|n| edges.get(n).map(|s| s.iter().map(|t| index_of[t]).collect()).unwrap_or_default())
        .collect();
    let n = nodes.len();
    let (mut index, mut low, mut on) = (vec![usize::MAX; n], vec![0; n], vec![false; n]);
    let (mut stack, mut next, mut out) = (Vec::new(), 0, Vec::new());
    fn visit(
        v: usize,
        succ: &[Vec<usize>],
        st: (&mut [usize], &mut [usize], &mut [bool], &mut Vec<usize>, &mut usize, &mut Vec<Vec<usize>>),
    ) {
        let (index, low, on, stack, next, out) = st;
        index[v] = *next;
        low[v] = *next;
        *next += 1;
        stack.push(v);
        on[v] = true;
        for &w in &succ[v] {
            if index[w] == usize::MAX {
                visit(w, succ, (&mut *index, &mut *low, &mut *on, &mut *stack, &mut *next, &mut *out));
                low[v] = low[v].min(low[w]);
            } else if on[w] {
                low[v] = low[v].min(index[w]);
            }
        }
        if low[v] == index[v] {
            let mut scc = Vec::new();
            while let Some(w) = stack.pop() {
                on[w] = false;
                scc.push(w);
                if w == v {
                    break;
                }
            }
            if scc.len() > 1 {
                out.push(scc);
            }
        }
    }
    for v in 0..n {
        if index[v] == usize::MAX {
            visit(v, &succ, (&mut index, &mut low, &mut on, &mut stack, &mut next, &mut out));
        }
    }
    out.into_iter().map(|scc| scc.into_iter().map(|i| nodes[i].clone()).collect()).collect()
}

#[test]
fn every_import_runs_down_the_layers() {
    let krate = Crate::load();
    let mut wrong = Vec::new();
    for (from, line, to) in krate.edges() {
        let (Some(a), Some(b)) = (from.first(), to.first()) else { continue };
        if a == b {
            continue;
        }
        let (Some(la), Some(lb)) = (layer_of(a), layer_of(b)) else {
            let unknown = if layer_of(a).is_none() { a } else { b };
            wrong
                .push(format!("{}:{line}: module `{unknown}` is in no layer of tests/layers.rs", krate.display(&from)));
            continue;
        };
        if lb > la {
            wrong.push(format!(
                "{}:{line}: imports {} ({}) from the {} layer, above its own ({})",
                krate.display(&from),
                krate.display(&to),
                b,
                LAYERS[lb].0,
                LAYERS[la].0
            ));
        }
    }
    assert!(wrong.is_empty(), "imports against the layer order:\n{}", wrong.join("\n"));
}

#[test]
fn no_files_and_no_modules_import_each_other_in_a_circle() {
    let krate = Crate::load();
    let edges = krate.edges();
    let mut files: BTreeMap<Vec<String>, BTreeSet<Vec<String>>> = BTreeMap::new();
    let mut tops: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for (from, _, to) in &edges {
        files.entry(from.clone()).or_default().insert(to.clone());
        if let (Some(a), Some(b)) = (from.first(), to.first()) {
            if a != b {
                tops.entry(a.clone()).or_default().insert(b.clone());
            }
        }
    }
    let mut report = Vec::new();
    for scc in circles(&files) {
        let names: Vec<String> = scc.iter().map(|m| krate.display(m)).collect();
        let ties: Vec<String> = edges
            .iter()
            .filter(|(a, _, b)| scc.contains(a) && scc.contains(b))
            .map(|(a, line, b)| format!("  {}:{line} -> {}", krate.display(a), krate.display(b)))
            .collect();
        report.push(format!("files {}:\n{}", names.join(", "), ties.join("\n")));
    }
    for scc in circles(&tops) {
        report.push(format!("modules {}", scc.join(", ")));
    }
    assert!(report.is_empty(), "import circles:\n{}", report.join("\n"));
}

#[test]
fn the_reader_resolves_paths_through_re_exports() {
    // The checker's own parts, on a known snippet: a use tree, a re-export chased.
    let paths = expand_use("super::{a::B, c::{d, e::F}}");
    assert_eq!(paths.len(), 3);
    assert_eq!(paths[2], ["super", "c", "e", "F"]);
    let code = strip("// use crate::x;\nlet s = \"crate::y::Z\"; let c = '{'; crate::games::Game::new();");
    let found = paths_in(&code, &BTreeSet::new());
    assert_eq!(found.len(), 1);
    assert_eq!(found[0].segments, ["crate", "games", "Game", "new"]);
    let krate = Crate::load();
    // `crate::Search` is re-exported by lib.rs from search, which declares it.
    assert_eq!(krate.defining(&[], "Search", 0), ["search"]);
    assert!(!krate.edges().is_empty());
}
