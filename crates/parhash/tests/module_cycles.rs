//! No module of any workspace crate imports, directly or through others, a module that imports
//! it back (ARCHITECTURE.md: dependencies point one way, from the CLI down to the kernels).
//!
//! A reading of `crate::` paths, without a parser: every `.rs` file under a crate's `src/` is a
//! module (`algo/sha2/sha256/lanes.rs` is `algo::sha2::sha256::lanes`), and a path
//! `crate::a::b::c` written in it is an edge to the deepest module it names (`crate::{a, b}`
//! lists count too). Edges between a module and its own ancestors or descendants are not
//! counted (a family's `mod.rs` and its kernels are one room); unit-test modules at the end of a
//! file (`#[cfg(test)] mod tests`) may reach anywhere. A cycle is a strongly connected set of
//! two or more modules.
//!
//! Why not `cargo-modules`' acyclic check: it needs a rust-analyzer build (minutes of CI) to
//! answer the same question for this codebase, whose imports are all written as `crate::` paths.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).expect("readable src dir") {
        let path = entry.expect("dir entry").path();
        if path.is_dir() {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

/// `algo/sha2/mod.rs` -> `algo::sha2`; `lib.rs`/`main.rs` -> `` (the crate root).
fn module_of(src: &Path, file: &Path) -> String {
    let rel = file.strip_prefix(src).expect("file under src");
    let mut parts: Vec<String> = rel
        .iter()
        .map(|p| p.to_string_lossy().trim_end_matches(".rs").to_string())
        .collect();
    if matches!(
        parts.last().map(String::as_str),
        Some("mod" | "lib" | "main")
    ) {
        parts.pop();
    }
    parts.join("::")
}

/// The source without its trailing unit-test module.
fn without_tests(source: &str) -> &str {
    match source.find("#[cfg(test)]\nmod tests {") {
        Some(at) => &source[..at],
        None => source,
    }
}

fn is_ident_char(c: char) -> bool {
    c.is_ascii_alphanumeric() || c == '_'
}

/// Every `crate::` path written in `source`, as lists of segments (lowercase ones only: the
/// module part of a path; a type or function name ends it).
fn crate_paths(source: &str) -> Vec<Vec<String>> {
    let mut paths = Vec::new();
    let mut rest = source;
    while let Some(at) = rest.find("crate::") {
        // `$crate::` in macros and `parhash_crate::` are not this crate's root.
        let before = rest[..at].chars().next_back();
        rest = &rest[at + "crate::".len()..];
        if before.is_some_and(|c| is_ident_char(c) || c == '$') {
            continue;
        }
        if let Some(list) = rest.strip_prefix('{') {
            let end = list.find('}').unwrap_or(list.len());
            for item in list[..end].split(',') {
                paths.push(segments(item.trim()));
            }
        } else {
            paths.push(segments(rest));
        }
    }
    paths
}

fn segments(path: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut rest = path;
    loop {
        let end = rest.find(|c: char| !is_ident_char(c)).unwrap_or(rest.len());
        let segment = &rest[..end];
        if segment.is_empty() || !segment.starts_with(|c: char| c.is_ascii_lowercase()) {
            break;
        }
        out.push(segment.to_string());
        match rest[end..].strip_prefix("::") {
            Some(next) => rest = next,
            None => break,
        }
    }
    out
}

fn related(a: &str, b: &str) -> bool {
    let descends = |child: &str, parent: &str| {
        parent.is_empty() || child == parent || child.starts_with(&format!("{parent}::"))
    };
    descends(a, b) || descends(b, a)
}

/// The module graph of one crate: module -> modules it names.
fn graph(src: &Path) -> BTreeMap<String, BTreeSet<String>> {
    let mut files = Vec::new();
    rust_files(src, &mut files);
    let modules: BTreeSet<String> = files.iter().map(|f| module_of(src, f)).collect();
    let mut edges: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for file in &files {
        let from = module_of(src, file);
        let source = std::fs::read_to_string(file).expect("readable source");
        for path in crate_paths(without_tests(&source)) {
            // The deepest module this path names.
            let to = (1..=path.len())
                .rev()
                .map(|n| path[..n].join("::"))
                .find(|m| modules.contains(m));
            if let Some(to) = to.filter(|to| !related(&from, to)) {
                edges.entry(from.clone()).or_default().insert(to);
            }
        }
    }
    edges
}

/// Strongly connected sets of two or more modules (Tarjan's algorithm).
fn cycles(edges: &BTreeMap<String, BTreeSet<String>>) -> Vec<Vec<String>> {
    struct State<'a> {
        edges: &'a BTreeMap<String, BTreeSet<String>>,
        index: BTreeMap<&'a str, usize>,
        low: BTreeMap<&'a str, usize>,
        stack: Vec<&'a str>,
        on_stack: BTreeSet<&'a str>,
        found: Vec<Vec<String>>,
    }
    fn visit<'a>(s: &mut State<'a>, v: &'a str) {
        let i = s.index.len();
        s.index.insert(v, i);
        s.low.insert(v, i);
        s.stack.push(v);
        s.on_stack.insert(v);
        for w in s.edges.get(v).into_iter().flatten() {
            let w = w.as_str();
            if !s.index.contains_key(w) {
                visit(s, w);
                let low = s.low[v].min(s.low[w]);
                s.low.insert(v, low);
            } else if s.on_stack.contains(w) {
                let low = s.low[v].min(s.index[w]);
                s.low.insert(v, low);
            }
        }
        if s.low[v] == s.index[v] {
            let mut set = Vec::new();
            while let Some(w) = s.stack.pop() {
                s.on_stack.remove(w);
                set.push(w.to_string());
                if w == v {
                    break;
                }
            }
            if set.len() > 1 {
                set.sort();
                s.found.push(set);
            }
        }
    }
    let mut state = State {
        edges,
        index: BTreeMap::new(),
        low: BTreeMap::new(),
        stack: Vec::new(),
        on_stack: BTreeSet::new(),
        found: Vec::new(),
    };
    for v in edges.keys() {
        if !state.index.contains_key(v.as_str()) {
            visit(&mut state, v);
        }
    }
    state.found
}

#[test]
fn no_workspace_crate_has_a_module_cycle() {
    let crates = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let mut report = Vec::new();
    let mut checked = 0;
    for entry in std::fs::read_dir(&crates).expect("crates dir") {
        let src = entry.expect("dir entry").path().join("src");
        if !src.is_dir() {
            continue;
        }
        checked += 1;
        for cycle in cycles(&graph(&src)) {
            report.push(format!("{}: {}", src.display(), cycle.join(" <-> ")));
        }
    }
    assert!(checked >= 4, "found only {checked} crates under {crates:?}");
    assert!(report.is_empty(), "module cycles:\n{}", report.join("\n"));
}

#[test]
fn the_check_finds_a_cycle_and_reads_paths_as_written() {
    let edges: BTreeMap<String, BTreeSet<String>> = [
        ("a", vec!["b"]),
        ("b", vec!["c"]),
        ("c", vec!["a"]),
        ("d", vec!["a"]),
    ]
    .into_iter()
    .map(|(k, v)| (k.to_string(), v.into_iter().map(String::from).collect()))
    .collect();
    assert_eq!(cycles(&edges), vec![vec!["a", "b", "c"]]);
    assert_eq!(
        crate_paths("use crate::algo::sha2::Sha256; x $crate::no; crate::{lanes::Kernel, threads}"),
        vec![
            vec!["algo".to_string(), "sha2".to_string()],
            vec!["lanes".to_string()],
            vec!["threads".to_string()],
        ]
    );
    assert!(related("algo::sha2", "algo::sha2::sha256"));
    assert!(related("", "registry"));
    assert!(!related("algo::sha2", "algo::sha1"));
}
