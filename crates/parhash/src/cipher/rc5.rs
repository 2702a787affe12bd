//! RC5-32/12/16 (Rivest 1994): 32-bit words, 12 rounds, 16-byte keys, 64-bit blocks. A block
//! cipher, not a hash: it is not in the hash registry.
//!
//! Words are loaded little-endian: the block bytes `b0..b7` are the words `A = b0..b3`,
//! `B = b4..b7` (Rivest's paper prints the words, e.g. `EEDBA521 6D8F4B15` for the bytes
//! `21A5DBEE 154B8F6D`).
//!
//! Two forms:
//! - **sequential** ([`Rc5_32_12_16::new`], [`Rc5_32_12_16::encrypt_block`]): expand the key
//!   into the 26-word table `S` (78 mixing steps), then encrypt (26 half-rounds) with it;
//! - **overlapped** ([`overlapped`]): the seed study's parallelism. The third and last mixing
//!   pass produces the final `S[0]`, `S[1]`, ... in order, and the encryption consumes them in
//!   the same order, so the encryption runs interleaved with that pass: each half-round starts
//!   as soon as its subkey exists. Two independent dependency chains (key mixing and data) then
//!   share the CPU's execution units.
//!
//! What is gained and lost: for **one block per key** the overlapped form saves the latency
//! of most of the 26 encryption half-rounds, which hide behind the key mixing. When a key
//! encrypts **many blocks** there is nothing to overlap after the first block: the sequential
//! form expands once and reuses `S`, whereas the one-shot overlapped form would redo all 78
//! mixing steps per block, roughly four times the work of an encryption. **Decryption** cannot
//! overlap at all: it uses `S[25]` first, the last subkey the schedule produces. See
//! BENCHMARKS.md for the measurements.

/// Magic constant `P32 = Odd((e - 2) 2^32)`.
pub const P32: u32 = 0xB7E1_5163;
/// Magic constant `Q32 = Odd((φ - 1) 2^32)`.
pub const Q32: u32 = 0x9E37_79B9;
/// Rounds.
pub const ROUNDS: usize = 12;
/// Key length in bytes.
pub const KEY_BYTES: usize = 16;
/// Words of the expanded key table: `2 (r + 1)`.
pub const TABLE_WORDS: usize = 2 * (ROUNDS + 1);
/// Key words `c = b / 4`.
const KEY_WORDS: usize = KEY_BYTES / 4;
/// Mixing steps `3 max(t, c)`.
const MIX_STEPS: usize = 3 * TABLE_WORDS;

/// The key as little-endian words `L`.
fn key_words(key: &[u8; KEY_BYTES]) -> [u32; KEY_WORDS] {
    core::array::from_fn(|i| {
        u32::from_le_bytes([key[4 * i], key[4 * i + 1], key[4 * i + 2], key[4 * i + 3]])
    })
}

/// The initial table `S[0] = P32, S[i] = S[i - 1] + Q32`.
fn initial_table() -> [u32; TABLE_WORDS] {
    let mut s = [0u32; TABLE_WORDS];
    s[0] = P32;
    for i in 1..TABLE_WORDS {
        s[i] = s[i - 1].wrapping_add(Q32);
    }
    s
}

fn split(block: [u8; 8]) -> (u32, u32) {
    (
        u32::from_le_bytes([block[0], block[1], block[2], block[3]]),
        u32::from_le_bytes([block[4], block[5], block[6], block[7]]),
    )
}

fn join(a: u32, b: u32) -> [u8; 8] {
    let mut out = [0u8; 8];
    out[..4].copy_from_slice(&a.to_le_bytes());
    out[4..].copy_from_slice(&b.to_le_bytes());
    out
}

/// RC5-32/12/16 with its expanded key table (the sequential form).
#[derive(Clone)]
pub struct Rc5_32_12_16 {
    s: [u32; TABLE_WORDS],
}

impl Rc5_32_12_16 {
    /// Expands `key`: `3 max(t, c) = 78` mixing steps over `S` and `L`.
    #[inline(never)]
    pub fn new(key: &[u8; KEY_BYTES]) -> Self {
        let mut l = key_words(key);
        let mut s = initial_table();
        let (mut a, mut b) = (0u32, 0u32);
        let (mut i, mut j) = (0, 0);
        for _ in 0..MIX_STEPS {
            s[i] = s[i].wrapping_add(a).wrapping_add(b).rotate_left(3);
            a = s[i];
            l[j] = l[j]
                .wrapping_add(a)
                .wrapping_add(b)
                .rotate_left(a.wrapping_add(b));
            b = l[j];
            i = (i + 1) % TABLE_WORDS;
            j = (j + 1) % KEY_WORDS;
        }
        Self { s }
    }

    /// The expanded key table `S[0..26]`.
    pub fn table(&self) -> &[u32; TABLE_WORDS] {
        &self.s
    }

    /// Encrypts one 8-byte block.
    #[inline(never)]
    pub fn encrypt_block(&self, block: [u8; 8]) -> [u8; 8] {
        let s = &self.s;
        let (mut a, mut b) = split(block);
        a = a.wrapping_add(s[0]);
        b = b.wrapping_add(s[1]);
        for r in 1..=ROUNDS {
            a = (a ^ b).rotate_left(b).wrapping_add(s[2 * r]);
            b = (b ^ a).rotate_left(a).wrapping_add(s[2 * r + 1]);
        }
        join(a, b)
    }

    /// Decrypts one 8-byte block.
    #[inline(never)]
    pub fn decrypt_block(&self, block: [u8; 8]) -> [u8; 8] {
        let s = &self.s;
        let (mut a, mut b) = split(block);
        for r in (1..=ROUNDS).rev() {
            b = b.wrapping_sub(s[2 * r + 1]).rotate_right(a) ^ a;
            a = a.wrapping_sub(s[2 * r]).rotate_right(b) ^ b;
        }
        b = b.wrapping_sub(s[1]);
        a = a.wrapping_sub(s[0]);
        join(a, b)
    }

    /// Encrypts blocks in place (ECB, for measurement and tests).
    pub fn encrypt_blocks(&self, blocks: &mut [[u8; 8]]) {
        for b in blocks {
            *b = self.encrypt_block(*b);
        }
    }
}

impl core::fmt::Debug for Rc5_32_12_16 {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.write_str("Rc5_32_12_16 { ... }")
    }
}

/// The overlapped form: key expansion interleaved with encryption.
pub mod overlapped {
    use super::*;

    /// Encrypts one block under `key`, running the encryption inside the last mixing pass of the
    /// key schedule (on-the-fly subkeys). Returns the ciphertext and the expanded key, which the
    /// pass stores as it goes, so further blocks can use the sequential form without expanding
    /// again.
    #[inline(never)]
    pub fn encrypt_first_block(key: &[u8; KEY_BYTES], block: [u8; 8]) -> ([u8; 8], Rc5_32_12_16) {
        let mut l = key_words(key);
        let mut s = initial_table();
        let (mut ka, mut kb) = (0u32, 0u32);
        // Passes one and two: S is not final yet, nothing to encrypt with.
        let mut j = 0;
        for _ in 0..2 {
            for si in s.iter_mut() {
                *si = si.wrapping_add(ka).wrapping_add(kb).rotate_left(3);
                ka = *si;
                l[j] = l[j]
                    .wrapping_add(ka)
                    .wrapping_add(kb)
                    .rotate_left(ka.wrapping_add(kb));
                kb = l[j];
                j = (j + 1) % KEY_WORDS;
            }
        }
        // Pass three: S[i] becomes final at step i, and half-round i uses exactly S[i].
        let (mut a, mut b) = split(block);
        for (i, slot) in s.iter_mut().enumerate() {
            let si = slot.wrapping_add(ka).wrapping_add(kb).rotate_left(3);
            *slot = si;
            ka = si;
            l[j] = l[j]
                .wrapping_add(ka)
                .wrapping_add(kb)
                .rotate_left(ka.wrapping_add(kb));
            kb = l[j];
            j = (j + 1) % KEY_WORDS;
            match i {
                0 => a = a.wrapping_add(si),
                1 => b = b.wrapping_add(si),
                _ if i % 2 == 0 => a = (a ^ b).rotate_left(b).wrapping_add(si),
                _ => b = (b ^ a).rotate_left(a).wrapping_add(si),
            }
        }
        (join(a, b), Rc5_32_12_16 { s })
    }

    /// Encrypts one block under `key` in one pass (key schedule and encryption overlapped).
    pub fn encrypt_block(key: &[u8; KEY_BYTES], block: [u8; 8]) -> [u8; 8] {
        encrypt_first_block(key, block).0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rivest_first_example_in_words() {
        // Rivest's paper, RC5-32/12/16 example 1, printed as words: key 0, plaintext words
        // 00000000 00000000 encrypt to EEDBA521 6D8F4B15.
        let c = Rc5_32_12_16::new(&[0; 16]).encrypt_block([0; 8]);
        assert_eq!(split(c), (0xEEDB_A521, 0x6D8F_4B15));
        assert_eq!(overlapped::encrypt_block(&[0; 16], [0; 8]), c);
    }
}
