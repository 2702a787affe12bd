//! `parhash sum --device gpu`: files hashed by the CUDA backend (`parhash-cuda`). sha256,
//! sha3-256 and keccak256 go in batches of many files (one GPU thread per file); parsha256
//! (`--tree-height`, `--iv-bits`) hashes each file as a tree of GPU threads. The lines are the
//! CPU's, byte for byte. Without a usable GPU this stops
//! with the backend's one message, `no usable CUDA GPU: <reason>`.

use std::ffi::OsString;
use std::io::{self, Read, Write};

use anyhow::{bail, Context, Result};
use parhash::{Algorithm, Output};
use parhash_cuda::{Gpu, KeccakKind, KeccakLayout};

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

/// What runs on the GPU.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum GpuJob {
    Sha256,
    Keccak(KeccakKind),
    Parsha { tree_height: u32, iv_bits: u32 },
}

fn job_for(algorithm: Algorithm, args: &SumArgs) -> Result<GpuJob> {
    Ok(match algorithm {
        Algorithm::Sha256 => GpuJob::Sha256,
        Algorithm::Sha3_256 => GpuJob::Keccak(KeccakKind::Sha3_256),
        Algorithm::Keccak256 => GpuJob::Keccak(KeccakKind::Keccak256),
        Algorithm::Parsha256 => {
            let params = args.hashing.tree_params();
            GpuJob::Parsha {
                tree_height: params.tree_height(),
                iv_bits: params.iv_bits(),
            }
        }
        other => bail!(
            "--device gpu hashes sha256, sha3-256, keccak256 and parsha256, not {}",
            other.info().name
        ),
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
    let gpu = Gpu::open()?;
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
        let digests: Vec<[u8; 32]> = match job {
            GpuJob::Sha256 => gpu.sha256_many(&inputs)?,
            GpuJob::Keccak(kind) => gpu.keccak_many(&inputs, kind, KeccakLayout::Interleaved)?,
            GpuJob::Parsha {
                tree_height,
                iv_bits,
            } => inputs
                .iter()
                .map(|d| gpu.parsha256(d, tree_height, iv_bits).map(|(_, z)| z))
                .collect::<Result<_, _>>()?,
        };
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
        let large = match &source {
            input::Source::Path(p) => std::fs::metadata(p).is_ok_and(|m| m.len() > LARGE_FILE),
            input::Source::Stdin => false,
        };
        let entry = if large && !matches!(job, GpuJob::Parsha { .. }) {
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
