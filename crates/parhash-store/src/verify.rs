//! A local tree against a bucket and prefix: the listing and the walk merged in key order, a
//! verdict for every object and file, no object's bytes read.
//!
//! The merge is taken [`WINDOW`] entries at a time. A window's files whose object's listed ETag
//! may be theirs (no additional checksum listed, an ETag of an MD5 form) are hashed together
//! (`parhash::multipart::compute_files`: the SIMD lanes across files, every core) while the
//! next window is merged; only a mismatch, an error, or an object that lists an additional
//! checksum is asked of the store (HeadObject), up to `threads` requests at once. The listing
//! runs ahead on a task of its own. Memory holds a few windows and a page, whatever the
//! bucket's size.

use std::collections::VecDeque;
use std::ffi::OsStr;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use aws_sdk_s3::Client;
use parhash::multipart::{self, FileJob};
use parhash::Threads;
use tokio::runtime::Runtime;
use tokio::sync::{mpsc, OwnedSemaphorePermit, Semaphore};
use tokio::task::JoinHandle;

use crate::difference::{self, Difference, Failed};
use crate::keys::KeyWalk;
use crate::report::Verdict;
use crate::rules::{self, Expected, Head, Wanted};
use crate::s3::{self, Listed};

/// Entries of the merge taken at a time: enough files to keep every core's lanes busy, few
/// enough that the first verdicts come soon and memory stays flat.
pub const WINDOW: usize = 1024;

/// Windows in flight: one hashed while the next is merged and its requests sent.
const IN_FLIGHT: usize = 2;

/// Listing pages fetched ahead of the merge.
const PAGES_AHEAD: usize = 4;

/// How a verification runs.
#[derive(Clone, Debug)]
pub struct Options {
    /// Requests to the store at once.
    pub threads: usize,
    /// Resume after this name (relative to the prefix).
    pub start_after: Option<String>,
    /// The store's smallest part (all but the last) of a multipart upload.
    pub min_part_size: u64,
    /// Keys per listing page (the store's default where None).
    pub page_size: Option<i32>,
    /// Download each changed object (streamed) to say where it differs from its file.
    pub download_mismatches: bool,
}

impl Default for Options {
    fn default() -> Options {
        Options {
            threads: 16,
            start_after: None,
            min_part_size: rules::S3_MIN_PART,
            page_size: None,
            download_mismatches: false,
        }
    }
}

/// A run that cannot go on: the store's failure, or a folder of the tree that cannot be read.
#[derive(Debug)]
pub enum Failure {
    /// The store refused a request or could not be reached.
    Store(s3::StoreError),
    /// A folder of the tree could not be read.
    Walk(crate::keys::WalkError),
}

impl std::fmt::Display for Failure {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Failure::Store(err) => err.fmt(f),
            Failure::Walk(err) => err.fmt(f),
        }
    }
}

impl std::error::Error for Failure {}

/// What one verification shares with its tasks.
struct Shared {
    client: Client,
    bucket: String,
    min_part: u64,
    requests: Arc<Semaphore>,
    download: bool,
}

/// One entry of the merge: an object, a file, or both.
struct Entry {
    object: Option<Listed>,
    name: String,
    path: Option<PathBuf>,
}

/// Every object under `prefix` and every file below `local`, one [`Verdict`] each in key
/// order, handed to `emit` as they are decided. A failure of the store or the walk ends the
/// run after the verdicts before it.
///
/// # Errors
/// [`Failure`]: the store's refusal or absence, or a folder that cannot be read.
pub fn verify(
    runtime: &Runtime,
    client: Client,
    local: &Path,
    bucket: &str,
    prefix: &str,
    options: &Options,
    mut emit: impl FnMut(Verdict),
) -> Result<(), Failure> {
    let shared = Arc::new(Shared {
        client: client.clone(),
        bucket: bucket.to_string(),
        min_part: options.min_part_size,
        requests: Arc::new(Semaphore::new(options.threads.max(1))),
        download: options.download_mismatches,
    });
    let (sender, mut pages) = mpsc::channel(PAGES_AHEAD);
    let after = options
        .start_after
        .as_ref()
        .map(|name| format!("{prefix}{name}"));
    let listing = runtime.spawn(s3::list(
        client,
        bucket.to_string(),
        prefix.to_string(),
        after,
        options.page_size,
        sender,
    ));
    let walk = KeyWalk::new(local, options.start_after.as_deref().map(OsStr::new))
        .map_err(Failure::Walk)?;
    let mut merge = Merge {
        objects: VecDeque::new(),
        pages: &mut pages,
        listing_done: false,
        files: walk.peekable(),
        prefix,
    };
    let mut windows: VecDeque<JoinHandle<Vec<Result<Verdict, s3::StoreError>>>> = VecDeque::new();
    let mut failure = None;
    loop {
        let mut window = Vec::with_capacity(WINDOW);
        while window.len() < WINDOW {
            match merge.next() {
                Some(Ok(entry)) => window.push(entry),
                Some(Err(err)) => {
                    failure = Some(err);
                    break;
                }
                None => break,
            }
        }
        let last = window.len() < WINDOW || failure.is_some();
        if !window.is_empty() {
            windows.push_back(runtime.spawn(decide(shared.clone(), window)));
        }
        while windows.len() > IN_FLIGHT || (last && !windows.is_empty()) {
            let window = windows.pop_front().expect("a window");
            let verdicts = runtime
                .block_on(window)
                .expect("a window's task does not panic");
            for verdict in verdicts {
                match verdict {
                    Ok(verdict) => emit(verdict),
                    Err(err) => {
                        listing.abort();
                        windows.iter().for_each(JoinHandle::abort);
                        return Err(Failure::Store(err));
                    }
                }
            }
        }
        if last {
            break;
        }
    }
    listing.abort();
    failure.map_or(Ok(()), Err)
}

/// The listing and the walk in key order.
struct Merge<'a> {
    objects: VecDeque<Listed>,
    pages: &'a mut mpsc::Receiver<Result<Vec<Listed>, s3::StoreError>>,
    listing_done: bool,
    files: std::iter::Peekable<KeyWalk>,
    prefix: &'a str,
}

impl Merge<'_> {
    /// The next object, from the page at hand or the next one to come.
    fn object(&mut self) -> Result<Option<&Listed>, Failure> {
        while self.objects.is_empty() && !self.listing_done {
            match self.pages.blocking_recv() {
                Some(Ok(page)) => self.objects.extend(page),
                Some(Err(err)) => {
                    self.listing_done = true;
                    return Err(Failure::Store(err));
                }
                None => self.listing_done = true,
            }
        }
        Ok(self.objects.front())
    }

    fn next(&mut self) -> Option<Result<Entry, Failure>> {
        let prefix_len = self.prefix.len();
        let name = match self.object() {
            Ok(object) => object.map(|o| o.key[prefix_len..].to_string()),
            Err(err) => return Some(Err(err)),
        };
        let file = match self.files.peek() {
            Some(Ok((file, _))) => Some(crate::keys::key_bytes(file)),
            Some(Err(_)) => {
                let Some(Err(err)) = self.files.next() else {
                    unreachable!("peeked")
                };
                return Some(Err(Failure::Walk(err)));
            }
            None => None,
        };
        let take_object = |objects: &mut VecDeque<Listed>| objects.pop_front();
        let take_file = |files: &mut std::iter::Peekable<KeyWalk>| match files.next() {
            Some(Ok((name, path))) => (name.to_string_lossy().into_owned(), path),
            _ => unreachable!("peeked"),
        };
        Some(Ok(match (name, file) {
            (None, None) => return None,
            (Some(name), file) if file.as_ref().is_none_or(|f| name.as_bytes() < &f[..]) => Entry {
                object: take_object(&mut self.objects),
                name,
                path: None,
            },
            (Some(name), Some(file)) if name.as_bytes() == &file[..] => {
                let (_, path) = take_file(&mut self.files);
                Entry {
                    object: take_object(&mut self.objects),
                    name,
                    path: Some(path),
                }
            }
            _ => {
                let (name, path) = take_file(&mut self.files);
                Entry {
                    object: None,
                    name,
                    path: Some(path),
                }
            }
        }))
    }
}

/// A window's verdicts in order: its files with their objects' listed ETags hashed as one
/// batch, the rest (and every mismatch) checked against the store.
async fn decide(shared: Arc<Shared>, window: Vec<Entry>) -> Vec<Result<Verdict, s3::StoreError>> {
    // The files whose listed ETag is compared first, with what to compute for each.
    let mut batch: Vec<(usize, Expected, Wanted)> = Vec::new();
    for (i, entry) in window.iter().enumerate() {
        if let (Some(object), Some(_)) = (&entry.object, &entry.path) {
            if let Some((exp, wanted)) = listed_etag(object, shared.min_part) {
                batch.push((i, exp, wanted));
            }
        }
    }
    let window = Arc::new(window);
    let batch = Arc::new(batch);
    let hashed = {
        let (window, batch) = (window.clone(), batch.clone());
        tokio::task::spawn_blocking(move || {
            let jobs: Vec<FileJob<'_>> = (batch.iter())
                .map(|(i, _, wanted)| FileJob {
                    path: window[*i].path.as_deref().expect("a file"),
                    requests: wanted.requests(),
                    whole: wanted.whole(),
                    len: window[*i].object.as_ref().map(|o| o.size),
                })
                .collect();
            multipart::compute_files(&jobs, Threads::default())
        })
        .await
        .expect("hashing does not panic")
    };
    // Each entry's verdict, given here or by a task of its own.
    let mut given: Vec<Option<Verdict>> = vec![None; window.len()];
    let mut listed: Vec<Option<Verdict>> = vec![None; window.len()];
    for ((i, exp, wanted), answer) in batch.iter().zip(hashed) {
        let entry = &window[*i];
        let key = entry.object.as_ref().map_or("", |o| o.key.as_str());
        if let Ok(results) = answer {
            let found = rules::found(wanted, &results);
            let verdict = rules::verdict(exp, &entry.name, key, wanted, &found);
            if verdict.status == "matched" {
                given[*i] = Some(verdict);
            } else {
                listed[*i] = Some(verdict);
            }
        }
    }
    let mut tasks: Vec<Option<JoinHandle<Result<Verdict, s3::StoreError>>>> = Vec::new();
    for (i, entry) in window.iter().enumerate() {
        tasks.push(match (&entry.object, &entry.path, &given[i]) {
            (_, _, Some(_)) => None,
            (Some(_), Some(_), None) => {
                // Turns are taken here, in key order, so that the requests go out in the order
                // the verdicts are reported: a store lost midway leaves every verdict before
                // the first unanswered key decided.
                let turn = (shared.requests.clone().acquire_owned().await).expect("never closed");
                let (shared, window, first) = (shared.clone(), window.clone(), listed[i].take());
                Some(tokio::spawn(async move {
                    let verdict = check(&shared, &window[i], first, turn).await?;
                    if !(shared.download && verdict.status == "changed") {
                        return Ok(verdict);
                    }
                    let entry = &window[i];
                    let (object, path) = (entry.object.as_ref(), entry.path.clone());
                    let (key, path) = (&object.expect("an object").key, path.expect("a file"));
                    let found = downloaded(&shared, key, path).await?;
                    Ok(verdict.downloaded(found))
                }))
            }
            _ => None,
        });
    }
    let mut verdicts = Vec::with_capacity(window.len());
    for ((entry, given), task) in window.iter().zip(given).zip(tasks) {
        verdicts.push(match (given, task) {
            (Some(verdict), _) => Ok(verdict),
            (None, Some(task)) => task.await.expect("a check does not panic"),
            (None, None) => Ok(match &entry.object {
                Some(object) => Verdict::bare("missing", &entry.name, Some(&object.key)),
                None => Verdict::bare("new", &entry.name, None),
            }),
        });
    }
    verdicts
}

/// The listed ETag of `object` where [`check`] would compare a file of the object's size with
/// it first, and what to compute for it: no additional checksum listed, an ETag of an MD5
/// form, a part size that gives its parts.
fn listed_etag(object: &Listed, min_part: u64) -> Option<(Expected, Wanted)> {
    if object.checksum_listed {
        return None;
    }
    let exp = rules::expected(&Head::from_etag(&object.etag)).ok()?;
    let wanted = rules::requests_for(&exp, object.size, min_part)?;
    Some((exp, wanted))
}

/// One object against its local file: sizes first, then its listed ETag where it is the
/// strongest checksum listed (`first`: that comparison's verdict, where already made), then
/// the strongest checksum HeadObject gives. An object deleted since the listing leaves its
/// file new.
async fn check(
    shared: &Shared,
    entry: &Entry,
    first: Option<Verdict>,
    turn: OwnedSemaphorePermit,
) -> Result<Verdict, s3::StoreError> {
    let (object, path) = match (&entry.object, &entry.path) {
        (Some(object), Some(path)) => (object, path.clone()),
        _ => unreachable!("checked: an object with its file"),
    };
    let (name, key) = (entry.name.as_str(), object.key.as_str());
    let size = match std::fs::metadata(&path) {
        Ok(meta) => meta.len(),
        Err(err) => {
            let reason = parhash_format::error_text(&err);
            return Ok(Verdict::bare("unreadable", name, Some(key)).because(reason));
        }
    };
    if size != object.size {
        let reason = format!("{size} bytes here, {} in the store", object.size);
        return Ok(Verdict::bare("changed", name, Some(key)).because(reason));
    }
    let mut listed = None;
    if !object.checksum_listed {
        if let Ok(exp) = rules::expected(&Head::from_etag(&object.etag)) {
            let verdict = match first {
                Some(verdict) => verdict,
                None => compare(&exp, name, key, &path, size, shared.min_part).await,
            };
            if verdict.status == "matched" {
                return Ok(verdict);
            }
            listed = Some((exp, verdict));
        }
    }
    let head = s3::head(&shared.client, &shared.bucket, key).await;
    drop(turn);
    let head = match head {
        Ok(head) => head,
        Err(err) if err.gone => {
            let reason = "its object was deleted after the listing";
            return Ok(Verdict::bare("new", name, None).because(reason));
        }
        Err(err) => return Err(err),
    };
    let exp = match rules::expected(&head) {
        Ok(exp) => exp,
        Err(why) => return Ok(Verdict::bare("unverifiable", name, Some(key)).because(why)),
    };
    if let Some((listed, verdict)) = listed {
        if listed == exp {
            return Ok(verdict);
        }
    }
    Ok(compare(&exp, name, key, &path, size, shared.min_part).await)
}

/// The file at `path` (`size` bytes) against `exp`: one read for every part size that may
/// have made it.
async fn compare(
    exp: &Expected,
    name: &str,
    key: &str,
    path: &Path,
    size: u64,
    min_part: u64,
) -> Verdict {
    let Some(wanted) = rules::requests_for(exp, size, min_part) else {
        return rules::no_part_size(exp, name, key, size);
    };
    let (path, hashed_wanted) = (path.to_path_buf(), wanted.clone());
    let answer = tokio::task::spawn_blocking(move || {
        let file = std::fs::File::open(&path)?;
        multipart::compute_file_whole(&file, hashed_wanted.requests(), hashed_wanted.whole())
    })
    .await
    .expect("hashing does not panic");
    match answer {
        Ok(results) => rules::verdict(exp, name, key, &wanted, &rules::found(&wanted, &results)),
        Err(err) => rules::checked("unreadable", name, key, exp, None, None)
            .because(parhash_format::error_text(&err)),
    }
}

/// Where the object `key` and the file at `path` differ, the object streamed beside the file
/// (`parhash_store::difference`); why it could not be, in words (the file unreadable, the
/// object deleted meanwhile).
///
/// # Errors
/// The store's refusal or absence.
async fn downloaded(
    shared: &Shared,
    key: &str,
    path: PathBuf,
) -> Result<Result<Difference, String>, s3::StoreError> {
    let _turn = shared.requests.acquire().await.expect("never closed");
    let deleted = || Ok(Err("the object was deleted meanwhile".to_string()));
    let parts = match s3::parts(&shared.client, &shared.bucket, key).await {
        Ok(parts) => parts,
        Err(_) => return deleted(),
    };
    let body = match s3::body(&shared.client, &shared.bucket, key).await {
        Ok(body) => body,
        Err(err) if err.gone => return deleted(),
        Err(err) => return Err(err),
    };
    let mut object = Blocking {
        reader: Box::pin(body.into_async_read()),
        runtime: tokio::runtime::Handle::current(),
    };
    let compared = tokio::task::spawn_blocking(move || {
        let mut local = std::fs::File::open(&path).map_err(Failed::Local)?;
        difference::compare(&mut object, &mut local, parts)
    })
    .await
    .expect("a comparison does not panic");
    match compared {
        Ok(found) => Ok(Ok(found)),
        Err(Failed::Local(err)) => Ok(Err(parhash_format::error_text(&err))),
        Err(Failed::Object(err)) => Err(s3::StoreError {
            message: format!("the store cannot be reached: GetObject: {err}"),
            gone: false,
        }),
    }
}

/// An object's bytes read on a blocking thread, each read waiting on the runtime.
struct Blocking {
    reader: std::pin::Pin<Box<dyn tokio::io::AsyncRead + Send>>,
    runtime: tokio::runtime::Handle,
}

impl std::io::Read for Blocking {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        use tokio::io::AsyncReadExt;
        self.runtime.block_on(self.reader.read(buf))
    }
}
