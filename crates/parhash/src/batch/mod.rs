//! The multi-message engine: many independent messages hashed side by side in SIMD lanes and
//! across threads.
