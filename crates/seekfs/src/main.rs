//! `seekfs --backing FILE --mount DIR [--seek-ms 8] [--rate-mb-s 150] [--trace]`: serves FILE read-only
//! as DIR/NAME on a simulated slow-seeking disk (see the library's documentation) until SIGINT
//! or SIGTERM, then unmounts and prints the counts of reads, seeks and bytes.

#![forbid(unsafe_code)]

use std::path::PathBuf;
use std::process::ExitCode;

const USAGE: &str =
    "usage: seekfs --backing FILE --mount DIR [--seek-ms 8] [--rate-mb-s 150] [--trace]
Serves FILE read-only as DIR/<its name> on a simulated slow-seeking disk (FUSE): one request
at a time, a read that does not start where the previous one ended pays a seek, every read pays
its length over the rate. Runs until SIGINT or SIGTERM, then unmounts and prints its counts.
--trace prints each read request (offset+length, and whether it seeked).
Needs root (mount(2) on /dev/fuse).";

struct Args {
    backing: PathBuf,
    mount: PathBuf,
    seek_ms: f64,
    rate_mb_s: f64,
    trace: bool,
}

fn parse(mut args: impl Iterator<Item = String>) -> Result<Args, String> {
    let (mut backing, mut mount) = (None, None);
    let (mut seek_ms, mut rate_mb_s) = (8.0, 150.0);
    let mut trace = false;
    while let Some(arg) = args.next() {
        let (name, inline) = match arg.split_once('=') {
            Some((n, v)) if n.starts_with("--") => (n.to_string(), Some(v.to_string())),
            _ => (arg, None),
        };
        if name == "-h" || name == "--help" {
            return Err(String::new());
        }
        if name == "--trace" && inline.is_none() {
            trace = true;
            continue;
        }
        let value = inline
            .or_else(|| args.next())
            .ok_or_else(|| format!("{name} needs a value"))?;
        let number = |v: &str| v.parse::<f64>().map_err(|e| format!("{name} {v}: {e}"));
        match name.as_str() {
            "--backing" => backing = Some(PathBuf::from(value)),
            "--mount" => mount = Some(PathBuf::from(value)),
            "--seek-ms" => seek_ms = number(&value)?,
            "--rate-mb-s" => rate_mb_s = number(&value)?,
            _ => return Err(format!("unknown argument {name}")),
        }
    }
    Ok(Args {
        backing: backing.ok_or("--backing FILE is required")?,
        mount: mount.ok_or("--mount DIR is required")?,
        seek_ms,
        rate_mb_s,
        trace,
    })
}

fn main() -> ExitCode {
    let args = match parse(std::env::args().skip(1)) {
        Ok(a) => a,
        Err(e) if e.is_empty() => {
            println!("{USAGE}");
            return ExitCode::SUCCESS;
        }
        Err(e) => {
            eprintln!("seekfs: {e}\n{USAGE}");
            return ExitCode::from(2);
        }
    };
    match run(&args) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("seekfs: {e}");
            ExitCode::FAILURE
        }
    }
}

#[cfg(target_os = "linux")]
fn run(args: &Args) -> Result<(), String> {
    use nix::sys::signal::{SigSet, Signal};

    let model = seekfs::Model::new(args.seek_ms, args.rate_mb_s)?;
    let fs = seekfs::SeekFs::new(&args.backing, model)
        .map_err(|e| format!("{}: {e}", args.backing.display()))?
        .trace(args.trace);
    // Block the signals before the serving thread starts (it inherits the mask), then wait for
    // them here: no handler runs, the mount is dropped (unmounted) in order.
    let mut signals = SigSet::empty();
    signals.add(Signal::SIGINT);
    signals.add(Signal::SIGTERM);
    signals
        .thread_block()
        .map_err(|e| format!("blocking SIGINT/SIGTERM: {e}"))?;
    let mounted = seekfs::mount(fs, &args.mount)
        .map_err(|e| format!("mount {}: {e}", args.mount.display()))?;
    eprintln!(
        "seekfs: serving {} (a simulated disk: {} ms seeks, {} MB/s) until SIGINT or SIGTERM",
        mounted.file().display(),
        args.seek_ms,
        args.rate_mb_s
    );
    let signal = signals
        .wait()
        .map_err(|e| format!("waiting for a signal: {e}"))?;
    let stats = mounted
        .unmount()
        .map_err(|e| format!("unmount {}: {e}", args.mount.display()))?;
    eprintln!(
        "seekfs: {signal}: unmounted; {} reads, {} seeks, {} bytes",
        stats.reads, stats.seeks, stats.bytes
    );
    Ok(())
}

#[cfg(not(target_os = "linux"))]
fn run(_args: &Args) -> Result<(), String> {
    Err("mounts on Linux only (FUSE with mount(2))".into())
}
