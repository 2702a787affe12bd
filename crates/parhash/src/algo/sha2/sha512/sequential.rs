//! The `sequential` SHA-384/512 compression: portable scalar code, literal to FIPS 180-4
//! section 6.4.2, with all 80 rounds unrolled. Working variables are renamed from round to round
//! instead of shifted; the message schedule is a rolling 16-word window.

super::super::rounds::scalar_form! {
    u64, 128, K512, big_sigma0 (28 34 39), big_sigma1 (14 18 41), small_sigma0 (1 8 >> 7),
    small_sigma1 (19 61 >> 6); 0 8 16 24 32 40 48 56 64 72
}
