//! The tree modes as engines: one message split over the sweep's threads.
//!
//! - SANDstorm-256/-512 `threads`: the streaming tree (`SandstormN::with_threads`), which holds
//!   a few superblocks, not the message.
//! - PARSHA-256 `tree`: each message hashed in place with `parsha256_with` on the sweep's
//!   thread count, one engine per `--tree` parameter set (`tree[T=10,l=0]`; plain `tree` with
//!   parhash's defaults when none is given); a long message generated from a repeated chunk
//!   streams through `Hasher::builder`, told the length up front.

use std::sync::Arc;

use digest::Digest;
use parhash::parsha256::{parsha256_with, ParshaOptions};
use parhash::{Algorithm, Hasher};

use crate::engine::{feed_repeated, Engine, EngineRef, StreamHasher};
use crate::tree_params::{self, TreeParams};

/// A SANDstorm hasher running one message on a given number of threads.
struct SandstormThreads<D> {
    algorithm: Algorithm,
    make: fn(usize) -> D,
}

struct State<D>(D);

impl<D: Digest + digest::FixedOutputReset + Send> StreamHasher for State<D> {
    fn update(&mut self, data: &[u8]) {
        Digest::update(&mut self.0, data);
    }
    fn finish_reset(&mut self) -> u8 {
        Digest::finalize_reset(&mut self.0)[0]
    }
}

impl<D: Digest + digest::FixedOutputReset + Send + 'static> Engine for SandstormThreads<D> {
    fn algorithm(&self) -> String {
        self.algorithm.name().to_string()
    }
    fn variant(&self) -> String {
        "threads".into()
    }
    fn hasher(&self) -> Box<dyn StreamHasher> {
        Box::new(State((self.make)(1)))
    }
    fn hash_batch(&self, messages: &[&[u8]], threads: usize) -> Option<u8> {
        let mut check = 0u8;
        for m in messages {
            let mut h = (self.make)(threads.max(1));
            Digest::update(&mut h, m);
            check = check.wrapping_add(h.finalize()[0]);
        }
        Some(check)
    }
    fn splits_one_message(&self) -> bool {
        true
    }
    fn hash_repeated(&self, chunk: &[u8], len: u64, threads: usize) -> u8 {
        // The tree streams: it holds a few superblocks, not the message.
        let mut h = (self.make)(threads.max(1));
        feed_repeated(chunk, len, |piece| Digest::update(&mut h, piece));
        h.finalize()[0]
    }
}

/// The `threads` engines of SANDstorm-256 and -512 (for [`super::EXTRA_ENGINES`]; they take no
/// tree parameters).
pub fn sandstorm_thread_engines(algorithm: Algorithm, _tree: &[TreeParams]) -> Vec<EngineRef> {
    match algorithm.name() {
        "sandstorm256" => vec![Arc::new(SandstormThreads {
            algorithm,
            make: parhash::Sandstorm256::with_threads,
        })],
        "sandstorm512" => vec![Arc::new(SandstormThreads {
            algorithm,
            make: parhash::Sandstorm512::with_threads,
        })],
        _ => Vec::new(),
    }
}

/// PARSHA-256 with one parameter set, one message at a time on `threads` threads.
struct ParshaTree {
    params: TreeParams,
    variant: String,
}

/// `threads` threads and the fastest kernel.
fn options(threads: usize) -> ParshaOptions {
    ParshaOptions {
        threads: threads.max(1).into(),
        kernel: None,
    }
}

/// PARSHA-256 of a message in memory on `threads` threads (also the parsha preset's scaling
/// table).
pub fn parsha_digest(params: TreeParams, message: &[u8], threads: usize) -> [u8; 32] {
    let (_, z) = parsha256_with(
        message,
        params.tree_height(),
        params.iv_bits(),
        &options(threads),
    )
    .expect("TreeParams are validated, and a slice is under 2^64 bits");
    z
}

/// The message-by-message form (one thread): buffers the message, as PARSHA-256 needs its
/// length before it starts.
struct Buffered {
    params: TreeParams,
    message: Vec<u8>,
}

impl StreamHasher for Buffered {
    fn update(&mut self, data: &[u8]) {
        self.message.extend_from_slice(data);
    }
    fn finish_reset(&mut self) -> u8 {
        let z = parsha_digest(self.params, &self.message, 1);
        self.message.clear();
        z[0]
    }
}

impl ParshaTree {
    /// The registry's streaming hasher for a message of `len` bytes, as users build it.
    fn streaming(&self, len: u64, threads: usize) -> Result<Hasher, parhash::Error> {
        Hasher::builder(Algorithm::Parsha256)
            .threads(threads.max(1))
            .tree_params(self.params.library())
            .expected_len(len)
            .build()
    }
}

impl Engine for ParshaTree {
    fn algorithm(&self) -> String {
        "parsha256".into()
    }
    fn variant(&self) -> String {
        self.variant.clone()
    }
    fn hasher(&self) -> Box<dyn StreamHasher> {
        Box::new(Buffered {
            params: self.params,
            message: Vec::new(),
        })
    }
    fn hash_batch(&self, messages: &[&[u8]], threads: usize) -> Option<u8> {
        Some(messages.iter().fold(0u8, |check, m| {
            check.wrapping_add(parsha_digest(self.params, m, threads)[0])
        }))
    }
    fn splits_one_message(&self) -> bool {
        true
    }
    fn takes_tree_params(&self) -> bool {
        true
    }
    fn bounded_memory_for(&self, len: u64) -> bool {
        // The streaming hasher refuses a tree whose memory would grow with the message.
        self.streaming(len, 1).is_ok()
    }
    fn hash_repeated(&self, chunk: &[u8], len: u64, threads: usize) -> u8 {
        // Built as users build it: told the length up front, PARSHA-256 streams and holds
        // about one chunk of rounds.
        let mut hasher = self
            .streaming(len, threads)
            .expect("planned only where bounded_memory_for holds");
        feed_repeated(chunk, len, |piece| hasher.update(piece));
        let digest = hasher
            .try_finalize()
            .expect("exactly the declared length was fed");
        digest.as_bytes()[0]
    }
}

/// The `tree` engines of PARSHA-256, one per parameter set (for [`super::EXTRA_ENGINES`]).
pub fn parsha_tree_engines(algorithm: Algorithm, tree: &[TreeParams]) -> Vec<EngineRef> {
    if algorithm != Algorithm::Parsha256 {
        return Vec::new();
    }
    tree_params::labelled(tree, "tree")
        .into_iter()
        .map(|(params, variant)| Arc::new(ParshaTree { params, variant }) as EngineRef)
        .collect()
}
