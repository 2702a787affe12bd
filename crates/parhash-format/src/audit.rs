//! `check --audit`: a checksum list against the tree it describes. Every file gets one
//! verdict: matched, changed, missing, new, moved or unreadable, with the names that share its
//! content (duplicates, in the list and on disk).
//!
//! Pure: the caller reads the list ([`Auditor::listed`]), walks and hashes the tree
//! ([`Auditor::found`]), and says whether a name outside an audited subset exists (the
//! `exists` of [`Auditor::finish`]); nothing here opens a file.
//!
//! # Rules
//!
//! Names compare after leading `./` are dropped (`./a/b` and `a/b` are one file).
//!
//! 1. **Exact names first.** A file found under a listed name is `matched` (same digest) or
//!    `changed`, whatever other names share its digest: a duplicate never turns into missing
//!    or moved (hashdeep's audit bug). A listed name that could not be read is `unreadable`.
//! 2. **Moves.** The listed names not found (in the audited subset) and the files found that
//!    the list does not name are grouped by digest; in each group the listed names, in byte
//!    order (of the [`normalized`] names), are paired one to one with the new names, in byte
//!    order: each pair is one
//!    `moved` verdict (the new name, `from` the listed one). A subset audit also pairs a new
//!    file with a listed name *outside* the subset, but only once the subset's own are used
//!    and only if `exists` says that name is gone (a copy of a file still in place is new).
//! 3. **The rest.** Listed names left over are `missing`; files left over are `new`.
//! 4. **Duplicates.** The names holding one digest, in the list and/or on disk, form a
//!    [`Group`]; every verdict says which group holds its digest (its file's digest; for a
//!    missing name, the listed one) and how many of the group's names are its `copies` (the
//!    group less its own name and a moved file's `from`), and the report lists each group once,
//!    every name saying whether it is listed and whether it is on disk with that content. So
//!    the report grows with the number of names, however many share a digest (a list of every
//!    verdict's copies would grow with its square). A missing name whose content is still in
//!    the tree under another name stays `missing` (the name is gone, and `check` of the list
//!    fails on it too), and the summary counts it apart: `missing` is data lost only when no
//!    copy is on disk.
//!
//! The verdicts come listed names first, in the order of their names ([`walk_order`]), then the
//! files only found, in the order they were found.
//!
//! # Memory
//!
//! The list is kept whole, packed: each entry's name and digest in two byte arenas, an 8-byte
//! name offset and a 1-byte state (plus a 4-byte sort index when the list is not already in
//! [`walk_order`], as `sum -r` writes it). A file found under a listed name costs nothing more
//! (its digest is compared and dropped; the list is merged with the walk, one comparison a
//! file where both are in walk order); only files not matched (changed, new, unreadable) are
//! stored, as list entries are. The moves and duplicates pass sorts a 4-byte reference per
//! entry by digest then name, and keeps 40 bytes for each digest that several names hold
//! (its [`Group`]: where it starts, how many names, the first few of them). So an audit holds `name + digest + 13` bytes per list entry, plus the
//! arenas' growth slack: measured 75 bytes an entry at 10^6 entries with 15-byte names and
//! sha256 (BENCHMARKS.md, `check --audit`); with 60-byte names 110, **1.05 GB for 10^7
//! entries** (measured by `examples/audit_memory.rs`), plus as much again for each file not
//! matched. Nothing is spilled to disk (at 10^7 the index is smaller than the list file it
//! indexes); at most [`MAX_ENTRIES`] a side.

use std::cmp::Ordering;
use std::io;

use crate::escape;

/// What became of one file.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Status {
    /// Listed, and on disk with the listed digest.
    Matched,
    /// Listed, and on disk with another digest.
    Changed,
    /// Listed, and neither on disk nor paired with a new file of its digest.
    Missing,
    /// On disk and not listed, and not paired with a missing name.
    New,
    /// On disk under a name the list does not have, paired with a listed name gone from disk
    /// that had the same digest.
    Moved,
    /// On disk but could not be read (listed or not).
    Unreadable,
}

impl Status {
    /// The word `--json` writes (`"matched"`, ...).
    pub fn name(self) -> &'static str {
        match self {
            Status::Matched => "matched",
            Status::Changed => "changed",
            Status::Missing => "missing",
            Status::New => "new",
            Status::Moved => "moved",
            Status::Unreadable => "unreadable",
        }
    }
}

/// A name holding a group's digest.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Duplicate {
    /// The name (as the list or the walk has it).
    pub name: Vec<u8>,
    /// The list names it (with this digest, or, for a changed file, with its old one).
    pub listed: bool,
    /// It is on disk with this digest; `None` for a listed name outside the audited subset
    /// (not looked at).
    pub on_disk: Option<bool>,
}

/// The names holding one digest, when there are several ([`Report::groups`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Group {
    /// Its number: the groups are numbered from 0 in the order the verdicts first name them.
    pub id: u64,
    /// The digest they hold.
    pub digest: Vec<u8>,
    /// Every name holding it, each once, in byte order (of the [`normalized`] names).
    pub names: Vec<Duplicate>,
}

/// The other names holding a verdict's digest: its [`Group`] less its own name and a moved
/// file's `from`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Copies {
    /// The [`Group::id`].
    pub group: u64,
    /// How many names (at least one).
    pub count: u64,
    /// Whether one of them is on disk with this content.
    pub on_disk: bool,
    /// The one a report line names: the first on disk, or else the first, in byte order.
    pub shown: Vec<u8>,
}

/// One file's verdict.
#[derive(Debug)]
pub struct Verdict {
    /// What became of it.
    pub status: Status,
    /// Its name: the listed one for matched, changed, missing and listed unreadable files,
    /// the one on disk for new, moved and other unreadable files.
    pub name: Vec<u8>,
    /// For a moved file, the listed name it was paired with.
    pub from: Option<Vec<u8>>,
    /// The digest the list has (none for new files).
    pub expected: Option<Vec<u8>>,
    /// The digest of the file on disk (none for missing and unreadable files).
    pub actual: Option<Vec<u8>>,
    /// Why an unreadable file could not be read.
    pub error: Option<io::Error>,
    /// The other names with the same digest; `None` when none (and for unreadable files).
    pub copies: Option<Copies>,
}

impl Verdict {
    /// A missing name whose content is still on disk under another name.
    pub fn content_elsewhere(&self) -> bool {
        self.status == Status::Missing && self.copies.as_ref().is_some_and(|c| c.on_disk)
    }
}

/// How many files got each status.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Tally {
    /// [`Status::Matched`].
    pub matched: u64,
    /// [`Status::Changed`].
    pub changed: u64,
    /// [`Status::Missing`].
    pub missing: u64,
    /// Of the missing, those whose content is still on disk under another name.
    pub missing_with_copy: u64,
    /// [`Status::New`].
    pub new: u64,
    /// [`Status::Moved`].
    pub moved: u64,
    /// [`Status::Unreadable`].
    pub unreadable: u64,
    /// Verdicts (of any status) whose digest other names share.
    pub duplicates: u64,
}

impl Tally {
    /// Nothing but matched files (the audit's exit status 0).
    pub fn passed(&self) -> bool {
        self.changed + self.missing + self.new + self.moved + self.unreadable == 0
    }

    /// Counts one verdict.
    pub fn count(&mut self, verdict: &Verdict) {
        let counter = match verdict.status {
            Status::Matched => &mut self.matched,
            Status::Changed => &mut self.changed,
            Status::Missing => &mut self.missing,
            Status::New => &mut self.new,
            Status::Moved => &mut self.moved,
            Status::Unreadable => &mut self.unreadable,
        };
        *counter += 1;
        self.missing_with_copy += u64::from(verdict.content_elsewhere());
        self.duplicates += u64::from(verdict.copies.is_some());
    }
}

/// `name` without its leading `./` (and `.//`...): how names compare.
pub fn normalized(mut name: &[u8]) -> &[u8] {
    while let Some(rest) = name.strip_prefix(b"./") {
        name = rest.strip_prefix(b"/").map_or(rest, |r| {
            let mut r = r;
            while let Some(more) = r.strip_prefix(b"/") {
                r = more;
            }
            r
        });
    }
    name
}

/// The order of `sum -r`'s walk: names compared component by component (a `/` sorts before
/// every other byte), after [`normalized`].
pub fn walk_order(a: &[u8], b: &[u8]) -> Ordering {
    let (a, b) = (normalized(a), normalized(b));
    match a.iter().zip(b).position(|(x, y)| x != y) {
        Some(at) => {
            let key = |byte: u8| (byte != b'/', byte);
            key(a[at]).cmp(&key(b[at]))
        }
        None => a.len().cmp(&b.len()),
    }
}

/// Whether `name` is `root` or below it (`root` `.` or empty: every relative name).
pub fn is_under(name: &[u8], root: &[u8]) -> bool {
    let name = normalized(name);
    let mut root = normalized(root);
    while let Some(r) = root.strip_suffix(b"/").filter(|r| !r.is_empty()) {
        root = r;
    }
    if root == b"." || root.is_empty() {
        return !name.starts_with(b"/");
    }
    match name.strip_prefix(root) {
        Some(rest) => rest.is_empty() || rest.starts_with(b"/") || root.ends_with(b"/"),
        None => false,
    }
}

/// Names and digests packed in two arenas.
#[derive(Default)]
struct Packed {
    names: Vec<u8>,
    /// Where each name ends in `names`.
    name_ends: Vec<usize>,
    /// Fixed-width digests, `width` bytes each (empty for an unreadable file).
    digests: Vec<u8>,
    width: usize,
}

impl Packed {
    fn push(&mut self, name: &[u8], digest: Option<&[u8]>) {
        self.names.extend_from_slice(name);
        self.name_ends.push(self.names.len());
        match digest {
            Some(digest) => self.digests.extend_from_slice(digest),
            None => self.digests.resize(self.digests.len() + self.width, 0),
        }
    }

    fn len(&self) -> usize {
        self.name_ends.len()
    }

    fn name(&self, at: usize) -> &[u8] {
        let start = if at == 0 { 0 } else { self.name_ends[at - 1] };
        &self.names[start..self.name_ends[at]]
    }

    fn digest(&self, at: usize) -> &[u8] {
        &self.digests[at * self.width..(at + 1) * self.width]
    }
}

/// What the walk made of a listed entry so far.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Listed {
    /// Not found (yet).
    Unseen,
    /// Unseen, and outside the audited subset: never missing.
    Outside,
    Matched,
    /// Found with another digest or unreadable: the found entry holds the rest.
    Found(FoundAs),
    /// Paired with a new file.
    MovedAway,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum FoundAs {
    Changed,
    Unreadable,
}

/// A file found that is not a match.
#[derive(Debug)]
enum Found {
    Changed,
    Unreadable {
        listed: Option<usize>,
        error: usize,
    },
    New,
    /// New, paired with this listed entry.
    Moved {
        from: usize,
    },
}

/// The audit of one list: fed the list's entries and the walk's files, in any order.
pub struct Auditor {
    listed: Packed,
    listed_state: Vec<Listed>,
    /// `listed` in [`walk_order`] by name, or `None` while it is in that order already.
    order: Option<Vec<u32>>,
    found: Packed,
    found_as: Vec<Found>,
    errors: Vec<io::Error>,
    /// For a listed entry found changed or unreadable: its found entry.
    found_of: std::collections::HashMap<usize, usize>,
    sealed: bool,
    /// The rank after the listed entries last found (see `listed_named`).
    next_rank: usize,
}

impl Auditor {
    /// An audit of a list whose digests are all `digest_len` bytes long.
    pub fn new(digest_len: usize) -> Auditor {
        Auditor {
            listed: Packed {
                width: digest_len,
                ..Packed::default()
            },
            listed_state: Vec::new(),
            order: None,
            found: Packed {
                width: digest_len,
                ..Packed::default()
            },
            found_as: Vec::new(),
            errors: Vec::new(),
            found_of: std::collections::HashMap::new(),
            sealed: false,
            next_rank: 0,
        }
    }

    /// One entry of the list (every entry before the first [`Auditor::found`]). `in_subset`:
    /// it lies in the audited part of the tree ([`is_under`] one of its roots), so it can be
    /// missing. A digest of the wrong length is refused (`InvalidInput`).
    pub fn listed(&mut self, name: &[u8], digest: &[u8], in_subset: bool) -> io::Result<()> {
        if digest.len() != self.listed.width || self.sealed {
            return Err(io::Error::new(
                io::ErrorKind::InvalidInput,
                "an audit needs one algorithm and digest length for the whole list",
            ));
        }
        if self.listed.len() >= MAX_ENTRIES {
            return Err(too_many());
        }
        let at = self.listed.len();
        if self.order.is_none()
            && at > 0
            && walk_order(self.listed.name(at - 1), name) == Ordering::Greater
        {
            self.order = Some((0..at).map(|at| at as u32).collect());
        }
        self.listed.push(name, Some(digest));
        self.listed_state.push(if in_subset {
            Listed::Unseen
        } else {
            Listed::Outside
        });
        if let Some(order) = &mut self.order {
            order.push(at as u32);
        }
        Ok(())
    }

    /// Sorts the list once its last entry is in.
    fn seal(&mut self) {
        if self.sealed {
            return;
        }
        self.sealed = true;
        if let Some(order) = &mut self.order {
            let listed = &self.listed;
            order.sort_by(|&a, &b| {
                walk_order(listed.name(a as usize), listed.name(b as usize)).then(a.cmp(&b))
            });
        }
    }

    fn listed_at(&self, rank: usize) -> usize {
        self.order
            .as_ref()
            .map_or(rank, |order| order[rank] as usize)
    }

    /// The ranks of the listed entries named `name` (usually one; a list may repeat a name).
    /// The walk comes in the order the list is sorted in, so the entry after the last one
    /// found is tried first: a merge, one comparison a file, where the walk and list agree.
    fn listed_named(&mut self, name: &[u8]) -> std::ops::Range<usize> {
        let len = self.listed.len();
        let next = self.next_rank;
        if next < len && walk_order(self.listed.name(self.listed_at(next)), name) == Ordering::Equal
        {
            let mut end = next + 1;
            while end < len
                && walk_order(self.listed.name(self.listed_at(end)), name) == Ordering::Equal
            {
                end += 1;
            }
            self.next_rank = end;
            return next..end;
        }
        let first = partition(len, |rank| {
            walk_order(self.listed.name(self.listed_at(rank)), name) == Ordering::Less
        });
        let end = partition(len, |rank| {
            walk_order(self.listed.name(self.listed_at(rank)), name) != Ordering::Greater
        });
        self.next_rank = end.max(first);
        first..end.max(first)
    }

    /// One file of the walk: its digest, or why it could not be read. Fails only past
    /// [`MAX_ENTRIES`] files that are not matched.
    pub fn found(&mut self, name: &[u8], outcome: Result<&[u8], io::Error>) -> io::Result<()> {
        self.seal();
        if self.found.len() >= MAX_ENTRIES {
            return Err(too_many());
        }
        let ranks = self.listed_named(name);
        let listed: Vec<usize> = ranks.map(|rank| self.listed_at(rank)).collect();
        match outcome {
            Ok(digest) => {
                let mut any_changed = None;
                for &at in &listed {
                    if self.listed.digest(at) == digest {
                        self.listed_state[at] = Listed::Matched;
                    } else {
                        self.listed_state[at] = Listed::Found(FoundAs::Changed);
                        any_changed.get_or_insert(at);
                    }
                }
                let kind = match (listed.is_empty(), any_changed) {
                    (true, _) => Found::New,
                    (false, Some(_)) => Found::Changed,
                    (false, None) => return Ok(()),
                };
                for &at in &listed {
                    if self.listed_state[at] == Listed::Found(FoundAs::Changed) {
                        self.found_of.insert(at, self.found.len());
                    }
                }
                self.found.push(name, Some(digest));
                self.found_as.push(kind);
            }
            Err(error) => {
                for &at in &listed {
                    self.listed_state[at] = Listed::Found(FoundAs::Unreadable);
                    self.found_of.insert(at, self.found.len());
                }
                self.errors.push(error);
                self.found.push(name, None);
                self.found_as.push(Found::Unreadable {
                    listed: listed.first().copied(),
                    error: self.errors.len() - 1,
                });
            }
        }
        Ok(())
    }

    /// Pairs the moves, finds the duplicates and hands the verdicts on. `exists(name)` is
    /// asked only in a subset audit, of a listed name outside the subset whose digest a new
    /// file has: whether a file of that name is still there.
    pub fn finish(mut self, mut exists: impl FnMut(&[u8]) -> bool) -> Report {
        self.seal();
        let mut by_digest: Vec<PackedRef> = (0..self.listed.len())
            .map(Ref::Listed)
            .chain(
                (0..self.found.len())
                    .filter(|&at| matches!(self.found_as[at], Found::New | Found::Changed))
                    .map(Ref::Found),
            )
            .map(PackedRef::new)
            .collect();
        // Entries of one name lie side by side in their digest's span; the reference last
        // keeps the order whole (listed before found, each in its own order).
        by_digest.sort_unstable_by(|a, b| {
            let (ra, rb) = (a.get(), b.get());
            self.digest(ra)
                .cmp(self.digest(rb))
                .then_with(|| normalized(self.name(ra)).cmp(normalized(self.name(rb))))
                .then(a.0.cmp(&b.0))
        });
        let mut spans = Vec::new();
        let mut start = 0;
        while start < by_digest.len() {
            let digest = self.digest(by_digest[start].get());
            let len = by_digest[start..].partition_point(|r| self.digest(r.get()) == digest);
            if len > 1 {
                self.pair(&by_digest[start..start + len], &mut exists);
                spans.push((start, len));
            }
            start += len;
        }
        let mut report = Report {
            audit: self,
            by_digest,
            groups: Vec::new(),
            errors: Vec::new(),
            next_group: 0,
        };
        // After the pairing: a name's state is final.
        for (start, len) in spans {
            if let Some(group) = report.group_at(start, len) {
                report.groups.push(group);
            }
        }
        report.errors = std::mem::take(&mut report.audit.errors)
            .into_iter()
            .map(Some)
            .collect();
        report
    }

    /// Pairs the missing listed names of one digest's group with its new files, in name
    /// order (the group is sorted by name): the subset's names first, then the gone ones
    /// outside it.
    fn pair(&mut self, group: &[PackedRef], exists: &mut impl FnMut(&[u8]) -> bool) {
        let new: Vec<usize> = group
            .iter()
            .filter_map(|r| match r.get() {
                Ref::Found(at) if matches!(self.found_as[at], Found::New) => Some(at),
                _ => None,
            })
            .collect();
        if new.is_empty() {
            return;
        }
        let state = |r: &PackedRef, want: Listed| matches!(r.get(), Ref::Listed(at) if self.listed_state[at] == want);
        let inside = group.iter().filter(|r| state(r, Listed::Unseen));
        let outside = group.iter().filter(|r| state(r, Listed::Outside));
        let mut sources: Vec<usize> = inside.map(|r| r.get().index()).take(new.len()).collect();
        for r in outside {
            if sources.len() == new.len() {
                break;
            }
            if !exists(self.listed.name(r.get().index())) {
                sources.push(r.get().index());
            }
        }
        for (&found, from) in new.iter().zip(sources) {
            self.found_as[found] = Found::Moved { from };
            self.listed_state[from] = Listed::MovedAway;
        }
    }

    fn digest(&self, r: Ref) -> &[u8] {
        match r {
            Ref::Listed(at) => self.listed.digest(at),
            Ref::Found(at) => self.found.digest(at),
        }
    }

    fn name(&self, r: Ref) -> &[u8] {
        match r {
            Ref::Listed(at) => self.listed.name(at),
            Ref::Found(at) => self.found.name(at),
        }
    }

    /// Whether the file a reference names is on disk with its digest (`None`: not looked at).
    fn on_disk(&self, r: Ref) -> Option<bool> {
        match r {
            Ref::Listed(at) => match self.listed_state[at] {
                Listed::Matched => Some(true),
                Listed::Outside => None,
                _ => Some(false),
            },
            Ref::Found(_) => Some(true),
        }
    }
}

/// The most entries a list, and files not matched, an audit takes (2^31 - 1 each: the index by
/// digest packs a reference in 4 bytes).
pub const MAX_ENTRIES: usize = (1 << 31) - 1;

fn too_many() -> io::Error {
    io::Error::new(
        io::ErrorKind::OutOfMemory,
        "more than 2^31 - 1 entries for one audit",
    )
}

/// An entry of the list or of the walk.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Ref {
    Listed(usize),
    Found(usize),
}

impl Ref {
    fn index(self) -> usize {
        match self {
            Ref::Listed(at) | Ref::Found(at) => at,
        }
    }
}

/// A [`Ref`] in 4 bytes (the top bit: found), for the index of every entry by digest.
#[derive(Clone, Copy, Debug)]
struct PackedRef(u32);

impl PackedRef {
    const FOUND: u32 = 1 << 31;

    fn new(r: Ref) -> PackedRef {
        let at = u32::try_from(r.index())
            .ok()
            .filter(|&at| at < PackedRef::FOUND)
            .expect("listed and found stop at MAX_ENTRIES");
        PackedRef(match r {
            Ref::Listed(_) => at,
            Ref::Found(_) => at | PackedRef::FOUND,
        })
    }

    fn get(self) -> Ref {
        let at = (self.0 & !PackedRef::FOUND) as usize;
        match self.0 & PackedRef::FOUND {
            0 => Ref::Listed(at),
            _ => Ref::Found(at),
        }
    }
}

/// The first rank in `0..len` for which `before` is false (`before` true, then false).
fn partition(len: usize, before: impl Fn(usize) -> bool) -> usize {
    let (mut low, mut high) = (0, len);
    while low < high {
        let mid = low + (high - low) / 2;
        if before(mid) {
            low = mid + 1;
        } else {
            high = mid;
        }
    }
    low
}

/// A finished audit: its verdicts, one at a time ([`Report::verdicts`]), then the groups of
/// names sharing a digest that they name ([`Report::groups`]).
pub struct Report {
    audit: Auditor,
    /// Every listed entry and every changed or new file, by digest then name.
    by_digest: Vec<PackedRef>,
    /// The digests that several names hold, in `by_digest` order.
    groups: Vec<Span>,
    /// Why each unreadable file could not be read, until its verdict takes it.
    errors: Vec<Option<io::Error>>,
    /// The [`Group::id`] the next group a verdict names gets.
    next_group: u32,
}

/// No entry: the end of a [`Span`]'s short lists.
const NONE: u32 = u32::MAX;

/// Where one group of names sharing a digest lies in `by_digest`, and what a verdict asks of
/// it without walking it (a walk per verdict is what made huge groups cost their square): its
/// size and its first names, on disk or not. A verdict's copies leave out at most two names
/// (its own and its `from`), so three of each are enough.
struct Span {
    start: u32,
    len: u32,
    /// How many names (entries of one [`normalized`] name are one).
    names: u32,
    /// The first entry of each of the first three names.
    first: [u32; 3],
    /// The same, of the first three names on disk with the digest.
    first_on_disk: [u32; 3],
    /// Its [`Group::id`], once a verdict names it; [`NONE`] until then.
    id: u32,
}

impl Report {
    /// The [`Span`] of the entries `start..start + len` (one digest), if they hold two names
    /// or more.
    fn group_at(&self, start: usize, len: usize) -> Option<Span> {
        let mut span = Span {
            start: start as u32,
            len: len as u32,
            names: 0,
            first: [NONE; 3],
            first_on_disk: [NONE; 3],
            id: NONE,
        };
        let mut on_disk = 0;
        self.for_each_name(start, len, |at, copy| {
            if let Some(slot) = span.first.get_mut(span.names as usize) {
                *slot = at as u32;
            }
            span.names += 1;
            if copy.on_disk == Some(true) {
                if let Some(slot) = span.first_on_disk.get_mut(on_disk) {
                    *slot = at as u32;
                }
                on_disk += 1;
            }
        });
        (span.names > 1).then_some(span)
    }

    /// Calls `each(first entry, name)` for each name among the entries `start..start + len`
    /// of `by_digest`, in order: the entries of one name merged (a file both listed and found
    /// with this digest is one name).
    fn for_each_name(&self, start: usize, len: usize, mut each: impl FnMut(usize, Duplicate)) {
        let audit = &self.audit;
        let mut at = start;
        while at < start + len {
            let first = self.by_digest[at].get();
            let name = normalized(audit.name(first));
            let mut copy = Duplicate {
                name: Vec::new(),
                listed: false,
                on_disk: None,
            };
            let mut end = at;
            while end < start + len {
                let r = self.by_digest[end].get();
                if normalized(audit.name(r)) != name {
                    break;
                }
                copy.listed |= match r {
                    Ref::Listed(_) => true,
                    Ref::Found(at) => matches!(audit.found_as[at], Found::Changed),
                };
                copy.on_disk = copy.on_disk.max(audit.on_disk(r));
                end += 1;
            }
            copy.name = audit.name(first).to_vec();
            each(at, copy);
            at = end;
        }
    }

    /// Every verdict: the listed names in [`walk_order`] (outside the subset only when
    /// moved, as the new name), then the files only on disk in the order found.
    pub fn verdicts(&mut self) -> impl Iterator<Item = Verdict> + '_ {
        let listed_len = self.audit.listed.len();
        let found_len = self.audit.found.len();
        (0..listed_len)
            .map(Ref::Listed)
            .chain((0..found_len).map(Ref::Found))
            .filter_map(move |r| self.verdict(r))
    }

    /// The groups of names sharing a digest that the verdicts named, in the order of their
    /// [`Group::id`]s (each once; call after [`Report::verdicts`]).
    pub fn groups(&self) -> impl Iterator<Item = Group> + '_ {
        let mut named: Vec<&Span> = self.groups.iter().filter(|g| g.id != NONE).collect();
        named.sort_unstable_by_key(|g| g.id);
        named.into_iter().map(|span| {
            let mut names = Vec::new();
            self.for_each_name(span.start as usize, span.len as usize, |_, copy| {
                names.push(copy)
            });
            let first = self.by_digest[span.start as usize].get();
            Group {
                id: u64::from(span.id),
                digest: self.audit.digest(first).to_vec(),
                names,
            }
        })
    }

    /// The verdicts, their tally and the groups they name, all at once (for tests and small
    /// lists).
    pub fn collect(mut self) -> (Vec<Verdict>, Tally, Vec<Group>) {
        let mut tally = Tally::default();
        let verdicts: Vec<Verdict> = self.verdicts().inspect(|v| tally.count(v)).collect();
        let groups = self.groups().collect();
        (verdicts, tally, groups)
    }

    /// The verdict of the listed entry of this rank, or of this found file, unless it is
    /// another's (a changed or unreadable listed file's, a move's source) or out of scope.
    fn verdict(&mut self, r: Ref) -> Option<Verdict> {
        let audit = &self.audit;
        let (status, own, listed, from) = match r {
            Ref::Listed(rank) => {
                let at = audit.listed_at(rank);
                match audit.listed_state[at] {
                    Listed::Matched => (Status::Matched, Ref::Listed(at), Some(at), None),
                    Listed::Unseen => (Status::Missing, Ref::Listed(at), Some(at), None),
                    Listed::Found(FoundAs::Changed) => (
                        Status::Changed,
                        Ref::Found(audit.found_of[&at]),
                        Some(at),
                        None,
                    ),
                    Listed::Found(FoundAs::Unreadable) => (
                        Status::Unreadable,
                        Ref::Found(audit.found_of[&at]),
                        Some(at),
                        None,
                    ),
                    Listed::Outside | Listed::MovedAway => return None,
                }
            }
            Ref::Found(at) => match audit.found_as[at] {
                Found::New => (Status::New, r, None, None),
                Found::Moved { from } => (Status::Moved, r, Some(from), Some(from)),
                Found::Unreadable { listed: None, .. } => (Status::Unreadable, r, None, None),
                Found::Changed | Found::Unreadable { .. } => return None,
            },
        };
        let error = match (status, own) {
            (Status::Unreadable, Ref::Found(at)) => match audit.found_as[at] {
                // Each listed entry of the name gets it (a list may name a file twice).
                Found::Unreadable { error, .. } => self.errors[error].as_ref().map(copy_error),
                _ => None,
            },
            _ => None,
        };
        let name = match (status, listed) {
            (Status::Moved | Status::New, _) | (_, None) => audit.name(own),
            (_, Some(at)) => audit.listed.name(at),
        };
        let on_disk = !matches!(status, Status::Missing | Status::Unreadable);
        Some(Verdict {
            status,
            name: name.to_vec(),
            from: from.map(|from| audit.listed.name(from).to_vec()),
            expected: listed.map(|at| audit.listed.digest(at).to_vec()),
            actual: on_disk.then(|| audit.digest(own).to_vec()),
            error,
            copies: match status {
                Status::Unreadable => None,
                _ => self.copies(own, from),
            },
        })
    }

    /// The names other than `own`'s (and a moved file's `from`) holding `own`'s digest: a
    /// binary search for its group, then a look at the group's first names.
    fn copies(&mut self, own: Ref, from: Option<usize>) -> Option<Copies> {
        let audit = &self.audit;
        let digest = audit.digest(own);
        let head = |span: &Span| audit.digest(self.by_digest[span.start as usize].get());
        let at = self.groups.partition_point(|span| head(span) < digest);
        let span = self.groups.get(at).filter(|span| head(span) == digest)?;
        // `from` is listed with this digest (a move pairs within one digest), under a name
        // other than the new one.
        let count = span.names - 1 - u32::from(from.is_some());
        if count == 0 {
            return None;
        }
        let own_name = normalized(audit.name(own));
        let from_name = from.map(|from| normalized(audit.listed.name(from)));
        let other = |&at: &u32| {
            let name =
                (at != NONE).then(|| normalized(audit.name(self.by_digest[at as usize].get())));
            name.filter(|&name| name != own_name && Some(name) != from_name)
        };
        let on_disk = span.first_on_disk.iter().find(|at| other(at).is_some());
        let shown = on_disk.or_else(|| span.first.iter().find(|at| other(at).is_some()));
        let shown = audit.name(self.by_digest[*shown? as usize].get()).to_vec();
        let on_disk = on_disk.is_some();
        let span = &mut self.groups[at];
        if span.id == NONE {
            span.id = self.next_group;
            self.next_group += 1;
        }
        Some(Copies {
            group: u64::from(span.id),
            count: u64::from(count),
            on_disk,
            shown,
        })
    }
}

/// The same error again (`io::Error` is not `Clone`): its OS code, or its kind and message.
fn copy_error(err: &io::Error) -> io::Error {
    match (err.raw_os_error(), err.get_ref()) {
        (Some(code), _) => io::Error::from_raw_os_error(code),
        (None, None) => io::Error::from(err.kind()),
        (None, Some(inner)) => io::Error::new(err.kind(), inner.to_string()),
    }
}

/// `NAME: VERDICT` as `check --audit` prints a verdict for people, as `check` writes `NAME:
/// OK`; a line naming another file (moved from, a copy) escapes both names when either needs
/// it, and starts with a backslash then. NUL-terminated and unescaped with `zero`.
pub fn report_line(out: &mut Vec<u8>, verdict: &Verdict, zero: bool) {
    let copy = verdict.copies.as_ref().map(|c| &c.shown[..]);
    let (word, other): (&str, Option<&[u8]>) = match verdict.status {
        Status::Matched => ("OK", None),
        Status::Changed => ("CHANGED", None),
        Status::Missing if verdict.content_elsewhere() => ("MISSING, content at ", copy),
        Status::Missing => ("MISSING", None),
        Status::New => match copy {
            Some(copy) => ("NEW, copy of ", Some(copy)),
            None => ("NEW", None),
        },
        Status::Moved => ("MOVED from ", verdict.from.as_deref()),
        Status::Unreadable => ("FAILED open or read", None),
    };
    let escaped = !zero
        && (escape::report_needs_escape(&verdict.name)
            || other.is_some_and(escape::report_needs_escape));
    let name = |out: &mut Vec<u8>, name: &[u8]| match escaped {
        true => escape::escape_into(out, name),
        false => out.extend_from_slice(name),
    };
    if escaped {
        out.push(b'\\');
    }
    name(out, &verdict.name);
    out.extend_from_slice(b": ");
    out.extend_from_slice(word.as_bytes());
    if let Some(other) = other {
        name(out, other);
    }
    out.push(if zero { b'\0' } else { b'\n' });
}

impl Tally {
    /// The counts as `check --audit` says them on standard error (after `LIST: audit: `).
    pub fn summary(&self) -> String {
        let mut text = format!(
            "{} matched, {} changed, {} missing",
            self.matched, self.changed, self.missing
        );
        if self.missing_with_copy > 0 {
            text += &format!(" ({} with a copy on disk)", self.missing_with_copy);
        }
        text += &format!(
            ", {} new, {} moved, {} unreadable; {} sharing their content with other names",
            self.new, self.moved, self.unreadable, self.duplicates
        );
        text
    }
}

/// Which of a subset's `paths` are walked: each unless it lies below another (or is the same
/// as an earlier one: `in/`, `./in`), so that every file is found once.
pub fn outermost(paths: &[Vec<u8>]) -> Vec<bool> {
    let below_another = |at: usize| {
        paths.iter().enumerate().any(|(other_at, other)| {
            let same = is_under(other, &paths[at]);
            other_at != at && is_under(&paths[at], other) && !(same && other_at > at)
        })
    };
    (0..paths.len()).map(|at| !below_another(at)).collect()
}

/// What `check --audit` says on standard error after the report: the counts, and how many
/// lines were improperly formatted.
pub fn closing_messages(shown: &str, tally: &Tally, improper: u64) -> Vec<String> {
    let mut messages = vec![format!("{shown}: audit: {}", tally.summary())];
    if improper > 0 {
        let lines = if improper == 1 {
            "line is"
        } else {
            "lines are"
        };
        messages.push(format!("WARNING: {improper} {lines} improperly formatted"));
    }
    messages
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A digest of one byte: enough to tell contents apart.
    fn d(byte: u8) -> [u8; 1] {
        [byte]
    }

    /// A verdict and its copies, as a reader of the report finds them: its group's names less
    /// its own and its `from`.
    struct Audited {
        verdict: Verdict,
        copies: Vec<Duplicate>,
    }

    impl std::ops::Deref for Audited {
        type Target = Verdict;
        fn deref(&self) -> &Verdict {
            &self.verdict
        }
    }

    /// Each verdict with its copies, checked against what the verdict says of them.
    fn with_copies(verdicts: Vec<Verdict>, groups: &[Group]) -> Vec<Audited> {
        for (at, group) in groups.iter().enumerate() {
            assert_eq!(group.id, at as u64);
        }
        let audited: Vec<Audited> = verdicts
            .into_iter()
            .map(|verdict| {
                let own = normalized(&verdict.name).to_vec();
                let from = verdict.from.as_deref().map(|f| normalized(f).to_vec());
                let copies: Vec<Duplicate> = match &verdict.copies {
                    None => Vec::new(),
                    Some(c) => (groups[c.group as usize].names.iter())
                        .filter(|d| {
                            let name = normalized(&d.name);
                            name != own && Some(name) != from.as_deref()
                        })
                        .cloned()
                        .collect(),
                };
                if let Some(c) = &verdict.copies {
                    assert_eq!(c.count as usize, copies.len());
                    let on_disk = copies.iter().find(|d| d.on_disk == Some(true));
                    assert_eq!(c.on_disk, on_disk.is_some());
                    assert_eq!(c.shown, on_disk.unwrap_or(&copies[0]).name);
                }
                Audited { verdict, copies }
            })
            .collect();
        // Every group is named by a verdict.
        for group in groups {
            assert!(audited.iter().any(|a| a
                .verdict
                .copies
                .as_ref()
                .is_some_and(|c| c.group == group.id)));
        }
        audited
    }

    /// Audits `list` (name, digest) against `disk` (name, digest or None for unreadable),
    /// with every listed name in the subset, nothing existing outside it.
    fn audit(list: &[(&str, u8)], disk: &[(&str, Option<u8>)]) -> (Vec<Audited>, Tally) {
        audit_subset(list, disk, None, |_| false)
    }

    fn audit_subset(
        list: &[(&str, u8)],
        disk: &[(&str, Option<u8>)],
        root: Option<&str>,
        exists: impl FnMut(&[u8]) -> bool,
    ) -> (Vec<Audited>, Tally) {
        let mut auditor = Auditor::new(1);
        for (name, digest) in list {
            let inside = root.is_none_or(|root| is_under(name.as_bytes(), root.as_bytes()));
            auditor
                .listed(name.as_bytes(), &d(*digest), inside)
                .unwrap();
        }
        for (name, digest) in disk {
            let outcome = match digest {
                Some(digest) => Ok(&[*digest][..]),
                None => Err(io::Error::from_raw_os_error(13)),
            };
            auditor.found(name.as_bytes(), outcome).unwrap();
        }
        let (verdicts, tally, groups) = auditor.finish(exists).collect();
        (with_copies(verdicts, &groups), tally)
    }

    /// `(status, name, from)` of each verdict, as text.
    fn summary(verdicts: &[Audited]) -> Vec<(Status, String, Option<String>)> {
        let text = |b: &[u8]| String::from_utf8_lossy(b).into_owned();
        verdicts
            .iter()
            .map(|v| (v.status, text(&v.name), v.from.as_deref().map(text)))
            .collect()
    }

    fn copy_names(verdict: &Audited) -> Vec<String> {
        verdict
            .copies
            .iter()
            .map(|c| String::from_utf8_lossy(&c.name).into_owned())
            .collect()
    }

    fn find<'a>(verdicts: &'a [Audited], name: &str) -> &'a Audited {
        verdicts
            .iter()
            .find(|v| v.name == name.as_bytes())
            .unwrap_or_else(|| panic!("no verdict for {name}"))
    }

    use Status::*;

    #[test]
    fn a_name_listed_twice_and_unreadable_has_its_error_in_both_verdicts() {
        // Found by the fuzz target audit_list: the second verdict had no error (its JSON
        // record no "error", and no message said why).
        let (verdicts, tally) = audit(&[("a", 1), ("./a", 1)], &[("a", None)]);
        assert_eq!(tally.unreadable, 2);
        for verdict in &verdicts {
            assert_eq!(verdict.status, Unreadable);
            let error = verdict.error.as_ref().expect("the error");
            assert_eq!(crate::error_text(error), "Permission denied");
        }
        for err in [
            io::Error::from(io::ErrorKind::NotFound),
            io::Error::other("odd"),
            io::Error::from_raw_os_error(2),
        ] {
            let copy = copy_error(&err);
            assert_eq!(
                (copy.kind(), copy.raw_os_error()),
                (err.kind(), err.raw_os_error())
            );
            assert_eq!(crate::error_text(&copy), crate::error_text(&err));
        }
    }

    #[test]
    fn every_status_at_once() {
        let list = [("a", 1), ("b", 2), ("c", 3), ("d", 4), ("u", 9)];
        let disk = [
            ("a", Some(1)),
            ("b", Some(20)),
            ("e", Some(5)),
            ("m", Some(4)),
            ("u", None),
            ("v", None),
        ];
        let (verdicts, tally) = audit(&list, &disk);
        let s = |status, name: &str, from: Option<&str>| {
            (status, name.to_string(), from.map(str::to_string))
        };
        assert_eq!(
            summary(&verdicts),
            [
                s(Matched, "a", None),
                s(Changed, "b", None),
                s(Missing, "c", None),
                s(Unreadable, "u", None),
                s(New, "e", None),
                s(Moved, "m", Some("d")),
                s(Unreadable, "v", None),
            ]
        );
        let changed = find(&verdicts, "b");
        assert_eq!(
            (changed.expected.as_deref(), changed.actual.as_deref()),
            (Some(&[2][..]), Some(&[20][..]))
        );
        assert_eq!(
            find(&verdicts, "u").error.as_ref().unwrap().raw_os_error(),
            Some(13)
        );
        assert_eq!(find(&verdicts, "m").expected.as_deref(), Some(&[4][..]));
        let expected = Tally {
            matched: 1,
            changed: 1,
            missing: 1,
            missing_with_copy: 0,
            new: 1,
            moved: 1,
            unreadable: 2,
            duplicates: 0,
        };
        assert_eq!(tally, expected);
        assert!(!tally.passed());
    }

    #[test]
    fn all_matched_passes() {
        let (verdicts, tally) = audit(&[("x", 1), ("./y", 2)], &[("./x", Some(1)), ("y", Some(2))]);
        assert!(verdicts.iter().all(|v| v.status == Matched));
        assert!(tally.passed());
        assert_eq!(tally.matched, 2);
    }

    #[test]
    fn duplicates_in_the_list_and_on_disk_stay_matched() {
        // hashdeep's bug: a, b, c share a digest and all are in place.
        let list = [("a", 7), ("b", 7), ("c", 7)];
        let disk = [("a", Some(7)), ("b", Some(7)), ("c", Some(7))];
        let (verdicts, tally) = audit(&list, &disk);
        assert!(verdicts.iter().all(|v| v.status == Matched));
        assert_eq!(copy_names(find(&verdicts, "b")), ["a", "c"]);
        assert!(find(&verdicts, "b")
            .copies
            .iter()
            .all(|c| c.listed && c.on_disk == Some(true)));
        assert_eq!(tally.duplicates, 3);
        assert!(tally.passed());
    }

    #[test]
    fn duplicates_in_the_list_only() {
        // The list has two names for one content; on disk one was rewritten.
        let (verdicts, tally) = audit(&[("a", 7), ("b", 7)], &[("a", Some(7)), ("b", Some(8))]);
        assert_eq!(find(&verdicts, "a").status, Matched);
        assert_eq!(find(&verdicts, "b").status, Changed);
        let copies = &find(&verdicts, "a").copies;
        assert_eq!(copies.len(), 1);
        assert_eq!((copies[0].listed, copies[0].on_disk), (true, Some(false)));
        // b's content on disk (8) is its own.
        assert!(find(&verdicts, "b").copies.is_empty());
        assert_eq!(tally.duplicates, 1);
    }

    #[test]
    fn duplicates_on_disk_only_are_new_copies() {
        let (verdicts, tally) = audit(&[("a", 7)], &[("a", Some(7)), ("copy", Some(7))]);
        assert_eq!(find(&verdicts, "a").status, Matched);
        let copy = find(&verdicts, "copy");
        assert_eq!(copy.status, New);
        assert_eq!(copy_names(copy), ["a"]);
        assert_eq!(
            (copy.copies[0].listed, copy.copies[0].on_disk),
            (true, Some(true))
        );
        assert_eq!(copy_names(find(&verdicts, "a")), ["copy"]);
        assert_eq!((tally.new, tally.duplicates), (1, 2));
    }

    #[test]
    fn a_vanished_copy_is_missing_with_its_content_elsewhere() {
        let (verdicts, tally) = audit(&[("a", 7), ("b", 7)], &[("a", Some(7))]);
        let b = find(&verdicts, "b");
        assert_eq!(b.status, Missing);
        assert!(b.content_elsewhere());
        assert_eq!(copy_names(b), ["a"]);
        assert_eq!((tally.missing, tally.missing_with_copy), (1, 1));
        // With no copy left, the content is lost.
        let (verdicts, tally) = audit(&[("a", 7)], &[]);
        assert!(!verdicts[0].content_elsewhere());
        assert_eq!((tally.missing, tally.missing_with_copy), (1, 0));
    }

    #[test]
    fn moves_pair_one_to_one_in_name_order() {
        // Three listed copies gone, two new ones: x1 -> n1, x2 -> n2, x3 missing.
        let list = [("x3", 7), ("x1", 7), ("x2", 7)];
        let disk = [("n2", Some(7)), ("n1", Some(7))];
        let (verdicts, tally) = audit(&list, &disk);
        assert_eq!(find(&verdicts, "n1").from.as_deref(), Some(&b"x1"[..]));
        assert_eq!(find(&verdicts, "n2").from.as_deref(), Some(&b"x2"[..]));
        let x3 = find(&verdicts, "x3");
        assert_eq!(x3.status, Missing);
        // Its content is on disk (as n1 and n2), so it is not lost.
        assert!(x3.content_elsewhere());
        assert_eq!((tally.moved, tally.missing, tally.new), (2, 1, 0));
        // A moved file's copies leave out its own old name.
        assert_eq!(copy_names(find(&verdicts, "n1")), ["n2", "x2", "x3"]);
        // More new than gone: the extra one is new.
        let (verdicts, _) = audit(&[("x", 7)], &[("b", Some(7)), ("a", Some(7))]);
        assert_eq!(find(&verdicts, "a").status, Moved);
        assert_eq!(find(&verdicts, "b").status, New);
    }

    #[test]
    fn a_changed_file_is_never_a_move_source() {
        // b changed to a's old content and a vanished: a is missing, b changed.
        let (verdicts, _) = audit(&[("a", 1), ("b", 2)], &[("b", Some(1))]);
        assert_eq!(find(&verdicts, "a").status, Missing);
        assert_eq!(find(&verdicts, "b").status, Changed);
        assert!(find(&verdicts, "a").content_elsewhere());
    }

    #[test]
    fn swapped_and_overwritten_files_are_changed_not_moved() {
        // a and b swapped their contents: both changed, each naming the other as a copy.
        let (verdicts, tally) = audit(&[("a", 1), ("b", 2)], &[("a", Some(2)), ("b", Some(1))]);
        assert_eq!((tally.changed, tally.moved, tally.missing), (2, 0, 0));
        let a = find(&verdicts, "a");
        assert_eq!(copy_names(a), ["b"]);
        assert_eq!(
            (a.copies[0].listed, a.copies[0].on_disk),
            (true, Some(false))
        );
        // a renamed over b: a is missing, its content at b (changed).
        let (verdicts, _) = audit(&[("a", 1), ("b", 2)], &[("b", Some(1))]);
        assert_eq!(find(&verdicts, "b").status, Changed);
        let a = find(&verdicts, "a");
        assert_eq!(a.status, Missing);
        assert!(a.content_elsewhere());
    }

    #[test]
    fn ties_between_the_subset_and_outside_go_to_the_subset_then_name_order() {
        // Two new copies of one content; one listed name gone inside, two outside (one gone,
        // one still there): in/x pairs with in/gone, in/y with out/b (gone); out/a stays.
        let list = [("in/gone", 7), ("out/a", 7), ("out/b", 7)];
        let disk = [("in/x", Some(7)), ("in/y", Some(7))];
        let (verdicts, tally) = audit_subset(&list, &disk, Some("in"), |n| n == b"out/a");
        assert_eq!(
            find(&verdicts, "in/x").from.as_deref(),
            Some(&b"in/gone"[..])
        );
        assert_eq!(find(&verdicts, "in/y").from.as_deref(), Some(&b"out/b"[..]));
        assert_eq!((tally.moved, tally.missing, tally.new), (2, 0, 0));
    }

    #[test]
    fn a_repeated_listed_name() {
        let (verdicts, tally) = audit(&[("a", 1), ("a", 1)], &[("a", Some(1))]);
        assert_eq!(verdicts.len(), 2);
        assert_eq!(tally.matched, 2);
        assert!(verdicts[0].copies.is_empty());
    }

    #[test]
    fn subset_audits_only_its_part() {
        let list = [
            ("in/a", 1),
            ("in/b", 2),
            ("out/c", 3),
            ("out/d", 4),
            ("out/e", 5),
        ];
        // out/c moved into the subset (gone), out/d copied into it (still there), out/e
        // untouched (never looked at); in/b gone.
        let disk = [("in/a", Some(1)), ("in/c", Some(3)), ("in/d", Some(4))];
        let gone = |name: &[u8]| name != b"out/c";
        let (verdicts, tally) = audit_subset(&list, &disk, Some("in"), gone);
        assert_eq!(find(&verdicts, "in/a").status, Matched);
        assert_eq!(find(&verdicts, "in/b").status, Missing);
        assert_eq!(find(&verdicts, "in/c").status, Moved);
        assert_eq!(find(&verdicts, "in/c").from.as_deref(), Some(&b"out/c"[..]));
        let copy = find(&verdicts, "in/d");
        assert_eq!(copy.status, New);
        assert_eq!(copy.copies[0].on_disk, None);
        assert_eq!(verdicts.len(), 4);
        assert_eq!(
            (tally.matched, tally.missing, tally.moved, tally.new),
            (1, 1, 1, 1)
        );
    }

    #[test]
    fn subset_pairs_its_own_missing_names_first() {
        let list = [("in/x", 7), ("out/y", 7)];
        let mut asked = Vec::new();
        let (verdicts, _) = audit_subset(&list, &[("in/n", Some(7))], Some("in"), |n| {
            asked.push(n.to_vec());
            false
        });
        assert_eq!(find(&verdicts, "in/n").from.as_deref(), Some(&b"in/x"[..]));
        assert!(asked.is_empty(), "outside names asked about: {asked:?}");
    }

    #[test]
    fn names_with_newlines_and_invalid_utf8() {
        let mut auditor = Auditor::new(1);
        let odd: &[u8] = b"a\nb\xff";
        auditor.listed(odd, &[1], true).unwrap();
        auditor.listed(b"gone\n", &[2], true).unwrap();
        auditor.found(b"./a\nb\xff", Ok(&[1])).unwrap();
        auditor.found(b"new\xfe", Ok(&[2])).unwrap();
        let (verdicts, _, _) = auditor.finish(|_| false).collect();
        assert_eq!((verdicts[0].status, &verdicts[0].name[..]), (Matched, odd));
        assert_eq!(
            (verdicts[1].status, &verdicts[1].name[..]),
            (Moved, &b"new\xfe"[..])
        );
        assert_eq!(verdicts[1].from.as_deref(), Some(&b"gone\n"[..]));
    }

    #[test]
    fn unsorted_lists_are_searched_as_sorted_ones() {
        let list = [("b/z", 1), ("a.b", 2), ("a/x", 3)];
        let disk = [("a/x", Some(3)), ("a.b", Some(2)), ("b/z", Some(1))];
        let (verdicts, tally) = audit(&list, &disk);
        assert_eq!(tally.matched, 3);
        let names: Vec<_> = summary(&verdicts).into_iter().map(|v| v.1).collect();
        assert_eq!(names, ["a/x", "a.b", "b/z"]);
    }

    #[test]
    fn a_huge_group_costs_its_size_not_its_square() {
        // 20,000 listed names of one content: half in place, a quarter moved, a quarter gone,
        // one name listed twice. Searching the group for every verdict's copies took hours
        // here; each verdict now looks at a few of its names.
        let n = 20_000;
        let name = |prefix: &str, i: usize| format!("./{prefix}{i:05}").into_bytes();
        let started = std::time::Instant::now();
        let mut auditor = Auditor::new(1);
        for i in 0..n {
            auditor.listed(&name("l", i), &[7], true).unwrap();
        }
        auditor.listed(&name("l", 0), &[7], true).unwrap();
        for i in (0..n).step_by(2) {
            auditor.found(&name("l", i), Ok(&[7])).unwrap();
        }
        for i in 0..n / 4 {
            auditor.found(&name("n", i), Ok(&[7])).unwrap();
        }
        let (verdicts, tally, groups) = auditor.finish(|_| false).collect();
        let names = n + n / 4;
        assert_eq!(groups.len(), 1);
        assert_eq!(groups[0].names.len(), names);
        assert_eq!(
            (
                tally.matched,
                tally.moved,
                tally.missing,
                tally.missing_with_copy
            ),
            (n as u64 / 2 + 1, n as u64 / 4, n as u64 / 4, n as u64 / 4)
        );
        assert_eq!(tally.duplicates, verdicts.len() as u64);
        for verdict in &verdicts {
            let copies = verdict.copies.as_ref().unwrap();
            let others = names - 1 - usize::from(verdict.status == Moved);
            assert_eq!((copies.group, copies.count), (0, others as u64));
        }
        let missing = verdicts.iter().find(|v| v.status == Missing).unwrap();
        assert_eq!(missing.copies.as_ref().unwrap().shown, b"./l00000");
        // Generous: this takes well under a second, even unoptimized.
        assert!(started.elapsed() < std::time::Duration::from_secs(60));
    }

    #[test]
    fn digests_of_another_length_are_refused() {
        let mut auditor = Auditor::new(32);
        assert!(auditor.listed(b"a", &[0; 16], true).is_err());
    }

    #[test]
    fn walk_order_and_subsets() {
        assert_eq!(walk_order(b"a/x", b"a.b"), Ordering::Less);
        assert_eq!(walk_order(b"./a", b"a"), Ordering::Equal);
        assert_eq!(normalized(b".//./a"), b"a");
        assert!(is_under(b"./in/a", b"in"));
        assert!(is_under(b"in/a", b"./in/"));
        assert!(is_under(b"in", b"in"));
        assert!(!is_under(b"inside/a", b"in"));
        assert!(is_under(b"x/y", b"."));
        assert!(!is_under(b"/abs", b"."));
        assert!(is_under(b"/abs/x", b"/abs"));
    }
}
