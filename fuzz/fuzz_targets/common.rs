//! What the list targets share: how the first bytes of an input pick the algorithm, the line
//! style and the walk that a list is read against.
#![allow(dead_code)] // each target uses a part

use parhash::{Algorithm, TreeParams};
use parhash_format::check::CheckOptions;
use parhash_format::line::LineStyle;
use parhash_format::resume::{Record, Records};
use parhash_format::update::WalkOrder;

/// A list target's input: `[algorithm, style, walk, list...]`.
pub struct ListInput<'a> {
    pub algorithm: Algorithm,
    pub style: LineStyle,
    /// Bits that say how the walk differs from the list.
    pub walk_bits: u8,
    pub list: &'a [u8],
    /// The list's records.
    pub records: Vec<Record>,
}

/// `input` read as a list target's, or `None` if it is too short.
pub fn list_input(input: &[u8]) -> Option<ListInput<'_>> {
    let [alg, flags, walk_bits, list @ ..] = input else {
        return None;
    };
    let style = style(*flags);
    Some(ListInput {
        algorithm: algorithm(*alg),
        style,
        walk_bits: *walk_bits,
        list,
        records: records(list, terminator(style)),
    })
}

/// The records of `list`.
pub fn records(list: &[u8], terminator: u8) -> Vec<Record> {
    Records::new(list, terminator)
        .map(|record| record.expect("a slice reads"))
        .collect()
}

/// `check`'s options the bits of `flags` pick.
pub fn check_options(flags: u8) -> CheckOptions {
    let bit = |n: u8| flags & (1 << n) != 0;
    CheckOptions {
        algorithm: bit(0).then_some(Algorithm::Blake2b),
        zero: bit(1),
        warn: bit(2),
        quiet: bit(3),
        status: bit(4),
        strict: bit(5),
        ignore_missing: bit(6),
        json: bit(7),
        ..CheckOptions::default()
    }
}

/// The algorithm a byte picks (any of them: a list of each is read the same way).
pub fn algorithm(byte: u8) -> Algorithm {
    Algorithm::ALL[usize::from(byte) % Algorithm::ALL.len()]
}

/// The line style the bits of `flags` pick (as `sum`'s `--tag`, `--binary`, `-z`, `--json`
/// and PARSHA-256's recorded parameters; `--json` goes with none of the first three, as on
/// the command line).
pub fn style(flags: u8) -> LineStyle {
    let bit = |n: u8| flags & (1 << n) != 0;
    let json = bit(3);
    LineStyle {
        tag: bit(0) && !json,
        binary: bit(1) && !json,
        zero: bit(2) && !json,
        json,
        parsha: bit(4).then(|| TreeParams::new(2, 128).expect("valid parameters")),
        ..LineStyle::default()
    }
}

/// The record terminator of `style`.
pub fn terminator(style: LineStyle) -> u8 {
    if style.zero {
        0
    } else {
        b'\n'
    }
}

/// The walk's roots for names like `names`: each name's first component, in order of first
/// appearance (as `sum -r a b` walks `a` then `b`), or none at all (every name sorts by its
/// components alone).
pub fn walk_order(names: &[Vec<u8>], with_roots: bool) -> WalkOrder {
    let mut roots: Vec<Vec<u8>> = Vec::new();
    if with_roots {
        for name in names {
            let root = name
                .split(|&b| b == b'/')
                .next()
                .unwrap_or_default()
                .to_vec();
            if !roots.contains(&root) {
                roots.push(root);
            }
        }
    }
    WalkOrder::new(roots)
}

/// `names` in walk order, each once (names the order holds equal count once).
pub fn sorted_unique(order: &WalkOrder, mut names: Vec<Vec<u8>>) -> Vec<Vec<u8>> {
    names.sort_by(|a, b| order.cmp(a, b));
    names.dedup_by(|a, b| order.cmp(a, b).is_eq());
    names
}

/// Whether `offset` is the start of a record of `list` (0, the end, or just past a terminator).
pub fn at_record_boundary(list: &[u8], offset: u64, terminator: u8) -> bool {
    let Ok(offset) = usize::try_from(offset) else {
        return false;
    };
    offset <= list.len() && (offset == 0 || list[offset - 1] == terminator)
}
