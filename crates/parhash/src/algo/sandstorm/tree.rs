//! SANDstorm's truncated tree (levels 0-4) on all cores, processed as data arrives.
//!
//! IMPLEMENTATION NOTE. The state keeps one open superblock per level, so memory is bounded by a
//! few chaining arrays whatever the message length: the whole message is never buffered.
//! - Boundaries: `next_boundary` says where a superblock closes, for the design (every 10 / 100
//!   inputs) and for the reference code's 8-bit counter (section 7 of the spec), so every path
//!   below serves both, threads and SIMD lanes included.
//! - Serial path (`Tree::advance`): whole level-1 superblocks up to the end of the open level-2
//!   superblock are compressed side by side (independent chains: portable code interleaves 4
//!   chains of 64-bit words or 2 of 128-bit words; with [`Wide`] (AVX-512 + GFNI, or AVX2),
//!   eight run in SIMD lanes); a partial superblock goes block by block. Their outputs go
//!   to the open level-2 superblock, whose outputs go to the level-3 chain. The first output of
//!   levels 1 and 2 is kept, because the level that feeds level 4 is known only at the end.
//! - Parallel path (`Tree::bulk`): the whole level-2 superblocks of an update are cut into
//!   jobs that threads take one after the other; a job computes its level-1 superblocks, then
//!   its level-2 chains (side by side too), so even level 2 is parallel. With eight SIMD lanes
//!   and the design's boundaries, a job is eight level-2 superblocks in lockstep, one per lane
//!   (`Level2Work::lockstep`): no lists of superblocks to build and sort. The calling thread
//!   takes jobs as well, and in between feeds the level-3 chain with every level-2 output whose
//!   predecessors are all done: level 3 overlaps levels 1 and 2 instead of waiting for them.
//!   The blocks that finish the open level-2 superblock (before the first whole one) and those
//!   that start the next (after the last) also run on the calling thread while the workers run.
//!
//! Every path produces exactly the outputs of the serial definition in the same order, so the
//! digest never depends on the thread count or the kernel (tests compare against the literal
//! reference).

use std::panic::{self, AssertUnwindSafe};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::mpsc;

use crate::algo::sandstorm::fast::{compress_lanes, load_block};
use crate::algo::sandstorm::lanes::{Wide, LANES as WIDE_LANES};
use crate::algo::sandstorm::reference::{level_output, Boundaries, Chain};
use crate::algo::sandstorm::word::Word;
use crate::platform::Bmi2;
use crate::threads::Threads;

const LEVEL1: u64 = 10;
const LEVEL2: u64 = 100;
/// Level-2 superblocks per job at most: bounds the level-1 outputs one job holds (1600 of 8
/// words) and gives the eight-lane kernel two full groups of level-2 chains.
const LEVEL2_PER_JOB: usize = 16;

/// How the tree engine may use the hardware: interleaved superblocks, eight of them in SIMD
/// lanes (`wide`), whole level-2 superblocks over threads. The digest never depends on it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TreeOptions {
    /// Interleave independent superblocks in one thread.
    pub interleave: bool,
    /// Threads for whole level-2 superblocks, the calling one included ([`Threads::ONE`] = no
    /// helpers).
    pub threads: Threads,
    /// Eight superblocks side by side in SIMD lanes, AVX-512 or AVX2 (either word size;
    /// `None` = portable code).
    pub wide: Option<Wide>,
    /// The portable chains of 128-bit words (SANDstorm-384/512) compiled with BMI2/ADX
    /// (`mulx` for their 64x64->128 products); `None` = baseline code.
    pub bmi2: Option<Bmi2>,
}

impl TreeOptions {
    /// One compression at a time, one thread.
    pub const SEQUENTIAL: TreeOptions = TreeOptions {
        interleave: false,
        threads: Threads::ONE,
        wide: None,
        bmi2: None,
    };
    /// Interleaved superblocks, one thread, portable code.
    pub const INTERLEAVED: TreeOptions = TreeOptions {
        interleave: true,
        threads: Threads::ONE,
        wide: None,
        bmi2: None,
    };
    /// Interleaved superblocks on `threads` threads (0 = all cores), with the widest kernel
    /// this CPU has (and BMI2 for 128-bit words).
    pub fn fastest(threads: impl Into<Threads>) -> TreeOptions {
        TreeOptions {
            wide: Wide::detect(),
            bmi2: Bmi2::detect(),
            ..TreeOptions::portable(threads)
        }
    }
    /// Interleaved superblocks on `threads` threads (0 = all cores), portable code only.
    pub fn portable(threads: impl Into<Threads>) -> TreeOptions {
        TreeOptions {
            interleave: true,
            threads: threads.into(),
            wide: None,
            bmi2: None,
        }
    }
    /// Interleaved superblocks on `threads` threads (0 = all cores) in AVX-512 lanes; `None`
    /// where this CPU lacks AVX-512 or GFNI.
    pub fn avx512(threads: impl Into<Threads>) -> Option<TreeOptions> {
        TreeOptions::portable(threads).with_wide(Wide::avx512())
    }
    /// Interleaved superblocks on `threads` threads (0 = all cores) in AVX2 lanes (GFNI's
    /// S-box where the CPU has it); `None` where this CPU lacks AVX2.
    pub fn avx2(threads: impl Into<Threads>) -> Option<TreeOptions> {
        TreeOptions::portable(threads).with_wide(Wide::avx2())
    }
    /// This engine in the eight-lane form `wide`.
    #[cfg(target_arch = "x86_64")]
    pub(crate) fn in_lanes(self, wide: Wide) -> TreeOptions {
        TreeOptions {
            wide: Some(wide),
            ..self
        }
    }
    /// This engine with the eight-lane form `wide`, if there is one.
    pub fn with_wide(self, wide: Option<Wide>) -> Option<TreeOptions> {
        Some(TreeOptions {
            wide: Some(wide?),
            ..self
        })
    }
}

/// The count at which the superblock of `size` inputs that is open at `count` inputs closes:
/// the first boundary after `count`.
fn next_boundary(boundaries: Boundaries, count: u64, size: u64) -> u64 {
    match boundaries {
        Boundaries::Design => (count / size + 1) * size,
        // The reference code tests `(count as u8) % size == 0`: boundaries fall on the multiples
        // of `size` inside each run of 256, and on every multiple of 256.
        Boundaries::ReferenceCode8Bit => {
            let within = count % 256;
            count - within + ((within / size + 1) * size).min(256)
        }
    }
}

/// Whether a superblock of `size` closes once `count` (>= 1) inputs are in.
fn closes(boundaries: Boundaries, count: u64, size: u64) -> bool {
    next_boundary(boundaries, count - 1, size) == count
}

/// How far the tree has got: level-1 blocks and level-1 outputs (= level-2 inputs) so far.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct Position {
    pub(crate) blocks: u64,
    pub(crate) outputs: u64,
}

impl Position {
    /// Where level-2 superblock `j` (counted from 1; 0 = the start) ends, in closed form: the
    /// same as `j` steps of [`Position::level2_end`] from the start, without walking the tree.
    /// (The design: 100 outputs of 10 blocks. The 8-bit counter: level-2 superblocks of 100,
    /// 100 and 56 outputs in each run of 256, level-1 superblocks of 10 blocks, 25 of them and
    /// one of 6 in each run of 256 blocks.)
    pub(crate) fn after_level2(boundaries: Boundaries, j: u64) -> Position {
        match boundaries {
            Boundaries::Design => Position {
                blocks: j * LEVEL1 * LEVEL2,
                outputs: j * LEVEL2,
            },
            Boundaries::ReferenceCode8Bit => {
                let outputs = 256 * (j / 3) + LEVEL2 * (j % 3);
                Position {
                    blocks: 256 * (outputs / 26) + LEVEL1 * (outputs % 26),
                    outputs,
                }
            }
        }
    }

    /// The number of level-2 superblocks of a tree of `blocks` level-1 blocks (the padded
    /// message less its first block): the last one may be partial; 0 for no level-1 block.
    pub(crate) fn level2_superblocks(boundaries: Boundaries, blocks: u64) -> u64 {
        if blocks == 0 {
            return 0;
        }
        // The superblocks that end strictly before the last block, plus the one it is in: the
        // largest j with after_level2(j).blocks < blocks, plus 1. A level-2 superblock has at
        // least 56 level-1 superblocks of at least 6 blocks, so j < blocks / 300 + 1 (a bound
        // that keeps after_level2 from overflowing for any u64 message length).
        let (mut lo, mut hi) = (0, blocks / 300 + 1);
        while hi - lo > 1 {
            let mid = lo + (hi - lo) / 2;
            if Position::after_level2(boundaries, mid).blocks < blocks {
                lo = mid;
            } else {
                hi = mid;
            }
        }
        lo + 1
    }

    /// Which level-2 boundary `self` is (the inverse of [`Position::after_level2`]; `self` must
    /// be a level-2 boundary).
    fn level2_index(self, boundaries: Boundaries) -> u64 {
        let j = match boundaries {
            Boundaries::Design => self.outputs / LEVEL2,
            Boundaries::ReferenceCode8Bit => 3 * (self.outputs / 256) + self.outputs % 256 / LEVEL2,
        };
        debug_assert_eq!(Position::after_level2(boundaries, j), self);
        j
    }

    /// Where the level-2 superblock open at `self` (or starting there) closes.
    fn level2_end(self, boundaries: Boundaries) -> Position {
        let outputs = next_boundary(boundaries, self.outputs, LEVEL2);
        let mut blocks = self.blocks;
        for _ in self.outputs..outputs {
            blocks = next_boundary(boundaries, blocks, LEVEL1);
        }
        Position { blocks, outputs }
    }
}

/// The level-1 superblocks from block count `blocks` on (which must be a boundary), as (first
/// block, end block) counts.
fn level1_superblocks(boundaries: Boundaries, mut blocks: u64) -> impl Iterator<Item = (u64, u64)> {
    core::iter::from_fn(move || {
        let start = blocks;
        blocks = next_boundary(boundaries, start, LEVEL1);
        Some((start, blocks))
    })
}

fn xor_words<W: Word>(c: &mut Chain<W>, cols: &[usize], value: W) {
    for row in c.iter_mut() {
        for &j in cols {
            row[j] ^= value;
        }
    }
}

/// The starting chain of the superblock whose first input is input `first` of its level
/// (numbered from 1 by the design's count, whatever the boundaries).
fn numbered<W: Word>(base: &Chain<W>, first: u64, size: u64) -> Chain<W> {
    let mut c = *base;
    xor_words(&mut c, &[1, 3], W::from_counter(first / size + 1));
    c
}

/// Superblocks compressed side by side by portable code: 4 chains of 64-bit words, 2 of
/// 128-bit words (enough to cover the multiply and S-box latencies without spilling registers).
fn lanes_for<W: Word>() -> usize {
    if W::BYTES == 8 {
        4
    } else {
        2
    }
}

/// Where the inputs of a set of independent chains lie.
#[derive(Clone, Copy)]
enum Inputs<'a, W> {
    /// Message blocks; a chain's start is a byte offset.
    Blocks(&'a [u8]),
    /// Level-1 outputs; a chain's start is an index.
    Words(&'a Vec<[W; 8]>),
}

impl<W: Word> Inputs<'_, W> {
    /// Input `k` of the chain that starts at `start`.
    #[inline(always)]
    fn get(&self, start: usize, k: usize) -> [W; 8] {
        match self {
            Inputs::Blocks(data) => load_block(&data[start + k * 8 * W::BYTES..]),
            Inputs::Words(words) => words[start + k],
        }
    }
}

/// Independent chains (superblocks of one level): chain `i` compresses its `lens[i]` inputs
/// from `starts[i]` of `inputs`.
struct Chains<'a, W: Word> {
    inputs: Inputs<'a, W>,
    chains: Vec<Chain<W>>,
    starts: Vec<usize>,
    lens: Vec<usize>,
}

impl<'a, W: Word> Chains<'a, W> {
    /// From (starting chain, start, length) triples.
    fn new(inputs: Inputs<'a, W>, chains: impl Iterator<Item = (Chain<W>, usize, usize)>) -> Self {
        // Grown by pushing, not sized from the iterator: sized exactly, a job's 800 chains
        // (128,000 bytes) stayed under glibc's 128 KiB mmap threshold, and the CLI spent ~10 %
        // more CPU, most of it in page faults (the heap trimmed and grown again every job;
        // BENCHMARKS.md, "Performance at the roof").
        let mut set = Chains {
            inputs,
            chains: Vec::new(),
            starts: Vec::new(),
            lens: Vec::new(),
        };
        for (chain, start, len) in chains {
            set.chains.push(chain);
            set.starts.push(start);
            set.lens.push(len);
        }
        set
    }

    /// Runs every chain and returns their outputs, in order. Chains of equal length run side
    /// by side, as many as the engine allows (the reference code's counter makes some
    /// superblocks shorter).
    fn outputs(mut self, engine: TreeOptions) -> Vec<[W; 8]> {
        let width = match (engine.interleave, engine.wide) {
            (false, _) => 1,
            (true, Some(_)) => WIDE_LANES,
            (true, _) => lanes_for::<W>(),
        };
        // Stable, so chains of the same length keep their order (and their data stays close).
        let lens = self.lens.clone();
        let mut order: Vec<usize> = (0..lens.len()).collect();
        if !lens.windows(2).all(|pair| pair[0] == pair[1]) {
            order.sort_by_key(|&i| lens[i]);
        }
        for same_length in order.chunk_by(|&a, &b| lens[a] == lens[b]) {
            let mut groups = same_length.chunks(width).peekable();
            while let Some(group) = groups.next() {
                if let Some(next) = groups.peek() {
                    self.prefetch(next);
                }
                if !self.run_wide(engine, group) {
                    self.run_portable(group, engine.bmi2);
                }
            }
        }
        self.chains.iter().map(level_output).collect()
    }

    /// Asks for the message blocks of `group` while the group before it compresses: each
    /// chain reads only 10 blocks (a level-1 superblock), too short a run for the hardware
    /// prefetcher to pick up, so without this the lanes wait for memory at every group
    /// (BENCHMARKS.md, "Performance at the roof"). Level-2 inputs are level-1 outputs, already
    /// in cache.
    fn prefetch(&self, group: &[usize]) {
        if let Inputs::Blocks(data) = self.inputs {
            for &i in group {
                let (start, len) = (self.starts[i], self.lens[i] * 8 * W::BYTES);
                crate::algo::parsha256::prefetch(&data[start..(start + len).min(data.len())]);
            }
        }
    }

    /// The chains of `group` (any number, of one length) in portable code, 4, 2 or 1 at a time;
    /// 128-bit words compiled with BMI2/ADX where `bmi2` allows.
    fn run_portable(&mut self, group: &[usize], bmi2: Option<Bmi2>) {
        #[cfg(target_arch = "x86_64")]
        if let Some(token) = bmi2.filter(|_| W::BYTES == 16) {
            let _ = token;
            // SAFETY: the token proves BMI1 and BMI2 on this CPU.
            unsafe { self.run_portable_bmi2(group) };
            return;
        }
        let _ = bmi2;
        self.run_portable_lanes(group);
    }

    /// [`Self::run_portable_lanes`] (and the `compress_lanes` it inlines) compiled with BMI1/BMI2:
    /// for 128-bit words, `mulx` for the 64x64->128 products of F and G (a widening multiply
    /// that leaves the flags alone), `rorx`, `andn`.
    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "bmi1,bmi2")]
    fn run_portable_bmi2(&mut self, group: &[usize]) {
        self.run_portable_lanes(group);
    }

    #[inline(always)]
    fn run_portable_lanes(&mut self, group: &[usize]) {
        let mut rest = group;
        while !rest.is_empty() {
            let taken = match (rest.len(), lanes_for::<W>()) {
                (4.., 4) => self.run_lanes::<4>(rest),
                (2.., _) => self.run_lanes::<2>(rest),
                _ => self.run_lanes::<1>(rest),
            };
            rest = &rest[taken..];
        }
    }

    /// The first `L` chains of `group`, interleaved; returns `L`.
    #[inline(always)]
    fn run_lanes<const L: usize>(&mut self, group: &[usize]) -> usize {
        let mut c: [Chain<W>; L] = core::array::from_fn(|l| self.chains[group[l]]);
        let starts: [usize; L] = core::array::from_fn(|l| self.starts[group[l]]);
        let mut m = [[W::default(); 8]; L];
        for k in 0..self.lens[group[0]] {
            // A plain loop: `array::from_fn` here was left out of line, costing 10% of the hash.
            for (block, &start) in m.iter_mut().zip(&starts) {
                *block = self.inputs.get(start, k);
            }
            compress_lanes::<W, L>(&m, &mut c);
        }
        for (l, chain) in c.into_iter().enumerate() {
            self.chains[group[l]] = chain;
        }
        L
    }

    /// The chains of `group` (2 to 8) in SIMD lanes, for either word size; lanes beyond the
    /// group repeat its first chain and their results are dropped (eight lanes cost about what
    /// two portable chains do: a group of 6 or 7 left to portable code took 15 % of a one-thread
    /// hash when every job ended with one, BENCHMARKS.md, "Performance at the roof"). Returns
    /// false, having done nothing, without the token or for a group of another size.
    fn run_wide(&mut self, engine: TreeOptions, group: &[usize]) -> bool {
        let (Some(wide), 2..=WIDE_LANES) = (engine.wide, group.len()) else {
            return false;
        };
        let lane_chain = |l: usize| group[if l < group.len() { l } else { 0 }];
        let mut lanes: [Chain<W>; WIDE_LANES] =
            core::array::from_fn(|l| self.chains[lane_chain(l)]);
        let starts: [usize; WIDE_LANES] = core::array::from_fn(|l| self.starts[lane_chain(l)]);
        let len = self.lens[group[0]];
        match self.inputs {
            Inputs::Blocks(data) => wide.compress_blocks(&mut lanes, data, &starts, len),
            Inputs::Words(words) => wide.compress_words(&mut lanes, words, &starts, len),
        }
        for (lane, &i) in lanes.iter().zip(group) {
            self.chains[i] = *lane;
        }
        true
    }
}

/// The outputs of the level-1 `superblocks` ((first block, end block) counts), whose blocks lie
/// in `data` from block count `origin` on.
fn level1_outputs<W: Word>(
    engine: TreeOptions,
    base: &Chain<W>,
    data: &[u8],
    origin: u64,
    superblocks: &[(u64, u64)],
) -> Vec<[W; 8]> {
    let block_bytes = 8 * W::BYTES;
    let chains = superblocks.iter().map(|&(first, end)| {
        let start = (first - origin) as usize * block_bytes;
        (numbered(base, first, LEVEL1), start, (end - first) as usize)
    });
    Chains::new(Inputs::Blocks(data), chains).outputs(engine)
}

/// What the jobs of one update share, read-only: whole level-2 superblocks `ends[i]..ends[i+1]`
/// whose blocks lie in `data` from block count `origin` on.
struct Level2Work<'a, W: Word> {
    engine: TreeOptions,
    boundaries: Boundaries,
    base: Chain<W>,
    base2: Chain<W>,
    data: &'a [u8],
    origin: u64,
    ends: &'a [Position],
}

impl<W: Word> Level2Work<'_, W> {
    /// The SIMD lanes that run whole level-2 superblocks in lockstep ([`Level2Work::lockstep`]):
    /// under the design's boundaries, where every level-1 superblock has 10 blocks and every
    /// level-2 one 100 of them.
    fn lockstep_lanes(&self) -> Option<Wide> {
        self.engine
            .wide
            .filter(|_| self.engine.interleave && self.boundaries == Boundaries::Design)
    }

    /// The outputs of level-2 superblocks `range`: their level-1 superblocks, then their
    /// level-2 chains. Pure, so any thread can run it.
    fn outputs(&self, range: core::ops::Range<usize>) -> Vec<[W; 8]> {
        let Some(wide) = self.lockstep_lanes() else {
            return self.listed_outputs(range);
        };
        let mut outputs = Vec::with_capacity(range.len());
        // Lane l's level-1 outputs at l * 100.. (51 KB for 64-bit words, 102 KB for 128-bit:
        // on the heap, not a caller's stack, and under glibc's 128 KiB mmap threshold).
        let mut level1 = vec![[W::default(); 8]; WIDE_LANES * LEVEL2 as usize];
        let mut start = range.start;
        while range.end - start >= WIDE_LANES {
            outputs.extend(self.lockstep(wide, self.ends[start], &mut level1));
            start += WIDE_LANES;
        }
        if start < range.end {
            outputs.extend(self.listed_outputs(start..range.end));
        }
        outputs
    }

    /// The outputs of the eight whole level-2 superblocks from `first`, one per SIMD lane,
    /// under the design's boundaries: step k compresses every lane's k-th level-1 superblock at
    /// once, whose outputs are the k-th inputs of the lanes' level-2 chains, which then run
    /// side by side too. Nothing is listed, sorted or allocated: the general form
    /// ([`Level2Work::listed_outputs`]) spent ~8 % of a one-thread hash on that (BENCHMARKS.md,
    /// "Performance at the roof").
    /// `level1` is room for the lanes' level-1 outputs (800).
    fn lockstep(&self, wide: Wide, first: Position, level1: &mut [[W; 8]]) -> [[W; 8]; WIDE_LANES] {
        let (per1, per2) = (LEVEL1 as usize, LEVEL2 as usize);
        let block_bytes = 8 * W::BYTES;
        let lane_start = |l: usize| first.blocks + (l * per1 * per2) as u64;
        for k in 0..per2 {
            let block = |l: usize| lane_start(l) + (k * per1) as u64;
            let mut chains: [Chain<W>; WIDE_LANES] =
                core::array::from_fn(|l| numbered(&self.base, block(l), LEVEL1));
            let starts = core::array::from_fn(|l| (block(l) - self.origin) as usize * block_bytes);
            wide.compress_blocks(&mut chains, self.data, &starts, per1);
            for (l, chain) in chains.iter().enumerate() {
                level1[l * per2 + k] = level_output(chain);
            }
        }
        let mut chains: [Chain<W>; WIDE_LANES] = core::array::from_fn(|l| {
            numbered(&self.base2, first.outputs + (l * per2) as u64, LEVEL2)
        });
        let starts = core::array::from_fn(|l| l * per2);
        wide.compress_words(&mut chains, level1, &starts, per2);
        chains.map(|chain| level_output(&chain))
    }

    /// [`Level2Work::outputs`] for any boundaries and engine: the level-1 superblocks listed,
    /// run in groups of equal length, then the level-2 chains.
    fn listed_outputs(&self, range: core::ops::Range<usize>) -> Vec<[W; 8]> {
        let (first, last) = (self.ends[range.start], self.ends[range.end]);
        let superblocks: Vec<(u64, u64)> = level1_superblocks(self.boundaries, first.blocks)
            .take((last.outputs - first.outputs) as usize)
            .collect();
        let inputs = level1_outputs(
            self.engine,
            &self.base,
            self.data,
            self.origin,
            &superblocks,
        );
        let chains = self.ends[range.start..=range.end].windows(2).map(|span| {
            let start = (span[0].outputs - first.outputs) as usize;
            let len = (span[1].outputs - span[0].outputs) as usize;
            (numbered(&self.base2, span[0].outputs, LEVEL2), start, len)
        });
        Chains::new(Inputs::Words(&inputs), chains).outputs(self.engine)
    }
}

/// The level-3 chain and what level 4 may need from it.
#[derive(Clone, Debug)]
pub(crate) struct Level3<W: Word> {
    /// Level-2 outputs so far.
    pub(crate) inputs: u64,
    /// The first level-2 output: the top when it stays the only one.
    pub(crate) first: [W; 8],
    pub(crate) chain: Chain<W>,
}

impl<W: Word> Level3<W> {
    /// The message level 3 passes to level 4, when level 3 is the top (2 or more inputs): the
    /// chain's output, or the only input.
    pub(crate) fn top(&self) -> [W; 8] {
        if self.inputs == 1 {
            self.first
        } else {
            level_output(&self.chain)
        }
    }

    pub(crate) fn push(&mut self, out: [W; 8]) {
        self.inputs += 1;
        match self.inputs {
            1 => self.first = out,
            2 => {
                let mut c = [self.chain];
                compress_lanes::<W, 1>(&[self.first], &mut c);
                compress_lanes::<W, 1>(&[out], &mut c);
                self.chain = c[0];
            }
            _ => {
                let mut c = [self.chain];
                compress_lanes::<W, 1>(&[out], &mut c);
                self.chain = c[0];
            }
        }
    }
}

/// Where level-2 outputs go: the level-3 chain of a whole message, or, for one part of a
/// message split over machines (`parts.rs`), a list that the combine
/// step feeds to the level-3 chain later. Everything else in the tree is the same for both.
#[derive(Clone, Debug)]
pub(crate) enum Level2Sink<W: Word> {
    Level3(Level3<W>),
    Collect(Vec<[W; 8]>),
}

impl<W: Word> Level2Sink<W> {
    fn push(&mut self, out: [W; 8]) {
        match self {
            Level2Sink::Level3(level3) => level3.push(out),
            Level2Sink::Collect(outputs) => outputs.push(out),
        }
    }

    /// Level-2 outputs received so far.
    fn len(&self) -> u64 {
        match self {
            Level2Sink::Level3(level3) => level3.inputs,
            Level2Sink::Collect(outputs) => outputs.len() as u64,
        }
    }

    /// Pushes the finished jobs' outputs that come next in order; `fed` counts the jobs pushed.
    fn feed_ready(&mut self, done: &mut [Option<Vec<[W; 8]>>], fed: &mut usize) {
        while let Some(outputs) = done.get_mut(*fed).and_then(Option::take) {
            match self {
                Level2Sink::Level3(level3) => outputs.into_iter().for_each(|out| level3.push(out)),
                Level2Sink::Collect(all) => all.extend(outputs),
            }
            *fed += 1;
        }
    }
}

/// Streaming SANDstorm tree state for word type `W`.
#[derive(Clone, Debug)]
pub struct Tree<W: Word> {
    k: Chain<W>,
    boundaries: Boundaries,
    engine: TreeOptions,
    started: bool,
    /// Out(S) of level 0, used when the message is one block.
    level0_output: [W; 8],
    base: Chain<W>,
    base2: Chain<W>,
    at: Position,
    open1: Option<Chain<W>>,
    /// The first level-1 output: the top when it stays the only one.
    first1: [W; 8],
    open2: Option<Chain<W>>,
    sink: Level2Sink<W>,
}

impl<W: Word> Tree<W> {
    /// A fresh tree with chaining constants `k`.
    pub fn new(k: Chain<W>, boundaries: Boundaries, engine: TreeOptions) -> Self {
        Tree {
            k,
            boundaries,
            engine,
            started: false,
            level0_output: [W::default(); 8],
            base: k,
            base2: k,
            at: Position::default(),
            open1: None,
            first1: [W::default(); 8],
            open2: None,
            sink: Level2Sink::Level3(Level3 {
                inputs: 0,
                first: [W::default(); 8],
                chain: k,
            }),
        }
    }

    /// Bytes per block.
    pub const fn block_bytes() -> usize {
        8 * W::BYTES
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
        if let Level2Sink::Level3(level3) = &mut self.sink {
            level3.chain = base;
            xor_words(&mut level3.chain, &[3], W::LEVEL3);
        }
        self.started = true;
    }

    /// Turns a fresh tree into the tree of one part of a split message: level 0 from the
    /// message's first `block` (a whole one: a message of one block is never split), then the
    /// part's first level-2 superblock, which starts at `at` (a level-2 boundary after the
    /// start). Its level-2 outputs are collected ([`Tree::take_outputs`]) rather than chained.
    pub(crate) fn start_part(&mut self, block: &[u8], at: Position) {
        debug_assert!(!self.started && at.outputs > 0);
        self.level0(&load_block(block));
        self.at = at;
        self.sink = Level2Sink::Collect(Vec::new());
    }

    /// The level-2 outputs collected by a part's tree ([`Tree::start_part`]).
    pub(crate) fn take_outputs(&mut self) -> Vec<[W; 8]> {
        match &mut self.sink {
            Level2Sink::Collect(outputs) => core::mem::take(outputs),
            Level2Sink::Level3(_) => panic!("not a part's tree"),
        }
    }

    /// The level-3 chain of a tree that starts at the message's start, and where the tree is:
    /// the first part of a split message ends at a level-2 boundary and sends this on.
    pub(crate) fn level3(&self) -> (&Level3<W>, Position) {
        match &self.sink {
            Level2Sink::Level3(level3) => (level3, self.at),
            Level2Sink::Collect(_) => panic!("a part's tree has no level-3 chain"),
        }
    }

    fn push_level1_block(&mut self, block: &[W; 8]) {
        let (base, first) = (self.base, self.at.blocks);
        let chain = self
            .open1
            .get_or_insert_with(|| numbered(&base, first, LEVEL1));
        let mut c = [*chain];
        compress_lanes::<W, 1>(&[*block], &mut c);
        *chain = c[0];
        self.at.blocks += 1;
        if closes(self.boundaries, self.at.blocks, LEVEL1) {
            let out = level_output(&self.open1.take().expect("open superblock"));
            self.push_level1_output(out);
        }
    }

    fn push_level1_output(&mut self, out: [W; 8]) {
        if self.at.outputs == 0 {
            self.first1 = out;
        }
        let (base2, first) = (self.base2, self.at.outputs);
        let chain = self
            .open2
            .get_or_insert_with(|| numbered(&base2, first, LEVEL2));
        let mut c = [*chain];
        compress_lanes::<W, 1>(&[out], &mut c);
        *chain = c[0];
        self.at.outputs += 1;
        if closes(self.boundaries, self.at.outputs, LEVEL2) {
            let out = level_output(&self.open2.take().expect("open superblock"));
            self.sink.push(out);
        }
    }

    /// Feeds whole blocks (`data.len()` a multiple of [`Tree::block_bytes`]).
    pub fn update_blocks(&mut self, mut data: &[u8]) {
        let bb = Self::block_bytes();
        debug_assert_eq!(data.len() % bb, 0);
        if !self.started && !data.is_empty() {
            self.level0(&load_block(data));
            data = &data[bb..];
        }
        // Where whole level-2 superblocks can start: here, or once the open one is finished.
        let here = self.at;
        let at_level2_boundary = self.open1.is_none() && self.open2.is_none();
        let first = if at_level2_boundary {
            here
        } else {
            here.level2_end(self.boundaries)
        };
        let blocks = (data.len() / bb) as u64;
        // The boundaries in closed form: walking each superblock's 100 level-1 boundaries cost
        // ~2 % of a one-thread hash.
        let mut ends = vec![first];
        for j in first.level2_index(self.boundaries) + 1.. {
            let next = Position::after_level2(self.boundaries, j);
            if next.blocks - here.blocks > blocks {
                break;
            }
            ends.push(next);
        }
        if ends.len() > 1 {
            self.bulk(data, &ends);
        } else {
            self.advance(data);
        }
    }

    /// Feeds whole blocks on this thread: whole level-1 superblocks side by side up to the end
    /// of the open level-2 superblock, a partial one block by block.
    fn advance(&mut self, mut data: &[u8]) {
        let bb = Self::block_bytes();
        while !data.is_empty() {
            if self.open1.is_none() {
                let origin = self.at.blocks;
                let blocks = (data.len() / bb) as u64;
                let level2_end = next_boundary(self.boundaries, self.at.outputs, LEVEL2);
                let superblocks: Vec<(u64, u64)> = level1_superblocks(self.boundaries, origin)
                    .take((level2_end - self.at.outputs) as usize)
                    .take_while(|&(_, end)| end - origin <= blocks)
                    .collect();
                if let Some(&(_, end)) = superblocks.last() {
                    let outputs =
                        level1_outputs(self.engine, &self.base, data, origin, &superblocks);
                    self.at.blocks = end;
                    for out in outputs {
                        self.push_level1_output(out);
                    }
                    data = &data[(end - origin) as usize * bb..];
                    continue;
                }
            }
            self.push_level1_block(&load_block(data));
            data = &data[bb..];
        }
    }

    /// Whole level-2 superblocks `ends[i]..ends[i+1]` over the engine's threads (jobs taken in
    /// turn; the calling thread takes jobs too), with the level-3 chain fed in order as their
    /// outputs become ready. `data` starts at the current position; the blocks before `ends[0]`
    /// (the rest of the open level-2 superblock) and after the last end (the start of the next)
    /// run on the calling thread while the workers start and finish.
    fn bulk(&mut self, data: &[u8], ends: &[Position]) {
        let bb = Self::block_bytes();
        let here = self.at;
        let last = ends[ends.len() - 1];
        let lead = &data[..(ends[0].blocks - here.blocks) as usize * bb];
        let trail = &data[(last.blocks - here.blocks) as usize * bb..];
        let work = Level2Work {
            engine: self.engine,
            boundaries: self.boundaries,
            base: self.base,
            base2: self.base2,
            data,
            origin: here.blocks,
            ends,
        };
        // Jobs of at most LEVEL2_PER_JOB superblocks, as many as a multiple of the thread count
        // (equal shares) where there are enough superblocks.
        let superblocks = ends.len() - 1;
        let threads = self.engine.threads;
        let wanted = superblocks
            .div_ceil(LEVEL2_PER_JOB)
            .next_multiple_of(threads.count())
            .min(superblocks);
        // Lanes in lockstep take whole groups of eight (a job of another size would leave lanes
        // idle), where there are enough for every thread.
        let per_job = match work.lockstep_lanes() {
            Some(_) if superblocks >= WIDE_LANES * threads.count() => WIDE_LANES,
            _ => superblocks.div_ceil(wanted),
        };
        let jobs = superblocks.div_ceil(per_job);
        let job = |j: usize| j * per_job..((j + 1) * per_job).min(superblocks);
        let next_job = AtomicUsize::new(0);
        let (sender, finished) = mpsc::channel();
        // Helpers from the process-wide pool (`crate::threads`): starting threads per call cost
        // ~55 us each, and a streaming caller runs this for every `update` holding whole
        // level-2 superblocks. A helper's panic travels as a result, so the caller never waits
        // for a job that will not come.
        let helper = || loop {
            let j = next_job.fetch_add(1, Ordering::Relaxed);
            if j >= jobs {
                break;
            }
            let outputs = panic::catch_unwind(AssertUnwindSafe(|| work.outputs(job(j))));
            if sender.send((j, outputs)).is_err() {
                break;
            }
        };
        let resumed = |outputs: std::thread::Result<Vec<[W; 8]>>| {
            outputs.unwrap_or_else(|payload| panic::resume_unwind(payload))
        };
        crate::threads::with_helpers(threads.at_most(jobs), helper, || {
            // Moved in: `main` may run on a pool thread, and a receiver is not `Sync`.
            let finished = finished;
            self.advance(lead);
            debug_assert!(self.at == ends[0] && self.open1.is_none() && self.open2.is_none());
            let mut done: Vec<Option<Vec<[W; 8]>>> = vec![None; jobs];
            let mut fed = 0;
            loop {
                while let Ok((j, outputs)) = finished.try_recv() {
                    done[j] = Some(resumed(outputs));
                }
                self.sink.feed_ready(&mut done, &mut fed);
                let j = next_job.fetch_add(1, Ordering::Relaxed);
                if j >= jobs {
                    break;
                }
                done[j] = Some(work.outputs(job(j)));
            }
            self.sink.feed_ready(&mut done, &mut fed);

            // No job left to take. The trail never closes a level-2 superblock (the last whole
            // one ends at `last`), so it cannot reach level 3 ahead of the jobs still running.
            self.at = last;
            let level2_outputs = self.sink.len();
            self.advance(trail);
            debug_assert_eq!(self.sink.len(), level2_outputs);

            // Every job left was taken by a helper, which always sends its result.
            while fed < jobs {
                let (j, outputs) = finished.recv().expect("the sender outlives the helpers");
                done[j] = Some(resumed(outputs));
                self.sink.feed_ready(&mut done, &mut fed);
            }
        });
    }

    /// Pads the final partial block `tail` (shorter than a block), runs levels 1-4 to the end and
    /// returns the untruncated 4-word result. `bit_len` is the whole message length in bits.
    pub fn finalize(mut self, tail: &[u8], bit_len: u128) -> [W; 4] {
        self.close(tail);
        level4(&self.k, &self.top(), bit_len)
    }

    /// Pads the final partial block `tail` (shorter than a block) and closes the open
    /// superblocks of levels 1 and 2, so that every level-2 output has gone to the sink.
    pub(crate) fn close(&mut self, tail: &[u8]) {
        let bb = Self::block_bytes();
        assert!(tail.len() < bb, "finalize takes less than one block");
        let mut last = vec![0u8; bb];
        last[..tail.len()].copy_from_slice(tail);
        last[tail.len()] = 0x80;
        self.update_blocks(&last);

        if let Some(c) = self.open1.take() {
            self.push_level1_output(level_output(&c));
        }
        if let Some(c) = self.open2.take() {
            self.sink.push(level_output(&c));
        }
    }

    /// The message that feeds level 4, once the whole message is in ([`Tree::close`]): level 0's
    /// output for a one-block message, the only level-1 output, or level 3's.
    pub(crate) fn top(&self) -> [W; 8] {
        if self.at.blocks == 0 {
            self.level0_output
        } else if self.at.outputs == 1 {
            self.first1
        } else {
            self.level3().0.top()
        }
    }
}

/// Level 4: the result from the message `top` that the highest level used passes up, the
/// chaining constants `k` and the message length in bits.
pub(crate) fn level4<W: Word>(k: &Chain<W>, top: &[W; 8], bit_len: u128) -> [W; 4] {
    let mut fin = *k;
    xor_words(&mut fin, &[3], W::LEVEL3);
    xor_words(&mut fin, &[1, 3], W::from_bit_len(bit_len));
    xor_words(&mut fin, &[0, 1], !W::default());
    let mut z = [fin];
    compress_lanes::<W, 1>(&[*top], &mut z);
    let z = z[0];
    core::array::from_fn(|j| z[1][j] ^ z[2][j] ^ z[3][j] ^ z[4][j])
}

/// Hashes a whole slice (for example a memory-mapped file) in place with the given engine and
/// returns the untruncated result words.
pub fn hash_slice<W: Word>(
    k: Chain<W>,
    boundaries: Boundaries,
    engine: TreeOptions,
    data: &[u8],
) -> [W; 4] {
    let bb = Tree::<W>::block_bytes();
    let whole = data.len() / bb * bb;
    let mut tree = Tree::new(k, boundaries, engine);
    tree.update_blocks(&data[..whole]);
    tree.finalize(&data[whole..], data.len() as u128 * 8)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The boundary arithmetic agrees with the rule as the reference code words it: a
    /// superblock closes when the count cast to 8 bits is a multiple of the size.
    #[test]
    fn next_boundary_follows_the_counter_rule() {
        for (boundaries, rule) in [
            (
                Boundaries::Design,
                (|c, s| c % s == 0) as fn(u64, u64) -> bool,
            ),
            (Boundaries::ReferenceCode8Bit, |c, s| {
                u64::from(c as u8) % s == 0
            }),
        ] {
            for size in [LEVEL1, LEVEL2] {
                for count in 0..3000u64 {
                    let expected = (count + 1..).find(|&c| rule(c, size)).unwrap();
                    assert_eq!(
                        next_boundary(boundaries, count, size),
                        expected,
                        "{boundaries:?} size {size} count {count}"
                    );
                }
            }
        }
    }

    /// The closed form of the level-2 boundaries agrees with walking the tree, and the count of
    /// level-2 superblocks with the boundaries it finds.
    #[test]
    fn level2_boundaries_in_closed_form() {
        for boundaries in [Boundaries::Design, Boundaries::ReferenceCode8Bit] {
            let mut walked = Position::default();
            for j in 0..3000 {
                assert_eq!(
                    Position::after_level2(boundaries, j),
                    walked,
                    "{boundaries:?} superblock {j}"
                );
                walked = walked.level2_end(boundaries);
            }
            for blocks in 0..30_000 {
                let expected = if blocks == 0 {
                    0
                } else {
                    (1..)
                        .find(|&j| Position::after_level2(boundaries, j).blocks >= blocks)
                        .unwrap()
                };
                assert_eq!(
                    Position::level2_superblocks(boundaries, blocks),
                    expected,
                    "{boundaries:?} {blocks} blocks"
                );
            }
        }
    }

    /// A level-2 superblock spans 1000 blocks in the design; with the 8-bit counter the spans
    /// differ (100 outputs, then 56 at each multiple of 256, and level-1 superblocks of 6
    /// blocks at each multiple of 256 blocks).
    #[test]
    fn level2_spans() {
        let start = Position::default();
        assert_eq!(
            start.level2_end(Boundaries::Design),
            Position {
                blocks: 1000,
                outputs: 100
            }
        );
        let quirk = Boundaries::ReferenceCode8Bit;
        let first = start.level2_end(quirk);
        // 100 level-1 outputs: three runs of 26 (25 of 10 blocks, one of 6) and 22 more.
        assert_eq!(
            first,
            Position {
                blocks: 3 * 256 + 220,
                outputs: 100
            }
        );
        let third = first.level2_end(quirk).level2_end(quirk);
        assert_eq!(third.outputs, 256);
        assert_eq!(third.blocks % 256, 220, "{third:?}");
    }
}
