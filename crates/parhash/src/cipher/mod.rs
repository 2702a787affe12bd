//! Block ciphers studied beside the hashes. They are not hash functions, so they are not in the
//! hash [`registry`](crate::registry), `parhash sum` or `parhash list`; use them directly.

pub mod rc5;
