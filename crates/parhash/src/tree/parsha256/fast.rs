//! The fast PARSHA-256 engine: every independent compression of a round in SIMD lanes, the
//! processor tree split over threads.
//!
//! The tree of `2^t` processors is cut at depth `k` into `2^k` subtrees rooted at nodes
//! `2^k .. 2^(k+1) - 1`, plus a small top tree (nodes `0 .. 2^k - 1`). Information only flows
//! upwards, so a subtree never needs anything from outside itself: each thread takes whole
//! subtrees and runs *all* rounds of a chunk of rounds on them (no barrier per round, the
//! subtree's chaining values stay in its own cache), recording each round's root output. The
//! serial top tree then replays the chunk's rounds from those root outputs. Chunks of about
//! [`CHUNK_BYTES`] of message bound the memory and let the streaming hasher start before the
//! whole message is there.
//!
//! Every compression of one thread's round is gathered into a batch and compressed
//! `Width::lanes32()` at a time by [`compress_lanes_with`]. The message is read in place
//! (a slice, possibly memory-mapped); the padding beyond the message end is read as zeros, never
//! materialised. Geometry (which `u(i, j)` a processor gets, where it lies in the padded
//! message) is computed in closed form from the specification's size table.

use super::{check_params, ParshaError};
use crate::lanes::sha256::{compress_lanes_with, compress_one, IV as SHA256_IV};
use crate::lanes::Width;

/// Message bytes per chunk of rounds handed to the threads at once.
pub(crate) const CHUNK_BYTES: u64 = 8 << 20;
/// Compressions gathered before one lane call (a few lane groups; stays in L1).
const BATCH: usize = 128;
/// Below this many compressions a lane call would mostly compress padding lanes.
const SCALAR_BELOW: usize = 3;
/// At most one thread per this many message bytes: starting a thread costs tens of
/// microseconds, about what a core hashes of this much.
const MIN_BYTES_PER_THREAD: u64 = 256 << 10;

/// A processor's output: a 256-bit chaining value, or nothing (an empty input passed through).
type Node = Option<[u32; 8]>;

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

    /// Bytes of the padded message (to the end of U_R).
    pub(crate) fn padded_len(&self) -> u64 {
        if self.is_short() {
            self.leaf_bytes
        } else {
            self.round_start(self.rounds) + if self.b > 0 { 32 } else { 0 }
        }
    }

    /// Where u(i, j) lies for a round `i` in 1 .. R, or `None` when it is empty. Its size is
    /// `leaf_bytes` for leaf-type inputs (round 1, leaves) and 32 for internal nodes.
    fn piece(&self, i: u64, j: u64) -> Option<u64> {
        let half = 1u64 << (self.t - 1);
        if i == 1 {
            return Some(j * self.leaf_bytes);
        }
        let start = self.round_start(i);
        let leaf = j >= half;
        if i <= self.q + 2 {
            if !leaf {
                Some(start + 32 * j)
            } else if i < self.q + 2 || j - half < self.b {
                Some(start + half * 32 + (j - half) * self.leaf_bytes)
            } else {
                None
            }
        } else if !leaf && j < self.k(i) {
            Some(start + 32 * j)
        } else {
            None
        }
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
    /// Copies padded-message bytes `off .. off + out.len()` into `out`.
    fn read(&self, off: u64, out: &mut [u8]) {
        let stop = off + out.len() as u64;
        if stop <= self.end {
            let from = (off - self.base) as usize;
            out.copy_from_slice(&self.data[from..from + out.len()]);
        } else {
            out.fill(0);
            if off < self.end {
                let from = (off - self.base) as usize;
                let n = (self.end - off) as usize;
                out[..n].copy_from_slice(&self.data[from..from + n]);
            }
        }
    }
}

fn words(bytes: &[u8]) -> [u32; 8] {
    core::array::from_fn(|w| {
        u32::from_be_bytes([
            bytes[4 * w],
            bytes[4 * w + 1],
            bytes[4 * w + 2],
            bytes[4 * w + 3],
        ])
    })
}

fn bytes(words: &[u32; 8]) -> [u8; 32] {
    let mut out = [0u8; 32];
    for (o, w) in out.chunks_exact_mut(4).zip(words) {
        o.copy_from_slice(&w.to_be_bytes());
    }
    out
}

/// What one processor does in one round.
enum Step {
    /// h(state || block).
    Compress([u32; 8], [u8; 64]),
    /// The input (m bits or nothing) passes through.
    Pass(Node),
}

/// Per-run constants the processors need.
struct Ctx<'a> {
    shape: &'a Shape,
    iv: [u8; 32],
}

impl Ctx<'_> {
    /// A leaf-type input u || IV (round 1, or a leaf), or nothing when u is empty.
    fn leaf(&self, view: &View, i: u64, j: u64) -> Step {
        match self.shape.piece(i, j) {
            None => Step::Pass(None),
            Some(off) => {
                let leaf = self.shape.leaf_bytes as usize;
                let mut v = [0u8; 96];
                view.read(off, &mut v[..leaf]);
                v[leaf..].copy_from_slice(&self.iv[..self.shape.iv_bytes]);
                Step::Compress(words(&v[..32]), v[32..].try_into().expect("64 bytes"))
            }
        }
    }

    /// An internal node: z(2j) || z(2j+1) || u(i, j).
    fn internal(&self, view: &View, i: u64, j: u64, left: Node, right: Node) -> Step {
        combine(view, left, right, self.shape.piece(i, j))
    }
}

/// A processor's input from its children's outputs and its message piece: all three make n bits
/// (compress), exactly one makes m bits (passes through), none is empty.
fn combine(view: &View, left: Node, right: Node, piece: Option<u64>) -> Step {
    match (left, right, piece) {
        (Some(l), Some(r), Some(off)) => {
            let mut block = [0u8; 64];
            block[..32].copy_from_slice(&bytes(&r));
            view.read(off, &mut block[32..]);
            Step::Compress(l, block)
        }
        (Some(z), None, None) | (None, Some(z), None) => Step::Pass(Some(z)),
        (None, None, Some(off)) => {
            let mut u = [0u8; 32];
            view.read(off, &mut u);
            Step::Pass(Some(words(&u)))
        }
        (None, None, None) => Step::Pass(None),
        _ => unreachable!("PARSHA-256 processor input of 2m bits: the size table was misread"),
    }
}

/// Compressions gathered for one lane call, with where each result goes.
struct Batch<D> {
    width: Width,
    states: Vec<[u32; 8]>,
    blocks: Vec<[u8; 64]>,
    dest: Vec<D>,
}

impl<D: Copy> Batch<D> {
    fn new(width: Width) -> Self {
        Batch {
            width,
            states: Vec::with_capacity(BATCH),
            blocks: Vec::with_capacity(BATCH),
            dest: Vec::with_capacity(BATCH),
        }
    }

    /// Adds one compression; returns true when the batch is full.
    fn push(&mut self, state: [u32; 8], block: [u8; 64], dest: D) -> bool {
        self.states.push(state);
        self.blocks.push(block);
        self.dest.push(dest);
        self.states.len() == BATCH
    }

    /// Compresses everything gathered and hands each result to `store`.
    fn flush(&mut self, mut store: impl FnMut(D, [u32; 8])) {
        if self.states.len() < SCALAR_BELOW {
            for (s, b) in self.states.iter_mut().zip(&self.blocks) {
                compress_one(s, b);
            }
        } else {
            compress_lanes_with(self.width, &mut self.states, &self.blocks);
        }
        for (&d, s) in self.dest.iter().zip(&self.states) {
            store(d, *s);
        }
        self.states.clear();
        self.blocks.clear();
        self.dest.clear();
    }
}

/// One subtree: heap-indexed chaining values (local node 1 is the root, children of x are 2x
/// and 2x + 1, like the global tree), double-buffered across rounds.
struct Subtree {
    /// Global index of the root.
    root: u64,
    /// Levels in the subtree (t - k).
    levels: u32,
    old: Vec<Node>,
    new: Vec<Node>,
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
            old: vec![None; size],
            new: vec![None; size],
            roots: vec![None],
        }
    }
}

/// Runs rounds `rounds` on `trees` (one thread's share).
fn run_subtrees(ctx: &Ctx, view: &View, width: Width, trees: &mut [Subtree], rounds: (u64, u64)) {
    let mut batch: Batch<(usize, usize)> = Batch::new(width);
    for i in rounds.0..rounds.1 {
        for ti in 0..trees.len() {
            let levels = trees[ti].levels;
            let root = trees[ti].root;
            for x in 1usize..1 << levels {
                let level = x.ilog2();
                let j = (root << level) + (x as u64 - (1u64 << level));
                let tree = &trees[ti];
                let step = if i == 1 || level == levels - 1 {
                    ctx.leaf(view, i, j)
                } else {
                    ctx.internal(view, i, j, tree.old[2 * x], tree.old[2 * x + 1])
                };
                match step {
                    Step::Pass(z) => trees[ti].new[x] = z,
                    Step::Compress(s, b) => {
                        if batch.push(s, b, (ti, x)) {
                            batch.flush(|(t, x), z| trees[t].new[x] = Some(z));
                        }
                    }
                }
            }
        }
        batch.flush(|(t, x), z| trees[t].new[x] = Some(z));
        for tree in trees.iter_mut() {
            std::mem::swap(&mut tree.old, &mut tree.new);
            tree.roots.push(tree.old[1]);
        }
    }
}

/// The engine's state between chunks of rounds.
pub(crate) struct Engine {
    shape: Shape,
    width: Width,
    threads: usize,
    /// Log2 of the number of subtrees.
    cut: u32,
    trees: Vec<Subtree>,
    top_old: Vec<Node>,
    top_new: Vec<Node>,
    /// The first round not yet run.
    next_round: u64,
}

impl Engine {
    /// An engine for a long message (`!shape.is_short()`), on at most `threads` threads
    /// (0 = all cores), and at most one per [`MIN_BYTES_PER_THREAD`].
    pub(crate) fn new(shape: Shape, width: Width, threads: usize) -> Engine {
        debug_assert!(!shape.is_short());
        let threads = if threads == 0 {
            crate::platform::available_threads()
        } else {
            threads
        };
        let by_size = (shape.padded_len() / MIN_BYTES_PER_THREAD).max(1);
        // The cut follows the requested count (so small messages exercise the same subtree
        // split); only the threads actually started depend on the size.
        let cut = if threads <= 1 {
            0
        } else {
            (threads.next_power_of_two().ilog2() + 2).min(shape.t - 1)
        };
        let levels = shape.t - cut;
        let trees = ((1u64 << cut)..(2u64 << cut))
            .map(|root| Subtree::new(root, levels))
            .collect();
        Engine {
            width,
            threads: threads.min(by_size as usize).clamp(1, 1 << cut),
            cut,
            trees,
            top_old: vec![None; 1 << cut],
            top_new: vec![None; 1 << cut],
            next_round: 1,
            shape,
        }
    }

    pub(crate) fn shape(&self) -> &Shape {
        &self.shape
    }

    /// The first round not yet run (R once all are).
    pub(crate) fn next_round(&self) -> u64 {
        self.next_round
    }

    /// The end (exclusive) of the chunk of rounds starting at the next round: about
    /// [`CHUNK_BYTES`] of message, at least one round, at most up to R.
    pub(crate) fn chunk_end(&self) -> u64 {
        let start = self.shape.round_start(self.next_round);
        let mut end = self.next_round + 1;
        while end < self.shape.rounds && self.shape.round_start(end) - start < CHUNK_BYTES {
            end += 1;
        }
        end
    }

    /// Runs rounds `next_round .. end`; `view` must hold their message bytes.
    pub(crate) fn run(&mut self, view: &View, end: u64) {
        let rounds = (self.next_round, end);
        let shape = self.shape.clone();
        let ctx = Ctx {
            shape: &shape,
            iv: bytes(&SHA256_IV),
        };
        let width = self.width;
        if self.threads == 1 {
            run_subtrees(&ctx, view, width, &mut self.trees, rounds);
        } else {
            let per_thread = self.trees.len().div_ceil(self.threads);
            std::thread::scope(|scope| {
                let mut shares = self.trees.chunks_mut(per_thread);
                let mine = shares.next().expect("at least one subtree");
                for share in shares {
                    let ctx = &ctx;
                    scope.spawn(move || run_subtrees(ctx, view, width, share, rounds));
                }
                run_subtrees(&ctx, view, width, mine, rounds);
            });
        }
        self.run_top(&ctx, view, rounds);
        for tree in &mut self.trees {
            let last = *tree.roots.last().expect("the carried root output");
            tree.roots.clear();
            tree.roots.push(last);
        }
        self.next_round = end;
    }

    /// The top tree (nodes 0 .. 2^cut - 1) over the chunk's rounds, from the subtrees' roots.
    fn run_top(&mut self, ctx: &Ctx, view: &View, rounds: (u64, u64)) {
        let top = 1usize << self.cut;
        let mut batch: Batch<usize> = Batch::new(self.width);
        for i in rounds.0..rounds.1 {
            let back = (i - rounds.0) as usize;
            for j in 0..top {
                let step = if i == 1 {
                    ctx.leaf(view, i, j as u64)
                } else {
                    let child = |c: usize| {
                        if c < top {
                            self.top_old[c]
                        } else {
                            self.trees[c - top].roots[back]
                        }
                    };
                    ctx.internal(view, i, j as u64, child(2 * j), child(2 * j + 1))
                };
                match step {
                    Step::Pass(z) => self.top_new[j] = z,
                    Step::Compress(s, b) => {
                        batch.push(s, b, j);
                    }
                }
                if batch.states.len() == BATCH {
                    batch.flush(|j, z| self.top_new[j] = Some(z));
                }
            }
            batch.flush(|j, z| self.top_new[j] = Some(z));
            std::mem::swap(&mut self.top_old, &mut self.top_new);
        }
    }

    /// The final step once every round has run: P0 on U_R (when b > 0), then h(w || bin512(L)).
    /// `view` must hold U_R.
    pub(crate) fn finish(&self, view: &View) -> [u8; 32] {
        debug_assert_eq!(self.next_round, self.shape.rounds);
        let z0 = self.top_old[0];
        let z1 = if self.cut >= 1 {
            self.top_old[1]
        } else {
            self.trees[0].old[1]
        };
        let w = if self.shape.b > 0 {
            let u_last = Some(self.shape.round_start(self.shape.rounds));
            match combine(view, z0, z1, u_last) {
                Step::Compress(mut s, b) => {
                    compress_one(&mut s, &b);
                    s
                }
                Step::Pass(_) => unreachable!("the final processor always gets n bits"),
            }
        } else {
            z0.expect("P0 always outputs a chaining value")
        };
        final_compression(w, self.shape.len_bits)
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
    width: Width,
    threads: usize,
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
    let mut engine = Engine::new(shape, width, threads);
    while engine.next_round() < engine.shape().rounds {
        let end = engine.chunk_end();
        engine.run(&view, end);
    }
    Ok((t, engine.finish(&view)))
}

impl Shape {
    /// R.
    pub(crate) fn rounds(&self) -> u64 {
        self.rounds
    }
}
