//! A compiler barrier that keeps a kernel's schedule words in memory.
//!
//! Why: the `parallel` SHA-1 and SHA-256 kernels compute `W + K` in vector registers and store
//! it to a stack array, from which the scalar rounds read one word per round. Seeing the store,
//! the compiler took each word straight out of the vector register instead (`vpextrd`: two
//! micro-ops on the vector ports the schedule needs, and a register move), where a load folds
//! into the round's `add` as a memory operand, and the loads measured faster (BENCHMARKS.md,
//! SHA-1 and SHA-256 without the SHA extensions).

/// Makes the compiler assume `buf` may have changed here, so that later reads of it load
/// from memory rather than reuse values it knows were stored there. Emits no instruction.
#[inline(always)]
pub(crate) fn reload_after_here<T: ?Sized>(buf: &mut T) {
    let ptr: *mut T = buf;
    // SAFETY: the template is a comment: it executes nothing, reads and writes nothing, and
    // leaves the stack and the flags alone. Taking the pointer without `nomem` is what tells
    // the compiler the memory behind it may have been written.
    unsafe {
        core::arch::asm!("/* {0} */", in(reg) ptr.cast::<u8>(), options(nostack, preserves_flags));
    }
}
