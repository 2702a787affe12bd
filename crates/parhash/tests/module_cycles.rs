//! No module of any workspace crate imports, directly or through others, a module that imports
//! it back (ARCHITECTURE.md: dependencies point one way, from the CLI down to the kernels).
//!
//! A reading of module paths, without a parser: every `.rs` file under a crate's `src/` is a
//! module (`algo/sha2/sha256/lanes.rs` is `algo::sha2::sha256::lanes`), and a path written in its
//! code (not in its comments: a documentation link, such as a dispatcher's list of its forms,
//! imports nothing) is an edge to the deepest module it names. Paths are read in every form
//! Rust offers: from
//! the crate root (`crate::a::b`), from the parent (`super::b`, `super::super::c`) and from the
//! module itself (`self::d`), with `{...}` groups, nested ones too (`use super::{a::{b, c},
//! d}`). `super::` and `self::` are resolved against the module they are written in, counting
//! the inline modules (`mod x { ... }`) of the file around them. Edges between a module and its
//! own ancestors or descendants are not counted (a family's `mod.rs` and its kernels are one
//! room); unit-test modules at the end of a file (`#[cfg(test)] mod tests`) may reach anywhere. A
//! cycle is a strongly connected set of two or more modules.
//!
//! Limits of the reading: a path inside a `macro_rules!` body is resolved where the macro is
//! written, not where it expands (`$crate::` paths are skipped: they name the crate root of
//! the expansion); a path through a name a module re-exports (`super::Isa`) stops at the
//! module that re-exports it.
//!
//! Why not `cargo-modules`' acyclic check: it needs a rust-analyzer build (minutes of CI) to
//! answer the same question for this codebase.

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

/// Where a written path starts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Root {
    /// `crate::`
    Crate,
    /// `self::` (0), `super::` (1), `super::super::` (2), ...: that many levels up from the
    /// module the path is written in.
    Up(usize),
}

/// One path written in a source: where it starts, its byte offset (to find the inline module
/// around it) and its module segments.
#[derive(Debug, PartialEq, Eq)]
struct Written {
    root: Root,
    at: usize,
    segments: Vec<String>,
}

/// Every `crate::`, `super::` and `self::` path written in `source`, groups expanded, as lists
/// of segments (lowercase ones only: the module part of a path; a type or function name ends
/// it).
fn written_paths(source: &str) -> Vec<Written> {
    let mut out = Vec::new();
    let mut at = 0;
    while at < source.len() {
        let rest = &source[at..];
        let Some(keyword) = ["crate::", "super::", "self::"]
            .into_iter()
            .find(|k| rest.starts_with(k))
        else {
            at += rest.chars().next().map_or(1, char::len_utf8);
            continue;
        };
        // `$crate::` in macros, `parhash_crate::`, `my_self::` and the second `super::` of
        // `super::super::` are not roots.
        let before = source[..at].chars().next_back();
        if before.is_some_and(|c| is_ident_char(c) || c == '$' || c == ':') {
            at += keyword.len();
            continue;
        }
        let start = at;
        let mut tail = &rest[keyword.len()..];
        let root = match keyword {
            "crate::" => Root::Crate,
            "self::" => Root::Up(0),
            _ => Root::Up(1),
        };
        let root = match root {
            Root::Up(mut up) => {
                while let Some(next) = tail.strip_prefix("super::") {
                    up += 1;
                    tail = next;
                }
                Root::Up(up)
            }
            crate_root => crate_root,
        };
        let mut trees = Vec::new();
        use_tree(tail, Vec::new(), &mut trees);
        for segments in trees {
            out.push(Written {
                root,
                at: start,
                segments,
            });
        }
        at = source.len() - tail.len();
    }
    out
}

/// The module paths of a use tree `text` starts with (`a::b::C`, `a::{b, c::{d, E}}`,
/// `{self, a}`), each after `prefix`.
fn use_tree(text: &str, prefix: Vec<String>, out: &mut Vec<Vec<String>>) {
    let mut path = prefix;
    let mut rest = text;
    loop {
        if let Some(group) = rest.strip_prefix('{') {
            let mut depth = 1;
            let end = group
                .char_indices()
                .find(|&(_, c)| {
                    match c {
                        '{' => depth += 1,
                        '}' => depth -= 1,
                        _ => {}
                    }
                    depth == 0
                })
                .map_or(group.len(), |(i, _)| i);
            let mut item_start = 0;
            let mut depth = 0;
            let group = &group[..end];
            for (i, c) in group.char_indices().chain([(group.len(), ',')]) {
                match c {
                    '{' => depth += 1,
                    '}' => depth -= 1,
                    ',' if depth == 0 => {
                        let item = group[item_start..i].trim();
                        if item == "self" {
                            out.push(path.clone());
                        } else if !item.is_empty() {
                            use_tree(item, path.clone(), out);
                        }
                        item_start = i + 1;
                    }
                    _ => {}
                }
            }
            return;
        }
        let end = rest.find(|c: char| !is_ident_char(c)).unwrap_or(rest.len());
        let segment = &rest[..end];
        if segment.is_empty() || !segment.starts_with(|c: char| c.is_ascii_lowercase()) {
            break;
        }
        path.push(segment.to_string());
        match rest[end..].strip_prefix("::") {
            Some(next) => rest = next,
            None => break,
        }
    }
    out.push(path);
}

/// Every `crate::` path written in `source`, as lists of segments.
fn crate_paths(source: &str) -> Vec<Vec<String>> {
    written_paths(source)
        .into_iter()
        .filter(|w| w.root == Root::Crate)
        .map(|w| w.segments)
        .collect()
}

/// A module's code as the check reads it: `source` with its comments (doc comments too: a
/// documentation link is no import) blanked to spaces, every byte in its place; and its inline
/// modules (`mod x { ... }`), the byte range of each body with its name. Strings and
/// character literals are stepped over, so no brace or `//` in them counts.
fn scan(source: &str) -> (String, Vec<(std::ops::Range<usize>, String)>) {
    let bytes = source.as_bytes();
    let mut code = bytes.to_vec();
    let mut blank = |range: std::ops::Range<usize>| {
        for b in &mut code[range] {
            if *b != b'\n' {
                *b = b' ';
            }
        }
    };
    let mut open: Vec<(usize, Option<String>)> = Vec::new();
    let mut found = Vec::new();
    let ident_at = |j: usize| j < bytes.len() && is_ident_char(bytes[j] as char);
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'/' if bytes.get(i + 1) == Some(&b'/') => {
                let end = source[i..].find('\n').map_or(bytes.len(), |n| i + n);
                blank(i..end);
                i = end;
            }
            b'/' if bytes.get(i + 1) == Some(&b'*') => {
                let start = i;
                let mut depth = 0;
                while i < bytes.len() {
                    if bytes[i..].starts_with(b"/*") {
                        depth += 1;
                        i += 2;
                    } else if bytes[i..].starts_with(b"*/") {
                        depth -= 1;
                        i += 2;
                        if depth == 0 {
                            break;
                        }
                    } else {
                        i += 1;
                    }
                }
                blank(start..i.min(bytes.len()));
                continue;
            }
            // Raw strings: r"..", r#".."#, br#".."#.
            b'r' if (i == 0
                || !ident_at(i - 1)
                || (bytes[i - 1] == b'b' && (i < 2 || !ident_at(i - 2))))
                && matches!(bytes.get(i + 1), Some(b'#' | b'"')) =>
            {
                let hashes = bytes[i + 1..].iter().take_while(|&&b| b == b'#').count();
                if bytes.get(i + 1 + hashes) == Some(&b'"') {
                    let close = format!("\"{}", "#".repeat(hashes));
                    let body = i + 2 + hashes;
                    i = source[body..]
                        .find(&close)
                        .map_or(bytes.len(), |n| body + n + close.len());
                    continue;
                }
            }
            b'"' => {
                i += 1;
                while i < bytes.len() && bytes[i] != b'"' {
                    i += if bytes[i] == b'\\' { 2 } else { 1 };
                }
            }
            b'\'' => {
                // A character literal ('x', '\n', '\u{..}'), or a lifetime or label ('a).
                if bytes.get(i + 1) == Some(&b'\\') {
                    i += 2;
                    while i < bytes.len() && bytes[i] != b'\'' {
                        i += 1;
                    }
                } else if let Some(c) = source[i + 1..].chars().next() {
                    if source[i + 1 + c.len_utf8()..].starts_with('\'') {
                        i += 1 + c.len_utf8();
                    }
                }
            }
            b'{' => {
                // `mod name {`: the name, then the keyword, reading back over spaces.
                let head = source[..i].trim_end();
                let name_len = head.chars().rev().take_while(|&c| is_ident_char(c)).count();
                let name = &head[head.len() - name_len..];
                let before = head[..head.len() - name_len].trim_end();
                let is_mod = name_len > 0
                    && before.len() < head.len() - name_len
                    && before.ends_with("mod")
                    && !before[..before.len() - 3].ends_with(is_ident_char);
                open.push((i, is_mod.then(|| name.to_string())));
            }
            b'}' => {
                if let Some((start, Some(name))) = open.pop() {
                    found.push((start..i, name));
                }
            }
            _ => {}
        }
        i += 1;
    }
    found.sort_by_key(|(range, _)| range.start);
    let code = String::from_utf8(code).expect("comments blanked to ASCII spaces, whole");
    (code, found)
}

/// The module (as segments) that a path written at `at` of `file_module`'s source is in.
fn scope_at(
    file_module: &str,
    inline: &[(std::ops::Range<usize>, String)],
    at: usize,
) -> Vec<String> {
    let mut scope: Vec<String> = file_module
        .split("::")
        .filter(|s| !s.is_empty())
        .map(String::from)
        .collect();
    for (range, name) in inline {
        if range.contains(&at) {
            scope.push(name.clone());
        }
    }
    scope
}

/// Every module path written in the code of `source` (the source of `module`; comments are not
/// read), resolved to segments from the crate root. A `super::` above the crate root is
/// dropped.
fn resolved_paths(module: &str, source: &str) -> Vec<Vec<String>> {
    let (code, inline) = scan(source);
    written_paths(&code)
        .into_iter()
        .filter_map(|w| match w.root {
            Root::Crate => Some(w.segments),
            Root::Up(up) => {
                let mut scope = scope_at(module, &inline, w.at);
                scope.truncate(scope.len().checked_sub(up)?);
                scope.extend(w.segments);
                Some(scope)
            }
        })
        .collect()
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
        for path in resolved_paths(&from, without_tests(&source)) {
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

#[test]
fn super_and_self_paths_are_read_with_their_groups() {
    let source = "use super::super::consts::K256;\n\
                  use super::{a::{self, B}, c::d::E, f};\n\
                  self::g::h(); Self::new(); my_self::x(); $crate::m::n!();\n\
                  super::super::rows::entry_point!(x);\n\
                  use super::*;";
    let written = written_paths(source);
    let read: Vec<(Root, Vec<&str>)> = written
        .iter()
        .map(|w| (w.root, w.segments.iter().map(String::as_str).collect()))
        .collect();
    assert_eq!(
        read,
        vec![
            (Root::Up(2), vec!["consts"]),
            (Root::Up(1), vec!["a"]),
            (Root::Up(1), vec!["a"]),
            (Root::Up(1), vec!["c", "d"]),
            (Root::Up(1), vec!["f"]),
            (Root::Up(0), vec!["g", "h"]),
            (Root::Up(2), vec!["rows", "entry_point"]),
            (Root::Up(1), vec![]),
        ]
    );
    // Resolved against the module they are written in, and the inline module around them.
    let source = "use super::b::X;\nmod inner {\n    // a brace in a comment: {\n    \
                  const C: char = '}';\n    const S: &str = \"}\";\n    \
                  use super::super::c::Y;\n}\nfn f<'a>() { self::g(); }\n";
    assert_eq!(
        resolved_paths("fam::a", source),
        vec![
            vec!["fam".to_string(), "b".to_string()],
            vec!["fam".to_string(), "c".to_string()],
            vec!["fam".to_string(), "a".to_string(), "g".to_string()],
        ]
    );
    // A `super::` above the crate root names nothing; comments are not code.
    assert!(resolved_paths("", "use super::x;").is_empty());
    let documented = "//! Forms: [`super::b`], [`crate::c`].\n/* self::d /* super::e */ */\n\
                      /// \"quoted\" super::f\nconst URL: &str = \"http://x\"; use super::g;\n";
    assert_eq!(
        resolved_paths("fam::a", documented),
        vec![vec!["fam".to_string(), "g".to_string()]]
    );
}

/// A synthetic crate whose only cycles go through `super::` (one written in an inline module)
/// and `self::` paths: the check finds them.
#[test]
fn the_check_finds_a_cycle_through_super_and_self_paths() {
    let src = Path::new(env!("CARGO_TARGET_TMPDIR")).join("module_cycles_synthetic/src");
    let _ = std::fs::remove_dir_all(&src);
    let files = [
        ("lib.rs", "pub mod fam;\npub mod p;\n"),
        (
            "fam/mod.rs",
            "pub mod a;\npub mod b;\npub mod c;\nuse self::a::A;\n",
        ),
        // fam::a -> fam::b -> fam::a, written as `super::` paths only.
        ("fam/a.rs", "use super::b::helper;\npub struct A;\n"),
        (
            "fam/b.rs",
            "use super::{a::{self, A}, c};\npub fn helper() {}\n",
        ),
        ("fam/c.rs", "pub fn f() {}\n"),
        ("p/mod.rs", "pub mod q;\npub mod r;\n"),
        // p::q -> p::r from an inline module; p::r -> p::q through `self::super::`.
        (
            "p/q.rs",
            "pub fn h() {}\nmod inner {\n    use super::super::r::g;\n}\n",
        ),
        (
            "p/r.rs",
            "pub mod s;\npub fn g() { self::s::t(); self::super::q::h(); }\n",
        ),
        ("p/r/s.rs", "pub fn t() {}\n"),
    ];
    for (path, text) in files {
        let path = src.join(path);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    }
    let edges = graph(&src);
    assert_eq!(
        cycles(&edges),
        vec![vec!["fam::a", "fam::b"], vec!["p::q", "p::r"]],
        "edges: {edges:?}"
    );
    // `self::a` from `fam` and `self::s` from `p::r` go down the tree: not edges.
    assert!(!edges.contains_key("fam"));
    assert_eq!(edges["p::r"], BTreeSet::from(["p::q".to_string()]));
}
