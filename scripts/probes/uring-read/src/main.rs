// Probe for BENCHMARKS.md (storage reads): reads a file with io_uring, O_DIRECT or buffered, with
// `depth` reads of `bs` MiB in flight. Not part of the workspace: `cargo run --release --
// FILE direct|buffered DEPTH BS_MIB` from this folder.
use io_uring::{opcode, types, IoUring};
use std::os::fd::AsRawFd;
use std::os::unix::fs::OpenOptionsExt;
fn main() {
    let a: Vec<String> = std::env::args().collect();
    let direct = a[2] == "direct";
    let depth: usize = a[3].parse().unwrap();
    let bs: usize = a[4].parse::<usize>().unwrap() << 20;
    let f = std::fs::OpenOptions::new()
        .read(true)
        .custom_flags(if direct { libc::O_DIRECT } else { 0 })
        .open(&a[1])
        .unwrap();
    let len = f.metadata().unwrap().len() as usize;
    let layout = std::alloc::Layout::from_size_align(bs * depth, 4096).unwrap();
    // SAFETY: the layout has a non-zero size; the buffer lives to the end of `main`.
    let base = unsafe { std::alloc::alloc(layout) };
    assert!(!base.is_null());
    let mut ring = IoUring::new(depth as u32 * 2).unwrap();
    let mut next = 0usize;
    let mut inflight = 0;
    let mut done = 0usize;
    let fd = types::Fd(f.as_raw_fd());
    let mut free: Vec<usize> = (0..depth).collect();
    let mut x = 0u8;
    while done < len {
        while inflight < depth && next < len {
            let slot = free.pop().unwrap();
            // SAFETY: slot < depth, so the `bs` bytes at `slot * bs` are inside the buffer.
            let e = opcode::Read::new(fd, unsafe { base.add(slot * bs) }, bs as u32)
                .offset(next as u64)
                .build()
                .user_data(slot as u64);
            // SAFETY: the buffer stays allocated and unused elsewhere until the read completes.
            unsafe { ring.submission().push(&e).unwrap() };
            next += bs;
            inflight += 1;
        }
        ring.submit_and_wait(1).unwrap();
        let cqes: Vec<_> = ring
            .completion()
            .map(|c| (c.user_data() as usize, c.result()))
            .collect();
        for (slot, res) in cqes {
            assert!(res >= 0, "read failed {res}");
            // SAFETY: the read into this slot has completed.
            x ^= unsafe { *base.add(slot * bs) };
            done += res as usize;
            inflight -= 1;
            free.push(slot);
        }
    }
    println!("{x}");
}
