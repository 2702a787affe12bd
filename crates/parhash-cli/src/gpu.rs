//! `parhash sum --device gpu`: files hashed by the CUDA backend (`parhash-cuda`). sha256,
//! sha3-256 and keccak256 go in batches of many files (one GPU thread per file); parsha256
//! (`--tree-height`, `--iv-bits`) hashes each file as a tree of GPU threads, read once, a piece
//! at a time on every core into pinned memory while the piece before is copied. The lines are
//! the CPU's, byte for byte. Without a usable GPU this stops with the backend's one message,
//! `no usable CUDA GPU: <reason>`.

use std::ffi::OsString;
use std::io::{self, Read, Write};

use anyhow::{bail, Context, Result};
use parhash::{Algorithm, Output};
use parhash_cuda::{Gpu, SourceError};

use crate::flags::SumArgs;
use crate::input;
use crate::messages::{err_message, WRITE_ERROR};
use parhash_format::escape;
use parhash_format::line::{write_failure, write_line, LineStyle};

/// Bytes of file data read before a batch goes to the GPU (bounds memory on huge file lists).
const BATCH_BYTES: usize = 512 << 20;

/// Files per batch at most.
const BATCH_FILES: usize = 1 << 20;

/// Files larger than this are hashed by the batched kernels' CPU twin, streamed: one GPU thread
/// per message is far slower than a CPU core on one long message, and streaming keeps memory
/// bounded. (PARSHA-256 is the GPU's way to hash one long message.)
pub const LARGE_FILE: u64 = 64 << 20;

/// One file of a batch, in command-line order.
enum Entry {
    /// Read into memory, to be hashed on the GPU.
    Read(Vec<u8>),
    /// Already hashed (a large file, on the CPU).
    Done(Output),
    /// Could not be read.
    Failed(io::Error),
}

/// What runs on the GPU: many files per batch, or each file as PARSHA-256's tree.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum GpuJob {
    Batch,
    Parsha { tree_height: u32, iv_bits: u32 },
}

fn job_for(algorithm: Algorithm, args: &SumArgs) -> Result<GpuJob> {
    Gpu::check_algorithm(algorithm)?;
    Ok(if algorithm == Algorithm::Parsha256 {
        let params = args.hashing.tree_params();
        GpuJob::Parsha {
            tree_height: params.tree_height(),
            iv_bits: params.iv_bits(),
        }
    } else {
        GpuJob::Batch
    })
}

fn read_all(name: &[u8]) -> io::Result<Vec<u8>> {
    let mut data = Vec::new();
    if name == b"-" {
        io::stdin().lock().read_to_end(&mut data)?;
    } else {
        data = std::fs::read(escape::path_from_bytes(name))?;
    }
    Ok(data)
}

/// Runs `sum --device gpu` over `files` (no directory walk); `Ok(false)` when a file failed.
pub fn run(
    algorithm: Algorithm,
    files: &[OsString],
    args: &SumArgs,
    style: LineStyle,
) -> Result<bool> {
    if args.recursive {
        bail!("--device gpu hashes the files named on the command line; -r is not supported");
    }
    let job = job_for(algorithm, args)?;
    run_on(&Gpu::open()?, job, 0, algorithm, files, args, style)
}

/// Runs `sum --device auto`: on the GPU where `parhash bench --preset gpu` recorded it winning
/// on this machine ([`parhash_cuda::wins`]), files smaller than the recorded size on the CPU;
/// `None` (nothing started) where the record, the GPU or this invocation rules the GPU out, and
/// the caller hashes everything on the CPU.
pub fn run_auto(
    algorithm: Algorithm,
    files: &[OsString],
    args: &SumArgs,
    style: LineStyle,
) -> Option<Result<bool>> {
    if args.recursive {
        return None;
    }
    let job = job_for(algorithm, args).ok()?;
    let GpuJob::Parsha {
        tree_height,
        iv_bits,
    } = job
    else {
        return None;
    };
    let record = parhash_cuda::wins::load()?;
    let name = algorithm.info().name;
    let from = record.gpu_from(&record.device, name, tree_height, iv_bits)?;
    // Opening the GPU costs more than hashing small files: only when one is large enough.
    let large = files
        .iter()
        .any(|f| std::fs::metadata(f).is_ok_and(|m| m.is_file() && m.len() >= from.max(1)));
    if !large {
        return None;
    }
    let gpu = Gpu::open().ok().filter(|g| g.name() == record.device)?;
    Some(run_on(
        &gpu,
        job,
        from.max(1),
        algorithm,
        files,
        args,
        style,
    ))
}

/// Hashes `files` on `gpu`, those under `min_bytes` (and standard input, when it is above 0)
/// on the CPU.
fn run_on(
    gpu: &Gpu,
    job: GpuJob,
    min_bytes: u64,
    algorithm: Algorithm,
    files: &[OsString],
    args: &SumArgs,
    style: LineStyle,
) -> Result<bool> {
    let mut stdout = crate::stdio::stdout();
    let mut all_ok = true;
    let mut lines = Vec::new();
    // Files are read in order into a batch, which goes to the GPU when full; lines keep the
    // command line's order.
    let mut batch: Vec<(Vec<u8>, Entry)> = Vec::new();
    let mut batch_bytes = 0usize;
    let mut flush = |batch: &mut Vec<(Vec<u8>, Entry)>,
                     stdout: &mut crate::stdio::Stdout,
                     all_ok: &mut bool|
     -> Result<()> {
        let inputs: Vec<&[u8]> = batch
            .iter()
            .filter_map(|(_, e)| match e {
                Entry::Read(d) => Some(d.as_slice()),
                _ => None,
            })
            .collect();
        // Only standard input is read into memory for PARSHA-256 (files go to `parsha_file`).
        let (tree_height, iv_bits) = match job {
            GpuJob::Parsha {
                tree_height,
                iv_bits,
            } => (tree_height, iv_bits),
            GpuJob::Batch => (0, 0),
        };
        let digests = gpu.hash_many(algorithm, &inputs, tree_height, iv_bits)?;
        let mut next = digests.iter();
        for (name, entry) in batch.drain(..) {
            let digest = match entry {
                Entry::Read(_) => {
                    Output::from_slice(next.next().expect("one digest per file read"))
                }
                Entry::Done(digest) => digest,
                Entry::Failed(err) => {
                    write_failure(&mut lines, algorithm, &name, &err, style);
                    stdout.write_all(&lines).context(WRITE_ERROR)?;
                    lines.clear();
                    err_message!(
                        "{}: {}",
                        escape::quote(&name),
                        parhash_format::error_text(&err)
                    );
                    *all_ok = false;
                    continue;
                }
            };
            write_line(&mut lines, algorithm, &digest, &name, style);
        }
        stdout.write_all(&lines).context(WRITE_ERROR)?;
        lines.clear();
        Ok(())
    };
    for file in files {
        let name = escape::os_bytes(file).into_owned();
        let source = input::Source::from_name(&name);
        let size = match &source {
            input::Source::Path(p) => std::fs::metadata(p).ok().map(|m| m.len()),
            input::Source::Stdin => None,
        };
        let large = size.is_some_and(|len| len > LARGE_FILE);
        let entry = if min_bytes > 0 && size.is_none_or(|len| len < min_bytes) {
            match input::hash_input(algorithm, &source, &args.hashing) {
                Ok(digest) => Entry::Done(digest),
                Err(err) => Entry::Failed(err),
            }
        } else if let (
            GpuJob::Parsha {
                tree_height,
                iv_bits,
            },
            input::Source::Path(path),
        ) = (job, &source)
        {
            match parsha_file(gpu, path, tree_height, iv_bits)? {
                Ok(digest) => Entry::Done(digest),
                Err(err) => Entry::Failed(err),
            }
        } else if large && !matches!(job, GpuJob::Parsha { .. }) {
            match input::hash_input(algorithm, &source, &args.hashing) {
                Ok(digest) => Entry::Done(digest),
                Err(err) => Entry::Failed(err),
            }
        } else {
            match read_all(&name) {
                Ok(data) => {
                    batch_bytes += data.len();
                    Entry::Read(data)
                }
                Err(err) => Entry::Failed(err),
            }
        };
        batch.push((name, entry));
        // PARSHA-256 hashes one long file at a time; the batched hashes gather many.
        let full = matches!(job, GpuJob::Parsha { .. })
            || batch_bytes >= BATCH_BYTES
            || batch.len() >= BATCH_FILES;
        if full {
            flush(&mut batch, &mut stdout, &mut all_ok)?;
            batch_bytes = 0;
        }
    }
    flush(&mut batch, &mut stdout, &mut all_ok)?;
    stdout.flush().context(WRITE_ERROR)?;
    Ok(all_ok)
}

/// PARSHA-256 of one file on the GPU ([`Gpu::parsha256_file`]: read once, the CPU's rules for
/// a file that changes). `Ok(Err(..))`: the file could not be read or changed, a failure of that
/// file alone; `Err(..)`: the GPU failed.
fn parsha_file(
    gpu: &Gpu,
    path: &std::path::Path,
    tree_height: u32,
    iv_bits: u32,
) -> Result<io::Result<Output>> {
    match gpu.parsha256_file(path, tree_height, iv_bits) {
        Ok(run) => Ok(Ok(Output::from_slice(&run.digest))),
        Err(SourceError::Read(e)) => Ok(Err(e)),
        Err(SourceError::Gpu(e)) => Err(e.into()),
    }
}
