//! PARSHA-256: the fast engine (every kernel, 1..=3 threads, one-shot and fed in two pieces)
//! equals the literal reference, for tree heights 1..=16 and every IV length.
#![no_main]

use libfuzzer_sys::fuzz_target;
use parhash::lab::algo::parsha256::{parsha256_with, reference, Parsha256Hasher, ParshaOptions};
use parhash::lab::lanes::Kernel;

fuzz_target!(|input: &[u8]| {
    let [params, cut, data @ ..] = input else {
        return;
    };
    let tree_height = u32::from(params % 16) + 1;
    let iv_bits = [0, 128, 256][usize::from(params / 16 % 3)];
    let want = reference::parsha256(data, tree_height, iv_bits).expect("valid parameters");
    let cut = *cut as usize * data.len() / 256;
    for kernel in Kernel::all(true) {
        for threads in 1..=3 {
            let options = ParshaOptions {
                threads: threads.into(),
                kernel: Some(kernel),
            };
            let got = parsha256_with(data, tree_height, iv_bits, &options).expect("valid");
            assert_eq!(
                got,
                want,
                "T={tree_height} l={iv_bits} {} {threads}",
                kernel.name()
            );
            let mut h = Parsha256Hasher::new(data.len() as u64, tree_height, iv_bits, &options)
                .expect("valid");
            h.update(&data[..cut]);
            h.update(&data[cut..]);
            assert_eq!(
                h.finalize().expect("declared length"),
                want,
                "streamed at {cut}"
            );
        }
    }
});
