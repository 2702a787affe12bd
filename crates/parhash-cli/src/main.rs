//! `parhash`: hash, check and benchmark from the command line.

fn main() {
    println!("parhash {}", env!("CARGO_PKG_VERSION"));
}
