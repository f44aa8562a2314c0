//! The layers of the crate, enforced: every module under `src/` may import only from its
//! own layer or the layers below it, and no files and no rooms (the modules named in
//! [`LAYERS`]) import each other in a circle (docs/ARCHITECTURE.md, "Layers").
//!
//! The check reads the source as text: the `use` declarations and every `crate::`,
//! `super::` and child-module path in code (comments, strings and `#[cfg(test)]` items
//! left out: tests may reach across layers). A path is resolved to the file that defines
//! the item it names, following `use` re-exports, so that `super::Mode` counts as an
//! import of the file that declares `Mode`, not of the parent that re-exports it. A file
//! may use the modules that contain it: a folder's `mod.rs` and its files are one room.

mod reader;

use std::collections::{BTreeMap, BTreeSet};
use std::fs;
use std::path::{Path, PathBuf};

use reader::{defines, drop_test_items, expand_use, paths_in, strip};

/// The layers, lowest first: a module may import from its own layer and those below.
/// Each entry is a room: a top-level module, or a path below one (`*` any one name).
/// The crate root (`lib.rs`) re-exports from all of them; the binary (`src/bin/`) is the
/// front end above them all and imports through the library's public paths.
const LAYERS: &[(&str, &[&str])] = &[
    ("atomics shim", &["atomics"]),
    ("games and their capability traits", &["games"]),
    ("knowledge and baselines", &["weights", "evaluator", "solver", "games/*/solver", "alphabeta", "expectimax"]),
    ("tree", &["tree"]),
    ("policy", &["policy"]),
    ("search and its drivers", &["search"]),
    ("harness", &["harness", "harness/*"]),
    ("front ends", &["gtp", "games/*/gtp", "analysis"]),
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

/// The layer of `module` and its room (the module path its entry in [`LAYERS`] matched):
/// the most specific entry wins, `*` matching any one name (`games/*/solver` puts every
/// game's solver in the layer above the games).
fn layer_of(module: &[String]) -> Option<(usize, Vec<String>)> {
    let mut best: Option<(usize, Vec<String>)> = None;
    for (layer, (_, entries)) in LAYERS.iter().enumerate() {
        for entry in *entries {
            let pattern: Vec<&str> = entry.split('/').collect();
            let matches = pattern.len() <= module.len() && pattern.iter().zip(module).all(|(p, m)| *p == "*" || p == m);
            if matches && best.as_ref().is_none_or(|(_, room)| room.len() < pattern.len()) {
                best = Some((layer, module[..pattern.len()].to_vec()));
            }
        }
    }
    best
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
    let mut tarjan =
        Tarjan { succ, index: vec![usize::MAX; n], low: vec![0; n], on: vec![false; n], ..Tarjan::default() };
    for v in 0..n {
        if tarjan.index[v] == usize::MAX {
            tarjan.visit(v);
        }
    }
    tarjan.out.into_iter().map(|scc| scc.into_iter().map(|i| nodes[i].clone()).collect()).collect()
}

/// Tarjan's search state over a graph of `succ`.
#[derive(Default)]
struct Tarjan {
    succ: Vec<Vec<usize>>,
    index: Vec<usize>,
    low: Vec<usize>,
    on: Vec<bool>,
    stack: Vec<usize>,
    next: usize,
    out: Vec<Vec<usize>>,
}

impl Tarjan {
    fn visit(&mut self, v: usize) {
        self.index[v] = self.next;
        self.low[v] = self.next;
        self.next += 1;
        self.stack.push(v);
        self.on[v] = true;
        for k in 0..self.succ[v].len() {
            let w = self.succ[v][k];
            if self.index[w] == usize::MAX {
                self.visit(w);
                self.low[v] = self.low[v].min(self.low[w]);
            } else if self.on[w] {
                self.low[v] = self.low[v].min(self.index[w]);
            }
        }
        if self.low[v] == self.index[v] {
            let mut scc = Vec::new();
            while let Some(w) = self.stack.pop() {
                self.on[w] = false;
                scc.push(w);
                if w == v {
                    break;
                }
            }
            if scc.len() > 1 {
                self.out.push(scc);
            }
        }
    }
}

#[test]
fn every_import_runs_down_the_layers() {
    let krate = Crate::load();
    let mut wrong = Vec::new();
    for (from, line, to) in krate.edges() {
        let (Some((la, _)), Some((lb, room))) = (layer_of(&from), layer_of(&to)) else {
            let unknown = if layer_of(&from).is_none() { &from } else { &to };
            let name = unknown.join("::");
            wrong.push(format!("{}:{line}: module `{name}` is in no layer of tests/layers", krate.display(&from)));
            continue;
        };
        if lb > la {
            wrong.push(format!(
                "{}:{line}: imports {} ({}) from the {} layer, above its own ({})",
                krate.display(&from),
                krate.display(&to),
                room.join("/"),
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
    let mut rooms: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for (from, _, to) in &edges {
        files.entry(from.clone()).or_default().insert(to.clone());
        if let (Some((_, a)), Some((_, b))) = (layer_of(from), layer_of(to)) {
            if a != b {
                rooms.entry(a.join("/")).or_default().insert(b.join("/"));
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
    for scc in circles(&rooms) {
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

#[test]
fn the_module_map_names_every_file() {
    // docs/ARCHITECTURE.md's module map: every file under src/ by its path, or by its
    // name in the row whose first cell is its folder.
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let doc = fs::read_to_string(root.join("docs/ARCHITECTURE.md")).unwrap();
    let start = doc.find("## Module map").expect("a module map in docs/ARCHITECTURE.md");
    let map = &doc[start..doc[start + 2..].find("\n## ").map_or(doc.len(), |e| e + start + 2)];
    let rows: Vec<(&str, &str)> =
        map.lines().filter_map(|line| line.strip_prefix("| `")).filter_map(|line| line.split_once("` |")).collect();
    let mut files = Vec::new();
    rust_files_with_bin(&root.join("src"), &mut files);
    let mut missing = Vec::new();
    for file in files {
        let path = file.strip_prefix(root).unwrap().to_string_lossy().replace('\\', "/");
        let (folder, name) = path.rsplit_once('/').unwrap();
        let named = rows.iter().any(|(first, rest)| {
            *first == path || (*first == format!("{folder}/") && rest.contains(&format!("`{name}`")))
        });
        if !named {
            missing.push(path);
        }
    }
    assert!(missing.is_empty(), "files missing from docs/ARCHITECTURE.md's module map:\n{}", missing.join("\n"));
}

/// Every `.rs` file under `dir`, the binary's included.
fn rust_files_with_bin(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            rust_files_with_bin(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}
