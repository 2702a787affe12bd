//! The loop every row-wise vector kernel of BLAKE shares (SSE4.1, AVX2 and AVX-512; both word
//! sizes): the 4x4 state as four row registers `a, b, c, d` = `h[0..4]`, `h[4..8]`, `c[0..4]`,
//! counter ^ `c[4..8]`; each round a column step, then the diagonal step with rows b, c, d
//! rotated by one, two and three lanes and back; finally `h ^= a ^ c` and `h ^= b ^ d` (salt
//! zero). A macro, so that each kernel expands it with its own row type and instructions.

/// `compress_rows!(h, blocks, bits_before; Row, load, store, xor, set4, permute; C, block_bits,
/// Word as SignedWord, counter_shift, ROUNDS; |block| message; |m, r, half, [a, b, c, d]| step)`:
/// `permute::<IMM>` rotates lanes like `pshufd`/`vpermq` with that immediate, `message` prepares
/// a block's words once, `step` runs four G functions of step `half` (0: columns, 1: diagonals)
/// of round `r` on the rows. Must be expanded inside the kernel's `#[target_feature]` function.
macro_rules! compress_rows {
    (
        $h:expr, $blocks:expr, $bits_before:expr;
        $row:ty, $load:ident, $store:ident, $xor:ident, $set4:ident, $permute:ident;
        $consts:ident, $block_bits:literal, $word:ty as $signed:ty, $shift:literal, $rounds:ident;
        |$block:ident| $message:expr;
        |$m:ident, $r:ident, $half:ident, [$a:ident, $b:ident, $c:ident, $d:ident]| $step:expr
    ) => {{
        let hp = $h.as_mut_ptr().cast::<$row>();
        let cp = $consts.as_ptr().cast::<$row>();
        let (mut h0, mut h1, c_row, t_const) =
            // SAFETY: `h` is two rows, the constants four; unaligned loads.
            unsafe { ($load(hp), $load(hp.add(1)), $load(cp), $load(cp.add(1))) };
        let mut counter = $bits_before;
        for $block in $blocks {
            counter = counter.wrapping_add($block_bits);
            let $m = $message;
            let (t0, t1) = (
                counter as $word as $signed,
                (counter >> $shift) as $word as $signed,
            );
            let (mut $a, mut $b, mut $c) = (h0, h1, c_row);
            let mut $d = $xor($set4(t0, t0, t1, t1), t_const);
            for $r in 0..$rounds {
                {
                    let $half = 0;
                    $step;
                }
                $b = $permute::<0x39>($b);
                $c = $permute::<0x4E>($c);
                $d = $permute::<0x93>($d);
                {
                    let $half = 1;
                    $step;
                }
                $b = $permute::<0x93>($b);
                $c = $permute::<0x4E>($c);
                $d = $permute::<0x39>($d);
            }
            h0 = $xor(h0, $xor($a, $c));
            h1 = $xor(h1, $xor($b, $d));
        }
        // SAFETY: as for the loads.
        unsafe {
            $store(hp, h0);
            $store(hp.add(1), h1);
        }
    }};
}
pub(super) use compress_rows;

/// Stamps a kernel's safe entry point: `compress_blocks(token, h, blocks, bits_before)` (see
/// `sequential` for the counter convention) calls the kernel's `#[target_feature]` function.
macro_rules! entry_point {
    ($token:ident, $word:ty, $block:literal, $counter:ty, $kernel:ident) => {
        /// Compresses whole blocks (see `sequential` for the counter convention).
        #[inline(never)]
        pub fn compress_blocks(
            token: $token,
            h: &mut [$word; 8],
            blocks: &[[u8; $block]],
            bits_before: $counter,
        ) {
            let _ = token;
            // SAFETY: the token proves this CPU has the features `$kernel` enables (and that
            // they are not switched off); all loads are from arrays of the loaded size.
            unsafe { $kernel(h, blocks, bits_before) }
        }
    };
}
pub(super) use entry_point;
