//! The one place that asks the CPU what it can do.
//!
//! Every SIMD or special-instruction kernel in parhash requires a *token* from this module as
//! proof that the instructions it uses exist on this CPU. Tokens have a private field, so the
//! only way to get one is [`Avx2::detect`] and friends: safe code cannot forge a token and run
//! an AVX-512 kernel on a CPU without AVX-512 (the weakness STYLE.md points out in BLAKE3's public
//! `Platform` enum). Kernels take the token by value, which costs nothing at run time.
//!
//! For tests and CI, ISAs can be switched off at run time with the environment variable
//! `PARHASH_DISABLE_ISA`, a comma-separated list of `sse41`, `avx2`, `avx512`, `sha-ni`, `bmi2`,
//! `gfni`, `aes-ni` or `all`. It is read once per process. CI runs the test suite once per switch so that each
//! fallback path is exercised on a machine that has the faster one.

use std::sync::OnceLock;

/// ISAs switched off by `PARHASH_DISABLE_ISA`.
fn disabled(name: &str) -> bool {
    static DISABLED: OnceLock<Vec<String>> = OnceLock::new();
    let list = DISABLED.get_or_init(|| {
        std::env::var("PARHASH_DISABLE_ISA")
            .unwrap_or_default()
            .split(',')
            .map(|s| s.trim().to_ascii_lowercase().replace('_', "-"))
            .filter(|s| !s.is_empty())
            .collect()
    });
    list.iter().any(|d| d == name || d == "all")
}

macro_rules! isa_token {
    ($(#[$doc:meta])* $name:ident, $switch:literal, [$($feature:tt),+]) => {
        $(#[$doc])*
        #[derive(Clone, Copy, Debug, PartialEq, Eq)]
        pub struct $name {
            _proof: (),
        }

        impl $name {
            /// The switch name used by `PARHASH_DISABLE_ISA` and in variant names.
            #[allow(dead_code)] // not every token is named in `describe`
            pub const NAME: &'static str = $switch;

            /// Returns the token if this CPU has every feature the kernels behind it use and
            /// the ISA has not been switched off.
            #[inline]
            pub fn detect() -> Option<Self> {
                #[cfg(target_arch = "x86_64")]
                {
                    if $(std::arch::is_x86_feature_detected!($feature))&&+ && !disabled($switch) {
                        return Some(Self { _proof: () });
                    }
                }
                None
            }
        }
    };
}

isa_token!(
    /// SSE4.1 and SSSE3 (byte shuffles, 128-bit integer ops).
    Sse41, "sse41", ["sse4.1", "ssse3"]
);
isa_token!(
    /// AVX2 (256-bit integer vectors: 8 x u32 or 4 x u64 lanes).
    Avx2, "avx2", ["avx2", "avx"]
);
isa_token!(
    /// AVX-512 F + BW + VL + DQ (512-bit vectors: 16 x u32 or 8 x u64 lanes, rotates, ternary logic).
    Avx512, "avx512", ["avx512f", "avx512bw", "avx512vl", "avx512dq", "avx2"]
);
isa_token!(
    /// The SHA extensions (SHA-1 and SHA-256 rounds in hardware), with the SSE4.1 they need.
    ShaNi, "sha-ni", ["sha", "sse2", "ssse3", "sse4.1"]
);
isa_token!(
    /// BMI2 (`mulx`, `rorx`, flag-free shifts).
    Bmi2, "bmi2", ["bmi2", "bmi1"]
);
isa_token!(
    /// GFNI (GF(2^8) affine maps, inverses and products on bytes) together with AVX-512 VBMI
    /// (byte permutes across a whole 512-bit register), as the byte-oriented kernels use them.
    Gfni, "gfni", ["gfni", "avx512vbmi", "avx512f", "avx512bw", "avx512vl"]
);
isa_token!(
    /// AES-NI (`aesenc`, `aesenclast`: the AES S-box on 16 bytes at once) with the AVX (VEX
    /// encoding) and SSSE3 (`pshufb`) the byte-oriented kernels use beside it.
    AesNi, "aes-ni", ["aes", "avx", "ssse3"]
);
isa_token!(
    /// GFNI in its VEX encoding (256-bit registers) with AVX2, as CPUs without AVX-512 have it
    /// (Intel Alder Lake and later client cores). The same `gfni` switch turns it off.
    GfniAvx2, "gfni", ["gfni", "avx2", "avx"]
);

/// Runs intrinsics given a token of the platform type `$isa`: `with_isa!(Avx2, token => expr)`.
/// The kernels' own `avx2!`-style macros are this with their type filled in; pointers that
/// `$e` reads or writes are its caller's to prove.
macro_rules! with_isa {
    ($isa:ident, $token:expr => $e:expr) => {{
        let _proof: $crate::platform::$isa = $token;
        // SAFETY: a token is made only by its type's `detect`, after the CPU reported every
        // feature in the type's `isa_token!` list, so the instructions of those features can run.
        unsafe { $e }
    }};
}
pub(crate) use with_isa;

/// Aligns the calling function's stack frame to 64 bytes; called first in the entry function
/// of a vector kernel (a `#[target_feature]` function, into which this is inlined) that keeps
/// 32- or 64-byte registers on the stack. Without it the frame keeps the caller's 16-byte
/// alignment, and whether those slots' loads and stores split cache lines depends on the call
/// chain: SANDstorm-256's AVX-512 kernel ran slower on two threads in `parhash sum` than in
/// another binary calling the same function, until aligned (BENCHMARKS.md, the AVX2 kernels'
/// frames). A 64-byte aligned local the compiler must keep makes it align the frame, and then
/// it gives the slots their full alignment.
#[inline(always)]
pub(crate) fn align_frame() {
    #[repr(align(64))]
    struct Anchor([u8; 64]);
    let mut anchor = Anchor([0; 64]);
    core::hint::black_box(&mut anchor.0);
}

/// Whether this CPU is Intel's (CPUID vendor "GenuineIntel"). For defaults whose measured order
/// depends on the microarchitecture rather than on an ISA: Keccak's vector forms beat its
/// scalar round on Intel cores (Cascade Lake, BENCHMARKS.md, SHA-3 on Intel) and
/// lose to it on AMD's Zen 4.
pub fn intel() -> bool {
    #[cfg(target_arch = "x86_64")]
    {
        static INTEL: OnceLock<bool> = OnceLock::new();
        *INTEL.get_or_init(|| {
            // `__cpuid` is an `unsafe fn` in the older Rust releases this crate builds with
            // (from 1.89; 1.93 still) and a safe one in newer ones.
            #[allow(unused_unsafe)]
            // SAFETY: CPUID leaf 0 exists on every x86-64 CPU and only reads registers.
            let id = unsafe { std::arch::x86_64::__cpuid(0) };
            [id.ebx, id.edx, id.ecx]
                .iter()
                .flat_map(|word| word.to_le_bytes())
                .eq(*b"GenuineIntel")
        })
    }
    #[cfg(not(target_arch = "x86_64"))]
    false
}

/// The CPU features parhash's kernels use that this machine has (`avx2, avx512, sha-ni`), or
/// `portable only`: the line `parhash list` and the lab's reports print (`parhash::cpu_features`).
pub fn describe() -> String {
    let have: Vec<&str> = [
        (Sse41::detect().is_some(), Sse41::NAME),
        (Avx2::detect().is_some(), Avx2::NAME),
        (Avx512::detect().is_some(), Avx512::NAME),
        (ShaNi::detect().is_some(), ShaNi::NAME),
        (Bmi2::detect().is_some(), Bmi2::NAME),
        (Gfni::detect().is_some(), Gfni::NAME),
        (AesNi::detect().is_some(), AesNi::NAME),
    ]
    .into_iter()
    .filter_map(|(present, name)| present.then_some(name))
    .collect();
    if have.is_empty() {
        "portable only".to_string()
    } else {
        have.join(", ")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn detection_is_consistent() {
        // AVX-512 as parhash defines it implies AVX2.
        if Avx512::detect().is_some() && !disabled("avx2") {
            assert!(Avx2::detect().is_some());
        }
        assert!(!describe().is_empty());
    }
}
