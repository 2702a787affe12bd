//! What the list targets share: how the first bytes of an input pick the algorithm, the line
//! style and the walk that a list is read against.
#![allow(dead_code)] // each target uses a part

use parhash::{Algorithm, TreeParams};
use parhash_format::line::LineStyle;
use parhash_format::update::WalkOrder;

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
