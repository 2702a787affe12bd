//! Injected faults: what a read gets instead of the backing file's bytes. Decided here, apart
//! from FUSE, so the rules are tested without a mount.

use std::time::Duration;

/// Faults a mount injects ([`crate::SeekFs::faults`]); the default injects none.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Faults {
    /// A read that would serve the byte at this offset fails with `EIO` (every time: a bad
    /// sector). Reads that end before it, or start after it, succeed.
    pub fail_at: Option<u64>,
    /// Each read serves at most this many bytes (at least 1); the reader must ask again for
    /// the rest. The mount then opens the file for direct I/O, so each `read(2)` reaches the
    /// file system and sees the short count (through the page cache, the kernel would take a
    /// short reply for the end of the file).
    pub short_reads: Option<u32>,
    /// The file changes while it is served.
    pub change: Option<Change>,
}

/// A file that changes under its reader: once [`Change::after`] bytes have been served (over
/// every read of the mount), every later read sees the new version, which stays.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Change {
    /// Bytes served before the change: a read that starts once this many were served sees the
    /// new version (the read that crosses the mark still gets the old bytes).
    pub after: u64,
    /// From this offset on, the new version's bytes are the old ones inverted (`!b`).
    pub flip_from: Option<u64>,
    /// The new version's size (cut short, or extended with zeros); its reported size too.
    pub size: Option<u64>,
    /// The new version's modification and change times are one second later, as a write
    /// would move them (without, the change is one no reader can see in the metadata).
    pub touch: bool,
}

/// What the mtime and ctime move by when a [`Change`] with `touch` happens.
pub const TOUCH: Duration = Duration::from_secs(1);

/// A read that fails: the file system answers `EIO`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ReadError;

/// What one read serves: `len` bytes from its offset, read from the backing file (zeros past
/// its end), then [`Served::apply`]'d.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Served {
    /// Bytes to reply with.
    pub len: u64,
    /// Bytes from this offset on are inverted.
    pub flip_from: Option<u64>,
}

impl Served {
    /// Turns the backing file's bytes of this read, which starts at `offset`, into what is
    /// served.
    pub fn apply(&self, offset: u64, buf: &mut [u8]) {
        if let Some(from) = self.flip_from {
            let skip = from.saturating_sub(offset).min(buf.len() as u64) as usize;
            buf[skip..].iter_mut().for_each(|b| *b = !*b);
        }
    }
}

/// The faults of one mount and what they have done: the bytes served so far (for
/// [`Change::after`]).
#[derive(Debug, Default)]
pub struct FaultState {
    faults: Faults,
    served: u64,
}

impl FaultState {
    /// No bytes served yet.
    pub fn new(faults: Faults) -> FaultState {
        FaultState { faults, served: 0 }
    }

    /// The faults injected.
    pub fn faults(&self) -> Faults {
        self.faults
    }

    /// Whether the file has changed (to its new version, for good).
    pub fn changed(&self) -> bool {
        self.faults
            .change
            .is_some_and(|change| self.served >= change.after)
    }

    /// The size the file has now, for a backing file of `backing_len` bytes.
    pub fn size(&self, backing_len: u64) -> u64 {
        match self.faults.change {
            Some(Change {
                size: Some(size), ..
            }) if self.changed() => size,
            _ => backing_len,
        }
    }

    /// How much later the file's times are now than the backing file's.
    pub fn times_moved(&self) -> Duration {
        match self.faults.change {
            Some(Change { touch: true, .. }) if self.changed() => TOUCH,
            _ => Duration::ZERO,
        }
    }

    /// Serves a read of up to `size` bytes at `offset` of a backing file of `backing_len`
    /// bytes: what it gets, or the injected error; counts what it served.
    pub fn read(&mut self, offset: u64, size: u32, backing_len: u64) -> Result<Served, ReadError> {
        let mut len = u64::from(size).min(self.size(backing_len).saturating_sub(offset));
        if let Some(most) = self.faults.short_reads {
            len = len.min(u64::from(most.max(1)));
        }
        if self
            .faults
            .fail_at
            .is_some_and(|bad| offset <= bad && bad < offset + len)
        {
            return Err(ReadError);
        }
        let flip_from = match self.faults.change {
            Some(change) if self.changed() => change.flip_from,
            _ => None,
        };
        self.served += len;
        Ok(Served { len, flip_from })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Read errors at `fail_at` and reads of at most `short_reads` bytes.
    fn faulty(fail_at: Option<u64>, short_reads: Option<u32>) -> FaultState {
        FaultState::new(Faults {
            fail_at,
            short_reads,
            change: None,
        })
    }

    #[test]
    fn no_faults_serve_the_file() {
        let mut state = FaultState::default();
        assert_eq!(
            state.read(0, 4096, 1000),
            Ok(Served {
                len: 1000,
                flip_from: None
            })
        );
        assert_eq!(state.read(1000, 10, 1000).unwrap().len, 0);
        assert_eq!(
            (state.size(1000), state.times_moved()),
            (1000, Duration::ZERO)
        );
    }

    #[test]
    fn a_read_that_touches_the_bad_offset_fails_every_time() {
        let mut state = faulty(Some(100), None);
        assert_eq!(state.read(0, 100, 1000).unwrap().len, 100);
        assert_eq!(state.read(0, 101, 1000), Err(ReadError));
        assert_eq!(state.read(100, 1, 1000), Err(ReadError));
        assert_eq!(state.read(50, 4096, 1000), Err(ReadError));
        assert_eq!(state.read(101, 4096, 1000).unwrap().len, 899);
        // Past the end of the file nothing is served, so nothing fails.
        let mut past_end = faulty(Some(2000), None);
        assert_eq!(past_end.read(0, 4096, 1000).unwrap().len, 1000);
    }

    #[test]
    fn short_reads_serve_at_most_their_count() {
        let mut state = faulty(Some(21), Some(7));
        assert_eq!(state.read(0, 4096, 1000).unwrap().len, 7);
        assert_eq!(state.read(7, 4096, 1000).unwrap().len, 7);
        // A short read that stops before the bad offset succeeds; one that reaches it fails.
        assert_eq!(state.read(14, 4096, 1000).unwrap().len, 7);
        assert_eq!(state.read(15, 4096, 1000), Err(ReadError));
        assert_eq!(state.read(21, 4096, 1000), Err(ReadError));
        assert_eq!(state.read(997, 4096, 1000).unwrap().len, 3);
        let mut zero = faulty(None, Some(0));
        assert_eq!(zero.read(0, 4096, 1000).unwrap().len, 1, "0 means 1");
    }

    #[test]
    fn the_file_changes_after_its_bytes_and_stays_changed() {
        let mut state = FaultState::new(Faults {
            change: Some(Change {
                after: 100,
                flip_from: Some(150),
                size: Some(300),
                touch: true,
            }),
            ..Faults::default()
        });
        // The read that crosses the mark gets the old version, in full.
        let first = state.read(0, 120, 1000).unwrap();
        assert_eq!((first.len, first.flip_from), (120, None));
        assert!(state.changed());
        assert_eq!((state.size(1000), state.times_moved()), (300, TOUCH));
        let second = state.read(120, 4096, 1000).unwrap();
        assert_eq!((second.len, second.flip_from), (180, Some(150)));
        let mut buf = [0x0f_u8; 180];
        second.apply(120, &mut buf);
        assert!(buf[..30].iter().all(|&b| b == 0x0f));
        assert!(buf[30..].iter().all(|&b| b == 0xf0));
        // A read that starts past the flip offset is inverted whole; past the new end, empty.
        let mut tail = [1_u8; 4];
        state.read(200, 4, 1000).unwrap().apply(200, &mut tail);
        assert_eq!(tail, [0xfe; 4]);
        assert_eq!(state.read(300, 4096, 1000).unwrap().len, 0);
    }

    #[test]
    fn a_change_without_touch_keeps_the_times_and_size() {
        let mut state = FaultState::new(Faults {
            change: Some(Change {
                after: 0,
                flip_from: Some(0),
                ..Change::default()
            }),
            ..Faults::default()
        });
        assert!(state.changed(), "a mark of 0 bytes: changed from the start");
        assert_eq!((state.size(10), state.times_moved()), (10, Duration::ZERO));
        assert_eq!(state.read(0, 10, 10).unwrap().flip_from, Some(0));
    }
}
