//! No module of any workspace crate imports, directly or through others, a module that imports
//! it back (ARCHITECTURE.md: dependencies point one way, from the CLI down to the kernels).
//!
//! A reading of module paths, without a parser: every `.rs` file under a crate's `src/` is a
//! module (`algo/sha2/sha256/lanes.rs` is `algo::sha2::sha256::lanes`), and every path written
//! in its code (not in its comments or strings: a documentation link, such as a dispatcher's
//! list of its forms, imports nothing) is an edge to the module it leads to. Paths are read in
//! every form Rust offers: from the crate root (`crate::a::b`), from the parent (`super::b`,
//! `super::super::c`), from the module itself (`self::d`), from a child module's name
//! (`child::X`) and through a name a `use` binds (`use super::x; x::y::z`, `use crate::a as
//! b; b::c`), with `{...}` groups, nested ones too (`use super::{a::{b, c}, d}`). `super::`
//! and `self::` are resolved against the module they are written in, counting the inline
//! modules (`mod x { ... }`) of the file around them.
//!
//! A path leads to the deepest module it names. Where it goes on through a name that a module
//! binds with `use`, it stops at that module (its file is what the importer reads), unless
//! the module defines nothing of its own (a facade, such as `lib.rs`, which only hands names
//! on): then it leads to where the name comes from. A parent and its children are modules like
//! any other: `use child::X` in a parent is an edge to the child, `use super::Y` in the child
//! one back; `mod child;` alone is none. Unit-test modules at the end of a file
//! (`#[cfg(test)] mod tests`) may reach anywhere. A cycle is a strongly connected set of two or
//! more modules.
//!
//! Limits of the reading: a path inside a `macro_rules!` body is resolved where the macro is
//! written, not where it expands (`$crate::` paths are skipped: they name the crate root of
//! the expansion); a name a glob (`use a::*`) brings in is not followed (the glob itself is an
//! edge to `a`).
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

/// What a `use` leaf binds in its module: a name (`a::b` binds `b`, `a::{self}` binds `a`,
/// `a as c` binds `c`), every public name of a module (`a::*`), or nothing (`a as _`).
#[derive(Debug, Clone, PartialEq, Eq)]
enum Binds {
    Name(String),
    Glob,
    Nothing,
}

/// One path written in a module's code: its byte offset (to find the inline module around it),
/// every segment as written (`crate`, `super`, `self` included, then modules and the item it
/// names, if any), and what it binds when it is a leaf of a `use` (`None` for a path in code).
#[derive(Debug, PartialEq, Eq)]
struct Written {
    at: usize,
    segments: Vec<String>,
    binds: Option<Binds>,
}

/// Every path of two or more segments written in `code` (comments and strings blanked: see
/// [`scan`]), and every leaf of its `use` declarations, groups expanded (`use super::{a::{self,
/// B}, c as d, e::*}`). A path may start anywhere a name may: `crate::`, `self::`, `super::`,
/// or a name (an imported module, a child module, an extern crate: [`Crate::absolute`] tells
/// them apart). `$crate::` in macros is no path here: it names the crate of the expansion.
fn written_paths(code: &str) -> Vec<Written> {
    let bytes = code.as_bytes();
    let mut out = Vec::new();
    let mut at = 0;
    while at < bytes.len() {
        let c = bytes[at] as char;
        let starts_word = (c.is_ascii_alphabetic() || c == '_')
            && (at == 0 || {
                let before = bytes[at - 1] as char;
                !(is_ident_char(before) || matches!(before, ':' | '$' | '\'' | '#'))
            });
        if !starts_word {
            at += 1;
            continue;
        }
        let word_end = code[at..]
            .find(|c: char| !is_ident_char(c))
            .map_or(code.len(), |n| at + n);
        let word = &code[at..word_end];
        if word == "use" && code[word_end..].starts_with(char::is_whitespace) {
            let end = code[word_end..]
                .find(';')
                .map_or(code.len(), |n| word_end + n);
            let mut leaves = Vec::new();
            use_leaves(&code[word_end..end], Vec::new(), &mut leaves);
            for (segments, binds) in leaves {
                out.push(Written {
                    at,
                    segments,
                    binds: Some(binds),
                });
            }
            at = end;
            continue;
        }
        let mut segments = vec![word.to_string()];
        let mut end = word_end;
        while let Some(next) = code[end..].strip_prefix("::") {
            let len = next.find(|c: char| !is_ident_char(c)).unwrap_or(next.len());
            if len == 0 {
                break;
            }
            segments.push(next[..len].to_string());
            end += 2 + len;
        }
        if segments.len() > 1 {
            out.push(Written {
                at,
                segments,
                binds: None,
            });
        }
        at = end;
    }
    out
}

/// The leaves of the use tree `text` (what follows `use`), each after `prefix`, with what each
/// binds. A path from the extern prelude (`::std::x`) is left out.
fn use_leaves(text: &str, prefix: Vec<String>, out: &mut Vec<(Vec<String>, Binds)>) {
    let mut path = prefix;
    let mut rest = text.trim_start();
    if let Some(after) = rest.strip_prefix("::") {
        if path.is_empty() {
            return;
        }
        rest = after;
    }
    loop {
        rest = rest.trim_start();
        if let Some(group) = rest.strip_prefix('{') {
            let mut depth = 0;
            let mut item_start = 0;
            for (i, c) in group.char_indices() {
                match c {
                    '{' => depth += 1,
                    '}' | ',' if depth == 0 => {
                        let item = group[item_start..i].trim();
                        if !item.is_empty() {
                            use_leaves(item, path.clone(), out);
                        }
                        if c == '}' {
                            return;
                        }
                        item_start = i + 1;
                    }
                    '}' => depth -= 1,
                    _ => {}
                }
            }
            return;
        }
        if rest.starts_with('*') {
            out.push((path, Binds::Glob));
            return;
        }
        let end = rest.find(|c: char| !is_ident_char(c)).unwrap_or(rest.len());
        if end == 0 {
            return;
        }
        let segment = &rest[..end];
        let after = rest[end..].trim_start();
        if let Some(next) = after.strip_prefix("::") {
            path.push(segment.to_string());
            rest = next;
            continue;
        }
        let name = if segment == "self" {
            path.last().cloned()
        } else {
            path.push(segment.to_string());
            Some(segment.to_string())
        };
        let alias = after
            .strip_prefix("as")
            .filter(|a| a.starts_with(char::is_whitespace))
            .map(|a| {
                let a = a.trim_start();
                &a[..a.find(|c: char| !is_ident_char(c)).unwrap_or(a.len())]
            });
        let binds = match (alias, name) {
            (Some("_"), _) | (None, None) => Binds::Nothing,
            (Some(alias), _) => Binds::Name(alias.to_string()),
            (None, Some(name)) => Binds::Name(name),
        };
        out.push((path, binds));
        return;
    }
}

/// A module's code as the check reads it: `source` with its comments (doc comments too: a
/// documentation link is no import) blanked to spaces, every byte in its place; and its inline
/// modules (`mod x { ... }`), the byte range of each body with its name. The contents of
/// strings are blanked too and character literals stepped over, so no brace, `//` or path in
/// them counts.
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
                    let end = source[body..]
                        .find(&close)
                        .map_or(bytes.len(), |n| body + n);
                    blank(body..end);
                    i = (end + close.len()).min(bytes.len());
                    continue;
                }
            }
            b'"' => {
                i += 1;
                let start = i;
                while i < bytes.len() && bytes[i] != b'"' {
                    i += if bytes[i] == b'\\' { 2 } else { 1 };
                }
                blank(start..i.min(bytes.len()));
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

/// Whether a module's code (comments blanked, unit tests cut) defines nothing: only `mod`
/// and `use` declarations and attributes, as this crate's `lib.rs`. Such a module is a facade
/// that hands names on; a path through it leads to where the name comes from.
fn defines_nothing(code: &str) -> bool {
    let items = [
        "fn",
        "struct",
        "enum",
        "trait",
        "impl",
        "const",
        "static",
        "type",
        "union",
        "macro_rules",
    ];
    let mut uses = Vec::new();
    for w in written_paths(code) {
        if w.binds.is_some() {
            let end = code[w.at..].find(';').map_or(code.len(), |n| w.at + n);
            uses.push(w.at..end);
        }
    }
    code.split(|c: char| !is_ident_char(c))
        .scan(0, |at, word| {
            let start = *at;
            *at += word.len() + 1;
            Some((start, word))
        })
        .all(|(at, word)| !items.contains(&word) || uses.iter().any(|u| u.contains(&at)))
}

/// One crate as the check reads it: its modules (files, and the inline modules in them), which
/// of them are facades, and the names each module's `use` declarations bind.
struct Crate {
    /// Every module (`a::b`, the crate root ``), with the file module it is written in.
    scopes: BTreeMap<String, String>,
    /// File modules that define nothing ([`defines_nothing`]).
    facades: BTreeSet<String>,
    /// Module -> name -> the path its `use` binds it to, as written there.
    bindings: BTreeMap<String, BTreeMap<String, Vec<String>>>,
    /// File module -> the paths written in it, each with the module it is written in.
    written: BTreeMap<String, Vec<(Vec<String>, Written)>>,
}

impl Crate {
    /// `files`: each file's module and source.
    fn read(files: &[(String, String)]) -> Crate {
        let mut krate = Crate {
            scopes: BTreeMap::new(),
            facades: BTreeSet::new(),
            bindings: BTreeMap::new(),
            written: BTreeMap::new(),
        };
        for (module, source) in files {
            let (code, inline) = scan(without_tests(source));
            krate.scopes.insert(module.clone(), module.clone());
            for (range, _) in &inline {
                let scope = scope_at(module, &inline, range.start + 1);
                krate.scopes.insert(scope.join("::"), module.clone());
            }
            if defines_nothing(&code) {
                krate.facades.insert(module.clone());
            }
            let mut written = Vec::new();
            for w in written_paths(&code) {
                let scope = scope_at(module, &inline, w.at);
                if let Some(Binds::Name(name)) = &w.binds {
                    krate
                        .bindings
                        .entry(scope.join("::"))
                        .or_default()
                        .insert(name.clone(), w.segments.clone());
                }
                written.push((scope, w));
            }
            krate.written.insert(module.clone(), written);
        }
        krate
    }

    /// `path`, written in module `scope`, from the crate root: `crate::`, `self::` and
    /// `super::` against `scope`, a first name that is a child module of `scope` or a name a
    /// `use` of `scope` binds through that `use`. `None` for a path from elsewhere (an extern
    /// crate, a local type or variant, `Self`) or above the crate root.
    fn absolute(&self, scope: &[String], path: &[String], depth: usize) -> Option<Vec<String>> {
        if depth > 16 {
            return None;
        }
        let mut base: Option<Vec<String>> = None;
        let mut i = 0;
        while let Some(segment) = path.get(i) {
            match segment.as_str() {
                "crate" if i == 0 => base = Some(Vec::new()),
                "self" if i == 0 => base = Some(scope.to_vec()),
                "super" => {
                    base.get_or_insert_with(|| scope.to_vec()).pop()?;
                }
                _ => break,
            }
            i += 1;
        }
        let base = match base {
            Some(base) => base,
            None => {
                let name = path.first()?;
                let mut child = scope.to_vec();
                child.push(name.clone());
                i = 1;
                if self.scopes.contains_key(&child.join("::")) {
                    child
                } else {
                    let bound = self.bindings.get(&scope.join("::"))?.get(name)?;
                    if bound.len() == 1 && bound[0] == *name {
                        return None;
                    }
                    self.absolute(scope, bound, depth + 1)?
                }
            }
        };
        Some(base.into_iter().chain(path[i..].iter().cloned()).collect())
    }

    /// The module a path from the crate root leads to: the deepest module it names, or, where
    /// it goes on through a name a facade binds, where that name leads. Any other module that
    /// binds a name (a `mod.rs` that re-exports its children's types next to its own code) is
    /// where the path stops: its file is what the importer reads.
    ///
    /// `None` for a name a facade has from where the reading cannot see (a `#[path]` module, a
    /// macro): a facade defines nothing, so the name is not its own.
    fn target(&self, path: &[String], depth: usize) -> Option<String> {
        let mut module: Vec<String> = Vec::new();
        for (i, segment) in path.iter().enumerate() {
            let key = module.join("::");
            module.push(segment.clone());
            if self.scopes.contains_key(&module.join("::")) {
                continue;
            }
            module.pop();
            if !self
                .scopes
                .get(&key)
                .is_some_and(|f| self.facades.contains(f))
            {
                break;
            }
            let bound = self.bindings.get(&key).and_then(|b| b.get(segment))?;
            let mut through = self.absolute(&module, bound, depth + 1)?;
            through.extend(path[i + 1..].iter().cloned());
            return (depth < 16).then(|| self.target(&through, depth + 1))?;
        }
        Some(module.join("::"))
    }

    /// Module -> the modules it imports: the file module every path written in it leads to
    /// ([`Crate::target`]), its own excepted. A parent and its child are modules like any
    /// other: a `use child::X` (or `child::f()`) in the parent is an edge to the child, a
    /// `use super::Y` in the child one to the parent; a `mod child;` alone is none.
    fn edges(&self) -> BTreeMap<String, BTreeSet<String>> {
        let mut edges: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
        for (from, written) in &self.written {
            for (scope, w) in written {
                let Some(to) = self
                    .absolute(scope, &w.segments, 0)
                    .and_then(|path| self.target(&path, 0))
                else {
                    continue;
                };
                let to = &self.scopes[&to];
                if to != from {
                    edges.entry(from.clone()).or_default().insert(to.clone());
                }
            }
        }
        edges
    }
}

/// The module graph of one crate: module -> modules it imports.
fn graph(src: &Path) -> BTreeMap<String, BTreeSet<String>> {
    let mut files = Vec::new();
    rust_files(src, &mut files);
    let sources: Vec<(String, String)> = files
        .iter()
        .map(|f| {
            let source = std::fs::read_to_string(f).expect("readable source");
            (module_of(src, f), source)
        })
        .collect();
    Crate::read(&sources).edges()
}

/// Whether a cycle stays inside one module's subtree (a family's `mod.rs` that dispatches to its
/// kernels, which take shared helpers from it: one room). Such a cycle is not reported; one that leaves the subtree is, parent and child edges and all.
fn one_room(cycle: &[String]) -> bool {
    cycle.iter().any(|top| {
        !top.is_empty()
            && cycle
                .iter()
                .all(|m| m == top || m.starts_with(&format!("{top}::")))
    })
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
        for cycle in cycles(&graph(&src)).into_iter().filter(|c| !one_room(c)) {
            report.push(format!("{}: {}", src.display(), cycle.join(" <-> ")));
        }
    }
    assert!(checked >= 4, "found only {checked} crates under {crates:?}");
    assert!(report.is_empty(), "module cycles:\n{}", report.join("\n"));
}

/// The module cycles of an in-memory crate: `files` are paths under `src/` and sources.
fn cycles_in(files: &[(&str, &str)]) -> Vec<Vec<String>> {
    let src = Path::new("src");
    let files: Vec<(String, String)> = files
        .iter()
        .map(|(path, source)| (module_of(src, &src.join(path)), source.to_string()))
        .collect();
    cycles(&Crate::read(&files).edges())
}

fn strings(v: &[&str]) -> Vec<String> {
    v.iter().map(|s| s.to_string()).collect()
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
    let (code, _) = scan(
        "use crate::algo::sha2::Sha256; x $crate::no::y; use crate::{lanes::Kernel, threads};\n\
         let s = \"crate::in_a_string\"; parsha256::parts::Plan::new(); Self::new();",
    );
    let written = written_paths(&code);
    let read: Vec<(Vec<&str>, Option<Binds>)> = written
        .iter()
        .map(|w| {
            (
                w.segments.iter().map(String::as_str).collect(),
                w.binds.clone(),
            )
        })
        .collect();
    let name = |n: &str| Some(Binds::Name(n.to_string()));
    assert_eq!(
        read,
        vec![
            (vec!["crate", "algo", "sha2", "Sha256"], name("Sha256")),
            (vec!["crate", "lanes", "Kernel"], name("Kernel")),
            (vec!["crate", "threads"], name("threads")),
            (vec!["parsha256", "parts", "Plan", "new"], None),
            (vec!["Self", "new"], None),
        ]
    );
}

#[test]
fn use_trees_are_read_with_their_groups_renames_and_globs() {
    let mut leaves = Vec::new();
    use_leaves(" super::super::consts::K256", Vec::new(), &mut leaves);
    use_leaves(
        " super::{a::{self, B}, c::d::E as F, f::*, g as _}",
        Vec::new(),
        &mut leaves,
    );
    use_leaves(" ::std::fmt", Vec::new(), &mut leaves);
    let name = |n: &str| Binds::Name(n.to_string());
    assert_eq!(
        leaves,
        vec![
            (strings(&["super", "super", "consts", "K256"]), name("K256")),
            (strings(&["super", "a"]), name("a")),
            (strings(&["super", "a", "B"]), name("B")),
            (strings(&["super", "c", "d", "E"]), name("F")),
            (strings(&["super", "f"]), Binds::Glob),
            (strings(&["super", "g"]), Binds::Nothing),
        ]
    );
}

#[test]
fn paths_are_resolved_against_the_module_they_are_written_in() {
    let krate = Crate::read(&[
        (
            String::new(),
            "mod fam;\nmod threads;\npub use threads::Threads;\n".into(),
        ),
        (
            "fam".into(),
            "mod a;\nmod b;\nuse crate::fam as family;\npub struct S;\n".into(),
        ),
        (
            "fam::a".into(),
            "use super::b::X;\nmod inner {\n    // a brace in a comment: {\n    \
             const C: char = '}';\n    const S: &str = \"}\";\n    \
             use super::super::c::Y;\n}\nfn f<'a>() { self::g(); }\n"
                .into(),
        ),
        ("fam::b".into(), "pub struct X;\n".into()),
        ("threads".into(), "pub struct Threads;\n".into()),
    ]);
    let at = |scope: &[&str], path: &[&str]| {
        krate
            .absolute(&strings(scope), &strings(path), 0)
            .and_then(|p| krate.target(&p, 0))
    };
    assert_eq!(
        at(&["fam", "a"], &["super", "b", "X"]),
        Some("fam::b".into())
    );
    assert_eq!(
        at(&["fam", "a", "inner"], &["super", "super", "c", "Y"]),
        Some("fam".into())
    );
    assert_eq!(at(&["fam", "a"], &["self", "g"]), Some("fam::a".into()));
    // An imported module's name leads where it was imported from; a child's name to the child.
    assert_eq!(at(&["fam"], &["family", "b", "X"]), Some("fam::b".into()));
    assert_eq!(at(&["fam"], &["a", "f"]), Some("fam::a".into()));
    // The crate root defines nothing: a name it hands on leads to where it comes from.
    assert_eq!(at(&["fam"], &["crate", "Threads"]), Some("threads".into()));
    // Above the crate root, an extern crate, a local type: nothing.
    assert_eq!(at(&[], &["super", "x"]), None);
    assert_eq!(at(&["fam"], &["std", "fmt", "Debug"]), None);
    assert_eq!(at(&["fam"], &["S", "new"]), None);
    // Comments and strings are no code.
    let (code, _) = scan(
        "//! Forms: [`super::b`], [`crate::c`].\n/* self::d /* super::e */ */\n\
         /// \"quoted\" super::f\nconst URL: &str = \"http://x super::h\"; use super::g;\n",
    );
    let read: Vec<Vec<String>> = written_paths(&code)
        .into_iter()
        .map(|w| w.segments)
        .collect();
    assert_eq!(read, vec![strings(&["super", "g"])]);
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
    // `use self::a::A` in `fam` imports its child; `self::s::t()` in `p::r` calls its child;
    // `mod a;` and `pub mod s;` alone import nothing.
    assert_eq!(edges["fam"], BTreeSet::from(["fam::a".to_string()]));
    assert_eq!(
        edges["p::r"],
        BTreeSet::from(["p::q".to_string(), "p::r::s".to_string()])
    );
    assert!(!edges.contains_key("p") && !edges.contains_key(""));
}

/// The shape this crate once had: the parts API (`parts/mod.rs`) uses the families' plans,
/// which took the shared state types from `crate::parts`, the module that uses them. Each way
/// of writing the two imports is a cycle, and importing the state from a leaf module is none.
#[test]
fn the_check_finds_the_parts_cycle_however_it_is_written() {
    let family = "pub mod parts;\n";
    let shared_state = "pub struct PartState;\npub fn in_order() {}\n";
    let api = |uses_plans: &str| {
        format!("mod state;\npub use state::PartState;\npub(crate) use state::in_order;\n{uses_plans}\n")
    };
    let crate_with = |api: &str, family_plan: &str| -> Vec<Vec<String>> {
        cycles_in(&[
            ("lib.rs", "mod algo;\npub mod parts;\n"),
            ("algo/mod.rs", "pub mod fam;\n"),
            ("algo/fam/mod.rs", family),
            ("algo/fam/parts.rs", family_plan),
            ("parts/mod.rs", api),
            ("parts/state.rs", shared_state),
        ])
    };
    let cycle = vec![strings(&["algo::fam::parts", "parts"])];
    let plan_from_api = "use crate::parts::{in_order, PartState};\npub struct Plan(PartState);\n";
    // The API names the plan through an imported module's name, an alias, `self::`-less
    // child paths and `super::super::`.
    for uses in [
        "use crate::algo::fam;\npub struct Plan(fam::parts::Plan);",
        "use crate::algo as families;\npub struct Plan(families::fam::parts::Plan);",
        "use crate::algo::fam::parts::Plan as FamPlan;\npub struct Plan(FamPlan);",
        "pub struct Plan(crate::algo::fam::parts::Plan);",
    ] {
        assert_eq!(crate_with(&api(uses), plan_from_api), cycle, "{uses}");
    }
    let uses = "use crate::algo::fam;\npub struct Plan(fam::parts::Plan);";
    for plan in [
        "use super::super::super::parts::PartState;\npub struct Plan(PartState);\n",
        "use crate::parts;\npub struct Plan(parts::PartState);\n",
        "pub fn plan() { crate::parts::in_order() }\n",
    ] {
        assert_eq!(crate_with(&api(uses), plan), cycle, "{plan}");
    }
    // The state from its own module: the imports go one way.
    let plan_from_leaf =
        "use crate::parts::state::{in_order, PartState};\npub struct Plan(PartState);\n";
    assert!(crate_with(&api(uses), plan_from_leaf).is_empty());
    // A child that takes a name back from its parent is an edge like any other: inside the
    // parent's room the cycle is the room's own; through a module outside it, it is reported.
    let state_uses_api = "use super::Plan;\npub struct PartState(Plan);\npub fn in_order() {}\n";
    let cycles = cycles_in(&[
        ("lib.rs", "pub mod parts;\n"),
        ("parts/mod.rs", &api("pub struct Plan;")),
        ("parts/state.rs", state_uses_api),
    ]);
    assert_eq!(cycles, vec![strings(&["parts", "parts::state"])]);
    assert!(one_room(&cycles[0]));
    let cycles = cycles_in(&[
        ("lib.rs", "mod algo;\npub mod parts;\n"),
        ("algo/mod.rs", "pub mod fam;\n"),
        ("algo/fam/mod.rs", family),
        ("algo/fam/parts.rs", plan_from_leaf),
        ("parts/mod.rs", &api(uses)),
        ("parts/state.rs", state_uses_api),
    ]);
    assert_eq!(
        cycles,
        vec![strings(&["algo::fam::parts", "parts", "parts::state"])]
    );
    assert!(!one_room(&cycles[0]));
    // A parent that only declares its child imports nothing from it.
    let cycles = cycles_in(&[
        ("lib.rs", "pub mod parts;\n"),
        ("parts/mod.rs", "mod state;\npub struct Plan;\n"),
        ("parts/state.rs", state_uses_api),
    ]);
    assert!(cycles.is_empty());
}
