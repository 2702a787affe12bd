//! Files for the file engine's tests: seeded contents, and a file resized while it is hashed.

use std::fs::{File, OpenOptions};
use std::io::{self, Write};
use std::path::{Path, PathBuf};
use std::sync::Once;

use parhash::file::{FileChangedSize, Progress};
use rand::{rngs::StdRng, RngCore, SeedableRng};

/// `len` pseudo-random bytes, the same for the same seed.
pub fn seeded_bytes(len: usize, seed: u64) -> Vec<u8> {
    let mut data = vec![0; len];
    StdRng::seed_from_u64(seed).fill_bytes(&mut data);
    data
}

/// Writes `data` to `dir/name`; its path.
pub fn write_file(dir: &Path, name: &str, data: &[u8]) -> PathBuf {
    let path = dir.join(name);
    File::create(&path).unwrap().write_all(data).unwrap();
    path
}

/// Sets the length of a file once the first piece has been hashed (on whichever thread).
pub struct ResizeAfterFirstPiece {
    pub path: PathBuf,
    pub new_len: u64,
    pub done: Once,
}

impl Progress for ResizeAfterFirstPiece {
    fn hashed(&self, _bytes: u64) {
        self.done.call_once(|| {
            let file = OpenOptions::new().write(true).open(&self.path).unwrap();
            file.set_len(self.new_len).unwrap();
        });
    }
}

/// The [`FileChangedSize`] inside `err` (a panic if there is none).
pub fn changed_size(err: &io::Error) -> FileChangedSize {
    *err.get_ref()
        .and_then(|e| e.downcast_ref::<FileChangedSize>())
        .unwrap_or_else(|| panic!("not a changed size: {err:?}"))
}
