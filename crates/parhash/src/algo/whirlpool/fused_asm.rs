//! The `fused-asm` Whirlpool compression (x86-64): the [`fused`](super::fused) form's table
//! lookups in inline assembly. Compiled from Rust, the fused round's 64 byte extractions and
//! lookups run out of registers and spill every byte index to the stack (measured 0.97x
//! OpenSSL). Here, as in OpenSSL's x86-64 code, one input row at a time sits in `rax` and its
//! bytes come out two per shift through `al` and `ah` (`movzx esi, al; movzx edi, ah;
//! shr rax, 16`), each XORing a table entry straight from memory into one of eight accumulator
//! registers: the round reads each input row once and keeps the eight output rows in registers.
//! The key schedule's round and the data round share the accumulators: the new key is stored
//! and then serves as the data round's starting value. The tables are the fused form's.

use core::arch::asm;

use super::fused::TABLES;
use super::{ROUNDS, ROUND_CONSTANTS};

/// Lookups of one input row at `[{buf} + $off]`: byte k (k = 0 the high byte) XORs table k's
/// entry into accumulator `$k_`; bytes come out low first, two per shift (`al`, `ah`).
#[rustfmt::skip]
macro_rules! row {
    ($off:literal, $k7:ident $k6:ident $k5:ident $k4:ident $k3:ident $k2:ident $k1:ident $k0:ident) => { concat!(
        "mov rax, qword ptr [{buf} + ", stringify!($off), "]\n",
        "movzx esi, al\n", "movzx edi, ah\n", "shr rax, 16\n",
        "xor {", stringify!($k7), "}, qword ptr [{tbl} + rsi*8 + 2048*7]\n",
        "xor {", stringify!($k6), "}, qword ptr [{tbl} + rdi*8 + 2048*6]\n",
        "movzx esi, al\n", "movzx edi, ah\n", "shr rax, 16\n",
        "xor {", stringify!($k5), "}, qword ptr [{tbl} + rsi*8 + 2048*5]\n",
        "xor {", stringify!($k4), "}, qword ptr [{tbl} + rdi*8 + 2048*4]\n",
        "movzx esi, al\n", "movzx edi, ah\n", "shr rax, 16\n",
        "xor {", stringify!($k3), "}, qword ptr [{tbl} + rsi*8 + 2048*3]\n",
        "xor {", stringify!($k2), "}, qword ptr [{tbl} + rdi*8 + 2048*2]\n",
        "movzx esi, al\n", "movzx edi, ah\n",
        "xor {", stringify!($k1), "}, qword ptr [{tbl} + rsi*8 + 2048*1]\n",
        "xor {", stringify!($k0), "}, qword ptr [{tbl} + rdi*8]\n",
    )};
}
/// All eight input rows from `[{buf} + $base]` into the accumulators: row i's byte k goes to
/// output row (i + k) mod 8.
#[rustfmt::skip]
macro_rules! rows {
    ($o0:literal $o1:literal $o2:literal $o3:literal $o4:literal $o5:literal $o6:literal $o7:literal) => { concat!(
        row!($o0, a7 a6 a5 a4 a3 a2 a1 a0),
        row!($o1, a0 a7 a6 a5 a4 a3 a2 a1),
        row!($o2, a1 a0 a7 a6 a5 a4 a3 a2),
        row!($o3, a2 a1 a0 a7 a6 a5 a4 a3),
        row!($o4, a3 a2 a1 a0 a7 a6 a5 a4),
        row!($o5, a4 a3 a2 a1 a0 a7 a6 a5),
        row!($o6, a5 a4 a3 a2 a1 a0 a7 a6),
        row!($o7, a6 a5 a4 a3 a2 a1 a0 a7),
    )};
}
/// Stores the eight accumulators to `[{buf} + $o_]`.
#[rustfmt::skip]
macro_rules! store {
    ($o0:literal $o1:literal $o2:literal $o3:literal $o4:literal $o5:literal $o6:literal $o7:literal) => { concat!(
        "mov qword ptr [{buf} + ", stringify!($o0), "], {a0}\n",
        "mov qword ptr [{buf} + ", stringify!($o1), "], {a1}\n",
        "mov qword ptr [{buf} + ", stringify!($o2), "], {a2}\n",
        "mov qword ptr [{buf} + ", stringify!($o3), "], {a3}\n",
        "mov qword ptr [{buf} + ", stringify!($o4), "], {a4}\n",
        "mov qword ptr [{buf} + ", stringify!($o5), "], {a5}\n",
        "mov qword ptr [{buf} + ", stringify!($o6), "], {a6}\n",
        "mov qword ptr [{buf} + ", stringify!($o7), "], {a7}\n",
    )};
}

/// Compresses whole 64-byte blocks: `H_i = W[H_(i-1)](m_i) ^ H_(i-1) ^ m_i`.
#[inline(never)]
pub fn compress_blocks(state: &mut [u64; 8], blocks: &[[u8; 64]]) {
    // buf[0..8]: the key K, buf[8..16]: the state S.
    let mut buf = [0u64; 16];
    for block in blocks {
        let mut m = [0u64; 8];
        for (row, bytes) in m.iter_mut().zip(block.chunks_exact(8)) {
            *row = u64::from_be_bytes(bytes.try_into().expect("8-byte row"));
        }
        for i in 0..8 {
            buf[i] = state[i];
            buf[8 + i] = m[i] ^ state[i];
        }
        // SAFETY: the assembly reads `buf` (16 words) and writes it, reads TABLES at
        // `k * 2048 + 8 * byte` (k < 8, byte < 256: inside its 16 KiB) and RC (10 words, `rc`
        // stepping 8 bytes until its end); it writes only its register operands otherwise and
        // uses baseline x86-64 instructions only.
        unsafe {
            asm!(
                "2:",
                // Key round: K = rho[rc](K).
                "mov {a0}, qword ptr [{rc}]",
                "xor {a1:e}, {a1:e}", "xor {a2:e}, {a2:e}", "xor {a3:e}, {a3:e}",
                "xor {a4:e}, {a4:e}", "xor {a5:e}, {a5:e}", "xor {a6:e}, {a6:e}", "xor {a7:e}, {a7:e}",
                rows!(0 8 16 24 32 40 48 56),
                store!(0 8 16 24 32 40 48 56),
                // Data round: S = rho[K](S); the accumulators already hold K.
                rows!(64 72 80 88 96 104 112 120),
                store!(64 72 80 88 96 104 112 120),
                "add {rc}, 8",
                "lea rsi, [rip + {rcs} + 80]",
                "cmp {rc}, rsi",
                "jne 2b",
                buf = in(reg) buf.as_mut_ptr(),
                tbl = in(reg) TABLES.as_ptr(),
                rc = inout(reg) RC.as_ptr() => _,
                rcs = sym RC,
                a0 = out(reg) _, a1 = out(reg) _, a2 = out(reg) _, a3 = out(reg) _,
                a4 = out(reg) _, a5 = out(reg) _, a6 = out(reg) _, a7 = out(reg) _,
                out("rax") _, out("rsi") _, out("rdi") _,
                options(nostack),
            );
        }
        for i in 0..8 {
            state[i] ^= buf[8 + i] ^ m[i];
        }
    }
}

/// The round constants where the assembly can walk them.
static RC: [u64; ROUNDS] = ROUND_CONSTANTS;
