//! `sum -o FILE`: the list written durably to a file with its side file of metadata
//! (`FILE.parhash-meta`), continued by `--resume` and brought up to date by `--update`. The
//! reading of old lists and the merge are `parhash_format::{resume, update, meta}`, the files
//! themselves (durable writes, cuts, renames, the list's own files left out of the walk)
//! `parhash_format::list_file`; here is the plan of what to hash.

use std::fs::{self, File};
use std::io::{self, BufReader};
use std::path::{Path, PathBuf};

use anyhow::{Context, Result};
use parhash::Algorithm;
use parhash_format::line::LineStyle;
use parhash_format::list_file::OwnFiles;
use parhash_format::meta::{self, Meta, MetaReader};
use parhash_format::resume::{Prefix, Step};
use parhash_format::resumed::Resume;
use parhash_format::update::{ListEntries, Merge, Merged, WalkOrder};

use crate::input::Source;
use crate::many::Item;
use crate::messages::err_message;

/// The metadata of the file `item` reads, taken before it is read (a change while it is read
/// shows at the next `--update --rehash-changed`); `None` for standard input and failures.
pub fn meta_of(item: &Item) -> Option<Meta> {
    match item {
        Item::Hash {
            source: Source::Path(path),
            ..
        } => fs::metadata(path).ok().map(|metadata| Meta::of(&metadata)),
        _ => None,
    }
}

/// The walk without the files `-o` writes (`FILE`, its side file and their `.tmp`), should
/// they lie in the tree: a file being written is not listed ([`OwnFiles`]).
pub fn without_own_files<'a>(
    items: impl Iterator<Item = Item> + 'a,
    list: &Path,
) -> impl Iterator<Item = Item> + 'a {
    without(items, OwnFiles::new(list))
}

/// The walk without the files in `own`.
pub fn without<'a>(
    items: impl Iterator<Item = Item> + 'a,
    own: OwnFiles,
) -> impl Iterator<Item = Item> + 'a {
    items.filter(move |item| match item {
        Item::Hash {
            source: Source::Path(path),
            ..
        } => !own.contains(path),
        _ => true,
    })
}

/// The name `sum` writes for an item.
pub fn name_of(item: &Item) -> &[u8] {
    match item {
        Item::Hash { name, .. } | Item::Failed { name, .. } => name,
    }
}

/// What `sum -o` does with each file, in the walk's order.
pub enum Planned {
    /// Hash it; its metadata as it was before.
    Hash(Item, Option<Meta>),
    /// Keep the list's record (and its metadata, if recorded) without reading the file.
    Keep {
        name: Vec<u8>,
        record: Vec<u8>,
        meta: Option<Meta>,
    },
}

/// Resumed lists: where each and the side file are cut, and the files still to hash.
pub struct Resumed {
    /// Each list's length to keep, in the order given.
    pub list_lens: Vec<u64>,
    pub meta_len: u64,
    /// Files that have no line and still cannot be read: reported again, as a new run would.
    pub still_failing: Vec<(Vec<u8>, io::Error)>,
    /// The first file to hash, if any (the rest of the walk follows it).
    pub first: Option<Item>,
    /// Lists whose incomplete or unreadable last line is written again, with its number.
    pub torn: Vec<(PathBuf, u64)>,
}

/// Compares the lists at `lists` (each with the algorithm and style it is written in: one for
/// `-o`, one per algorithm for `--lists`) and the side file at `side_path`, if any, with the
/// walk ([`parhash_format::resumed`]), taking from `items` the files they all have already,
/// up to the first one of them lacks.
pub fn resume(
    lists: &[(PathBuf, Algorithm, LineStyle)],
    side_path: Option<&Path>,
    items: &mut impl Iterator<Item = Item>,
) -> Result<Resumed> {
    let mut prefixes = Vec::with_capacity(lists.len());
    for (path, algorithm, style) in lists {
        let list = File::open(path).with_context(|| format!("cannot read {}", path.display()))?;
        let prefix = Prefix::new(BufReader::new(list), *algorithm, *style);
        prefixes.push((path.clone(), prefix));
    }
    let side = side_path
        .and_then(|path| File::open(path).ok())
        .map(|file| MetaReader::new(BufReader::new(file)));
    let mut resume = Resume::new(prefixes, side);
    let mut still_failing = Vec::new();
    let mut first = None;
    for item in items.by_ref() {
        let mut failure = None;
        let step = resume.step(name_of(&item), || match &item {
            Item::Failed { .. } => true,
            Item::Hash {
                source: Source::Path(file),
                ..
            } => File::open(file).map_err(|err| failure = Some(err)).is_err(),
            Item::Hash { .. } => false,
        })?;
        match step {
            Step::Kept => {}
            Step::Gap => still_failing.push(match item {
                Item::Failed { name, error } => (name, error),
                Item::Hash { name, .. } => (name, failure.expect("a gap failed to open")),
            }),
            Step::Resume => {
                first = Some(item);
                break;
            }
        }
    }
    let cuts = resume.finish()?;
    Ok(Resumed {
        list_lens: cuts.list_lens,
        meta_len: cuts.meta_len,
        still_failing,
        first,
        torn: cuts.torn,
    })
}

/// What `--update` found in the old list, for its closing note.
#[derive(Default)]
pub struct UpdateCounts {
    pub kept: u64,
    pub added: u64,
    pub dropped: u64,
    pub rehashed: u64,
}

/// The plan of `--update`: the list at `path` merged with `items` (the walk of `roots`).
/// `counts` is filled as the plan is followed.
pub fn update_plan<'a>(
    path: &Path,
    algorithm: Algorithm,
    style: LineStyle,
    roots: Vec<Vec<u8>>,
    items: impl Iterator<Item = Item> + 'a,
    rehash_changed: bool,
    counts: &'a std::cell::RefCell<UpdateCounts>,
) -> Result<impl Iterator<Item = Result<Planned>> + 'a> {
    let list = File::open(path).with_context(|| format!("cannot read {}", path.display()))?;
    let order = WalkOrder::new(roots);
    let entries = ListEntries::new(BufReader::new(list), algorithm, style, order.clone());
    let meta_path = meta::side_path(path);
    let mut side = match File::open(&meta_path) {
        Ok(file) => Some(MetaReader::new(BufReader::new(file))),
        Err(err) if err.kind() == io::ErrorKind::NotFound => {
            err_message!(
                "{}: not found: changes made before this update cannot be detected; \
                 the metadata of the kept entries is recorded now",
                meta_path.display()
            );
            None
        }
        Err(err) => {
            return Err(err).with_context(|| format!("cannot read {}", meta_path.display()))
        }
    };
    let list_path = path.to_path_buf();
    let merge = Merge::new(entries, items, order.clone(), name_of);
    Ok(merge.filter_map(move |step| {
        let step = match step {
            Ok(step) => step,
            Err(err) => {
                return Some(Err(anyhow::anyhow!(
                    "{}: {err}; not updated",
                    list_path.display()
                )))
            }
        };
        let mut counts = counts.borrow_mut();
        match step {
            Merged::Gone(_) => {
                counts.dropped += 1;
                None
            }
            Merged::New(item) => {
                counts.added += 1;
                let meta = meta_of(&item);
                Some(Ok(Planned::Hash(item, meta)))
            }
            Merged::Both(entry, item) => {
                // Without --rehash-changed a kept file is not even looked at, where its
                // metadata is on record.
                let now = (rehash_changed || side.is_none())
                    .then(|| meta_of(&item))
                    .flatten();
                let recorded = match side.as_mut() {
                    Some(side) => match side.find(&entry.name, |a, b| order.cmp(a, b)) {
                        Ok(recorded) => recorded,
                        Err(err) => {
                            return Some(Err(anyhow::Error::new(err)
                                .context(format!("cannot read {}", meta_path.display()))))
                        }
                    },
                    // No side file: the list's digests are trusted as of now.
                    None => now,
                };
                if rehash_changed && (recorded.is_none() || recorded != now) {
                    counts.rehashed += 1;
                    return Some(Ok(Planned::Hash(item, now)));
                }
                counts.kept += 1;
                Some(Ok(Planned::Keep {
                    name: entry.name,
                    record: entry.record,
                    meta: recorded,
                }))
            }
        }
    }))
}
