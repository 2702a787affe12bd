//! `sum --pieces` and `check --locate`: the piece list beside a list, and what `check` makes
//! of it (see the command's `locate` module).

use clap::Args;
use parhash_format::pieces::DEFAULT_PIECE_SIZE;

/// The smallest piece `--pieces` takes: below it the piece list outgrows the data's worth.
pub const MIN_PIECE_SIZE: u64 = 1024;

/// `sum`'s flag for a piece list.
#[derive(Args, Debug, Default, Clone)]
pub struct PiecesArgs {
    /// Also write LIST.parhash-pieces: the digest of every SIZE piece (1MiB) of each file.
    ///
    /// With -o LIST, in the same read as the digests: the digests of each file's pieces of
    /// SIZE bytes (KiB, MiB, GiB; 1 MiB without a value; at least 1 KiB), in XXH3-128 (they
    /// only say where; the verdict is the list's digest), in LIST.parhash-pieces (its
    /// format: docs/lists.md); with --lists DIR one beside each list. With it,
    /// `check --locate LIST` says which bytes of a file that fails differ, and `check
    /// --audit` how much of a changed file changed. --resume and --update keep the piece list
    /// consistent with the list (and go on with it, at its size, when --pieces is not given
    /// again). Without a list file, --json puts each file's pieces in its record. Not with
    /// --outboard.
    #[arg(long, value_name = "SIZE", num_args = 0..=1, require_equals = true,
          default_missing_value = "1MiB", value_parser = parse_piece_size,
          conflicts_with_all = ["outboard", "range", "etag", "composite", "check", "device"])]
    pub pieces: Option<u64>,
}

/// `check`'s flag to locate damage.
#[derive(Args, Debug, Default, Clone)]
pub struct LocateArgs {
    /// For a file that fails, say which bytes differ: `NAME: FAILED at bytes 0-1048575`.
    ///
    /// Reads each file once for its digest and, where the list has a piece list
    /// (LIST.parhash-pieces, from `sum --pieces -o LIST`), its pieces: a file that fails is
    /// reported with the byte ranges of the pieces that differ (adjacent ones merged), and
    /// its new size if it changed. A piece list that does not agree with its list line is
    /// reported as damage of the piece list, never of the file; without one, check says it
    /// cannot locate and how to make one. With --json a line that fails has `located`: its
    /// ranges as `{"offset", "length"}` records, the piece size and the sizes.
    #[arg(long)]
    pub locate: bool,
}

/// A piece size: a size as people write it (`4KiB`), at least [`MIN_PIECE_SIZE`].
fn parse_piece_size(text: &str) -> Result<u64, String> {
    let size = parhash_format::size::parse_size(text)?;
    if size < MIN_PIECE_SIZE {
        return Err(format!("a piece is at least {MIN_PIECE_SIZE} bytes (1KiB)"));
    }
    Ok(size)
}

const _: () = assert!(DEFAULT_PIECE_SIZE == 1 << 20);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn piece_sizes() {
        assert_eq!(parse_piece_size("1MiB"), Ok(DEFAULT_PIECE_SIZE));
        assert_eq!(parse_piece_size("4096"), Ok(4096));
        assert!(parse_piece_size("1000").is_err());
    }
}
