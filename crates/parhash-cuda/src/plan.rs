//! PARSHA-256 scheduling for the GPU: the effective height and padding of a message, the shape of
//! every round (which processors take a piece of the message, and how big), where each round's
//! pieces start, and which kernel form runs the tree. The kernels compute the same shapes
//! (`round_shape` in `kernels/parsha256.cu` mirrors [`TreePlan::round_shape`]).
//!
//! [`emulate`] runs the plan on the CPU exactly as the kernels do (round by round, the same
//! offsets, the same pass-through rule) and is tested against
//! `parhash::lab::algo::parsha256::reference` for every small length, `T` and `l`.

use parhash::parsha256::{check_params, ParshaError};

/// n / 8: bytes into the compression function.
pub const N_BYTES: u64 = 96;
/// m / 8: bytes out of the compression function.
pub const M_BYTES: u64 = 32;
/// (n - 2m) / 8: the piece an internal processor takes after round 1.
pub const INTERNAL_PIECE_BYTES: u64 = N_BYTES - 2 * M_BYTES;

/// The largest tree the warp form runs (2^5 = 32 lanes).
pub const WARP_MAX_HEIGHT: u32 = 5;
/// The largest tree the block form runs (2^10 = 1024 threads).
pub const BLOCK_MAX_HEIGHT: u32 = 10;

/// Which kernel form runs a tree.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ParshaForm {
    /// One warp, registers and shuffles (t <= 5).
    Warp,
    /// One block, shared memory (t <= 10).
    Block,
    /// One launch per round, two global buffers swapped between rounds (any t).
    Rounds,
}

impl ParshaForm {
    /// The fastest form for effective height `t`.
    pub fn for_height(t: u32) -> ParshaForm {
        if t <= WARP_MAX_HEIGHT {
            ParshaForm::Warp
        } else if t <= BLOCK_MAX_HEIGHT {
            ParshaForm::Block
        } else {
            ParshaForm::Rounds
        }
    }

    /// Whether this form can run a tree of height `t`.
    pub fn supports(self, t: u32) -> bool {
        match self {
            ParshaForm::Warp => t <= WARP_MAX_HEIGHT,
            ParshaForm::Block => t <= BLOCK_MAX_HEIGHT,
            ParshaForm::Rounds => true,
        }
    }

    /// Lower-case name (tests, the lab).
    pub fn name(self) -> &'static str {
        match self {
            ParshaForm::Warp => "warp",
            ParshaForm::Block => "block",
            ParshaForm::Rounds => "rounds",
        }
    }
}

/// What one round's processors take. Internal processors are `0 .. 2^(t-1)`, leaves the rest;
/// pieces are laid out internal ones first, each group in processor order.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RoundShape {
    /// Bytes of the piece of an internal processor that takes one.
    pub int_bytes: u64,
    /// Internal processors `0 .. int_count` take a piece.
    pub int_count: u64,
    /// Round 1: internal processors act like leaves (piece plus IV, no children).
    pub leaflike: bool,
    /// Bytes of a leaf's piece (n - l bits).
    pub leaf_bytes: u64,
    /// Leaves `first_leaf .. first_leaf + leaf_count` take a piece.
    pub leaf_count: u64,
}

impl RoundShape {
    /// Bytes of the message this round consumes.
    pub fn bytes(&self) -> u64 {
        self.int_count * self.int_bytes + self.leaf_count * self.leaf_bytes
    }
}

/// The schedule of a message long enough for a tree (t >= 1).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TreePlan {
    /// Effective tree height.
    pub t: u32,
    /// Rounds in which every leaf takes a full piece, after round 1.
    pub q: u64,
    /// Leaves that take a piece in round q + 2.
    pub b: u64,
    /// IV length in bits (0, 128 or 256).
    pub iv_bits: u32,
    /// The message length after step 2's padding, in bytes (what the final block encodes).
    pub len_bytes: u64,
    /// The message length after step 5's end padding: the bytes the rounds consume.
    pub padded_bytes: u64,
}

/// How a message of a given length is hashed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Plan {
    /// Step 1: at most n - l bits, two compressions on the host (t = 0).
    Short {
        /// IV length in bits.
        iv_bits: u32,
    },
    /// A tree of `2^t` processors.
    Tree(TreePlan),
}

/// unit = (2n - 2m - l) / 8: the bytes one leaf pair adds per round.
fn unit_bytes(iv_bits: u32) -> u64 {
    (2 * N_BYTES - 2 * M_BYTES) - u64::from(iv_bits) / 8
}

/// delta(i) / 8: the shortest message with effective height i.
fn delta_bytes(i: u32, iv_bits: u32) -> u64 {
    (1u64 << i) * unit_bytes(iv_bits) - INTERNAL_PIECE_BYTES
}

/// The plan for a message of `len` bytes, tree height `tree_height`, IV of `iv_bits` bits.
pub fn plan(len: u64, tree_height: u32, iv_bits: u32) -> Result<Plan, ParshaError> {
    // The library's rule for T and l, so the GPU refuses exactly what the CPU refuses.
    check_params(tree_height, iv_bits)?;
    let leaf_bytes = N_BYTES - u64::from(iv_bits) / 8;
    if len <= leaf_bytes {
        return Ok(Plan::Short { iv_bits });
    }
    let len = len.max(delta_bytes(1, iv_bits));
    let t = (1..tree_height)
        .find(|&i| len < delta_bytes(i + 1, iv_bits))
        .unwrap_or(tree_height);
    let (q, r) = if len == delta_bytes(t, iv_bits) {
        (0, 0)
    } else {
        let excess = len - delta_bytes(t, iv_bits);
        let lambda = (1u64 << (t - 1)) * unit_bytes(iv_bits);
        let q = (excess - 1) / lambda;
        (q, excess - q * lambda)
    };
    let b = r.div_ceil(unit_bytes(iv_bits));
    Ok(Plan::Tree(TreePlan {
        t,
        q,
        b,
        iv_bits,
        len_bytes: len,
        padded_bytes: len + b * unit_bytes(iv_bits) - r,
    }))
}

impl TreePlan {
    /// 2^t processors.
    pub fn processors(&self) -> u64 {
        1 << self.t
    }

    /// The first leaf, 2^(t-1).
    pub fn first_leaf(&self) -> u64 {
        1 << (self.t - 1)
    }

    /// Rounds the processors run: R - 1 = q + t + 1 (the final step is the host's).
    pub fn rounds(&self) -> u64 {
        self.q + u64::from(self.t) + 1
    }

    /// Bytes of a leaf's piece, n - l bits.
    pub fn leaf_bytes(&self) -> u64 {
        N_BYTES - u64::from(self.iv_bits) / 8
    }

    /// IV words appended to a leaf's piece.
    pub fn iv_words(&self) -> u32 {
        self.iv_bits / 32
    }

    /// The shape of round `i` (1-based, `1..=rounds()`), as the specification's table of u(i, j)
    /// sizes gives it.
    pub fn round_shape(&self, i: u64) -> RoundShape {
        let first_leaf = self.first_leaf();
        let leaf_bytes = self.leaf_bytes();
        if i == 1 {
            return RoundShape {
                int_bytes: leaf_bytes,
                int_count: first_leaf,
                leaflike: true,
                leaf_bytes,
                leaf_count: first_leaf,
            };
        }
        let (int_count, leaf_count) = if i <= self.q + 1 {
            (first_leaf, first_leaf)
        } else if i == self.q + 2 {
            (first_leaf, self.b)
        } else {
            // k_i: the internal processors still fed in the tail rounds.
            let t = u64::from(self.t);
            let rem = self.q + t + 2 - i;
            let k = (1 << (rem - 1)) + ((1u64 << (t - rem - 1)) + self.b - 1) / (1 << (t - rem));
            (k, 0)
        };
        RoundShape {
            int_bytes: INTERNAL_PIECE_BYTES,
            int_count,
            leaflike: false,
            leaf_bytes,
            leaf_count,
        }
    }

    /// Every round with the byte offset its pieces start at.
    pub fn schedule(&self) -> impl Iterator<Item = (u64, RoundShape)> + '_ {
        let mut base = 0;
        (1..=self.rounds()).map(move |i| {
            let shape = self.round_shape(i);
            let start = base;
            base += shape.bytes();
            (start, shape)
        })
    }

    /// Byte offset of the final step's piece (n - 2m bits when b > 0): right after the rounds'.
    pub fn final_piece_offset(&self) -> u64 {
        self.padded_bytes - if self.b > 0 { INTERNAL_PIECE_BYTES } else { 0 }
    }

    /// Byte offset of processor `j`'s piece in a round starting at `base`, and its size (0 when
    /// it takes none).
    pub fn piece(&self, base: u64, shape: &RoundShape, j: u64) -> (u64, u64) {
        let first_leaf = self.first_leaf();
        if j < first_leaf {
            let size = if j < shape.int_count {
                shape.int_bytes
            } else {
                0
            };
            (base + j * shape.int_bytes, size)
        } else {
            let idx = j - first_leaf;
            let size = if idx < shape.leaf_count {
                shape.leaf_bytes
            } else {
                0
            };
            (
                base + shape.int_count * shape.int_bytes + idx * shape.leaf_bytes,
                size,
            )
        }
    }
}

/// h: SHA-256's compression of 96 bytes (chaining value then block), parhash's SHA-256.
pub fn h(v: &[u8; 96]) -> [u8; 32] {
    let mut state: [u32; 8] = std::array::from_fn(|k| {
        u32::from_be_bytes(v[4 * k..4 * k + 4].try_into().expect("4 bytes"))
    });
    let block: [u8; 64] = v[32..].try_into().expect("64 bytes");
    parhash::lab::algo::sha2::compress256(&mut state, &[block]);
    words_to_bytes(&state)
}

/// Eight words as 32 big-endian bytes.
pub fn words_to_bytes(words: &[u32; 8]) -> [u8; 32] {
    let mut out = [0u8; 32];
    for (chunk, w) in out.chunks_exact_mut(4).zip(words) {
        chunk.copy_from_slice(&w.to_be_bytes());
    }
    out
}

/// The IV of `iv_bits` bits: a prefix of SHA-256's initial value, big-endian.
pub fn iv_bytes(iv_bits: u32) -> Vec<u8> {
    parhash::lab::algo::sha2::consts::IV256[..(iv_bits / 32) as usize]
        .iter()
        .flat_map(|w| w.to_be_bytes())
        .collect()
}

/// Step 1, for [`Plan::Short`]: h(x || 0* || IV), then h(that || bin512(|x|)).
pub fn short_digest(data: &[u8], iv_bits: u32) -> [u8; 32] {
    let mut v = [0u8; 96];
    v[..data.len()].copy_from_slice(data);
    let iv = iv_bytes(iv_bits);
    v[96 - iv.len()..].copy_from_slice(&iv);
    finish_with_length(h(&v), data.len() as u64)
}

/// The last compression: h(w || bin512(len in bits)).
pub fn finish_with_length(w: [u8; 32], len_bytes: u64) -> [u8; 32] {
    let mut y = [0u8; 96];
    y[..32].copy_from_slice(&w);
    y[88..].copy_from_slice(&(len_bytes * 8).to_be_bytes());
    h(&y)
}

/// The final step's piece of the padded message (n - 2m bits; zeros past the data).
pub fn final_piece(plan: &TreePlan, data: &[u8]) -> [u8; 32] {
    let mut piece = [0u8; 32];
    let off = plan.final_piece_offset() as usize;
    if plan.b > 0 && off < data.len() {
        let end = data.len().min(off + 32);
        piece[..end - off].copy_from_slice(&data[off..end]);
    }
    piece
}

/// The final step from the outputs of processors 0 and 1 after the last round (`None` when a
/// processor's output is empty) and the final piece ([`final_piece`]).
pub fn finish(
    plan: &TreePlan,
    z0: Option<[u8; 32]>,
    z1: Option<[u8; 32]>,
    final_piece: [u8; 32],
) -> Result<[u8; 32], String> {
    let w = if plan.b > 0 {
        let (Some(z0), Some(z1)) = (z0, z1) else {
            return Err("the final step needs both children".into());
        };
        let mut v = [0u8; 96];
        v[..32].copy_from_slice(&z0);
        v[32..64].copy_from_slice(&z1);
        v[64..].copy_from_slice(&final_piece);
        h(&v)
    } else {
        z0.ok_or("the root output is empty")?
    };
    Ok(finish_with_length(w, plan.len_bytes))
}

/// `data` with steps 2 and 5's zeros: the bytes the rounds and the final step read.
pub fn padded_message(plan: &TreePlan, data: &[u8]) -> Vec<u8> {
    let mut x = data.to_vec();
    x.resize(plan.padded_bytes as usize, 0);
    x
}

/// PARSHA-256 run on the CPU exactly as the GPU kernels run it (same plan, shapes, offsets and
/// pass-through rule, one round at a time). The oracle for it is the reference module; the GPU
/// results are compared with parhash's CPU implementation.
pub fn emulate(
    data: &[u8],
    tree_height: u32,
    iv_bits: u32,
) -> Result<(u32, [u8; 32]), ParshaError> {
    let plan = match plan(data.len() as u64, tree_height, iv_bits)? {
        Plan::Short { iv_bits } => return Ok((0, short_digest(data, iv_bits))),
        Plan::Tree(p) => p,
    };
    let x = padded_message(&plan, data);
    let iv = iv_bytes(iv_bits);
    let procs = plan.processors() as usize;
    let first_leaf = plan.first_leaf();
    let mut z: Vec<Option<[u8; 32]>> = vec![None; procs];
    for (base, shape) in plan.schedule() {
        let mut next = vec![None; procs];
        for (j, out) in next.iter_mut().enumerate() {
            let j = j as u64;
            let (off, size) = plan.piece(base, &shape, j);
            let piece: &[u8] = if size == 0 {
                &[]
            } else {
                &x[off as usize..(off + size) as usize]
            };
            *out = if shape.leaflike || j >= first_leaf {
                (size > 0).then(|| {
                    let mut v = [0u8; 96];
                    v[..piece.len()].copy_from_slice(piece);
                    v[piece.len()..].copy_from_slice(&iv);
                    h(&v)
                })
            } else {
                let (left, right) = (z[2 * j as usize], z[2 * j as usize + 1]);
                if size > 0 {
                    let (Some(l), Some(r)) = (left, right) else {
                        panic!("internal processor {j} has a piece but not both children");
                    };
                    let mut v = [0u8; 96];
                    v[..32].copy_from_slice(&l);
                    v[32..64].copy_from_slice(&r);
                    v[64..].copy_from_slice(piece);
                    Some(h(&v))
                } else {
                    assert!(left.is_none() || right.is_none(), "m bits at most pass");
                    left.or(right)
                }
            };
        }
        z = next;
    }
    let digest =
        finish(&plan, z[0], z[1], final_piece(&plan, data)).expect("the plan feeds the final step");
    Ok((plan.t, digest))
}

#[cfg(test)]
mod tests {
    use super::*;
    use parhash::lab::algo::parsha256::reference;

    fn pattern(len: usize) -> Vec<u8> {
        (0..len).map(|i| (i % 251) as u8).collect()
    }

    #[test]
    fn emulation_matches_the_reference_for_every_small_length_height_and_iv() {
        // Lengths: every one up to a few trees' worth, then sparse (step 1, the band, each t).
        let mut lens: Vec<usize> = (0..=700).step_by(7).collect();
        lens.extend([
            95, 96, 97, 80, 81, 64, 65, 223, 224, 225, 1000, 2047, 3000, 5000,
        ]);
        for &len in &lens {
            let data = pattern(len);
            for tree_height in 1..=6 {
                for iv_bits in [0, 128, 256] {
                    let want = reference::parsha256(&data, tree_height, iv_bits).unwrap();
                    let got = emulate(&data, tree_height, iv_bits).unwrap();
                    assert_eq!(got, want, "len {len} T {tree_height} l {iv_bits}");
                }
            }
        }
    }

    #[test]
    fn emulation_matches_the_reference_for_tall_trees() {
        for (len, tree_height) in [(40_000, 8), (70_001, 9), (140_000, 12)] {
            let data = pattern(len);
            for iv_bits in [0, 128, 256] {
                assert_eq!(
                    emulate(&data, tree_height, iv_bits).unwrap(),
                    reference::parsha256(&data, tree_height, iv_bits).unwrap(),
                    "len {len} T {tree_height} l {iv_bits}"
                );
            }
        }
    }

    #[test]
    fn emulation_matches_the_fast_cpu_engine_on_larger_messages() {
        for (len, tree_height) in [(1 << 20, 16), (3 << 20, 13), (500_000, 4)] {
            let data = pattern(len);
            for iv_bits in [0, 128, 256] {
                assert_eq!(
                    emulate(&data, tree_height, iv_bits).unwrap(),
                    parhash::parsha256::parsha256(&data, tree_height, iv_bits).unwrap(),
                    "len {len} T {tree_height} l {iv_bits}"
                );
            }
        }
    }

    #[test]
    fn the_schedule_covers_the_padded_message_exactly() {
        for len in [97u64, 300, 1000, 12_345, 1 << 20] {
            for tree_height in 1..=16 {
                for iv_bits in [0, 128, 256] {
                    let Plan::Tree(p) = plan(len, tree_height, iv_bits).unwrap() else {
                        panic!("{len} bytes make a tree");
                    };
                    let consumed: u64 = p.schedule().map(|(_, s)| s.bytes()).sum();
                    let last = if p.b > 0 { INTERNAL_PIECE_BYTES } else { 0 };
                    assert_eq!(
                        consumed + last,
                        p.padded_bytes,
                        "{len} {tree_height} {iv_bits}"
                    );
                    assert!(p.t <= tree_height && p.b <= p.first_leaf());
                    // Every piece is a whole number of 16-byte words (the kernels load words).
                    assert_eq!(p.padded_bytes % 16, 0);
                    assert_eq!(p.leaf_bytes() % 16, 0);
                }
            }
        }
    }

    #[test]
    fn forms_are_chosen_by_height() {
        assert_eq!(ParshaForm::for_height(1), ParshaForm::Warp);
        assert_eq!(ParshaForm::for_height(5), ParshaForm::Warp);
        assert_eq!(ParshaForm::for_height(6), ParshaForm::Block);
        assert_eq!(ParshaForm::for_height(10), ParshaForm::Block);
        assert_eq!(ParshaForm::for_height(11), ParshaForm::Rounds);
        assert!(ParshaForm::Rounds.supports(40) && !ParshaForm::Block.supports(11));
    }

    #[test]
    fn bad_parameters_are_errors() {
        assert_eq!(plan(10, 0, 0), Err(ParshaError::InvalidTreeHeight(0)));
        assert_eq!(plan(10, 41, 0), Err(ParshaError::InvalidTreeHeight(41)));
        assert_eq!(plan(10, 3, 64), Err(ParshaError::InvalidIvBits(64)));
        let wrapped = crate::GpuError::from(ParshaError::InvalidIvBits(64));
        assert_eq!(
            wrapped.to_string(),
            "invalid input: PARSHA-256 IV length 64 bits is not 0, 128 or 256"
        );
        assert!(std::error::Error::source(&wrapped).is_some());
    }
}
