//! BLAKE3's constants for one compression (the BLAKE3 paper, section 2): shared by the
//! portable one-block compression and its kernels.
#![forbid(unsafe_code)]

/// One BLAKE3 block: the longest message this path takes.
pub(crate) const BLOCK: usize = 64;

/// BLAKE3's IV (SHA-256's): the plain hash's key words.
pub(super) const IV: [u32; 8] = [
    0x6A09_E667,
    0xBB67_AE85,
    0x3C6E_F372,
    0xA54F_F53A,
    0x510E_527F,
    0x9B05_688C,
    0x1F83_D9AB,
    0x5BE0_CD19,
];

/// CHUNK_START | CHUNK_END | ROOT: the block is a whole chunk and the root of the tree.
pub(super) const ONE_BLOCK_ROOT: u32 = 1 | 2 | 8;

/// BLAKE3's message permutation, applied between rounds.
const PERMUTATION: [usize; 16] = [2, 6, 3, 10, 7, 0, 4, 13, 1, 11, 12, 5, 9, 14, 15, 8];

/// Rounds of the compression function.
pub(super) const ROUNDS: usize = 7;

/// The message word order of each round: round `r` reads `m[SCHEDULE[r][i]]` where round 0
/// reads `m[i]` (the permutation applied `r` times).
pub(super) const SCHEDULE: [[usize; 16]; ROUNDS] = {
    let mut schedule = [[0; 16]; ROUNDS];
    let mut i = 0;
    while i < 16 {
        schedule[0][i] = i;
        i += 1;
    }
    let mut r = 1;
    while r < ROUNDS {
        let mut i = 0;
        while i < 16 {
            schedule[r][i] = schedule[r - 1][PERMUTATION[i]];
            i += 1;
        }
        r += 1;
    }
    schedule
};

/// The seven rounds on the state `$v` with the message words `$m`, through the caller's G
/// on four columns or four diagonals at once (`$g(&mut v, [[a, b, c, d]; 4], [x; 4], [y; 4])`,
/// on words or on vectors of them): columns, then diagonals, each round reading the words in
/// [`SCHEDULE`]'s order.
macro_rules! rounds {
    ($g:ident, $v:expr, $m:expr) => {
        // Unrolled, so that every message index is a constant: a loop over the schedule reads
        // the words through runtime indices, which keeps them (and the lane kernels' vectors)
        // in memory.
        super::spec::rounds!(@round $g, $v, $m, 0);
        super::spec::rounds!(@round $g, $v, $m, 1);
        super::spec::rounds!(@round $g, $v, $m, 2);
        super::spec::rounds!(@round $g, $v, $m, 3);
        super::spec::rounds!(@round $g, $v, $m, 4);
        super::spec::rounds!(@round $g, $v, $m, 5);
        super::spec::rounds!(@round $g, $v, $m, 6);
    };
    (@round $g:ident, $v:expr, $m:expr, $r:expr) => {{
        const S: [usize; 16] = super::spec::SCHEDULE[$r];
        $g(
            &mut $v,
            [[0, 4, 8, 12], [1, 5, 9, 13], [2, 6, 10, 14], [3, 7, 11, 15]],
            [$m[S[0]], $m[S[2]], $m[S[4]], $m[S[6]]],
            [$m[S[1]], $m[S[3]], $m[S[5]], $m[S[7]]],
        );
        $g(
            &mut $v,
            [[0, 5, 10, 15], [1, 6, 11, 12], [2, 7, 8, 13], [3, 4, 9, 14]],
            [$m[S[8]], $m[S[10]], $m[S[12]], $m[S[14]]],
            [$m[S[9]], $m[S[11]], $m[S[13]], $m[S[15]]],
        );
    }};
}
pub(super) use rounds;
