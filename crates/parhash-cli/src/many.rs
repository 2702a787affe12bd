//! Many inputs at once (`sum` over many files), results in the order the inputs were given:
//! the command line's names (and `-r`'s walk) turned into inputs of the library's many-file
//! engine (`parhash::file::MultiHasher::hash_files`: small files side by side in SIMD lanes,
//! larger ones read with overlap, memory bounded however many files there are; with several
//! algorithms, each file read once for all of them).

use std::io;
use std::path::PathBuf;

use anyhow::Result;
use parhash::file::{FileInput, MultiHasher};
use parhash::{Algorithm, Output};

use crate::flags::HashOptions;
use crate::input::{builder_for, Source};
use crate::progress::ManyProgress;

/// One input: a name to report and what to hash, or an error found before hashing (a
/// directory of `-r` that could not be read).
#[derive(Debug)]
pub enum Item {
    /// `walked`: `-r`'s walk found it a regular file (the library opens it without a `stat`).
    Hash {
        name: Vec<u8>,
        source: Source,
        walked: bool,
    },
    Failed {
        name: Vec<u8>,
        error: io::Error,
    },
}

/// What became of one input, in order: every algorithm's digest, or why it has none.
pub type Outcome = (Vec<u8>, io::Result<Vec<Output>>);

/// Hashes every item with each of `algorithms` (each read once), handing the outcomes, in input order, to `emit` (called with
/// the progress bar hidden) in runs: all those ready at once (a window of small files), or one
/// large file's as soon as it is done.
pub fn run(
    algorithms: &[Algorithm],
    items: impl Iterator<Item = Item>,
    options: &HashOptions,
    progress: &ManyProgress,
    mut emit: impl FnMut(Vec<Outcome>) -> Result<()>,
) -> Result<()> {
    let builders = algorithms.iter().map(|&alg| builder_for(alg, options));
    let files = MultiHasher::new(builders)
        .read_strategy(options.read)
        .memory_maps(!options.no_mmap);
    let files = files.with_progress(progress);
    let inputs = items.map(|item| match item {
        Item::Hash {
            name,
            source: Source::Path(path),
            walked: false,
        } => (name, FileInput::Path(path)),
        Item::Hash {
            name,
            source: Source::Path(path),
            walked: true,
        } => (name, FileInput::Walked(path)),
        Item::Hash {
            name,
            source: Source::Stdin,
            ..
        } => (name, FileInput::Stdin),
        Item::Failed { name, error } => (name, FileInput::Failed(error)),
    });
    let mut outcomes = files.hash_files(inputs);
    while let Some(first) = outcomes.next() {
        let mut ready = vec![first];
        ready.extend(std::iter::from_fn(|| outcomes.next_ready()));
        progress.suspend(|| emit(ready))?;
    }
    Ok(())
}

/// The items `sum` hashes for its command-line names: `-` is standard input; with
/// `recursive`, a directory stands for the files below it (see `walk`).
pub fn items_for(names: &[std::ffi::OsString], recursive: bool) -> impl Iterator<Item = Item> + '_ {
    names.iter().flat_map(move |file| {
        let name = parhash_format::escape::os_bytes(file).into_owned();
        let source = Source::from_name(&name);
        let walk_root = match &source {
            Source::Path(path) if recursive && path.is_dir() => Some(PathBuf::from(file)),
            _ => None,
        };
        let single = walk_root.is_none().then_some(Item::Hash {
            name,
            source,
            walked: false,
        });
        let walked = walk_root.into_iter().flat_map(|root| {
            parhash_format::walk::Walk::new(root).map(|entry| match entry {
                parhash_format::walk::Entry::File(path) => Item::Hash {
                    name: parhash_format::escape::os_bytes(path.as_os_str()).into_owned(),
                    source: Source::Path(path),
                    walked: true,
                },
                parhash_format::walk::Entry::Unreadable(path, error) => Item::Failed {
                    name: parhash_format::escape::os_bytes(path.as_os_str()).into_owned(),
                    error,
                },
            })
        });
        single.into_iter().chain(walked)
    })
}
