//! SANDstorm, literally as `shared/specs/sandstorm.md` writes it: the oracle for everything else.
//! One-shot over the whole message, plain loops and arrays, no attention to speed.

use super::word::{bitmix, ch, Word};

/// A chaining array: 5 rows of 4 words.
pub type Chain<W> = [[W; 4]; 5];

/// `Cmp(M[0..7], C[0..4][0..3]) -> C'` (section 4).
pub fn compress<W: Word>(m: &[W; 8], c: &Chain<W>) -> Chain<W> {
    // Message schedule: 33 words.
    let mut ms = [W::default(); 33];
    ms[..8].copy_from_slice(m);
    for i in 8..33 {
        let sum = ms[i - 8]
            .add(W::RC[i - 8])
            .add(ms[i - 1].g())
            .add(ch(ms[i - 1], ms[i - 2], ms[i - 3]))
            .add(ms[i - 4]);
        ms[i] = sum.sb().rotl(W::R_MS);
    }

    // Round inputs.
    let mut p = [[W::default(); 4]; 5];
    for j in 0..4 {
        p[0][j] = ms[j].rotl(W::R_IN) ^ ms[j + 4];
    }
    bitmix(&mut p[0]);
    p[1].copy_from_slice(&ms[14..18]);
    p[2].copy_from_slice(&ms[19..23]);
    p[3].copy_from_slice(&ms[24..28]);
    p[4].copy_from_slice(&ms[29..33]);

    // Rounds.
    let mut out = [[W::default(); 4]; 5];
    let mut w = c[0];
    for r in 0..5 {
        for j in 0..4 {
            w[j] ^= p[r][j];
        }
        for i in 0..4 {
            let a = w[(i + 3) % 4];
            let sum = w[i]
                .add(a.f())
                .add(ch(a, w[(i + 2) % 4], w[(i + 1) % 4]))
                .add(W::RC[24 - 4 * r - i]);
            w[i] = sum.sb().rotl(W::R_RND);
        }
        bitmix(&mut w);
        if r < 4 {
            for j in 0..4 {
                w[j] ^= c[r + 1][j];
            }
        }
        if r >= 1 {
            out[r] = w;
        }
    }
    out[0] = c[0];
    out
}

/// `Out(C) = (C[1] ^ C[3]) || (C[2] ^ C[4])`: the 8-word message a level passes upward.
pub fn level_output<W: Word>(c: &Chain<W>) -> [W; 8] {
    let mut m = [W::default(); 8];
    for j in 0..4 {
        m[j] = c[1][j] ^ c[3][j];
        m[4 + j] = c[2][j] ^ c[4][j];
    }
    m
}

/// XORs `value` into words `cols` of every row.
fn xor_words<W: Word>(c: &mut Chain<W>, cols: &[usize], value: W) {
    for row in c.iter_mut() {
        for &j in cols {
            row[j] ^= value;
        }
    }
}

/// How superblock boundaries are found: the design (every 10 / 100 inputs), or the 224/256
/// reference code's 8-bit counter (section 7).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Boundaries {
    /// The design: a superblock boundary every 10 (level 1) or 100 (level 2) inputs.
    Design,
    /// The 224/256 reference code's 8-bit counter, which wraps (section 7).
    ReferenceCode8Bit,
}

/// One tree level (1 or 2): cuts `inputs` into superblocks of `size`, each started from `base`
/// with words 1 and 3 of every row XORed with its number, and returns their outputs.
fn superblock_level<W: Word>(
    inputs: &[[W; 8]],
    base: &Chain<W>,
    size: u64,
    boundaries: Boundaries,
) -> Vec<[W; 8]> {
    let mut outputs = Vec::new();
    let mut current: Option<Chain<W>> = None;
    for (count, input) in (0u64..).zip(inputs) {
        let chain = current.get_or_insert_with(|| {
            let number = count / size + 1;
            let mut c = *base;
            xor_words(&mut c, &[1, 3], W::from_counter(number));
            c
        });
        *chain = compress(input, chain);
        let done = count + 1;
        let boundary = match boundaries {
            Boundaries::Design => done % size == 0,
            Boundaries::ReferenceCode8Bit => (done as u8) as u64 % size == 0,
        };
        if boundary {
            outputs.push(level_output(&current.take().expect("open superblock")));
        }
    }
    if let Some(c) = current {
        outputs.push(level_output(&c));
    }
    outputs
}

/// The whole hash (section 6): returns the 4-word result as big-endian bytes (untruncated).
pub fn hash<W: Word>(k: &Chain<W>, message: &[u8], boundaries: Boundaries) -> Vec<u8> {
    let block_bytes = 8 * W::BYTES;
    let mut padded = message.to_vec();
    padded.push(0x80);
    while padded.len() % block_bytes != 0 {
        padded.push(0);
    }
    let blocks: Vec<[W; 8]> = padded
        .chunks(block_bytes)
        .map(|b| core::array::from_fn(|j| W::from_be_bytes(&b[j * W::BYTES..])))
        .collect();

    // Level 0.
    let s = compress(&blocks[0], k);
    let mut base = *k;
    for j in 0..4 {
        base[0][j] = k[0][j] ^ s[4][j];
    }
    for r in 1..5 {
        for j in 0..4 {
            base[r][j] = k[r][j] ^ s[r][j];
        }
    }

    let top = if blocks.len() == 1 {
        level_output(&s)
    } else {
        let level1 = superblock_level(&blocks[1..], &base, 10, boundaries);
        if level1.len() == 1 {
            level1[0]
        } else {
            let mut base2 = base;
            xor_words(&mut base2, &[3], W::LEVEL2);
            let level2 = superblock_level(&level1, &base2, 100, boundaries);
            if level2.len() == 1 {
                level2[0]
            } else {
                let mut chain = base;
                xor_words(&mut chain, &[3], W::LEVEL3);
                for input in &level2 {
                    chain = compress(input, &chain);
                }
                level_output(&chain)
            }
        }
    };

    // Level 4.
    let mut fin = *k;
    xor_words(&mut fin, &[3], W::LEVEL3);
    xor_words(
        &mut fin,
        &[1, 3],
        W::from_bit_len(message.len() as u128 * 8),
    );
    xor_words(&mut fin, &[0, 1], !W::default());
    let z = compress(&top, &fin);
    let mut out = vec![0u8; 4 * W::BYTES];
    for j in 0..4 {
        (z[1][j] ^ z[2][j] ^ z[3][j] ^ z[4][j]).write_be_bytes(&mut out[j * W::BYTES..]);
    }
    out
}
