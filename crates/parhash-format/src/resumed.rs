//! `--resume`'s driver: the lists a run of `sum` began (one for `-o`, one per algorithm for
//! `--lists`) and their side file of metadata, compared with a new walk one name at a time.
//! The files they all have already are not hashed again, up to the first one any of them
//! lacks (the shortest list decides; the longer ones are cut to the same files). The CLI and
//! Python both resume through [`Resume`], so they agree on every file and every message.

use std::fmt;
use std::io::{self, BufRead};
use std::path::{Path, PathBuf};

use crate::escape;
use crate::meta::MetaReader;
use crate::resume::{Prefix, ResumeError, Step};

/// Why lists are not resumed, in `sum`'s words.
#[derive(Debug)]
pub enum NotResumed {
    /// A list is not this command line's, or names files the walk does not have.
    List {
        /// The list.
        path: PathBuf,
        /// What is wrong with it.
        error: ResumeError,
    },
    /// The lists (one per algorithm) do not have the same files.
    Differ {
        /// The folder of the first list.
        dir: PathBuf,
        /// The walk's name where they part.
        name: Vec<u8>,
    },
    /// The side file could not be read (its error as the source).
    Side(io::Error),
}

impl fmt::Display for NotResumed {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            NotResumed::List { path, error } => {
                write!(f, "{}: {error}; not resumed", path.display())
            }
            NotResumed::Differ { dir, name } => write!(
                f,
                "the lists in {} differ at {}; not resumed",
                dir.display(),
                escape::quote(name)
            ),
            NotResumed::Side(_) => f.write_str("cannot read the side file"),
        }
    }
}

impl std::error::Error for NotResumed {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            NotResumed::Side(err) => Some(err),
            _ => None,
        }
    }
}

/// Where a resumed run continues: the lengths to cut the lists and the side file to, and the
/// torn last lines that are written again.
#[derive(Debug, PartialEq, Eq)]
pub struct Cuts {
    /// Each list's length to keep, in the order given.
    pub list_lens: Vec<u64>,
    /// The side file's length to keep (0: it is written anew, header first).
    pub meta_len: u64,
    /// Lists whose incomplete or unreadable last line is written again, with its number.
    pub torn: Vec<(PathBuf, u64)>,
}

/// Lists begun by an earlier run, and their side file, compared with the walk (see the
/// [module docs](self)).
pub struct Resume<R: BufRead> {
    lists: Vec<(PathBuf, Prefix<R>)>,
    side: Option<MetaReader<R>>,
    /// Each list's kept length, once the walk reached a file one of them lacks.
    cut: Option<Vec<u64>>,
}

impl<R: BufRead> Resume<R> {
    /// The lists (each read as its algorithm and style write it: [`Prefix::new`]) at their
    /// paths, and the side file, if there is one.
    pub fn new(lists: Vec<(PathBuf, Prefix<R>)>, side: Option<MetaReader<R>>) -> Resume<R> {
        Resume {
            lists,
            side,
            cut: None,
        }
    }

    /// The walk's next name: [`Step::Kept`] (every list has it: not hashed again, its side
    /// record taken), [`Step::Gap`] (the earlier run could not read it, nor can this one:
    /// reported again) or [`Step::Resume`]: hash it and every name after it. `fails_now` says
    /// whether the file cannot be read now; it is asked at most once, for every list.
    ///
    /// # Errors
    /// [`NotResumed`] where a list is not this command line's, the lists part, or the side
    /// file cannot be read.
    pub fn step(
        &mut self,
        name: &[u8],
        fails_now: impl FnOnce() -> bool,
    ) -> Result<Step, NotResumed> {
        if self.cut.is_some() {
            return Ok(Step::Resume);
        }
        let before: Vec<u64> = self.lists.iter().map(|(_, l)| l.kept_end()).collect();
        let mut ask = Some(fails_now);
        let mut fails = None;
        let mut steps = Vec::with_capacity(self.lists.len());
        for (path, list) in &mut self.lists {
            let step = list.step(name, || {
                *fails.get_or_insert_with(|| ask.take().is_some_and(|ask| ask()))
            });
            steps.push(step.map_err(|error| NotResumed::List {
                path: path.clone(),
                error,
            })?);
        }
        if steps.contains(&Step::Resume) {
            self.cut = Some(before);
            Ok(Step::Resume)
        } else if steps.iter().all(|&step| step == Step::Kept) {
            if let Some(side) = self.side.as_mut() {
                side.take_if_next(name).map_err(NotResumed::Side)?;
            }
            Ok(Step::Kept)
        } else if steps.iter().all(|&step| step == Step::Gap) {
            Ok(Step::Gap)
        } else {
            let first = self.lists.first().map(|(path, _)| path.as_path());
            let dir = first.and_then(Path::parent).unwrap_or(Path::new("."));
            Err(NotResumed::Differ {
                dir: dir.to_path_buf(),
                name: name.to_vec(),
            })
        }
    }

    /// After the walk, or its first name to hash: where the lists and the side file are cut.
    ///
    /// # Errors
    /// [`NotResumed::List`] where the walk ended and a list names files after it.
    pub fn finish(self) -> Result<Cuts, NotResumed> {
        let torn = (self.lists.iter())
            .filter_map(|(path, list)| Some((path.clone(), list.torn_line()?)))
            .collect();
        let list_lens = match self.cut {
            Some(lens) => lens,
            None => (self.lists.into_iter())
                .map(|(path, list)| {
                    list.finish()
                        .map_err(|error| NotResumed::List { path, error })
                })
                .collect::<Result<_, _>>()?,
        };
        Ok(Cuts {
            list_lens,
            meta_len: self.side.as_ref().map_or(0, MetaReader::taken_end),
            torn,
        })
    }
}
