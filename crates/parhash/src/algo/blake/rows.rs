//! The loop every row-wise vector kernel of BLAKE shares (SSE4.1, AVX2 and AVX-512; both word
//! sizes): the 4x4 state as four row registers `a, b, c, d` = `h[0..4]`, `h[4..8]`, `c[0..4]`,
//! counter ^ `c[4..8]`; each round a column step, then the diagonal step with rows b, c, d
//! rotated by one, two and three lanes and back; finally `h ^= a ^ c` and `h ^= b ^ d` (salt
//! zero). A macro, so that each kernel expands it with its own row type and instructions.

/// `compress_rows!(h, blocks, bits_before; Row, load, store, xor, set4, permute; C, block_bits,
/// Word as SignedWord, counter_shift, ROUNDS; INDEX, CONST; |block| message;
/// |m, idx, cst, [a, b, c, d]| step)`: `permute::<IMM>` rotates lanes like `pshufd`/`vpermq`
/// with that immediate, `message` prepares a block's words once, `step` runs four G functions
/// on the rows with `idx`, `cst` the message indices and constants of the step (rows
/// `INDEX[r % 10][half]` and `CONST[r % 10][half]` of round `r`, `half` 0 for the columns, 1
/// for the diagonals). Must be expanded inside the kernel's `#[target_feature]` function.
///
/// Kernels write the short forms, which fill in the rows of their word size and the step:
/// `compress_rows!(h, blocks, bits_before; blake256 rows; scalar loads)` (the kernel's
/// `gathered_g4`, see [`gathered_operands!`]) or `...; blake512 rows; INDEX in two Reg: load,
/// shuffle, bswap)` (the kernel's `g4` and `operands` on [`message_in_two!`]).
macro_rules! compress_rows {
    // The rows of each word size: BLAKE-224/256 in 128-bit registers, BLAKE-384/512 in 256-bit.
    ($h:expr, $blocks:expr, $bits_before:expr; blake256 rows; $($gather:tt)*) => {
        $crate::algo::blake::rows::compress_rows!(@gather $h, $blocks, $bits_before;
            [__m128i, _mm_loadu_si128, _mm_storeu_si128, _mm_xor_si128, _mm_setr_epi32,
             _mm_shuffle_epi32; C256, 512, u32 as i32, 32, ROUNDS256];
            [MSG_CONST256, load_be32]; $($gather)*)
    };
    ($h:expr, $blocks:expr, $bits_before:expr; blake512 rows; $($gather:tt)*) => {
        $crate::algo::blake::rows::compress_rows!(@gather $h, $blocks, $bits_before;
            [__m256i, _mm256_loadu_si256, _mm256_storeu_si256, _mm256_xor_si256,
             _mm256_setr_epi64x, _mm256_permute4x64_epi64; C512, 1024, u64 as i64, 64, ROUNDS512];
            [MSG_CONST512, load_be64]; $($gather)*)
    };
    // Message words gathered with scalar loads by the kernel's `operands`, for its `g4`
    // (`gathered_operands!`).
    (@gather $h:expr, $blocks:expr, $bits_before:expr; [$($rows:tt)*];
        [$msg_const:ident, $load_be:ident]; scalar loads
    ) => {
        $crate::algo::blake::rows::compress_rows!(
            $h, $blocks, $bits_before;
            $($rows)*;
            MSG_INDEX, $msg_const;
            |block| $load_be(block);
            |m, idx, cst, [a, b, c, d]| {
                // SAFETY: `gathered_g4` needs the kernel's features, which the function this
                // expands in enables.
                unsafe { gathered_g4([&mut a, &mut b, &mut c, &mut d], &m, idx, cst) }
            }
        )
    };
    // The message in two registers (`message_in_two!`), from which the kernel's `operands`
    // gathers each step's words (indices in `$index`) for its `g4`.
    (@gather $h:expr, $blocks:expr, $bits_before:expr; [$($rows:tt)*];
        [$msg_const:ident, $load_be:ident];
        $index:ident in two $reg:ty: $mload:ident, $shuffle:ident, $bswap:ident
    ) => {
        $crate::algo::blake::rows::compress_rows!(
            $h, $blocks, $bits_before;
            $($rows)*;
            $index, $msg_const;
            |block| $crate::algo::blake::rows::message_in_two!(block, $reg, $mload, $shuffle, $bswap);
            |m, idx, cst, [a, b, c, d]| {
                // SAFETY: `operands` and `g4` need the kernel's features, which the function
                // this expands in enables.
                unsafe { g4(&mut a, &mut b, &mut c, &mut d, operands(m.0, m.1, idx, cst)) }
            }
        )
    };
    (
        $h:expr, $blocks:expr, $bits_before:expr;
        $row:ty, $load:ident, $store:ident, $xor:ident, $set4:ident, $permute:ident;
        $consts:ident, $block_bits:literal, $word:ty as $signed:ty, $shift:literal, $rounds:ident;
        $index:ident, $msg_const:ident;
        |$block:ident| $message:expr;
        |$m:ident, $idx:ident, $cst:ident, [$a:ident, $b:ident, $c:ident, $d:ident]| $step:expr
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
            for r in 0..$rounds {
                {
                    let ($idx, $cst) = (&$index[r % 10][0], &$msg_const[r % 10][0]);
                    $step;
                }
                $b = $permute::<0x39>($b);
                $c = $permute::<0x4E>($c);
                $d = $permute::<0x93>($d);
                {
                    let ($idx, $cst) = (&$index[r % 10][1], &$msg_const[r % 10][1]);
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

/// `ror::<R, L>(x)`: each lane rotated right by `R` as two shifts and an OR (`L` = the word's
/// bits - `R`), for the kernels without a rotate instruction.
macro_rules! shift_ror {
    ($row:ty, $or:ident, $srli:ident, $slli:ident) => {
        #[inline(always)]
        unsafe fn ror<const R: i32, const L: i32>(x: $row) -> $row {
            // SAFETY: the caller is compiled with the shifts' ISA (SSE2 is part of x86_64).
            unsafe { $or($srli::<R>(x), $slli::<L>(x)) }
        }
    };
}
pub(super) use shift_ror;

/// `operands(m, idx, cst, half)`: the message words XOR constants of four G functions, lanes
/// `half * 4 ..` of a table row, the words gathered with scalar loads; and `gathered_g4`, the
/// kernel's `g4` on the operands of both halves.
macro_rules! gathered_operands {
    ($row:ty, $word:ty as $signed:ty, $xor:ident, $set4:ident, $load:ident) => {
        #[inline(always)]
        unsafe fn operands(
            m: &[$word; 16],
            idx: &[usize; 8],
            cst: &[$word; 8],
            half: usize,
        ) -> $row {
            let o = half * 4;
            // SAFETY: the caller is compiled with the ISA of these instructions (`pinsrd` needs
            // SSE4.1); `cst[o..o + 4]` is in bounds.
            unsafe {
                $xor(
                    $set4(
                        m[idx[o]] as $signed,
                        m[idx[o + 1]] as $signed,
                        m[idx[o + 2]] as $signed,
                        m[idx[o + 3]] as $signed,
                    ),
                    $load(cst[o..o + 4].as_ptr().cast()),
                )
            }
        }

        #[inline(always)]
        unsafe fn gathered_g4(
            [a, b, c, d]: [&mut $row; 4],
            m: &[$word; 16],
            idx: &[usize; 8],
            cst: &[$word; 8],
        ) {
            // SAFETY: the caller is compiled with the ISA of `operands` and `g4`.
            unsafe {
                g4(
                    a,
                    b,
                    c,
                    d,
                    operands(m, idx, cst, 0),
                    operands(m, idx, cst, 1),
                )
            }
        }
    };
}
pub(super) use gathered_operands;

/// A block's message as two registers of type `$reg` (its two halves, unaligned loads), each
/// word byte-swapped by `$bswap` (the message is big-endian): the register-gather kernels' form.
macro_rules! message_in_two {
    ($block:ident, $reg:ty, $load:ident, $shuffle:ident, $bswap:ident) => {{
        let bp = $block.as_ptr().cast::<$reg>();
        // SAFETY: a block is two registers wide; unaligned loads.
        unsafe {
            (
                $shuffle($load(bp), $bswap),
                $shuffle($load(bp.add(1)), $bswap),
            )
        }
    }};
}
pub(super) use message_in_two;
