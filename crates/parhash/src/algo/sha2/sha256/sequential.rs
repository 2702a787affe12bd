//! The `sequential` SHA-256 compression: portable scalar code, literal to FIPS 180-4 section
//! 6.2.2, with all 64 rounds unrolled. The eight working variables are renamed from round to
//! round instead of being shifted, and the message schedule is a rolling 16-word window computed
//! just before the round that needs it.

super::super::rounds::scalar_form! {
    u32, 64, K256, big_sigma0 (2 13 22), big_sigma1 (6 11 25), small_sigma0 (7 18 >> 3),
    small_sigma1 (17 19 >> 10); 0 8 16 24 32 40 48 56
}
