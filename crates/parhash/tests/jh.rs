//! JH: streaming after a reset. Its ShortMsgKAT files are in `short_msg_kat.rs`, the
//! differential tests against the RustCrypto `jh` crate in `differential.rs`.
mod common;

#[test]
fn streaming_reset_and_byte_pieces() {
    common::check_pieces_after_reset::<parhash::Jh256>(1000);
}
