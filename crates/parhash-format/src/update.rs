//! `sum -r ... -o FILE --update`: an existing list merged with a new walk, both in walk order,
//! so that the result is what a fresh run would write where nothing changed: entries of files
//! still there are kept (their digest is not computed again), files new to the tree are
//! hashed, entries of files gone are dropped.
//!
//! The merge is streaming: it holds one entry of the list, one record of the side file and one
//! name of the walk at a time, so updating a list of 10^7 entries costs memory for a line
//! (about 100 to 300 bytes), not for the list (~1.5 GB of names and lines if it were loaded).
//! Around it: the walk holds the sorted entries of each open directory level (a directory of
//! 10^6 files costs ~100 MB while it is walked, whatever the list), and `sum` lets at most
//! 8,192 kept lines (about 2 MB) wait for the files being hashed between them.

use std::cmp::Ordering;
use std::fmt;
use std::io::{self, BufRead};

use parhash::Algorithm;

use crate::line::LineStyle;
use crate::resume::{own_entry, Records};

/// The order of `sum -r NAME...`: the command line's names in their order, and below each
/// directory, depth first, the entries of each directory sorted by the bytes of their names
/// ([`crate::walk`]); that is, the path below a name compared component by component.
#[derive(Clone, Debug)]
pub struct WalkOrder {
    roots: Vec<Vec<u8>>,
}

impl WalkOrder {
    /// The order of a walk of `roots` (the command line's names, as given).
    pub fn new<I: IntoIterator<Item = Vec<u8>>>(roots: I) -> WalkOrder {
        let roots = roots
            .into_iter()
            .map(|mut root| {
                // `dir/` walks as `dir/NAME`, as `dir` does.
                while root.len() > 1 && root.ends_with(b"/") {
                    root.pop();
                }
                root
            })
            .collect();
        WalkOrder { roots }
    }

    /// Which name of the command line `name` comes from, and its path below it; a name from
    /// none of them sorts after all.
    fn key<'a>(&self, name: &'a [u8]) -> (usize, &'a [u8]) {
        for (index, root) in self.roots.iter().enumerate() {
            if name == root.as_slice() {
                return (index, b"");
            }
            if let Some(rest) = name.strip_prefix(root.as_slice()) {
                if root.ends_with(b"/") {
                    return (index, rest);
                }
                if let Some(below) = rest.strip_prefix(b"/") {
                    return (index, below);
                }
            }
        }
        (self.roots.len(), name)
    }

    /// Compares two names as the walk orders them.
    pub fn cmp(&self, a: &[u8], b: &[u8]) -> Ordering {
        let (root_a, path_a) = self.key(a);
        let (root_b, path_b) = self.key(b);
        root_a
            .cmp(&root_b)
            .then_with(|| components(path_a).cmp(components(path_b)))
    }
}

/// The components of a path below a walked name.
fn components(path: &[u8]) -> std::slice::Split<'_, u8, impl FnMut(&u8) -> bool> {
    path.split(|&byte| byte == b'/')
}

/// One entry of the list being updated.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ListEntry {
    /// The file's name.
    pub name: Vec<u8>,
    /// Its record, exactly as in the list (terminator included), written again as it is.
    pub record: Vec<u8>,
    /// Its line number (from 1).
    pub line: u64,
}

/// Why a list cannot be updated.
#[derive(Debug)]
pub enum UpdateError {
    /// Reading it failed.
    Io(io::Error),
    /// Line `line` is not a line of this algorithm and style.
    Foreign {
        /// Its number.
        line: u64,
    },
    /// Line `line` is out of the walk's order (or repeats a name).
    Unordered {
        /// Its number.
        line: u64,
    },
}

impl fmt::Display for UpdateError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            UpdateError::Io(err) => f.write_str(&crate::error_text(err)),
            UpdateError::Foreign { line } => write!(
                f,
                "line {line} is not a line of this algorithm and output style; \
                 not a list this command line writes"
            ),
            UpdateError::Unordered { line } => write!(
                f,
                "line {line} is out of this command line's walk order; \
                 not a list this command line writes"
            ),
        }
    }
}

impl std::error::Error for UpdateError {}

impl From<io::Error> for UpdateError {
    fn from(err: io::Error) -> UpdateError {
        UpdateError::Io(err)
    }
}

/// The entries of a list `sum -a algorithm` wrote in `style`, checked to be in walk order.
/// A torn or unreadable last line and `--json` error records are passed over (their files
/// are hashed again, as new ones).
pub struct ListEntries<R: BufRead> {
    records: std::iter::Peekable<Records<R>>,
    algorithm: Algorithm,
    style: LineStyle,
    order: WalkOrder,
    previous: Option<Vec<u8>>,
    line: u64,
}

impl<R: BufRead> ListEntries<R> {
    /// The entries of the list in `reader`.
    pub fn new(
        reader: R,
        algorithm: Algorithm,
        style: LineStyle,
        order: WalkOrder,
    ) -> ListEntries<R> {
        let terminator = if style.zero { b'\0' } else { b'\n' };
        ListEntries {
            records: Records::new(reader, terminator).peekable(),
            algorithm,
            style,
            order,
            previous: None,
            line: 0,
        }
    }

    fn next_entry(&mut self) -> Result<Option<ListEntry>, UpdateError> {
        loop {
            let Some(record) = self.records.next().transpose()? else {
                return Ok(None);
            };
            self.line += 1;
            let last = self.records.peek().is_none();
            let entry = own_entry(&record.bytes, self.algorithm, self.style);
            let Some(entry) = entry.filter(|_| record.complete) else {
                let failure = self.style.json && crate::resume::is_json_failure(&record.bytes);
                if last || failure {
                    continue;
                }
                return Err(UpdateError::Foreign { line: self.line });
            };
            if let Some(previous) = &self.previous {
                if self.order.cmp(previous, &entry.name) != Ordering::Less {
                    return Err(UpdateError::Unordered { line: self.line });
                }
            }
            self.previous = Some(entry.name.clone());
            return Ok(Some(ListEntry {
                name: entry.name,
                record: record.bytes,
                line: self.line,
            }));
        }
    }
}

impl<R: BufRead> Iterator for ListEntries<R> {
    type Item = Result<ListEntry, UpdateError>;

    fn next(&mut self) -> Option<Self::Item> {
        self.next_entry().transpose()
    }
}

/// One step of the merge of a list and a walk.
#[derive(Debug, PartialEq, Eq)]
pub enum Merged<W> {
    /// The file is in both: keep the entry (or hash the file again if it changed).
    Both(ListEntry, W),
    /// A file the list does not have: hash it.
    New(W),
    /// An entry whose file the walk no longer has: drop it.
    Gone(ListEntry),
}

/// The merge of a list's entries and a walk, in walk order.
pub struct Merge<L: Iterator, W: Iterator, F> {
    list: std::iter::Peekable<L>,
    walk: std::iter::Peekable<W>,
    order: WalkOrder,
    name_of: F,
}

impl<L, W, F> Merge<L, W, F>
where
    L: Iterator<Item = Result<ListEntry, UpdateError>>,
    W: Iterator,
    F: Fn(&W::Item) -> &[u8],
{
    /// Merges `list` and `walk` (whose items are named by `name_of`).
    pub fn new(list: L, walk: W, order: WalkOrder, name_of: F) -> Merge<L, W, F> {
        Merge {
            list: list.peekable(),
            walk: walk.peekable(),
            order,
            name_of,
        }
    }
}

impl<L, W, F> Iterator for Merge<L, W, F>
where
    L: Iterator<Item = Result<ListEntry, UpdateError>>,
    W: Iterator,
    F: Fn(&W::Item) -> &[u8],
{
    type Item = Result<Merged<W::Item>, UpdateError>;

    fn next(&mut self) -> Option<Self::Item> {
        let entry = match self.list.peek() {
            Some(Err(_)) => return self.list.next().map(|failed| failed.map(Merged::Gone)),
            Some(Ok(entry)) => Some(entry),
            None => None,
        };
        let walked = self.walk.peek();
        let ordering = match (entry, walked) {
            (None, None) => return None,
            (Some(_), None) => Ordering::Less,
            (None, Some(_)) => Ordering::Greater,
            (Some(entry), Some(walked)) => self.order.cmp(&entry.name, (self.name_of)(walked)),
        };
        let step = match ordering {
            Ordering::Less => Merged::Gone(self.list.next()?.ok()?),
            Ordering::Greater => Merged::New(self.walk.next()?),
            Ordering::Equal => Merged::Both(self.list.next()?.ok()?, self.walk.next()?),
        };
        Some(Ok(step))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::line::write_line;

    #[test]
    fn walk_order_compares_components() {
        let order = WalkOrder::new([b"d".to_vec(), b"top/".to_vec(), b"file".to_vec()]);
        // Component order: `a/b` comes before `a.x` (a directory's entries before its next
        // sibling), unlike plain byte order.
        assert_eq!(order.cmp(b"d/a/b", b"d/a.x"), Ordering::Less);
        assert_eq!(order.cmp(b"d/z", b"top/a"), Ordering::Less);
        assert_eq!(order.cmp(b"top/a", b"file"), Ordering::Less);
        assert_eq!(order.cmp(b"file", b"elsewhere"), Ordering::Less);
        assert_eq!(order.cmp(b"d/B", b"d/a"), Ordering::Less);
        assert_eq!(order.cmp(b"d/a", b"d/a"), Ordering::Equal);
        // `d` itself against a name that merely starts with it.
        assert_eq!(order.cmp(b"dx/a", b"d/a"), Ordering::Greater);
    }

    #[test]
    fn walk_order_matches_the_walk() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        for d in ["a", "a/b", "a.x", "B", "c-d", "c"] {
            std::fs::create_dir(root.join(d)).unwrap();
        }
        for f in [
            "a/b/1", "a/b.1", "a/2", "a.x/3", "B/4", "c/5", "c-d/6", "a0", "\u{e9}",
        ] {
            std::fs::write(root.join(f), f).unwrap();
        }
        let names: Vec<Vec<u8>> = crate::walk::Walk::new(root.to_path_buf())
            .map(|entry| match entry {
                crate::walk::Entry::File(path) => path.into_os_string().into_encoded_bytes(),
                crate::walk::Entry::Unreadable(path, err) => panic!("{}: {err}", path.display()),
            })
            .collect();
        let order = WalkOrder::new([root.as_os_str().as_encoded_bytes().to_vec()]);
        let mut sorted = names.clone();
        sorted.sort_by(|a, b| order.cmp(a, b));
        assert_eq!(sorted, names);
    }

    fn list(names: &[&str]) -> Vec<u8> {
        let mut out = Vec::new();
        for name in names {
            let digest = parhash::hash(Algorithm::Md5, name.as_bytes());
            write_line(
                &mut out,
                Algorithm::Md5,
                &digest,
                name.as_bytes(),
                LineStyle::default(),
            );
        }
        out
    }

    fn entries(text: &[u8]) -> ListEntries<&[u8]> {
        let order = WalkOrder::new([b"d".to_vec()]);
        ListEntries::new(text, Algorithm::Md5, LineStyle::default(), order)
    }

    #[test]
    fn merge_keeps_adds_and_drops() {
        let text = list(&["d/a", "d/b", "d/c/x", "d/e"]);
        let walk = ["d/a", "d/b.new", "d/c/x", "d/c/y", "d/f"];
        let order = WalkOrder::new([b"d".to_vec()]);
        let steps: Vec<String> =
            Merge::new(entries(&text), walk.into_iter(), order, |w| w.as_bytes())
                .map(|step| match step.unwrap() {
                    Merged::Both(entry, walked) => {
                        assert_eq!(entry.name, walked.as_bytes());
                        format!("keep {walked}")
                    }
                    Merged::New(walked) => format!("new {walked}"),
                    Merged::Gone(entry) => format!("gone {}", String::from_utf8_lossy(&entry.name)),
                })
                .collect();
        assert_eq!(
            steps,
            [
                "keep d/a",
                "gone d/b",
                "new d/b.new",
                "keep d/c/x",
                "new d/c/y",
                "gone d/e",
                "new d/f"
            ]
        );
    }

    #[test]
    fn unordered_and_foreign_lists_are_refused() {
        let text = list(&["d/b", "d/a"]);
        let err = entries(&text).collect::<Result<Vec<_>, _>>().unwrap_err();
        assert!(matches!(err, UpdateError::Unordered { line: 2 }), "{err}");
        let mut text = list(&["d/a"]);
        text.extend_from_slice(b"not a checksum line\n");
        text.extend(list(&["d/b"]));
        let err = entries(&text).collect::<Result<Vec<_>, _>>().unwrap_err();
        assert!(matches!(err, UpdateError::Foreign { line: 2 }), "{err}");
        // A torn last line is passed over: its file is hashed as a new one.
        let mut text = list(&["d/a", "d/b"]);
        text.pop();
        let names: Vec<Vec<u8>> = entries(&text).map(|e| e.unwrap().name).collect();
        assert_eq!(names, [b"d/a".to_vec()]);
    }
}
