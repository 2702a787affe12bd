//! The library guide's example (docs/library.md, "Quick start", shows the body of `main`; the
//! test `tests/readme_example.rs` fails if the two drift apart). Run it with
//! `cargo run -p parhash --example quickstart`.

use parhash::{hash, Algorithm, Hasher, Threads, TreeParams};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    // One message, the fastest implementation this CPU has. For a whole message in memory this
    // is the fastest form: MD5, SHA-1 and SHA-2 pad and compress a short message in one call
    // (64 bytes: 1.17-1.57x RustCrypto's `Digest::digest`), where a `Hasher` streams; with
    // AVX-512, a BLAKE3 message of up to 64 bytes is one compression (1.1-1.3x `blake3::hash`).
    let digest = hash(Algorithm::Sha256, b"abc");
    assert_eq!(digest.to_hex()[..8], *"ba7816bf");

    // Algorithms by name, as `parhash sum -a` takes them: case, separators and other tools'
    // names are forgiven (`b2` is blake2b), and near misses are suggested.
    let blake3: Algorithm = "BLAKE3".parse()?;
    assert_eq!(hash(blake3, b"abc").to_hex()[..8], *"6437b3ac");
    assert_eq!(Algorithm::suggest("sha-265"), ["sha256"]);

    // Everything else through one builder, for every algorithm alike: the digest length (BLAKE2
    // and the extendable-output functions BLAKE3 and SHAKE; this is `b2sum -l 256`), threads
    // (the tree modes and BLAKE3 split one long message over them), a forced variant (`parhash
    // list` names them), PARSHA-256's tree parameters, and the length when it is known
    // (PARSHA-256 then streams instead of buffering, and `try_finalize` reports a file that
    // changed size).
    let mut h = Hasher::builder(Algorithm::Blake2b)
        .digest_size(32)
        .build()?;
    h.update(b"abc");
    assert_eq!(h.finalize().to_hex()[..8], *"bddd813c");

    let mut h = Hasher::builder(Algorithm::Parsha256)
        .threads(Threads::new(2))
        .tree_params(TreeParams::new(13, 0)?)
        .expected_len(3)
        .build()?;
    h.update(b"abc");
    let digest = h.try_finalize()?;
    println!("PARSHA-256 (T 13, l 0) of abc: {digest}");

    // Many messages side by side in SIMD lanes and over all cores, digests in input order.
    let digests = parhash::batch::hash_many(Algorithm::Md5, &[b"a".as_slice(), b"b"]);
    assert_eq!(digests.len(), 2);
    Ok(())
}
