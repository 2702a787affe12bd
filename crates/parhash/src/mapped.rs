//! Read-only memory maps of files that stay safe when the file shrinks under them (Linux).
//!
//! Why a map: a file in the page cache is hashed from the cache's own pages, with no copy
//! into a buffer (the copy is a large part of a tree mode's work on a cached file; BENCHMARKS.md,
//! maps). Why maps are usually avoided: when another process truncates a mapped file, the
//! next access past the new end raises `SIGBUS`, which kills the process. Here a process-wide
//! `SIGBUS` handler catches the faults inside the maps this module made: it puts a page of
//! zeros where the vanished page was, marks the map as faulted and returns, so the access
//! goes on and the caller, which asks [`Mapping::faulted`] after hashing, reports the file's
//! change as an error. A fault anywhere else goes to the handler that was there before (or
//! the default action, which kills the process as it would have).
//!
//! The handler is installed the first time a map is made. A map is made only while it is
//! still the handler in place: if other code replaced it since (Python's `faulthandler`, a
//! JVM), [`Mapping::new`] says no and the caller reads instead. A caller that owns `SIGBUS`
//! turns maps off for the whole process first ([`disable`], public as
//! `file::disable_memory_maps`), and then the handler is never installed.
//!
//! What a map does not protect against, as reads do not: bytes changed in place by another
//! process while they are hashed give the digest of a mixture (see `file`'s notes).

use std::fs::File;
use std::ops::Range;
use std::os::fd::AsRawFd;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Mutex, OnceLock};

/// Maps that may be live at once (one per file hashed in parallel; more are refused and read).
const SLOTS: usize = 64;

/// One live map's address range, as the signal handler sees it: `start` is 0 when free.
struct Slot {
    start: AtomicUsize,
    end: AtomicUsize,
    faulted: AtomicBool,
}

#[allow(clippy::declare_interior_mutable_const)] // the array's initialiser, one fresh slot each
const FREE: Slot = Slot {
    start: AtomicUsize::new(0),
    end: AtomicUsize::new(0),
    faulted: AtomicBool::new(false),
};

static LIVE: [Slot; SLOTS] = [FREE; SLOTS];

/// The system's page size, read once when the handler is installed (the handler may not call
/// `sysconf`).
static PAGE: AtomicUsize = AtomicUsize::new(4096);

/// The `SIGBUS` action that was in place before ours, for faults that are not ours.
static PREVIOUS: OnceLock<libc::sigaction> = OnceLock::new();

/// Whether our handler was installed, and whether maps are turned off for the process: one
/// lock, so that no map installs the handler once [`disable`] has returned.
static STATE: Mutex<State> = Mutex::new(State {
    installed: false,
    disabled: false,
});

struct State {
    installed: bool,
    disabled: bool,
}

/// A read-only map of the first `len` bytes of a file.
pub(crate) struct Mapping {
    start: *const u8,
    len: usize,
    slot: usize,
}

// SAFETY: the map is read-only memory owned by this value; any thread may read it.
unsafe impl Send for Mapping {}
// SAFETY: as above; `faulted` reads an atomic.
unsafe impl Sync for Mapping {}

impl Mapping {
    /// Maps the first `len` bytes of `file` (which must be at least that long now), or `None`
    /// where that cannot be done safely: not Linux, an empty or huge length, maps turned off
    /// ([`disable`]), another `SIGBUS` handler in place of ours, all slots in use, or `mmap`
    /// refused.
    pub(crate) fn new(file: &File, len: u64) -> Option<Mapping> {
        let len = usize::try_from(len).ok().filter(|&l| l > 0)?;
        if !handler_in_place() {
            return None;
        }
        // SAFETY: a fresh shared read-only map of an open file; the kernel picks the address.
        let start = unsafe {
            libc::mmap(
                std::ptr::null_mut(),
                len,
                libc::PROT_READ,
                libc::MAP_SHARED,
                file.as_raw_fd(),
                0,
            )
        };
        if start == libc::MAP_FAILED {
            return None;
        }
        let start = start as *const u8;
        let Some(slot) = claim(start as usize, len) else {
            // SAFETY: unmapping the map made above, which nothing else has seen.
            unsafe { libc::munmap(start as *mut libc::c_void, len) };
            return None;
        };
        Some(Mapping { start, len, slot })
    }

    /// The mapped bytes. A page the file no longer has reads as zeros (and [`Self::faulted`]
    /// turns true).
    pub(crate) fn bytes(&self) -> &[u8] {
        // SAFETY: `start..start + len` is mapped readable until `drop`, which needs `&mut self`;
        // pages the file lost are replaced by zeros by the handler rather than left faulting.
        unsafe { std::slice::from_raw_parts(self.start, self.len) }
    }

    /// Asks the kernel to map `range` of the bytes in one go (`MADV_POPULATE_READ`, Linux
    /// 5.14+) rather than by a fault every few pages; `false` when it says part of the range
    /// is past the file's end (it shrank). Older kernels refuse the advice: then `true`, and the
    /// pages fault in as they are read.
    pub(crate) fn populate(&self, range: Range<usize>) -> bool {
        let page = PAGE.load(Ordering::Relaxed);
        let first = range.start / page * page;
        let end = range.end.min(self.len);
        if first >= end {
            return true;
        }
        // SAFETY: `first..end` lies inside this map (page-aligned start); the advice only
        // reads.
        let status = unsafe {
            libc::madvise(
                self.start.add(first) as *mut libc::c_void,
                end - first,
                libc::MADV_POPULATE_READ,
            )
        };
        status == 0 || std::io::Error::last_os_error().raw_os_error() != Some(libc::EFAULT)
    }

    /// Drops this process's mappings of the whole pages in `range` (`MADV_DONTNEED`; the pages
    /// stay in the page cache and map again if read): once a piece is hashed, so that the
    /// process's resident memory stays the pieces in flight, not the whole file.
    pub(crate) fn release(&self, range: Range<usize>) {
        let page = PAGE.load(Ordering::Relaxed);
        let first = range.start.div_ceil(page) * page;
        let end = if range.end >= self.len {
            self.len.div_ceil(page) * page
        } else {
            range.end / page * page
        };
        if first >= end {
            return;
        }
        // SAFETY: `first..end` is whole pages of this map; dropping the mappings of a shared
        // file map loses nothing (the pages are the file's), and a later read maps them again.
        unsafe {
            libc::madvise(
                self.start.add(first) as *mut libc::c_void,
                end - first,
                libc::MADV_DONTNEED,
            );
        }
    }

    /// Whether an access met a page the file no longer had (it was truncated, or the storage
    /// failed to read it): the bytes read there were zeros, not the file's.
    pub(crate) fn faulted(&self) -> bool {
        LIVE[self.slot].faulted.load(Ordering::Acquire)
    }
}

impl Drop for Mapping {
    fn drop(&mut self) {
        let slot = &LIVE[self.slot];
        slot.end.store(0, Ordering::Release);
        slot.faulted.store(false, Ordering::Relaxed);
        // SAFETY: the map made in `new`, no longer borrowed (`bytes` borrows `self`).
        unsafe { libc::munmap(self.start as *mut libc::c_void, self.len) };
        slot.start.store(0, Ordering::Release);
    }
}

/// A free slot for `start..start + len`, `None` if all are in use.
fn claim(start: usize, len: usize) -> Option<usize> {
    LIVE.iter().position(|slot| {
        let claimed = slot
            .start
            .compare_exchange(0, start, Ordering::AcqRel, Ordering::Relaxed)
            .is_ok();
        if claimed {
            slot.faulted.store(false, Ordering::Relaxed);
            slot.end.store(start + len, Ordering::Release);
        }
        claimed
    })
}

/// Installs the handler the first time; afterwards, whether it is still the one in place.
/// `false`, installing nothing, once maps are turned off.
fn handler_in_place() -> bool {
    let mut state = STATE.lock().unwrap_or_else(|p| p.into_inner());
    if state.disabled {
        return false;
    }
    if !state.installed {
        state.installed = install();
        return state.installed;
    }
    current_handler() == Some(on_sigbus as *const () as usize)
}

/// Makes no map from now on in this process, so that the handler is never installed if it is
/// not yet. One already installed stays: another thread may be reading a map of its own.
pub(crate) fn disable() {
    STATE.lock().unwrap_or_else(|p| p.into_inner()).disabled = true;
}

/// Whether our handler is installed and still the one in place.
pub(crate) fn handler_installed() -> bool {
    let state = STATE.lock().unwrap_or_else(|p| p.into_inner());
    state.installed && current_handler() == Some(on_sigbus as *const () as usize)
}

/// The handler address of the current `SIGBUS` action.
fn current_handler() -> Option<usize> {
    // SAFETY: `sigaction` with a null new action only reads the current one into `current`.
    unsafe {
        let mut current: libc::sigaction = std::mem::zeroed();
        (libc::sigaction(libc::SIGBUS, std::ptr::null(), &mut current) == 0)
            .then_some(current.sa_sigaction)
    }
}

fn install() -> bool {
    // SAFETY: `sysconf` has no preconditions.
    let page = unsafe { libc::sysconf(libc::_SC_PAGESIZE) };
    if page > 0 {
        PAGE.store(page as usize, Ordering::Relaxed);
    }
    // SAFETY: reads the current action, then installs ours (SA_SIGINFO: the handler takes the
    // fault's address; SA_ONSTACK: it also runs on a thread whose stack is exhausted). The
    // previous action is stored before ours can run.
    unsafe {
        let mut previous: libc::sigaction = std::mem::zeroed();
        if libc::sigaction(libc::SIGBUS, std::ptr::null(), &mut previous) != 0 {
            return false;
        }
        let _ = PREVIOUS.set(previous);
        let mut ours: libc::sigaction = std::mem::zeroed();
        ours.sa_sigaction = on_sigbus as *const () as usize;
        ours.sa_flags = libc::SA_SIGINFO | libc::SA_ONSTACK;
        libc::sigemptyset(&mut ours.sa_mask);
        libc::sigaction(libc::SIGBUS, &ours, std::ptr::null_mut()) == 0
    }
}

/// The `SIGBUS` handler: a fault inside a live map gets a page of zeros and marks the map;
/// any other goes to the previous action. Only async-signal-safe work: atomics and `mmap`.
extern "C" fn on_sigbus(
    signal: libc::c_int,
    info: *mut libc::siginfo_t,
    context: *mut libc::c_void,
) {
    // SAFETY: the kernel passes a valid `siginfo_t` to an SA_SIGINFO handler; for SIGBUS its
    // address field is the faulting address.
    let address = unsafe { (*info).si_addr() } as usize;
    let page = PAGE.load(Ordering::Relaxed);
    for slot in &LIVE {
        let start = slot.start.load(Ordering::Acquire);
        let end = slot.end.load(Ordering::Acquire);
        if start == 0 || address < start || address >= end {
            continue;
        }
        let page_start = address / page * page;
        // SAFETY: replaces one page of our own live map (inside `start..end`) with a private
        // page of zeros: the faulting read then completes, and nothing else uses that page.
        let zeros = unsafe {
            libc::mmap(
                page_start as *mut libc::c_void,
                page,
                libc::PROT_READ,
                libc::MAP_PRIVATE | libc::MAP_ANONYMOUS | libc::MAP_FIXED,
                -1,
                0,
            )
        };
        if zeros != libc::MAP_FAILED {
            slot.faulted.store(true, Ordering::Release);
            return;
        }
    }
    pass_on(signal, info, context);
}

/// A fault that is not ours: the previous handler, or the default action (restored, so that
/// the faulting access, repeated on return, ends the process as it would have without us).
fn pass_on(signal: libc::c_int, info: *mut libc::siginfo_t, context: *mut libc::c_void) {
    let Some(previous) = PREVIOUS.get() else {
        return restore_default(signal);
    };
    let handler = previous.sa_sigaction;
    if handler == libc::SIG_DFL || handler == libc::SIG_IGN {
        return restore_default(signal);
    }
    if previous.sa_flags & libc::SA_SIGINFO != 0 {
        // SAFETY: the previous action said SA_SIGINFO, so its handler has this signature.
        let run: extern "C" fn(libc::c_int, *mut libc::siginfo_t, *mut libc::c_void) =
            unsafe { std::mem::transmute(handler) };
        run(signal, info, context);
    } else {
        // SAFETY: without SA_SIGINFO the previous handler takes the signal number alone.
        let run: extern "C" fn(libc::c_int) = unsafe { std::mem::transmute(handler) };
        run(signal);
    }
}

fn restore_default(signal: libc::c_int) {
    // SAFETY: installs the default action for `signal`; async-signal-safe.
    unsafe {
        let mut default: libc::sigaction = std::mem::zeroed();
        default.sa_sigaction = libc::SIG_DFL;
        libc::sigaction(signal, &default, std::ptr::null_mut());
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write;

    fn file_of(len: usize) -> (tempfile::NamedTempFile, Vec<u8>) {
        let data: Vec<u8> = (0..len).map(|i| (i * 7 + 1) as u8).collect();
        let mut file = tempfile::NamedTempFile::new().unwrap();
        file.write_all(&data).unwrap();
        file.flush().unwrap();
        (file, data)
    }

    #[test]
    fn maps_the_bytes_and_populates() {
        let (file, data) = file_of(3 * 65536 + 123);
        let map = Mapping::new(file.as_file(), data.len() as u64).expect("a map on Linux");
        assert!(map.populate(0..data.len()));
        assert_eq!(map.bytes(), &data[..]);
        // Released pages read the same again.
        map.release(100..70_000);
        map.release(0..data.len());
        assert_eq!(map.bytes(), &data[..]);
        assert!(!map.faulted());
    }

    /// The promise: a file truncated under its map reads as zeros past the new end and says
    /// so, where an unprotected map would kill the test process with SIGBUS.
    #[test]
    fn a_truncated_file_faults_into_zeros_not_a_crash() {
        let page = 4096 * 4;
        let (file, data) = file_of(8 * page);
        let map = Mapping::new(file.as_file(), data.len() as u64).expect("a map on Linux");
        assert_eq!(map.bytes()[..page], data[..page]);
        file.as_file().set_len(2 * page as u64).unwrap();
        assert!(
            !map.populate(0..data.len()),
            "the kernel says the range is past the end"
        );
        let sum: u64 = map.bytes().iter().map(|&b| b as u64).sum();
        let kept: u64 = data[..2 * page].iter().map(|&b| b as u64).sum();
        assert_eq!(sum, kept, "the lost pages read as zeros");
        assert!(map.faulted());
        drop(map);
        // The slot is free again and a new map starts unfaulted.
        let again = Mapping::new(file.as_file(), 2 * page as u64).unwrap();
        assert!(!again.faulted());
        assert_eq!(again.bytes(), &data[..2 * page]);
    }

    const CHILD: &str = "PARHASH_TEST_SIGBUS_CHILD";

    /// A fault in a map that is not ours still ends the process with `SIGBUS`, as it would
    /// without the handler (run in a child process: this one would die).
    #[test]
    fn a_fault_outside_our_maps_still_ends_the_process() {
        use std::os::unix::process::ExitStatusExt;
        if std::env::var_os(CHILD).is_some() {
            return fault_outside_our_maps();
        }
        let status = std::process::Command::new(std::env::current_exe().unwrap())
            .args([
                "--exact",
                "mapped::tests::a_fault_outside_our_maps_still_ends_the_process",
            ])
            .env(CHILD, "1")
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null())
            .status()
            .unwrap();
        assert_eq!(status.signal(), Some(libc::SIGBUS), "{status:?}");
    }

    /// With our handler installed, a map made without this module faults past the end of its
    /// truncated file.
    fn fault_outside_our_maps() {
        let (ours, data) = file_of(8192);
        let _installed = Mapping::new(ours.as_file(), data.len() as u64).unwrap();
        let (theirs, data) = file_of(4 * 4096);
        // SAFETY: a test's own read-only map of its own file, read once after a truncation:
        // the fault is the point.
        unsafe {
            let start = libc::mmap(
                std::ptr::null_mut(),
                data.len(),
                libc::PROT_READ,
                libc::MAP_SHARED,
                theirs.as_file().as_raw_fd(),
                0,
            );
            assert_ne!(start, libc::MAP_FAILED);
            theirs.as_file().set_len(0).unwrap();
            let byte = std::ptr::read_volatile((start as *const u8).add(8192));
            panic!("read {byte} past the end without a fault");
        }
    }
}
