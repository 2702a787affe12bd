//! The fast PARSHA-256 engine: every independent compression of a round in SIMD lanes, the
//! processor tree split over threads.
//!
//! The tree of `2^t` processors is cut at depth `k` into `2^k` subtrees rooted at nodes
//! `2^k .. 2^(k+1) - 1`, plus a small top tree (nodes `0 .. 2^k - 1`). Information only flows
//! upwards, so a subtree never needs anything from outside itself: the threads take whole
//! subtrees (8 per thread) a slice of rounds at a time (about [`SLICE_BYTES`] of message: no
//! barrier per round, the subtree's chaining values stay in one cache while it runs), taking
//! a free subtree with the fewest slices done first, and record each round's root output. The serial top tree
//! then replays the chunk's rounds from those root outputs. Chunks of about [`CHUNK_BYTES`] of
//! message bound that record and let the streaming hasher start before the whole message is
//! there. The cut is a [`Split`]: its subtrees ([`Subtree`]) and top tree ([`Top`]) are also
//! what the split/merge API (`parts::Plan`) runs, a part per machine instead of per job.
//!
//! Every compression of one subtree's round is gathered into a batch and compressed by
//! [`compress_with`]: SIMD lanes, or the SHA extensions on interleaved streams. The message is
//! read in place (a slice, possibly memory-mapped); the padding beyond the message end is read
//! as zeros, never materialised. Geometry (which `u(i, j)` a processor gets, where it lies in the padded
//! message) is computed in closed form from the specification's size table.

use super::{check_params, ParshaError, MAX_TREE_HEIGHT};
use crate::algo::sha2::sha256::lanes::{
    compress_leaves, compress_one, compress_parents, compress_with, IV as SHA256_IV,
};
use crate::lanes::Kernel;
use crate::threads::Threads;

/// Message bytes per chunk of rounds handed to the threads at once. The threads wait for each
/// other, and a sleeping helper is woken, once per chunk.
pub(crate) const CHUNK_BYTES: u64 = 64 << 20;
/// Message bytes per slice of a chunk's rounds: a job is one subtree's part of a slice (with
/// T = 13 and 2 threads, 1/16 of ~1 MiB: ~40 us of work). Small jobs keep the threads' wait at
/// the end of a chunk short.
const SLICE_BYTES: u64 = 1 << 20;
/// Compressions gathered before one lane call (a few lane groups; stays in L1).
const BATCH: usize = 128;
/// Below this many compressions a lane call would mostly compress padding lanes.
const SCALAR_BELOW: usize = 3;
/// At most one thread per this many message bytes: starting a thread costs tens of
/// microseconds, about what a core hashes of this much.
const MIN_BYTES_PER_THREAD: u64 = 256 << 10;

/// A processor's output: a 256-bit chaining value, or nothing (an empty input passed through).
pub(crate) type Node = Option<[u32; 8]>;

/// Everything the length and the parameters fix: the effective height, q, b, the rounds and
/// where each round starts in the padded message. Lengths are in bytes unless named `_bits`.
#[derive(Clone, Debug)]
pub(crate) struct Shape {
    /// l / 8.
    iv_bytes: usize,
    /// |u| of a leaf-type input: (n - l) / 8.
    leaf_bytes: u64,
    /// Effective tree height (0 on the short path).
    pub(crate) t: u32,
    q: u64,
    b: u64,
    /// R = q + t + 2.
    rounds: u64,
    /// L as written into the final block: the original length, or delta(1) in the short band.
    len_bits: u64,
    /// Start of rounds q+3 ..= R (the shrinking tail and U_R).
    tail_starts: Vec<u64>,
}

/// delta(i) = 2^i (2n - 2m - l) - (n - 2m), in bits.
fn delta(i: u32, l: u64) -> u64 {
    (1u64 << i) * (1024 - l) - 256
}

impl Shape {
    /// The shape of a message of `len` bytes with parameters `(T, l)`.
    pub(crate) fn new(len: u64, tree_height: u32, iv_bits: u32) -> Result<Shape, ParshaError> {
        check_params(tree_height, iv_bits)?;
        let l = u64::from(iv_bits);
        let mut len_bits = len.checked_mul(8).ok_or(ParshaError::MessageTooLong(len))?;
        let iv_bytes = (l / 8) as usize;
        let leaf_bytes = 96 - l / 8;
        let mut shape = Shape {
            iv_bytes,
            leaf_bytes,
            t: 0,
            q: 0,
            b: 0,
            rounds: 0,
            len_bits,
            tail_starts: Vec::new(),
        };
        if len_bits <= 768 - l {
            return Ok(shape);
        }
        // The short-message band is zero-padded up to delta(1) (read as zeros, not stored).
        len_bits = len_bits.max(delta(1, l));
        let t = if len_bits >= delta(tree_height, l) {
            tree_height
        } else {
            // delta(1) <= L < delta(T): the i with delta(i) <= L < delta(i + 1).
            (1..tree_height)
                .rev()
                .find(|&i| delta(i, l) <= len_bits)
                .unwrap_or(1)
        };
        let unit = 1024 - l;
        let (q, r) = if len_bits == delta(t, l) {
            (0, 0)
        } else {
            let excess = len_bits - delta(t, l);
            let lambda = (1u64 << (t - 1)) * unit;
            let q = (excess - 1) / lambda;
            (q, excess - q * lambda)
        };
        shape.t = t;
        shape.q = q;
        shape.b = r.div_ceil(unit);
        shape.rounds = q + u64::from(t) + 2;
        shape.len_bits = len_bits;
        // Tail round starts: round q+3 follows round q+2 (all internal pieces, b leaves), then
        // each shrinking round has K_i internal pieces.
        let half = 1u64 << (t - 1);
        let mut start = shape.full_round_start(q + 2) + half * 32 + shape.b * leaf_bytes;
        shape.tail_starts.push(start);
        for i in q + 3..shape.rounds {
            start += shape.k(i) * 32;
            shape.tail_starts.push(start);
        }
        Ok(shape)
    }

    /// Whether the message takes the short path (t = 0, two compressions).
    pub(crate) fn is_short(&self) -> bool {
        self.t == 0
    }

    /// K_i = 2^(s-1) + floor((2^(t-s-1) + b - 1) / 2^(t-s)), s = R - i (rounds q+3 .. R-1).
    fn k(&self, i: u64) -> u64 {
        let s = self.rounds - i;
        let t = u64::from(self.t);
        (1u64 << (s - 1)) + ((1u64 << (t - s - 1)) + self.b - 1) / (1u64 << (t - s))
    }

    /// Start of round `i <= q + 2`: round 1 has 2^t leaf-type pieces, rounds 2 ..= q+2 have
    /// 2^(t-1) internal pieces of 32 bytes followed by 2^(t-1) leaf pieces (b in round q+2).
    fn full_round_start(&self, i: u64) -> u64 {
        let half = 1u64 << (self.t - 1);
        if i <= 1 {
            0
        } else {
            2 * half * self.leaf_bytes + (i - 2) * half * (32 + self.leaf_bytes)
        }
    }

    /// Where round `i` (1 ..= R; R is U_R) starts in the padded message.
    pub(crate) fn round_start(&self, i: u64) -> u64 {
        if i <= self.q + 2 {
            self.full_round_start(i)
        } else {
            self.tail_starts[(i - self.q - 3) as usize]
        }
    }

    /// About the most memory the streaming hasher holds for this shape: each processor's
    /// chaining value twice (a round's inputs and outputs, [`Outputs`]), and up to one round
    /// of message (round 1, 2^t leaf pieces) in a buffer that may have doubled.
    pub(crate) fn streamed_bytes(&self) -> u64 {
        let per_node = 2 * std::mem::size_of::<[u32; 8]>() + 2 * std::mem::size_of::<bool>();
        (1u64 << self.t) * (per_node as u64 + 2 * self.leaf_bytes)
    }

    /// Bytes of the padded message (to the end of U_R).
    pub(crate) fn padded_len(&self) -> u64 {
        if self.is_short() {
            self.leaf_bytes
        } else {
            self.round_start(self.rounds) + if self.b > 0 { 32 } else { 0 }
        }
    }

    /// Whether processor `j` outputs a chaining value in round `i` (1 .. R) rather than
    /// nothing. This depends only on the shape, never on the message: it does when it or a
    /// descendant `e` levels down had a piece in round `i - e` (an input travels up one level
    /// per round). Every processor does in rounds 1 ..= q + 1; O(t) for the others.
    pub(crate) fn outputs(&self, i: u64, j: u64) -> bool {
        if i <= self.q + 1 {
            return true;
        }
        // Levels below j (P0's descendants e levels down are 0 .. 2^e, like P1's are 2^e ..).
        let below = u64::from(self.t - 1 - j.max(1).ilog2());
        (0..=below.min(i - 1)).any(|e| self.layout(i - e).any_piece(j << e, (j + 1) << e))
    }

    /// In how many rounds `1 .. R` processor `j` outputs a chaining value ([`Shape::outputs`]).
    pub(crate) fn outputs_count(&self, j: u64) -> u64 {
        let full = (self.q + 1).min(self.rounds - 1);
        full + (full + 1..self.rounds)
            .filter(|&i| self.outputs(i, j))
            .count() as u64
    }

    /// Which processors of round `i` (1 .. R) have a message piece, and where the round starts.
    pub(crate) fn layout(&self, i: u64) -> Layout {
        let half = 1u64 << (self.t - 1);
        // Round 1 and the full rounds 2 ..= q+1: every processor has a piece.
        let (internal, leaves) = if i <= self.q + 1 {
            (half, half)
        } else if i == self.q + 2 {
            (half, self.b)
        } else {
            (self.k(i), 0)
        };
        Layout {
            first: i == 1,
            start: self.round_start(i),
            half,
            internal,
            leaves,
            leaf_bytes: self.leaf_bytes,
        }
    }
}

/// One round's message pieces: internal processors `j < internal` get 32 bytes, leaves
/// `half <= j < half + leaves` get `leaf_bytes`; round 1 gives every processor `leaf_bytes`.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Layout {
    first: bool,
    start: u64,
    half: u64,
    internal: u64,
    leaves: u64,
    leaf_bytes: u64,
}

impl Layout {
    /// Where u(i, j) lies, or `None` when it is empty. Its size is `leaf_bytes` for leaf-type
    /// inputs (round 1, leaves) and 32 for internal nodes.
    #[inline(always)]
    fn piece(&self, j: u64) -> Option<u64> {
        if self.first {
            Some(self.start + j * self.leaf_bytes)
        } else if j < self.half {
            (j < self.internal).then_some(self.start + 32 * j)
        } else {
            let leaf = j - self.half;
            (leaf < self.leaves).then_some(self.start + self.half * 32 + leaf * self.leaf_bytes)
        }
    }

    /// Where the pieces of processors `lo .. hi` lie (padded-message bytes), or `None` when none
    /// of them has one. The run must not straddle `half` (one level of a subtree never does):
    /// the pieces of consecutive processors of one kind are consecutive in the message.
    pub(crate) fn pieces(&self, lo: u64, hi: u64) -> Option<std::ops::Range<u64>> {
        debug_assert!(self.first || hi <= self.half || lo >= self.half);
        let (first, end, size, at) = if self.first {
            (lo, hi, self.leaf_bytes, self.start)
        } else if hi <= self.half {
            (lo, hi.min(self.internal), 32, self.start)
        } else {
            let leaves = (hi - self.half).min(self.leaves);
            (
                lo - self.half,
                leaves,
                self.leaf_bytes,
                self.start + self.half * 32,
            )
        };
        (first < end).then(|| at + first * size..at + end * size)
    }

    /// Whether any of processors `lo .. hi` has a piece.
    fn any_piece(&self, lo: u64, hi: u64) -> bool {
        self.first
            || lo < self.internal
            || (self.leaves > 0 && lo < self.half + self.leaves && hi > self.half)
    }
}

/// A window on the padded message: `data` holds bytes `base .. base + data.len()`; bytes at or
/// past `end` (the message length) are padding zeros.
#[derive(Clone, Copy)]
pub(crate) struct View<'a> {
    pub(crate) data: &'a [u8],
    pub(crate) base: u64,
    pub(crate) end: u64,
}

impl View<'_> {
    /// Copies padded-message bytes `off .. off + N` into `out` (a fixed size, so the common
    /// in-bounds case is a few vector moves, not a `memcpy` call).
    #[inline(always)]
    fn read<const N: usize>(&self, off: u64, out: &mut [u8; N]) {
        if off + N as u64 <= self.end {
            let from = (off - self.base) as usize;
            out.copy_from_slice(&self.data[from..from + N]);
        } else {
            self.read_padded(off, out);
        }
    }

    /// [`View::read`] across the message end: the bytes past it are zeros.
    #[cold]
    fn read_padded(&self, off: u64, out: &mut [u8]) {
        out.fill(0);
        if off < self.end {
            let from = (off - self.base) as usize;
            let n = (self.end - off) as usize;
            out[..n].copy_from_slice(&self.data[from..from + n]);
        }
    }
}

pub(crate) fn words(bytes: &[u8]) -> [u32; 8] {
    core::array::from_fn(|w| {
        u32::from_be_bytes([
            bytes[4 * w],
            bytes[4 * w + 1],
            bytes[4 * w + 2],
            bytes[4 * w + 3],
        ])
    })
}

pub(crate) fn bytes(words: &[u32; 8]) -> [u8; 32] {
    let mut out = [0u8; 32];
    for (o, w) in out.chunks_exact_mut(4).zip(words) {
        o.copy_from_slice(&w.to_be_bytes());
    }
    out
}

/// Per-run constants the processors need.
pub(crate) struct Ctx<'a> {
    shape: &'a Shape,
    iv: [u8; 32],
}

impl Ctx<'_> {
    pub(crate) fn new(shape: &Shape) -> Ctx<'_> {
        Ctx {
            shape,
            iv: bytes(&SHA256_IV),
        }
    }

    /// A leaf-type input u || IV (round 1, or a leaf) into `slot`; false when u is empty (the
    /// processor then outputs nothing).
    #[inline(always)]
    fn leaf(&self, view: &View, piece: Option<u64>, slot: Slot) -> bool {
        let Some(off) = piece else {
            return false;
        };
        // 96 - l/8 message bytes then l/8 IV bytes: the first 32 are the chaining value.
        let mut head = [0u8; 32];
        view.read(off, &mut head);
        *slot.0 = words(&head);
        let (msg, iv) = slot.1.split_at_mut(64 - self.shape.iv_bytes);
        match msg.len() {
            32 => view.read::<32>(off + 32, msg.try_into().expect("32 bytes")),
            48 => view.read::<48>(off + 32, msg.try_into().expect("48 bytes")),
            _ => view.read::<64>(off + 32, msg.try_into().expect("64 bytes")),
        }
        iv.copy_from_slice(&self.iv[..self.shape.iv_bytes]);
        true
    }
}

/// A compression's input being built: the chaining value and the block.
type Slot<'s> = (&'s mut [u32; 8], &'s mut [u8; 64]);

/// What a processor does with its children's outputs and its message piece: all three make n
/// bits (compress: the input is written into `slot`), exactly one makes m bits (it passes
/// through), none is empty.
#[inline(always)]
fn combine(view: &View, left: Node, right: Node, piece: Option<u64>, slot: Slot) -> Option<Node> {
    match (left, right, piece) {
        (Some(l), Some(r), Some(off)) => {
            *slot.0 = l;
            for (o, w) in slot.1[..32].chunks_exact_mut(4).zip(r) {
                o.copy_from_slice(&w.to_be_bytes());
            }
            view.read::<32>(off, (&mut slot.1[32..]).try_into().expect("32 bytes"));
            None
        }
        (Some(z), None, None) | (None, Some(z), None) => Some(Some(z)),
        (None, None, Some(off)) => {
            let mut u = [0u8; 32];
            view.read(off, &mut u);
            Some(Some(words(&u)))
        }
        (None, None, None) => Some(None),
        _ => unreachable!("PARSHA-256 processor input of 2m bits: the size table was misread"),
    }
}

/// Compressions gathered for one kernel call, with where each result goes. Fixed arrays: the
/// inputs are built in place, never moved.
struct Batch<D> {
    kernel: Kernel,
    len: usize,
    states: [[u32; 8]; BATCH],
    blocks: [[u8; 64]; BATCH],
    dest: [D; BATCH],
}

impl<D: Copy + Default> Batch<D> {
    fn new(kernel: Kernel) -> Box<Self> {
        Box::new(Batch {
            kernel,
            len: 0,
            states: [[0; 8]; BATCH],
            blocks: [[0; 64]; BATCH],
            dest: [D::default(); BATCH],
        })
    }

    /// The next free input slot.
    #[inline]
    fn slot(&mut self) -> Slot<'_> {
        (&mut self.states[self.len], &mut self.blocks[self.len])
    }

    /// Keeps the slot just built, for `dest`; returns true when the batch is full.
    #[inline]
    fn commit(&mut self, dest: D) -> bool {
        self.dest[self.len] = dest;
        self.len += 1;
        self.len == BATCH
    }

    /// Compresses everything gathered and hands each result to `store`.
    fn flush(&mut self, mut store: impl FnMut(D, [u32; 8])) {
        let n = self.len;
        if n < SCALAR_BELOW {
            for (s, b) in self.states[..n].iter_mut().zip(&self.blocks[..n]) {
                compress_one(s, b);
            }
        } else {
            compress_with(self.kernel, &mut self.states[..n], &self.blocks[..n]);
        }
        for (&d, s) in self.dest[..n].iter().zip(&self.states[..n]) {
            store(d, *s);
        }
        self.len = 0;
    }
}

/// One round's outputs of a tree's processors, heap-indexed: the chaining values apart from
/// whether there is one (a [`Node`] is `None` when there is not), so a level's values lie
/// next to each other as the tree-node kernels read and write them.
struct Outputs {
    values: Vec<[u32; 8]>,
    present: Vec<bool>,
}

impl Outputs {
    fn new(size: usize) -> Outputs {
        Outputs {
            values: vec![[0; 8]; size],
            present: vec![false; size],
        }
    }

    #[inline(always)]
    fn get(&self, x: usize) -> Node {
        self.present[x].then(|| self.values[x])
    }

    #[inline(always)]
    fn set(&mut self, x: usize, z: Node) {
        self.present[x] = z.is_some();
        if let Some(z) = z {
            self.values[x] = z;
        }
    }
}

/// One subtree (one part of a [`Split`]): heap-indexed chaining values (local node 1 is the
/// root, children of x are 2x and 2x + 1, like the global tree), double-buffered across rounds.
pub(crate) struct Subtree {
    /// Global index of the root.
    root: u64,
    /// Levels in the subtree (t - k).
    levels: u32,
    old: Outputs,
    new: Outputs,
    /// The root's output z(i - 1) for every round i of the current chunk (first entry: the
    /// round before the chunk).
    roots: Vec<Node>,
}

impl Subtree {
    fn new(root: u64, levels: u32) -> Subtree {
        let size = 1usize << levels;
        Subtree {
            root,
            levels,
            old: Outputs::new(size),
            new: Outputs::new(size),
            roots: vec![None],
        }
    }

    /// Runs rounds `rounds` (`view` holds the subtree's pieces of them).
    pub(crate) fn run(&mut self, ctx: &Ctx, view: &View, kernel: Kernel, rounds: (u64, u64)) {
        run_subtrees(ctx, view, kernel, std::slice::from_mut(self), rounds);
    }

    /// The root's outputs since the last call (or since the start), oldest first, for every
    /// round run; only the last one is kept (the next round's input).
    pub(crate) fn drain_roots(&mut self) -> impl Iterator<Item = Node> + '_ {
        let last = *self.roots.last().expect("the carried root output");
        self.roots.splice(.., [last]).skip(1)
    }

    /// The root's output in the last round run.
    pub(crate) fn last_root(&self) -> Node {
        *self.roots.last().expect("the carried root output")
    }
}

/// Runs rounds `rounds` on `trees` (one thread's share).
fn run_subtrees(ctx: &Ctx, view: &View, kernel: Kernel, trees: &mut [Subtree], rounds: (u64, u64)) {
    // Only the rounds that are not full gather inputs (made when first needed: most jobs run
    // full rounds only).
    let mut batch: Option<Box<Batch<(u32, u32)>>> = None;
    for i in rounds.0..rounds.1 {
        let layout = ctx.shape.layout(i);
        // Rounds 2 ..= q + 1 are the bulk of a long message: every processor compresses and
        // every piece lies inside the message, so they take a branch-free path.
        let full = i >= 2 && i <= ctx.shape.q + 1 && ctx.shape.round_start(i + 1) <= view.end;
        // The round after, when it is full too and the same subtree runs it next: its first
        // pieces are prefetched during the end of this one.
        let next_layout = (trees.len() == 1
            && i + 1 < rounds.1
            && i <= ctx.shape.q
            && ctx.shape.round_start(i + 2) <= view.end)
            .then(|| ctx.shape.layout(i + 1));
        for ti in 0..trees.len() {
            if full {
                full_round(view, &layout, next_layout.as_ref(), &mut trees[ti], kernel);
                continue;
            }
            let batch = batch.get_or_insert_with(|| Batch::new(kernel));
            let (levels, root) = (trees[ti].levels, trees[ti].root);
            for level in 0..levels {
                let first_j = root << level;
                let leaf_type = i == 1 || level == levels - 1;
                for x in 1usize << level..2usize << level {
                    let j = first_j + (x as u64 - (1u64 << level));
                    let piece = layout.piece(j);
                    let tree = &mut trees[ti];
                    let pass = if leaf_type {
                        (!ctx.leaf(view, piece, batch.slot())).then_some(None)
                    } else {
                        combine(
                            view,
                            tree.old.get(2 * x),
                            tree.old.get(2 * x + 1),
                            piece,
                            batch.slot(),
                        )
                    };
                    match pass {
                        Some(z) => tree.new.set(x, z),
                        None => {
                            if batch.commit((ti as u32, x as u32)) {
                                batch.flush(|(t, x), z| {
                                    trees[t as usize].new.set(x as usize, Some(z))
                                });
                            }
                        }
                    }
                }
            }
            batch.flush(|(t, x), z| trees[t as usize].new.set(x as usize, Some(z)));
        }
        for tree in trees.iter_mut() {
            std::mem::swap(&mut tree.old, &mut tree.new);
            tree.roots.push(tree.old.get(1));
        }
    }
}

/// One full round (2 ..= q + 1, all of it inside the message) on one subtree: every internal
/// node compresses its children's outputs with 32 message bytes, every leaf its piece and the
/// IV. A level's pieces are consecutive in the message and its nodes' children consecutive in
/// the last round's outputs, so the kernel reads both in place, [`FULL_BATCH`] nodes per call,
/// and writes the results to consecutive places: nothing is gathered or byte-swapped first.
/// `next` is the subtree's next round when it runs right after this one (prefetched ahead).
fn full_round(
    view: &View,
    layout: &Layout,
    next: Option<&Layout>,
    tree: &mut Subtree,
    kernel: Kernel,
) {
    let (levels, root) = (tree.levels, tree.root);
    let leaf_bytes = layout.leaf_bytes as usize;
    let level_pieces = |layout: &Layout, level: u32| {
        let first_j = root << level;
        layout
            .pieces(first_j, first_j + (1 << level))
            .expect("every processor has a piece in a full round")
    };
    let mut ahead = Ahead::new(view);
    for level in 0..levels {
        ahead.push(level_pieces(layout, level));
    }
    if let Some(next) = next {
        for level in 0..levels {
            ahead.push(level_pieces(next, level));
        }
    }
    ahead.advance(PREFETCH_DISTANCE);
    // The parent levels of fewer than FULL_BATCH nodes (1 + 2 + 4 + 8 with 16-node batches)
    // as one batch: level by level they filled 4 lane groups of 16 with 15 nodes, and a
    // subtree of a split tree pays that every round (a tenth more compressions on two
    // threads at T = 13). Their children (local nodes 2 .. 2 * small) and outputs (1 .. small)
    // are consecutive already; only their message pieces lie in one run per level, copied
    // side by side.
    let small_levels = (levels - 1).min(FULL_BATCH.ilog2());
    if small_levels > 0 {
        let small = 1usize << small_levels;
        let mut message = [0u8; 32 * FULL_BATCH];
        let mut at = 0;
        for level in 0..small_levels {
            let run = level_pieces(layout, level);
            let len = (run.end - run.start) as usize;
            let from = (run.start - view.base) as usize;
            message[at..at + len].copy_from_slice(&view.data[from..from + len]);
            at += len;
        }
        debug_assert_eq!(at, 32 * (small - 1));
        ahead.advance(at as u64);
        debug_assert!(tree.old.present[2..2 * small].iter().all(|&p| p));
        compress_parents(
            kernel,
            &tree.old.values[2..2 * small],
            &message[..at],
            &mut tree.new.values[1..small],
        );
    }
    for level in small_levels..levels {
        let first_x = 1usize << level;
        let leaves = level == levels - 1;
        let piece_bytes = if leaves { leaf_bytes } else { 32 };
        let run = level_pieces(layout, level);
        let pieces = &view.data[(run.start - view.base) as usize..(run.end - view.base) as usize];
        for from in (first_x..2 * first_x).step_by(FULL_BATCH) {
            let n = FULL_BATCH.min(2 * first_x - from);
            ahead.advance((n * piece_bytes) as u64);
            let at = (from - first_x) * piece_bytes;
            let pieces = &pieces[at..at + n * piece_bytes];
            let out = &mut tree.new.values[from..from + n];
            if leaves {
                compress_leaves(kernel, pieces, leaf_bytes, &SHA256_IV, out);
            } else {
                debug_assert!(tree.old.present[2 * from..2 * (from + n)]
                    .iter()
                    .all(|&p| p));
                compress_parents(
                    kernel,
                    &tree.old.values[2 * from..2 * (from + n)],
                    pieces,
                    out,
                );
            }
        }
    }
    // Every processor outputs a chaining value in a full round.
    tree.new.present.fill(true);
}

/// Nodes per kernel call in a full round: a few SHA-NI stream groups or vector lane groups,
/// small enough that the prefetches issued before each call stay few (see [`Ahead`]).
const FULL_BATCH: usize = 16;

/// How far ahead of the kernel [`Ahead`] keeps the message read: enough lines in flight to
/// cover the memory latency at one core's hashing rate, few enough for the miss buffers.
const PREFETCH_DISTANCE: u64 = 2048;

/// Prefetches a subtree round's message pieces a fixed distance ahead of the kernel, as one
/// stream over the runs its levels read in turn (about ten short runs per round). The
/// hardware prefetcher does not foresee where a run starts; prefetching a whole batch of
/// pieces at once stalls on the miss buffers (BENCHMARKS.md, "Performance at the roof").
struct Ahead<'v, 'a> {
    view: &'v View<'a>,
    /// The runs in order: `count` of them (two rounds of at most [`MAX_TREE_HEIGHT`] levels).
    runs: [std::ops::Range<u64>; 2 * MAX_TREE_HEIGHT as usize],
    count: usize,
    /// The run being prefetched and the first byte of it not yet asked for.
    run: usize,
    at: u64,
}

impl<'v, 'a> Ahead<'v, 'a> {
    fn new(view: &'v View<'a>) -> Self {
        Ahead {
            view,
            runs: std::array::from_fn(|_| 0..0),
            count: 0,
            run: 0,
            at: 0,
        }
    }

    fn push(&mut self, run: std::ops::Range<u64>) {
        if self.count == 0 {
            self.at = run.start;
        }
        self.runs[self.count] = run;
        self.count += 1;
    }

    /// Asks for the next `bytes` bytes of the stream.
    fn advance(&mut self, mut bytes: u64) {
        while bytes > 0 && self.run < self.count {
            let run = &self.runs[self.run];
            let end = (self.at + bytes).min(run.end);
            let held = self.view.base..self.view.base + self.view.data.len() as u64;
            let (from, to) = (self.at.max(held.start), end.min(held.end));
            if from < to {
                prefetch(&self.view.data[(from - held.start) as usize..(to - held.start) as usize]);
            }
            bytes -= end - self.at;
            if end == run.end {
                self.run += 1;
                if self.run < self.count {
                    self.at = self.runs[self.run].start;
                }
            } else {
                self.at = end;
            }
        }
    }
}

/// Asks the caches for every 64-byte line of `bytes` (a hint: no effect off x86-64). Also
/// SANDstorm's tree, whose eight lanes read eight 640-byte superblocks at once.
#[inline(always)]
pub(crate) fn prefetch(bytes: &[u8]) {
    #[cfg(target_arch = "x86_64")]
    for line in bytes.chunks(64) {
        use core::arch::x86_64::{_mm_prefetch, _MM_HINT_T0};
        // SAFETY: a prefetch is only a hint to the cache; it never faults or reads into the
        // program, and the address lies inside `bytes` anyway.
        unsafe { _mm_prefetch::<_MM_HINT_T0>(line.as_ptr().cast()) };
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = bytes;
}

/// The tree cut at depth `cut` into independent parts: the `2^cut` subtrees rooted at nodes
/// `2^cut .. 2^(cut+1) - 1` (part `p` is rooted at `2^cut + p`, with `t - cut` levels) and the
/// top tree of nodes `0 .. 2^cut - 1` above them. Both the threaded [`TreeRun`] (a part per
/// job) and the split/merge API (`parts::Plan`, a part per machine) run on it.
#[derive(Clone, Debug)]
pub(crate) struct Split {
    pub(crate) shape: Shape,
    pub(crate) cut: u32,
}

impl Split {
    /// `shape` cut at depth `cut` (`cut < t`: every part keeps at least its leaves).
    pub(crate) fn new(shape: Shape, cut: u32) -> Split {
        debug_assert!(cut == 0 || cut < shape.t);
        Split { shape, cut }
    }

    pub(crate) fn parts(&self) -> usize {
        1 << self.cut
    }

    /// The global index of part `index`'s root.
    pub(crate) fn root(&self, index: usize) -> u64 {
        (1u64 << self.cut) + index as u64
    }

    /// Part `index`'s subtree, before round 1.
    pub(crate) fn part(&self, index: usize) -> Subtree {
        Subtree::new(self.root(index), self.shape.t - self.cut)
    }

    /// The top tree, before round 1.
    pub(crate) fn top(&self, kernel: Kernel) -> Top {
        Top {
            cut: self.cut,
            old: vec![None; 1 << self.cut],
            new: vec![None; 1 << self.cut],
            batch: Batch::new(kernel),
        }
    }

    /// Part `index`'s message pieces in rounds `rounds` (padded-message bytes, in increasing
    /// order, consecutive ones not merged): per round, one run per level of its subtree.
    pub(crate) fn part_pieces(
        &self,
        index: usize,
        rounds: (u64, u64),
        mut f: impl FnMut(std::ops::Range<u64>),
    ) {
        let root = self.root(index);
        for i in rounds.0..rounds.1 {
            let layout = self.shape.layout(i);
            for e in 0..self.shape.t - self.cut {
                if let Some(r) = layout.pieces(root << e, (root + 1) << e) {
                    f(r);
                }
            }
        }
    }

    /// The top tree's pieces in round `i` (1 ..= R; round R's is U_R, the final processor's):
    /// consecutive, at the start of the round.
    pub(crate) fn top_pieces(&self, i: u64) -> Option<std::ops::Range<u64>> {
        if i == self.shape.rounds {
            let start = self.shape.round_start(i);
            (self.shape.b > 0).then_some(start..start + 32)
        } else {
            self.shape.layout(i).pieces(0, 1 << self.cut)
        }
    }
}

/// The top tree of a [`Split`]: replays rounds from the parts' root outputs.
pub(crate) struct Top {
    cut: u32,
    old: Vec<Node>,
    new: Vec<Node>,
    batch: Box<Batch<usize>>,
}

impl Top {
    /// Runs rounds `rounds`; `roots(p, k)` is part `p`'s root output in round `rounds.0 - 1 + k`
    /// (an input of round `rounds.0 + k`); `view` holds the top's pieces of these rounds.
    pub(crate) fn run(
        &mut self,
        ctx: &Ctx,
        view: &View,
        rounds: (u64, u64),
        roots: impl Fn(usize, usize) -> Node,
    ) {
        let top = 1usize << self.cut;
        for i in rounds.0..rounds.1 {
            let back = (i - rounds.0) as usize;
            let layout = ctx.shape.layout(i);
            for j in 0..top {
                let piece = layout.piece(j as u64);
                let pass = if i == 1 {
                    (!ctx.leaf(view, piece, self.batch.slot())).then_some(None)
                } else {
                    let old = &self.old;
                    let child = |c: usize| {
                        if c < top {
                            old[c]
                        } else {
                            roots(c - top, back)
                        }
                    };
                    combine(
                        view,
                        child(2 * j),
                        child(2 * j + 1),
                        piece,
                        self.batch.slot(),
                    )
                };
                match pass {
                    Some(z) => self.new[j] = z,
                    None => {
                        if self.batch.commit(j) {
                            self.batch.flush(|j, z| self.new[j] = Some(z));
                        }
                    }
                }
            }
            self.batch.flush(|j, z| self.new[j] = Some(z));
            std::mem::swap(&mut self.old, &mut self.new);
        }
    }

    /// The final step once rounds 1 .. R have run: P0 on U_R (when b > 0), then
    /// h(w || bin512(L)). `view` must hold U_R; `part0` is part 0's root output in round R - 1
    /// (P1's, used when the top is P0 alone).
    pub(crate) fn finish(&self, shape: &Shape, view: &View, part0: Node) -> [u8; 32] {
        let z0 = self.old[0];
        let z1 = if self.cut >= 1 { self.old[1] } else { part0 };
        let w = if shape.b > 0 {
            let u_last = Some(shape.round_start(shape.rounds));
            let (mut state, mut block) = ([0u32; 8], [0u8; 64]);
            let pass = combine(view, z0, z1, u_last, (&mut state, &mut block));
            assert!(pass.is_none(), "the final processor always gets n bits");
            compress_one(&mut state, &block);
            state
        } else {
            z0.expect("P0 always outputs a chaining value")
        };
        final_compression(w, shape.len_bits)
    }
}

/// The engine's state between chunks of rounds: a [`Split`] whose parts the threads run.
pub(crate) struct TreeRun {
    kernel: Kernel,
    threads: Threads,
    /// The parts' subtrees and the top tree above them.
    split: Split,
    trees: Vec<Subtree>,
    top: Top,
    /// The first round not yet run.
    next_round: u64,
    /// [`CHUNK_BYTES`] and [`SLICE_BYTES`] (smaller in tests, to run many of each).
    chunk_bytes: u64,
    slice_bytes: u64,
}

impl TreeRun {
    /// An engine for a long message (`!shape.is_short()`), on at most `threads` threads
    /// (0 = all cores), and at most one per [`MIN_BYTES_PER_THREAD`].
    pub(crate) fn new(shape: Shape, kernel: Kernel, threads: Threads) -> TreeRun {
        debug_assert!(!shape.is_short());
        let by_size =
            usize::try_from(shape.padded_len() / MIN_BYTES_PER_THREAD).unwrap_or(usize::MAX);
        let threads = threads.at_most(by_size);
        // Eight subtrees per thread: threads take them in turn, so one that starts late takes
        // fewer. A thinner cut costs small kernel calls, so one thread keeps the whole tree (a
        // 10 KiB message took 1.8x as long cut in 16) and subtrees keep at least 4 levels
        // (`-j 1000` on 64 MiB cut 4,096 one-node subtrees and ran 24x slower).
        let cut = if threads.more_than_one() {
            (threads.count().next_power_of_two().ilog2() + 3).min(shape.t.saturating_sub(4))
        } else {
            0
        };
        let split = Split::new(shape, cut);
        TreeRun {
            kernel,
            threads: threads.at_most(1 << cut),
            trees: (0..split.parts()).map(|p| split.part(p)).collect(),
            top: split.top(kernel),
            split,
            next_round: 1,
            chunk_bytes: CHUNK_BYTES,
            slice_bytes: SLICE_BYTES,
        }
    }

    pub(crate) fn shape(&self) -> &Shape {
        &self.split.shape
    }

    /// The first round not yet run (R once all are).
    pub(crate) fn next_round(&self) -> u64 {
        self.next_round
    }

    /// The end (exclusive) of the chunk of rounds starting at the next round: about
    /// [`CHUNK_BYTES`] of message, at most up to R, and only rounds whose bytes all lie below
    /// `limit` (the padded-message bytes at hand; `u64::MAX` once the whole message is).
    /// `None` when not even the next round's bytes are there.
    pub(crate) fn chunk_end(&self, limit: u64) -> Option<u64> {
        let start = self.split.shape.round_start(self.next_round);
        let mut end = self.next_round;
        while end < self.split.shape.rounds
            && self.split.shape.round_start(end + 1) <= limit
            && (end == self.next_round
                || self.split.shape.round_start(end) - start < self.chunk_bytes)
        {
            end += 1;
        }
        (end > self.next_round).then_some(end)
    }

    /// Runs rounds `next_round .. end`; `view` must hold their message bytes.
    pub(crate) fn run(&mut self, view: &View, end: u64) {
        let rounds = (self.next_round, end);
        let shape = &self.split.shape;
        let ctx = Ctx::new(shape);
        let kernel = self.kernel;
        if !self.threads.more_than_one() {
            run_subtrees(&ctx, view, kernel, &mut self.trees, rounds);
        } else {
            // One job per subtree and slice of rounds; a thread takes a free subtree with the
            // fewest slices done (`crate::threads`: a helper that wakes late takes fewer jobs
            // instead of holding up the chunk, no thread waits for another, and the jobs are
            // small, so the threads finish close together).
            let slices = self.split.shape.slices(rounds, self.slice_bytes);
            crate::threads::for_each_mut_in_steps(
                &mut self.trees,
                slices.len(),
                self.threads,
                |tree, slice| tree.run(&ctx, view, kernel, slices[slice]),
            );
        }
        let trees = &self.trees;
        self.top
            .run(&ctx, view, rounds, |p, back| trees[p].roots[back]);
        for (p, tree) in self.trees.iter_mut().enumerate() {
            let root = self.split.root(p);
            for (i, z) in (rounds.0..).zip(tree.drain_roots()) {
                // What the split/merge API relies on to pack a part's outputs.
                debug_assert_eq!(z.is_some(), self.split.shape.outputs(i, root), "round {i}");
            }
        }
        self.next_round = end;
    }

    /// The final step once every round has run (see [`Top::finish`]). `view` must hold U_R.
    pub(crate) fn finish(&self, view: &View) -> [u8; 32] {
        debug_assert_eq!(self.next_round, self.split.shape.rounds);
        self.top
            .finish(&self.split.shape, view, self.trees[0].last_root())
    }
}

/// h(w || bin512(L)).
fn final_compression(mut w: [u32; 8], len_bits: u64) -> [u8; 32] {
    let mut block = [0u8; 64];
    block[56..].copy_from_slice(&len_bits.to_be_bytes());
    compress_one(&mut w, &block);
    bytes(&w)
}

/// The short path (L <= n - l): h(h(x || 0 || IV) || bin512(L)); `message` is all of x.
pub(crate) fn short(shape: &Shape, message: &[u8]) -> [u8; 32] {
    let mut v = [0u8; 96];
    v[..message.len()].copy_from_slice(message);
    let iv = bytes(&SHA256_IV);
    v[96 - shape.iv_bytes..].copy_from_slice(&iv[..shape.iv_bytes]);
    let mut s = words(&v[..32]);
    compress_one(&mut s, v[32..].try_into().expect("64 bytes"));
    final_compression(s, shape.len_bits)
}

/// One-shot PARSHA-256 of a whole slice.
pub(crate) fn hash(
    data: &[u8],
    tree_height: u32,
    iv_bits: u32,
    kernel: Kernel,
    threads: Threads,
) -> Result<(u32, [u8; 32]), ParshaError> {
    let shape = Shape::new(data.len() as u64, tree_height, iv_bits)?;
    if shape.is_short() {
        return Ok((0, short(&shape, data)));
    }
    let t = shape.t;
    let view = View {
        data,
        base: 0,
        end: data.len() as u64,
    };
    let mut engine = TreeRun::new(shape, kernel, threads);
    while let Some(end) = engine.chunk_end(u64::MAX) {
        engine.run(&view, end);
    }
    Ok((t, engine.finish(&view)))
}

impl Shape {
    /// R.
    pub(crate) fn rounds(&self) -> u64 {
        self.rounds
    }

    /// `rounds` cut into consecutive slices of about `slice_bytes` of message (at least one
    /// round each).
    pub(crate) fn slices(&self, rounds: (u64, u64), slice_bytes: u64) -> Vec<(u64, u64)> {
        let mut slices = Vec::new();
        let mut start = rounds.0;
        for i in rounds.0 + 1..=rounds.1 {
            if i == rounds.1 || self.round_start(i) - self.round_start(start) >= slice_bytes {
                slices.push((start, i));
                start = i;
            }
        }
        slices
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Many chunks and many slices per chunk (the real sizes need messages of hundreds of MiB):
    /// the digest is the reference's whatever the thread count.
    #[test]
    fn many_chunks_and_slices_match_the_reference() {
        let kernel = Kernel::best(true);
        for (len, tree_height, iv_bits) in [(700_001u64, 9u32, 256u32), (600_000, 7, 0)] {
            let data: Vec<u8> = (0..len).map(|i| (i * 131 % 251) as u8).collect();
            let expected = super::super::reference::parsha256(&data, tree_height, iv_bits)
                .expect("valid parameters");
            for threads in [1, 2, 3] {
                let shape = Shape::new(len, tree_height, iv_bits).expect("valid parameters");
                let t = shape.t;
                let mut engine = TreeRun::new(shape, kernel, Threads::new(threads));
                engine.chunk_bytes = 100_000;
                engine.slice_bytes = 9_000;
                let view = View {
                    data: &data,
                    base: 0,
                    end: len,
                };
                let mut chunks = 0;
                while let Some(end) = engine.chunk_end(u64::MAX) {
                    engine.run(&view, end);
                    chunks += 1;
                }
                assert!(chunks >= 3, "{chunks} chunks");
                assert_eq!(
                    (t, engine.finish(&view)),
                    expected,
                    "{len} bytes, T {tree_height}, l {iv_bits}, {threads} threads"
                );
            }
        }
    }

    /// `Shape::outputs` (closed form) against the processors' rule applied round by round: a
    /// processor outputs something unless it has no piece and its children output nothing.
    #[test]
    fn outputs_follow_the_processors_round_by_round() {
        for iv_bits in [0u32, 128, 256] {
            let leaf = 96 - u64::from(iv_bits) / 8;
            for tree_height in 1..=9u32 {
                let mut lens: Vec<u64> = (0..60).map(|k| leaf + 1 + k * 997).collect();
                lens.extend((1..=tree_height).flat_map(|t| {
                    let delta = (1u64 << t) * (leaf + 32) - 32;
                    [delta - 1, delta, delta + 1, 3 * delta + 17]
                }));
                for len in lens {
                    let shape = Shape::new(len, tree_height, iv_bits).expect("valid");
                    let n = 1usize << shape.t;
                    let half = n / 2;
                    let mut prev = vec![true; n];
                    for i in 1..shape.rounds() {
                        let layout = shape.layout(i);
                        let now: Vec<bool> = (0..n)
                            .map(|j| {
                                let piece = layout.piece(j as u64).is_some();
                                if i == 1 || j >= half {
                                    piece
                                } else {
                                    piece || prev[2 * j] || prev[2 * j + 1]
                                }
                            })
                            .collect();
                        for (j, &out) in now.iter().enumerate() {
                            assert_eq!(
                                shape.outputs(i, j as u64),
                                out,
                                "{len} bytes, T {tree_height}, l {iv_bits}, round {i}, P{j}"
                            );
                        }
                        prev = now;
                    }
                    for j in 0..n as u64 {
                        let count = (1..shape.rounds()).filter(|&i| shape.outputs(i, j)).count();
                        assert_eq!(shape.outputs_count(j), count as u64);
                    }
                }
            }
        }
    }

    #[test]
    fn slices_cover_the_rounds_in_order() {
        let shape = Shape::new(5_000_000, 13, 256).expect("valid parameters");
        for bytes in [1, 100_000, SLICE_BYTES, u64::MAX] {
            let slices = shape.slices((3, shape.rounds()), bytes);
            assert_eq!(slices.first().map(|s| s.0), Some(3));
            assert_eq!(slices.last().map(|s| s.1), Some(shape.rounds()));
            assert!(slices.windows(2).all(|w| w[0].1 == w[1].0));
            assert!(slices.iter().all(|s| s.0 < s.1));
        }
    }
}
