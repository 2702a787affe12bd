//! Tree modes: one long message split over many cores and SIMD lanes (PARSHA-256, SANDstorm).
pub mod parsha256;
pub mod sandstorm;
