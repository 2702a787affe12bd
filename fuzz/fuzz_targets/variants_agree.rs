//! One algorithm (picked by the first byte), one message, fed in pieces (cut where the next
//! bytes say): every implementation variant this CPU has, streamed, must equal the one-shot
//! `parhash::hash`, and that must equal the RustCrypto oracle (or the blake3 crate) where one
//! is a dependency here.
#![no_main]

use digest::Digest;
use libfuzzer_sys::fuzz_target;
use parhash::{Algorithm, Hasher};

fn oracle(alg: Algorithm, data: &[u8]) -> Option<Vec<u8>> {
    Some(match alg.name() {
        "md5" => md5::Md5::digest(data).to_vec(),
        "sha1" => sha1::Sha1::digest(data).to_vec(),
        "sha224" => sha2::Sha224::digest(data).to_vec(),
        "sha256" => sha2::Sha256::digest(data).to_vec(),
        "sha384" => sha2::Sha384::digest(data).to_vec(),
        "sha512" => sha2::Sha512::digest(data).to_vec(),
        "sha512-224" => sha2::Sha512_224::digest(data).to_vec(),
        "sha512-256" => sha2::Sha512_256::digest(data).to_vec(),
        "sha3-224" => sha3::Sha3_224::digest(data).to_vec(),
        "sha3-256" => sha3::Sha3_256::digest(data).to_vec(),
        "sha3-384" => sha3::Sha3_384::digest(data).to_vec(),
        "sha3-512" => sha3::Sha3_512::digest(data).to_vec(),
        "keccak256" => sha3::Keccak256::digest(data).to_vec(),
        "keccak512" => sha3::Keccak512::digest(data).to_vec(),
        "blake3" => blake3::hash(data).as_bytes().to_vec(),
        _ => return None,
    })
}

fuzz_target!(|input: &[u8]| {
    let [pick, cut_a, cut_b, data @ ..] = input else {
        return;
    };
    let alg = Algorithm::ALL[*pick as usize % Algorithm::ALL.len()];
    let one_shot = parhash::hash(alg, data);
    if let Some(want) = oracle(alg, data) {
        assert_eq!(one_shot.as_bytes(), &want[..], "{alg} against its oracle");
    }
    let cuts = {
        let mut c = [
            *cut_a as usize * data.len() / 256,
            *cut_b as usize * data.len() / 256,
        ];
        c.sort_unstable();
        c
    };
    for variant in alg.variants().into_iter().filter(|v| v.available) {
        let mut h = Hasher::with_variant(alg.variant(variant.name).expect("an available variant"));
        h.update(&data[..cuts[0]]);
        h.update(&data[cuts[0]..cuts[1]]);
        h.update(&data[cuts[1]..]);
        assert_eq!(
            h.finalize(),
            one_shot,
            "{alg} {} streamed at {cuts:?}",
            variant.name
        );
    }
});
