//! `seekfs --backing FILE --mount DIR [--seek-ms 8] [--rate-mb-s 150] [--trace] [FAULTS]`:
//! serves FILE read-only as DIR/NAME on a simulated slow-seeking disk (see the library's
//! documentation), with the faults asked for, until SIGINT or SIGTERM, then unmounts and prints
//! the counts of reads, seeks and bytes.

#![forbid(unsafe_code)]

use std::path::PathBuf;
use std::process::ExitCode;

const USAGE: &str =
    "usage: seekfs --backing FILE --mount DIR [--seek-ms 8] [--rate-mb-s 150] [--trace] [FAULTS]
Serves FILE read-only as DIR/<its name> on a simulated slow-seeking disk (FUSE): one request
at a time, a read that does not start where the previous one ended pays a seek, every read pays
its length over the rate. Runs until SIGINT or SIGTERM, then unmounts and prints its counts.
--seek-ms 0 --rate-mb-s inf: no delays.
--trace prints each read request (offset+length, and whether it seeked).
Faults (none by default):
  --fail-at OFFSET        a read that would serve the byte at OFFSET fails with EIO
  --short-reads N         each read serves at most N bytes (the file is opened for direct I/O)
  --change-after K        the file changes once K bytes have been served; later reads see:
  --change-flip-from OFF    its bytes from OFF on inverted
  --change-size SIZE        its size SIZE (cut, or extended with zeros)
  --change-mtime            its mtime and ctime one second later
Needs root (mount(2) on /dev/fuse).";

struct Args {
    backing: PathBuf,
    mount: PathBuf,
    seek_ms: f64,
    rate_mb_s: f64,
    trace: bool,
    faults: seekfs::Faults,
}

fn parse(mut args: impl Iterator<Item = String>) -> Result<Args, String> {
    let (mut backing, mut mount) = (None, None);
    let (mut seek_ms, mut rate_mb_s) = (8.0, 150.0);
    let mut trace = false;
    let mut faults = seekfs::Faults::default();
    let mut change = None::<seekfs::Change>;
    while let Some(arg) = args.next() {
        let (name, inline) = match arg.split_once('=') {
            Some((n, v)) if n.starts_with("--") => (n.to_string(), Some(v.to_string())),
            _ => (arg, None),
        };
        if name == "-h" || name == "--help" {
            return Err(String::new());
        }
        if inline.is_none() {
            match name.as_str() {
                "--trace" => trace = true,
                "--change-mtime" => change.get_or_insert_default().touch = true,
                _ => {}
            }
            if matches!(name.as_str(), "--trace" | "--change-mtime") {
                continue;
            }
        }
        let value = inline
            .or_else(|| args.next())
            .ok_or_else(|| format!("{name} needs a value"))?;
        let number = |v: &str| v.parse::<f64>().map_err(|e| format!("{name} {v}: {e}"));
        let count = |v: &str| v.parse::<u64>().map_err(|e| format!("{name} {v}: {e}"));
        match name.as_str() {
            "--backing" => backing = Some(PathBuf::from(value)),
            "--mount" => mount = Some(PathBuf::from(value)),
            "--seek-ms" => seek_ms = number(&value)?,
            "--rate-mb-s" => rate_mb_s = number(&value)?,
            "--fail-at" => faults.fail_at = Some(count(&value)?),
            "--short-reads" => {
                let most = value.parse().map_err(|e| format!("{name} {value}: {e}"))?;
                faults.short_reads = Some(most);
            }
            "--change-after" => change.get_or_insert_default().after = count(&value)?,
            "--change-flip-from" => change.get_or_insert_default().flip_from = Some(count(&value)?),
            "--change-size" => change.get_or_insert_default().size = Some(count(&value)?),
            _ => return Err(format!("unknown argument {name}")),
        }
    }
    faults.change = change;
    Ok(Args {
        backing: backing.ok_or("--backing FILE is required")?,
        mount: mount.ok_or("--mount DIR is required")?,
        seek_ms,
        rate_mb_s,
        trace,
        faults,
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
        .trace(args.trace)
        .faults(args.faults);
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
        "seekfs: serving {} (a simulated disk: {} ms seeks, {} MB/s; {:?}) until SIGINT or SIGTERM",
        mounted.file().display(),
        args.seek_ms,
        args.rate_mb_s,
        args.faults
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

#[cfg(test)]
mod tests {
    use super::*;

    fn args(line: &str) -> Result<Args, String> {
        parse(line.split_whitespace().map(String::from))
    }

    #[test]
    fn fault_flags_fill_the_faults() {
        let a = args(
            "--backing f --mount m --seek-ms 0 --rate-mb-s inf --fail-at 5 --short-reads=7 \
             --change-after 10 --change-flip-from 20 --change-size 30 --change-mtime --trace",
        )
        .unwrap();
        assert!(a.trace);
        assert_eq!(
            seekfs::Model::new(a.seek_ms, a.rate_mb_s),
            Ok(seekfs::Model::INSTANT)
        );
        assert_eq!(
            a.faults,
            seekfs::Faults {
                fail_at: Some(5),
                short_reads: Some(7),
                change: Some(seekfs::Change {
                    after: 10,
                    flip_from: Some(20),
                    size: Some(30),
                    touch: true,
                }),
            }
        );
        let plain = args("--backing f --mount m").unwrap();
        assert_eq!(plain.faults, seekfs::Faults::default());
        assert!(args("--backing f --mount m --fail-at x").is_err());
        assert!(args("--backing f --mount m --short-reads").is_err());
    }
}
