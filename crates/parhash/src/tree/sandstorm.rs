//! SANDstorm's truncated tree (levels 0-4) on all cores, processed as data arrives.
//!
//! IMPLEMENTATION NOTE. The state keeps one open superblock per level, so memory is bounded by a
//! few chaining arrays whatever the message length: the whole message is never buffered.
//! - Serial path: each block goes to the open level-1 superblock; a finished superblock's output
//!   goes to the open level-2 superblock, whose outputs go to the level-3 chain. The first output
//!   of levels 1 and 2 is kept, because the level that feeds level 4 is known only at the end (a
//!   message with a single level-1 superblock uses that output directly).
//! - Interleaved path: when the state sits at a level-1 superblock boundary and several whole
//!   superblocks are at hand, `LANES` of them are compressed side by side (independent chains):
//!   portable code interleaves 4 (64-bit words) or 2 (128-bit) chains; with AVX-512 + GFNI
//!   ([`Wide`], SANDstorm-224/256 only) eight superblocks run in the eight lanes of a register,
//!   and so do eight level-2 chains.
//! - Parallel path: when the state sits at a level-2 boundary (every 1000 blocks) and whole
//!   level-2 superblocks are at hand, they are split over threads; each thread computes its
//!   level-1 superblocks (interleaved) and its level-2 chain, and only the level-3 chain, one
//!   compression per 1000 blocks, stays serial. So even level 2 is parallel, which is what lets
//!   two threads approach 2x.
//!
//! Every path produces exactly the outputs of the serial definition in the same order, so the
//! digest never depends on the thread count (tests compare against the literal reference).
//! The reference code's 8-bit counter quirk (`Boundaries::ReferenceCode8Bit`) only runs serially.

use crate::algo::sandstorm::fast::{compress_lanes, load_block};
use crate::algo::sandstorm::reference::{level_output, Boundaries, Chain};
use crate::algo::sandstorm::word::Word;
use crate::lanes::sandstorm::{Wide, LANES as WIDE_LANES};
use core::any::Any;

const LEVEL1: u64 = 10;
const LEVEL2: u64 = 100;
/// Message blocks per level-2 superblock.
const BLOCKS_PER_LEVEL2: u64 = LEVEL1 * LEVEL2;
/// Level-2 superblocks handled together by one thread (bounds the level-1 outputs held at once
/// to 1600 words of 8, and gives the eight-lane level-2 kernel two full groups).
const LEVEL2_BATCH: usize = 16;

/// How the tree engine may use the hardware. The digest never depends on it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Engine {
    /// Interleave independent level-1 superblocks in one thread.
    pub interleave: bool,
    /// Threads for whole level-2 superblocks (1 = none spawned).
    pub threads: usize,
    /// Eight superblocks per AVX-512 register (64-bit words only; `None` = portable code).
    pub wide: Option<Wide>,
}

impl Engine {
    /// One compression at a time, one thread.
    pub const SEQUENTIAL: Engine = Engine {
        interleave: false,
        threads: 1,
        wide: None,
    };
    /// Interleaved superblocks, one thread, portable code.
    pub const INTERLEAVED: Engine = Engine {
        interleave: true,
        threads: 1,
        wide: None,
    };
    /// Interleaved superblocks on `threads` threads (0 = all cores), with the widest kernel
    /// this CPU has.
    pub fn parallel(threads: usize) -> Engine {
        Engine {
            wide: Wide::detect(),
            ..Engine::portable(threads)
        }
    }
    /// Interleaved superblocks on `threads` threads (0 = all cores), portable code only.
    pub fn portable(threads: usize) -> Engine {
        Engine {
            interleave: true,
            threads: if threads == 0 {
                crate::platform::available_threads()
            } else {
                threads
            },
            wide: None,
        }
    }
    /// Interleaved superblocks on `threads` threads (0 = all cores) in AVX-512 lanes; `None`
    /// where this CPU lacks AVX-512 or GFNI.
    pub fn avx512(threads: usize) -> Option<Engine> {
        Some(Engine {
            wide: Some(Wide::detect()?),
            ..Engine::portable(threads)
        })
    }
}

fn xor_words<W: Word>(c: &mut Chain<W>, cols: &[usize], value: W) {
    for row in c.iter_mut() {
        for &j in cols {
            row[j] ^= value;
        }
    }
}

fn numbered<W: Word>(base: &Chain<W>, number: u64) -> Chain<W> {
    let mut c = *base;
    xor_words(&mut c, &[1, 3], W::from_counter(number));
    c
}

/// Superblocks compressed side by side: 4 chains of 64-bit words, 2 of 128-bit words
/// (enough to cover the multiply and S-box latencies without spilling registers).
fn lanes_for<W: Word>() -> usize {
    if W::BYTES == 8 {
        4
    } else {
        2
    }
}

/// Outputs of `count` consecutive level-1 superblocks (whole, `10 * count` blocks in `data`),
/// the first numbered `first_number`, compressed `L` at a time.
fn level1_outputs<W: Word, const L: usize>(
    base: &Chain<W>,
    first_number: u64,
    data: &[u8],
    out: &mut Vec<[W; 8]>,
) {
    let block_bytes = 8 * W::BYTES;
    let superblock_bytes = LEVEL1 as usize * block_bytes;
    let count = data.len() / superblock_bytes;
    let mut s = 0;
    while s + L <= count {
        let mut chains: [Chain<W>; L] =
            core::array::from_fn(|l| numbered(base, first_number + (s + l) as u64));
        for b in 0..LEVEL1 as usize {
            let m: [[W; 8]; L] = core::array::from_fn(|l| {
                load_block(&data[(s + l) * superblock_bytes + b * block_bytes..])
            });
            compress_lanes::<W, L>(&m, &mut chains);
        }
        out.extend(chains.iter().map(level_output));
        s += L;
    }
    for rest in s..count {
        let mut chain = [numbered(base, first_number + rest as u64)];
        for b in 0..LEVEL1 as usize {
            let m = [load_block(
                &data[rest * superblock_bytes + b * block_bytes..],
            )];
            compress_lanes::<W, 1>(&m, &mut chain);
        }
        out.push(level_output(&chain[0]));
    }
}

/// Level-1 outputs eight superblocks at a time in AVX-512 lanes, for 64-bit words; returns how
/// many superblocks of `data` it did (a multiple of 8; 0 for 128-bit words).
// `out` is downcast to the concrete `Vec<[u64; 8]>` it extends, so it must stay a `Vec`.
#[allow(clippy::ptr_arg)]
fn level1_outputs_wide<W: Word>(
    wide: Wide,
    base: &Chain<W>,
    first_number: u64,
    data: &[u8],
    out: &mut Vec<[W; 8]>,
) -> usize {
    let (Some(base), Some(out)) = (
        (base as &dyn Any).downcast_ref::<Chain<u64>>(),
        (out as &mut dyn Any).downcast_mut::<Vec<[u64; 8]>>(),
    ) else {
        return 0;
    };
    let superblock_bytes = LEVEL1 as usize * 64;
    let groups = data.len() / superblock_bytes / WIDE_LANES;
    for g in 0..groups {
        let first = first_number + (g * WIDE_LANES) as u64;
        let mut chains: [Chain<u64>; WIDE_LANES] =
            core::array::from_fn(|l| numbered(base, first + l as u64));
        let at = g * WIDE_LANES * superblock_bytes;
        wide.compress_blocks(&mut chains, &data[at..], superblock_bytes, LEVEL1 as usize);
        out.extend(chains.iter().map(level_output));
    }
    groups * WIDE_LANES
}

fn level1_outputs_dispatch<W: Word>(
    base: &Chain<W>,
    mut first_number: u64,
    mut data: &[u8],
    engine: Engine,
    out: &mut Vec<[W; 8]>,
) {
    let interleave = engine.interleave;
    if let (true, Some(wide)) = (interleave, engine.wide) {
        let done = level1_outputs_wide(wide, base, first_number, data, out);
        first_number += done as u64;
        data = &data[done * LEVEL1 as usize * Tree::<W>::block_bytes()..];
    }
    match (interleave, lanes_for::<W>()) {
        (false, _) => level1_outputs::<W, 1>(base, first_number, data, out),
        (true, 4) => level1_outputs::<W, 4>(base, first_number, data, out),
        (true, _) => level1_outputs::<W, 2>(base, first_number, data, out),
    }
}

/// Whole level-2 superblocks (`1000 * count` blocks in `data`, numbered from `first_number`):
/// their level-1 superblocks, then their level-2 chains; returns the `count` level-2 outputs.
/// Pure, so threads can run many at once.
fn level2_batch<W: Word>(
    base: &Chain<W>,
    base2: &Chain<W>,
    first_number: u64,
    data: &[u8],
    engine: Engine,
) -> Vec<[W; 8]> {
    let count = data.len() / (BLOCKS_PER_LEVEL2 as usize * Tree::<W>::block_bytes());
    let per = LEVEL2 as usize;
    let mut outputs = Vec::with_capacity(count * per);
    level1_outputs_dispatch(
        base,
        (first_number - 1) * LEVEL2 + 1,
        data,
        engine,
        &mut outputs,
    );
    let mut chains: Vec<Chain<W>> = (0..count)
        .map(|i| numbered(base2, first_number + i as u64))
        .collect();
    let mut done = 0;
    if let (true, Some(wide)) = (engine.interleave, engine.wide) {
        if let (Some(chains), Some(inputs)) = (
            (&mut chains as &mut dyn Any).downcast_mut::<Vec<Chain<u64>>>(),
            (&outputs as &dyn Any).downcast_ref::<Vec<[u64; 8]>>(),
        ) {
            while done + WIDE_LANES <= count {
                let mut group: [Chain<u64>; WIDE_LANES] =
                    core::array::from_fn(|l| chains[done + l]);
                wide.compress_words(&mut group, &inputs[done * per..], per, per);
                chains[done..done + WIDE_LANES].copy_from_slice(&group);
                done += WIDE_LANES;
            }
        }
    }
    for (i, chain) in chains.iter_mut().enumerate().skip(done) {
        let mut c = [*chain];
        for o in &outputs[i * per..(i + 1) * per] {
            compress_lanes::<W, 1>(&[*o], &mut c);
        }
        *chain = c[0];
    }
    chains.iter().map(level_output).collect()
}

/// [`level2_batch`] over any number of level-2 superblocks, [`LEVEL2_BATCH`] at a time.
fn level2_run<W: Word>(
    base: &Chain<W>,
    base2: &Chain<W>,
    first_number: u64,
    data: &[u8],
    engine: Engine,
) -> Vec<[W; 8]> {
    let batch_bytes = LEVEL2_BATCH * BLOCKS_PER_LEVEL2 as usize * Tree::<W>::block_bytes();
    let mut out = Vec::new();
    for (i, batch) in data.chunks(batch_bytes).enumerate() {
        let number = first_number + (i * LEVEL2_BATCH) as u64;
        out.extend(level2_batch(base, base2, number, batch, engine));
    }
    out
}

/// Streaming SANDstorm tree state for word type `W`.
#[derive(Clone, Debug)]
pub struct Tree<W: Word> {
    k: Chain<W>,
    boundaries: Boundaries,
    engine: Engine,
    started: bool,
    /// Out(S) of level 0, used when the message is one block.
    level0_output: [W; 8],
    base: Chain<W>,
    base2: Chain<W>,
    // Level 1.
    blocks1: u64,
    open1: Option<Chain<W>>,
    outputs1: u64,
    first1: [W; 8],
    // Level 2.
    inputs2: u64,
    open2: Option<Chain<W>>,
    outputs2: u64,
    first2: [W; 8],
    // Level 3.
    chain3: Chain<W>,
}

impl<W: Word> Tree<W> {
    /// A fresh tree with chaining constants `k`.
    pub fn new(k: Chain<W>, boundaries: Boundaries, engine: Engine) -> Self {
        Tree {
            k,
            boundaries,
            engine,
            started: false,
            level0_output: [W::default(); 8],
            base: k,
            base2: k,
            blocks1: 0,
            open1: None,
            outputs1: 0,
            first1: [W::default(); 8],
            inputs2: 0,
            open2: None,
            outputs2: 0,
            first2: [W::default(); 8],
            chain3: k,
        }
    }

    /// Bytes per block.
    pub const fn block_bytes() -> usize {
        8 * W::BYTES
    }

    fn is_boundary(&self, count: u64, size: u64) -> bool {
        match self.boundaries {
            Boundaries::Design => count % size == 0,
            Boundaries::ReferenceCode8Bit => u64::from(count as u8) % size == 0,
        }
    }

    fn level0(&mut self, block: &[W; 8]) {
        let mut s = [self.k];
        compress_lanes::<W, 1>(&[*block], &mut s);
        let s = s[0];
        self.level0_output = level_output(&s);
        let mut base = self.k;
        for j in 0..4 {
            base[0][j] ^= s[4][j];
        }
        for r in 1..5 {
            for j in 0..4 {
                base[r][j] ^= s[r][j];
            }
        }
        self.base = base;
        self.base2 = base;
        xor_words(&mut self.base2, &[3], W::LEVEL2);
        self.chain3 = base;
        xor_words(&mut self.chain3, &[3], W::LEVEL3);
        self.started = true;
    }

    fn push_level1_block(&mut self, block: &[W; 8]) {
        let number = self.blocks1 / LEVEL1 + 1;
        let base = self.base;
        let chain = self.open1.get_or_insert_with(|| numbered(&base, number));
        let mut c = [*chain];
        compress_lanes::<W, 1>(&[*block], &mut c);
        *chain = c[0];
        self.blocks1 += 1;
        if self.is_boundary(self.blocks1, LEVEL1) {
            let out = level_output(&self.open1.take().expect("open superblock"));
            self.push_level1_output(out);
        }
    }

    fn push_level1_output(&mut self, out: [W; 8]) {
        self.outputs1 += 1;
        if self.outputs1 == 1 {
            self.first1 = out;
        }
        let number = self.inputs2 / LEVEL2 + 1;
        let base2 = self.base2;
        let chain = self.open2.get_or_insert_with(|| numbered(&base2, number));
        let mut c = [*chain];
        compress_lanes::<W, 1>(&[out], &mut c);
        *chain = c[0];
        self.inputs2 += 1;
        if self.is_boundary(self.inputs2, LEVEL2) {
            let out = level_output(&self.open2.take().expect("open superblock"));
            self.push_level2_output(out);
        }
    }

    fn push_level2_output(&mut self, out: [W; 8]) {
        self.outputs2 += 1;
        match self.outputs2 {
            1 => self.first2 = out,
            2 => {
                let mut c = [self.chain3];
                compress_lanes::<W, 1>(&[self.first2], &mut c);
                compress_lanes::<W, 1>(&[out], &mut c);
                self.chain3 = c[0];
            }
            _ => {
                let mut c = [self.chain3];
                compress_lanes::<W, 1>(&[out], &mut c);
                self.chain3 = c[0];
            }
        }
    }

    /// Feeds whole blocks (`data.len()` a multiple of [`Tree::block_bytes`]).
    pub fn update_blocks(&mut self, mut data: &[u8]) {
        let bb = Self::block_bytes();
        debug_assert_eq!(data.len() % bb, 0);
        let design = self.boundaries == Boundaries::Design;
        while !data.is_empty() {
            if !self.started {
                self.level0(&load_block(data));
                data = &data[bb..];
                continue;
            }
            let level2_bytes = BLOCKS_PER_LEVEL2 as usize * bb;
            let at_level2_boundary = self.open1.is_none()
                && self.open2.is_none()
                && self.blocks1 % BLOCKS_PER_LEVEL2 == 0;
            if design && at_level2_boundary && data.len() >= level2_bytes {
                let count = data.len() / level2_bytes;
                let (bulk, rest) = data.split_at(count * level2_bytes);
                self.bulk_level2(bulk);
                data = rest;
                continue;
            }
            let lanes = lanes_for::<W>() as u64;
            let superblock_bytes = LEVEL1 as usize * bb;
            if design
                && self.engine.interleave
                && self.open1.is_none()
                && data.len() >= lanes as usize * superblock_bytes
            {
                // Whole level-1 superblocks, up to the next level-2 boundary.
                let to_boundary = (LEVEL2 - self.inputs2 % LEVEL2) as usize;
                let count = (data.len() / superblock_bytes).min(to_boundary);
                let (bulk, rest) = data.split_at(count * superblock_bytes);
                let mut outputs = Vec::with_capacity(count);
                let first_number = self.blocks1 / LEVEL1 + 1;
                level1_outputs_dispatch(&self.base, first_number, bulk, self.engine, &mut outputs);
                self.blocks1 += count as u64 * LEVEL1;
                for out in outputs {
                    self.push_level1_output(out);
                }
                data = rest;
                continue;
            }
            self.push_level1_block(&load_block(data));
            data = &data[bb..];
        }
    }

    /// Whole level-2 superblocks, spread over the engine's threads.
    fn bulk_level2(&mut self, data: &[u8]) {
        let level2_bytes = BLOCKS_PER_LEVEL2 as usize * Self::block_bytes();
        let count = data.len() / level2_bytes;
        let first_number = self.inputs2 / LEVEL2 + 1;
        let (base, base2, engine) = (self.base, self.base2, self.engine);
        let threads = self.engine.threads.clamp(1, count);
        let outputs: Vec<[W; 8]> = if threads == 1 {
            level2_run(&base, &base2, first_number, data, engine)
        } else {
            // Contiguous runs of superblocks per thread; joined in order.
            let per_thread = count.div_ceil(threads);
            std::thread::scope(|scope| {
                let handles: Vec<_> = data
                    .chunks(per_thread * level2_bytes)
                    .enumerate()
                    .map(|(t, run)| {
                        let number = first_number + (t * per_thread) as u64;
                        scope.spawn(move || level2_run(&base, &base2, number, run, engine))
                    })
                    .collect();
                handles
                    .into_iter()
                    .flat_map(|h| h.join().expect("SANDstorm worker thread panicked"))
                    .collect()
            })
        };
        // The level-1 outputs of these superblocks were consumed inside them.
        self.blocks1 += count as u64 * BLOCKS_PER_LEVEL2;
        self.outputs1 += count as u64 * LEVEL2;
        self.inputs2 += count as u64 * LEVEL2;
        for out in outputs {
            self.push_level2_output(out);
        }
    }

    /// Pads the final partial block `tail` (shorter than a block), runs levels 1-4 to the end and
    /// returns the untruncated 4-word result. `bit_len` is the whole message length in bits.
    pub fn finalize(mut self, tail: &[u8], bit_len: u128) -> [W; 4] {
        let bb = Self::block_bytes();
        assert!(tail.len() < bb, "finalize takes less than one block");
        let mut last = vec![0u8; bb];
        last[..tail.len()].copy_from_slice(tail);
        last[tail.len()] = 0x80;
        self.update_blocks(&last);

        if let Some(c) = self.open1.take() {
            self.push_level1_output(level_output(&c));
        }
        let top = if self.blocks1 == 0 {
            self.level0_output
        } else if self.outputs1 == 1 {
            self.first1
        } else {
            if let Some(c) = self.open2.take() {
                self.push_level2_output(level_output(&c));
            }
            if self.outputs2 == 1 {
                self.first2
            } else {
                level_output(&self.chain3)
            }
        };

        let mut fin = self.k;
        xor_words(&mut fin, &[3], W::LEVEL3);
        xor_words(&mut fin, &[1, 3], W::from_bit_len(bit_len));
        xor_words(&mut fin, &[0, 1], !W::default());
        let mut z = [fin];
        compress_lanes::<W, 1>(&[top], &mut z);
        let z = z[0];
        core::array::from_fn(|j| z[1][j] ^ z[2][j] ^ z[3][j] ^ z[4][j])
    }
}

/// Hashes a whole slice (for example a memory-mapped file) in place with the given engine and
/// returns the untruncated result words.
pub fn hash_slice<W: Word>(
    k: Chain<W>,
    boundaries: Boundaries,
    engine: Engine,
    data: &[u8],
) -> [W; 4] {
    let bb = Tree::<W>::block_bytes();
    let whole = data.len() / bb * bb;
    let mut tree = Tree::new(k, boundaries, engine);
    tree.update_blocks(&data[..whole]);
    tree.finalize(&data[whole..], data.len() as u128 * 8)
}
