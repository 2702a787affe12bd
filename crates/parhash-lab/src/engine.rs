//! What the lab measures: an [`Engine`] is one implementation of one algorithm — a parhash
//! variant, or a peer (OpenSSL, a RustCrypto crate, the `blake3` crate). This module is only
//! the interface; the engines themselves, and the list of them, are in `engines`, which builds
//! on it (so nothing here names a concrete engine).
//!
//! Engines that hash a whole batch themselves (tree modes spreading one message over threads,
//! multi-lane batch engines, GPU back-ends) override [`Engine::hash_batch`]; all others are
//! driven message by message through a reusable [`StreamHasher`], and the lab spreads the
//! messages over threads.

use std::sync::Arc;

use serde::{Deserialize, Serialize};

/// A hashing state that is reused message after message, so that the lab measures hashing and
/// not allocation.
pub trait StreamHasher: Send {
    /// Feeds more of the current message.
    fn update(&mut self, data: &[u8]);
    /// Finishes the current message, starts the next, and returns one byte of the digest (folded
    /// into a checksum so the work cannot be optimised away).
    fn finish_reset(&mut self) -> u8;
    /// Hashes one whole message held in memory (nothing fed before) and returns one byte of its
    /// digest: what a caller with the message at hand calls, so each implementation's one-shot
    /// form where it has one (parhash's `hash`, RustCrypto's `Digest::digest`, `blake3::hash`).
    /// The default feeds it and finishes.
    fn hash_message(&mut self, message: &[u8]) -> u8 {
        self.update(message);
        self.finish_reset()
    }
}

/// Who wrote an implementation.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Provider {
    /// parhash itself.
    Parhash,
    /// The `openssl` crate (the system's libcrypto).
    Openssl,
    /// A RustCrypto crate (`sha2`, `sha3`, `groestl`, ...).
    Rustcrypto,
    /// The `blake3` crate: the modern anchor of fast hashing.
    Blake3,
    /// Another published crate (the checksums' peers: `crc32fast`, `crc32c`, `twox-hash`...).
    Crate,
}

impl Provider {
    /// Lowercase name used in tables and files.
    pub fn name(self) -> &'static str {
        match self {
            Provider::Parhash => "parhash",
            Provider::Openssl => "openssl",
            Provider::Rustcrypto => "rustcrypto",
            Provider::Blake3 => "blake3",
            Provider::Crate => "crate",
        }
    }
}

/// One implementation of one algorithm.
pub trait Engine: Send + Sync {
    /// parhash's canonical name of the algorithm computed (`blake3` for the anchor).
    fn algorithm(&self) -> String;
    /// Who wrote it: parhash, unless a peer's engine says otherwise.
    fn provider(&self) -> Provider {
        Provider::Parhash
    }
    /// The implementation variant (`sha-ni`, `parallel`, `tree`...), or the crate for peers.
    fn variant(&self) -> String;
    /// Whether it runs on an accelerator (the bottleneck table's "accelerator" column).
    fn on_accelerator(&self) -> bool {
        false
    }
    /// A fresh reusable hashing state.
    fn hasher(&self) -> Box<dyn StreamHasher>;
    /// Engines that hash a whole batch themselves (a tree mode using `threads` threads for one
    /// message, a multi-lane or GPU batch engine) return `Some(checksum)`; the default `None`
    /// lets the lab drive [`Engine::hasher`] message by message.
    fn hash_batch(&self, _messages: &[&[u8]], _threads: usize) -> Option<u8> {
        None
    }
    /// Whether [`Engine::hash_batch`] uses several threads for one message (tree modes): only
    /// such engines are measured single-message with more than one thread.
    fn splits_one_message(&self) -> bool {
        false
    }
    /// The threads the engine really works on for a batch of `messages` messages of
    /// `message_len` bytes given `threads`, and why when that is fewer (said beside
    /// configurations that do not scale). The default: the lab hands each thread whole
    /// messages, so at most one thread per message unless the engine splits a message.
    fn threads_used(
        &self,
        message_len: usize,
        messages: usize,
        threads: usize,
    ) -> (usize, Option<String>) {
        let _ = message_len;
        if self.splits_one_message() || messages >= threads {
            (threads, None)
        } else {
            let used = messages.max(1);
            (
                used,
                Some(format!(
                    "{messages} message(s) for {threads} threads: each message goes to one \
                     thread, so {used} thread(s) worked"
                )),
            )
        }
    }
    /// Whether the engine runs with a `--tree` parameter set (PARSHA-256's `tree` and `gpu`).
    fn takes_tree_params(&self) -> bool {
        false
    }
    /// Whether hashing needs no memory in proportion to the data beyond the data itself. Only
    /// such engines are handed batches larger than the lab's memory cap (as windows into one
    /// buffer) or single messages streamed from a bounded chunk ([`Engine::hash_repeated`]);
    /// engines that copy or buffer whole messages (GPU back-ends, the registry's PARSHA-256
    /// hasher) return `false` and such configurations are skipped with a note.
    fn bounded_memory(&self) -> bool {
        true
    }
    /// [`Engine::bounded_memory`] for one message of `len` bytes: an engine whose streaming
    /// memory grows with the length past a limit (PARSHA-256's tall trees) says `false` there,
    /// and the lab skips that configuration with a note instead of hashing it.
    fn bounded_memory_for(&self, len: u64) -> bool {
        let _ = len;
        self.bounded_memory()
    }
    /// Hashes one message of `len` bytes made of `chunk` repeated (the last copy cut short),
    /// on `threads` threads where the engine splits a message, and returns one digest byte.
    /// Called only when [`Engine::bounded_memory`] holds. The default streams through
    /// [`Engine::hasher`] on one thread.
    fn hash_repeated(&self, chunk: &[u8], len: u64, _threads: usize) -> u8 {
        let mut hasher = self.hasher();
        feed_repeated(chunk, len, |piece| hasher.update(piece));
        hasher.finish_reset()
    }
    /// `provider algorithm/variant`, e.g. `parhash sha256/sha-ni`.
    fn label(&self) -> String {
        label(self.provider(), &self.algorithm(), &self.variant())
    }
}

/// The label of an engine, a configuration or a measurement: `provider algorithm/variant`.
pub fn label(provider: Provider, algorithm: &str, variant: &str) -> String {
    format!("{} {algorithm}/{variant}", provider.name())
}

/// A shareable engine.
pub type EngineRef = Arc<dyn Engine>;

/// Calls `feed` with `chunk` repeatedly until `len` bytes have gone, the last piece cut short:
/// one long message in the memory of one chunk.
pub fn feed_repeated(chunk: &[u8], len: u64, mut feed: impl FnMut(&[u8])) {
    if chunk.is_empty() {
        debug_assert_eq!(len, 0, "a message cannot be made of an empty chunk");
        return;
    }
    let mut left = len;
    while left > 0 {
        let take = usize::try_from(left).map_or(chunk.len(), |l| l.min(chunk.len()));
        feed(&chunk[..take]);
        left -= take as u64;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn repeated_chunks_cover_the_length() {
        let chunk: Vec<u8> = (0..1000u32).map(|i| (i % 251) as u8).collect();
        let mut pieces = Vec::new();
        feed_repeated(&chunk, 2500, |p| pieces.push(p.len()));
        assert_eq!(pieces, [1000, 1000, 500]);
        feed_repeated(&[], 0, |_| panic!("nothing to feed"));
    }
}
