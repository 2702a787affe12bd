//! Constant tables of the `parallel` forms' NTT plan (data only, computed at compile time).
//!
//! The plan (shared by `parallel_portable`, `parallel_avx2` and `parallel_avx512`) evaluates
//! `y_i = Σ_j x_j·α^(ij)` for N = 32·n as a 16 × 2n split. With `j = j1 + 16·j2` and
//! `i = i2 + 2n·i1` (j1, i1 < 16; j2, i2 < 2n):
//!
//! ```text
//! y[i2 + 2n·i1] = Σ_j1 β^(j1·i1) · α^(j1·i2) · Σ_j2 x[j1 + 16·j2] · ω^(j2·i2)
//! ```
//! with `ω = α^16` (order 2n) and `β = α^(2n)` (order 16). Vectors of 16 lanes indexed by j1
//! hold 16 consecutive message bytes, so stage A (the 2n-point DFT over j2, only j2 < n non-zero)
//! is whole-vector butterflies with scalar twiddles; then a lane-wise multiply by `α^(j1·i2)`
//! ([`NttTables::column`]); an in-lane 8 × 8 transpose makes i2 the lane index; stage D (the
//! 16-point DFT over j1) is again whole-vector butterflies and leaves `y[2n·i1 .. 2n·i1 + 2n]`
//! in natural order, which is exactly what the inner codes pack into words. The constant terms
//! `X^(N−1) + final·X^(N−3)` are added at the end ([`NttTables::constant_terms`]).
//!
//! Arithmetic is on signed 16-bit lanes. Products use a Montgomery multiplication by a constant
//! (`mulhi(a, b) − mulhi(mullo(a, b·257⁻¹), 257)`); since 2^16 ≡ 1 (mod 257) the Montgomery
//! factor is 1 and the twiddles are used as they are. Its result is below 129 + |a·b|/2^16 in
//! magnitude for any 16-bit a, so sums between multiplications never overflow (see the bounds in
//! the kernels).

/// `257⁻¹ mod 2^16` (as a signed 16-bit value: 65281 = −255).
pub const Q_INV: i32 = -255;

const fn pow_mod(base: u32, exp: u32) -> u32 {
    let mut result = 1u32;
    let mut b = base % 257;
    let mut e = exp;
    while e > 0 {
        if e & 1 == 1 {
            result = result * b % 257;
        }
        b = b * b % 257;
        e >>= 1;
    }
    result
}

/// `[root^0, root^step, root^(2·step), ...]` as twiddles.
const fn twiddle_powers<const N: usize>(root: u32, step: u32) -> [Twiddle; N] {
    let mut out = [Twiddle::ONE; N];
    let mut k = 0;
    while k < N {
        out[k] = Twiddle::new(pow_mod(root, step * k as u32));
        k += 1;
    }
    out
}

/// The representative of `v mod 257` in −128..=128.
const fn centered(v: u32) -> i16 {
    let v = v % 257;
    if v > 128 {
        v as i16 - 257
    } else {
        v as i16
    }
}

/// A twiddle factor for the Montgomery product: `(b, b·257⁻¹ mod 2^16)`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Twiddle {
    /// The factor in −128..=128.
    pub value: i16,
    /// `value · 257⁻¹` reduced mod 2^16.
    pub value_qinv: i16,
}

impl Twiddle {
    const fn new(v: u32) -> Self {
        let value = centered(v);
        Twiddle {
            value,
            value_qinv: (value as i32 * Q_INV) as i16,
        }
    }

    const ONE: Twiddle = Twiddle::new(1);
}

/// A 16-lane vector of twiddles (lane order = memory order).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TwiddleVector {
    /// The factors in −128..=128.
    pub value: [i16; 16],
    /// Each factor times 257⁻¹, reduced mod 2^16.
    pub value_qinv: [i16; 16],
}

impl TwiddleVector {
    const ZERO: TwiddleVector = TwiddleVector {
        value: [0; 16],
        value_qinv: [0; 16],
    };

    const fn from_powers(powers: [u32; 16]) -> Self {
        let mut t = Self::ZERO;
        let mut lane = 0;
        while lane < 16 {
            let w = Twiddle::new(powers[lane]);
            t.value[lane] = w.value;
            t.value_qinv[lane] = w.value_qinv;
            lane += 1;
        }
        t
    }
}

/// Every constant of the plan for one lane count n (4 or 8); arrays are sized for n = 8.
#[derive(Clone, Copy, Debug)]
pub struct NttTables {
    /// Stage A's twiddles `ω^k`, k < 2n (ω = α^16, order 2n).
    pub omega: [Twiddle; 16],
    /// The lane-wise factors between the stages: `column[i2][j1] = α^(j1·i2)`, i2 < 2n.
    pub column: [TwiddleVector; 16],
    /// Stage D's first (in-register) butterfly, register r < 8 = `[V[r] | V[r+8]]`: the
    /// difference `V[r] − V[r+8]` is multiplied by `β^r` (r > 0).
    pub beta: [Twiddle; 8],
    /// The remaining 8-point DFT's twiddles `γ^k = β^(2k)`, k < 4.
    pub gamma: [Twiddle; 4],
    /// `α^((N−1)·i) + final·α^((N−3)·i)` in output register layout:
    /// `[final][set][m][h·8 + t]` for `i = 2n·(2m + h) + 8·set + t`, values in 0..=256·2.
    pub constant_terms: [[[[i16; 16]; 8]; 2]; 2],
}

impl NttTables {
    /// The tables for n = `lanes` (4: α = 139, N = 128; 8: α = 41, N = 256).
    pub const fn new(lanes: usize) -> Self {
        let alpha: u32 = if lanes == 4 { 139 } else { 41 };
        let n_size = 32 * lanes as u32;
        let two_n = 2 * lanes as u32;
        let omega_root = pow_mod(alpha, 16);
        let beta = pow_mod(alpha, two_n);

        let omega = twiddle_powers::<16>(omega_root, 1);

        let mut column = [TwiddleVector::ZERO; 16];
        let mut i2 = 0;
        while i2 < 16 {
            let mut powers = [0u32; 16];
            let mut j1 = 0;
            while j1 < 16 {
                powers[j1] = pow_mod(alpha, (j1 * i2) as u32);
                j1 += 1;
            }
            column[i2] = TwiddleVector::from_powers(powers);
            i2 += 1;
        }

        let beta_powers = twiddle_powers::<8>(beta, 1);
        let gamma = twiddle_powers::<4>(beta, 2);

        let mut constant_terms = [[[[0i16; 16]; 8]; 2]; 2];
        let mut fin = 0;
        while fin < 2 {
            let mut set = 0;
            while set < 2 {
                let mut m = 0;
                while m < 8 {
                    let mut lane = 0;
                    while lane < 16 {
                        let (h, t) = (lane as u32 / 8, lane as u32 % 8);
                        let i = two_n * (2 * m as u32 + h) + 8 * set as u32 + t;
                        // Exponents reduce mod N (α has order N).
                        let mut v = pow_mod(alpha, (n_size - 1) * i % n_size);
                        if fin == 1 {
                            v += pow_mod(alpha, (n_size - 3) * i % n_size);
                        }
                        constant_terms[fin][set][m][lane] = v as i16;
                        lane += 1;
                    }
                    m += 1;
                }
                set += 1;
            }
            fin += 1;
        }

        NttTables {
            omega,
            column,
            beta: beta_powers,
            gamma,
            constant_terms,
        }
    }
}

/// Tables for SIMD-224/256 (n = 4).
pub const TABLES_4: NttTables = NttTables::new(4);
/// Tables for SIMD-384/512 (n = 8).
pub const TABLES_8: NttTables = NttTables::new(8);

/// The tables for `lanes` = 4 or 8.
pub const fn tables(lanes: usize) -> &'static NttTables {
    if lanes == 4 {
        &TABLES_4
    } else {
        &TABLES_8
    }
}

/// `bitrev3(m)`: where the radix-2 DIF leaves output m of an 8-point DFT.
pub const BIT_REVERSE_8: [usize; 8] = [0, 4, 2, 6, 1, 5, 3, 7];
/// Same for a 16-point DFT.
pub const BIT_REVERSE_16: [usize; 16] = [0, 8, 4, 12, 2, 10, 6, 14, 1, 9, 5, 13, 3, 11, 7, 15];

/// Where stage A's 2n-point DIF leaves output i2 (bit reversal over log2(2n) bits; entries
/// past 2n unused).
pub const fn stage_a_order(lanes: usize) -> [usize; 16] {
    if lanes == 4 {
        [0, 4, 2, 6, 1, 5, 3, 7, 0, 0, 0, 0, 0, 0, 0, 0]
    } else {
        BIT_REVERSE_16
    }
}

/// The shuffle immediate that makes lane j of a 4 × 32-bit vector read lane `j ⊕ c` (c < 4).
pub const fn xor_shuffle_imm(c: usize) -> i32 {
    ((c) | ((1 ^ c) << 2) | ((2 ^ c) << 4) | ((3 ^ c) << 6)) as i32
}
