//! SHA-2 against the published vectors (NIST CAVP SHAVS byte-oriented ShortMsg, LongMsg and
//! Monte; RFC 4231 HMAC) through every implementation variant; the registry entries, the
//! compression functions and which assembly forms are offered. The differential tests against
//! the RustCrypto `sha2` crate are in `differential.rs`.
mod common;

use common::*;
use parhash::Algorithm;

/// One `#[test]` a row for the CAVP ShortMsg and LongMsg files of `vectors/$prefix` and one for
/// its Monte file: `records test, Monte test: parhash type, Algorithm, path prefix;`.
macro_rules! cavp {
    ($($test:ident, $monte:ident: $ty:ty, $alg:ident, $prefix:literal;)+) => {$(
        #[test]
        fn $test() {
            check_cavp_records::<$ty>(
                Algorithm::$alg,
                include_str!(concat!("vectors/", $prefix, "ShortMsg.rsp")),
                "ShortMsg",
            );
            check_cavp_records::<$ty>(
                Algorithm::$alg,
                include_str!(concat!("vectors/", $prefix, "LongMsg.rsp")),
                "LongMsg",
            );
        }

        #[test]
        fn $monte() {
            check_monte::<$ty>(
                Algorithm::$alg,
                include_str!(concat!("vectors/", $prefix, "Monte.rsp")),
            );
        }
    )+};
}

cavp! {
    sha224_cavp, sha224_monte: parhash::Sha224, Sha224, "sha224/SHA224";
    sha256_cavp, sha256_monte: parhash::Sha256, Sha256, "sha256/SHA256";
    sha384_cavp, sha384_monte: parhash::Sha384, Sha384, "sha384/SHA384";
    sha512_cavp, sha512_monte: parhash::Sha512, Sha512, "sha512/SHA512";
}

/// FIPS 180-4 section 5.3.6: the SHA-512/t initial values are SHA-512 digests, under the
/// SHA-512 IV XOR `a5a5...`, of the string "SHA-512/t". Recomputed here with the public
/// compression function, so the constants are checked against their definition.
#[test]
fn sha512_t_initial_values_follow_their_definition() {
    use parhash::lab::algo::sha2::{compress512, consts};
    for (t, iv) in [("224", consts::IV512_224), ("256", consts::IV512_256)] {
        let mut state = consts::IV512.map(|w| w ^ 0xa5a5_a5a5_a5a5_a5a5);
        let name = format!("SHA-512/{t}");
        let mut block = [0u8; 128];
        block[..name.len()].copy_from_slice(name.as_bytes());
        block[name.len()] = 0x80;
        block[120..].copy_from_slice(&(name.len() as u64 * 8).to_be_bytes());
        compress512(&mut state, &[block]);
        assert_eq!(state, iv, "SHA-512/{t}");
    }
}

/// Each variant's compression function, called directly on many blocks at once (what tree and
/// batch modes do), against the `sequential` one.
#[test]
fn compress_functions_agree_on_many_blocks() {
    use parhash::lab::algo::sha2::{compress256_with_variant, compress512_with_variant};
    let data = pattern(64 * 37);
    let blocks256: Vec<[u8; 64]> = data
        .chunks_exact(64)
        .map(|c| c.try_into().unwrap())
        .collect();
    let blocks512: Vec<[u8; 128]> = pattern(128 * 19)
        .chunks_exact(128)
        .map(|c| c.try_into().unwrap())
        .collect();
    use parhash::lab::algo::sha2::{compress256_sequential, compress512_sequential, consts};
    for n in [0, 1, 2, 3, 4, 5, 8, 17, 37] {
        let expected = compress_variants_agree(
            "sha256",
            consts::IV256,
            &available_variants::<parhash::Sha256>(),
            &blocks256[..n],
            compress256_sequential,
            compress256_with_variant,
        );
        let mut default = consts::IV256;
        parhash::lab::algo::sha2::compress256(&mut default, &blocks256[..n]);
        assert_eq!(default, expected, "compress256, {n} blocks");
        compress_variants_agree(
            "sha512",
            consts::IV512,
            &available_variants::<parhash::Sha512>(),
            &blocks512[..n.min(19)],
            compress512_sequential,
            compress512_with_variant,
        );
    }
    let mut state = [0u32; 8];
    assert!(!compress256_with_variant(
        "no-such-variant",
        &mut state,
        &blocks256
    ));
    assert_eq!(state, [0u32; 8]);
}

/// Each of `variants` compressing `blocks` from `iv` (by `with_variant`) ends in the state
/// that `sequential` does, which it returns.
fn compress_variants_agree<S: Copy + PartialEq + std::fmt::Debug, B>(
    what: &str,
    iv: S,
    variants: &[&str],
    blocks: &[B],
    sequential: fn(&mut S, &[B]),
    with_variant: fn(&str, &mut S, &[B]) -> bool,
) -> S {
    let mut expected = iv;
    sequential(&mut expected, blocks);
    for &v in variants {
        let mut state = iv;
        assert!(with_variant(v, &mut state, blocks), "{what}/{v}");
        let n = blocks.len();
        assert_eq!(state, expected, "{what}/{v}, {n} blocks");
    }
    expected
}

/// RFC 4231 section 4: the seven HMAC test cases, through `hmac::Hmac` over the parhash types.
/// Case 5 specifies only the first 128 bits of the output.
struct HmacCase {
    key: Vec<u8>,
    data: Vec<u8>,
    sha256: &'static str,
    sha512: &'static str,
}

fn rfc4231_cases() -> Vec<HmacCase> {
    let big_key = vec![0xaa; 131];
    vec![
        HmacCase {
            key: vec![0x0b; 20],
            data: b"Hi There".to_vec(),
            sha256: "b0344c61d8db38535ca8afceaf0bf12b881dc200c9833da726e9376c2e32cff7",
            sha512: "87aa7cdea5ef619d4ff0b4241a1d6cb02379f4e2ce4ec2787ad0b30545e17cde\
                     daa833b7d6b8a702038b274eaea3f4e4be9d914eeb61f1702e696c203a126854",
        },
        HmacCase {
            key: b"Jefe".to_vec(),
            data: b"what do ya want for nothing?".to_vec(),
            sha256: "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843",
            sha512: "164b7a7bfcf819e2e395fbe73b56e0a387bd64222e831fd610270cd7ea250554\
                     9758bf75c05a994a6d034f65f8f0e6fdcaeab1a34d4a6b4b636e070a38bce737",
        },
        HmacCase {
            key: vec![0xaa; 20],
            data: vec![0xdd; 50],
            sha256: "773ea91e36800e46854db8ebd09181a72959098b3ef8c122d9635514ced565fe",
            sha512: "fa73b0089d56a284efb0f0756c890be9b1b5dbdd8ee81a3655f83e33b2279d39\
                     bf3e848279a722c806b485a47e67c807b946a337bee8942674278859e13292fb",
        },
        HmacCase {
            key: (1..=25).collect(),
            data: vec![0xcd; 50],
            sha256: "82558a389a443c0ea4cc819899f2083a85f0faa3e578f8077a2e3ff46729665b",
            sha512: "b0ba465637458c6990e5a8c5f61d4af7e576d97ff94b872de76f8050361ee3db\
                     a91ca5c11aa25eb4d679275cc5788063a5f19741120c4f2de2adebeb10a298dd",
        },
        HmacCase {
            key: vec![0x0c; 20],
            data: b"Test With Truncation".to_vec(),
            sha256: "a3b6167473100ee06e0c796c2955552b",
            sha512: "415fad6271580a531d4179bc891d87a6",
        },
        HmacCase {
            key: big_key.clone(),
            data: b"Test Using Larger Than Block-Size Key - Hash Key First".to_vec(),
            sha256: "60e431591ee0b67f0d8a26aacbf5b77f8e0bc6213728c5140546040f0ee37f54",
            sha512: "80b24263c7c1a3ebb71493c1dd7be8b49b46d1f41b4aeec1121b013783f8f352\
                     6b56d037e05f2598bd0fd2215d6a1e5295e64f73f63f0aec8b915a985d786598",
        },
        HmacCase {
            key: big_key,
            data: b"This is a test using a larger than block-size key and a larger than \
                    block-size data. The key needs to be hashed before being used by the \
                    HMAC algorithm."
                .to_vec(),
            sha256: "9b09ffa71b942fcb27635fbcd5b0e944bfdc63644f0713938a7f51535c3a35e2",
            sha512: "e37b6a775dc87dbaa4dfa9f96e5e3ffddebd71f8867289865df5a32d20cdc944\
                     b6022cac3c4982b10d5eeb55c3e4de15134676fb6de0446065c97440fa8c6a58",
        },
    ]
}

fn hmac_hex<D>(key: &[u8], data: &[u8]) -> String
where
    hmac::Hmac<D>: hmac::Mac + hmac::digest::KeyInit,
    D: hmac::EagerHash,
{
    use hmac::{digest::KeyInit, Mac};
    let mut mac = <hmac::Hmac<D> as KeyInit>::new_from_slice(key).expect("any key length");
    mac.update(data);
    hex(&mac.finalize().into_bytes())
}

#[test]
fn rfc4231_hmac_sha256_and_sha512() {
    let cases = rfc4231_cases();
    assert_eq!(cases.len(), 7);
    for (i, case) in cases.iter().enumerate() {
        let n = i + 1;
        let got256 = hmac_hex::<parhash::Sha256>(&case.key, &case.data);
        let got512 = hmac_hex::<parhash::Sha512>(&case.key, &case.data);
        assert!(
            got256.starts_with(case.sha256),
            "HMAC-SHA-256 case {n}: {got256}"
        );
        assert!(
            got512.starts_with(case.sha512),
            "HMAC-SHA-512 case {n}: {got512}"
        );
        // Only case 5 is truncated (to 128 bits); all others give the full output.
        let full = n != 5;
        assert_eq!(case.sha256.len() == 64, full, "case {n}");
        assert_eq!(case.sha512.len() == 128, full, "case {n}");
    }
}

#[test]
fn names_tags_and_aliases() {
    for (name, alg, tag) in [
        ("sha224", Algorithm::Sha224, "SHA224"),
        ("sha256", Algorithm::Sha256, "SHA256"),
        ("sha384", Algorithm::Sha384, "SHA384"),
        ("sha512", Algorithm::Sha512, "SHA512"),
        ("sha512-224", Algorithm::Sha512_224, "SHA512-224"),
        ("sha512-256", Algorithm::Sha512_256, "SHA512-256"),
    ] {
        assert_eq!(alg.name(), name);
        assert_eq!(alg.info().tag, tag);
        assert_eq!(Algorithm::from_name(tag), Ok(alg));
        assert!(!alg.info().broken);
    }
}

/// The assembly forms are offered (and so run by every test above that walks the available
/// variants) exactly where the CPU has their ISA and `PARHASH_DISABLE_ISA` leaves it on.
#[cfg(target_arch = "x86_64")]
#[test]
fn sha512_rorx_forms_run_where_the_cpu_has_them() {
    rorx_forms_run_where_the_cpu_has_them(&available_variants::<parhash::Sha512>());
}

/// The same for SHA-256's `rorx` forms.
#[cfg(target_arch = "x86_64")]
#[test]
fn sha256_rorx_forms_run_where_the_cpu_has_them() {
    rorx_forms_run_where_the_cpu_has_them(&available_variants::<parhash::Sha256>());
    rorx_forms_run_where_the_cpu_has_them(&available_variants::<parhash::Sha224>());
}

/// SHA-1's `rorx-avx2` (rounds in assembly) is offered exactly where AVX2 and BMI2 are, and is
/// the default there unless the SHA extensions are present.
#[cfg(target_arch = "x86_64")]
#[test]
fn sha1_rorx_form_runs_where_the_cpu_has_it() {
    use parhash::lab::algo::Variants;
    use parhash::lab::platform::{Avx2, Bmi2, ShaNi};
    let present = Bmi2::detect().is_some() && Avx2::detect().is_some();
    let variants = available_variants::<parhash::Sha1>();
    assert_eq!(variants.contains(&"rorx-avx2"), present, "{variants:?}");
    let default = parhash::Sha1::variants()
        .into_iter()
        .find(|v| v.default)
        .expect("one default");
    if present && ShaNi::detect().is_none() {
        assert_eq!(default.name, "rorx-avx2");
    }
}

#[cfg(target_arch = "x86_64")]
fn rorx_forms_run_where_the_cpu_has_them(variants: &[&str]) {
    use parhash::lab::platform::{Avx2, Avx512, Bmi2};
    let bmi2 = Bmi2::detect().is_some();
    for (name, present) in [
        ("rorx-avx2", bmi2 && Avx2::detect().is_some()),
        ("rorx-avx512", bmi2 && Avx512::detect().is_some()),
    ] {
        assert_eq!(variants.contains(&name), present, "{name}: {variants:?}");
    }
}
