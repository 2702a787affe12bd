//! The GPU itself: opening it, loading the kernels (NVRTC, cached per architecture) and running
//! them. Everything else in the crate is host logic that runs without a GPU.
//!
//! The buffers between the host and the kernels (pinned staging, device memory, streams) are
//! kept across calls: see `pipeline`.
//!
//! Kernel launches are `unsafe` in cudarc (the driver cannot check argument types against the
//! kernel's signature); each launch below passes exactly the arguments its `.cu` signature names,
//! in order, and buffers sized for the grid it launches.

use crate::kernels::{self, Kernel};
use crate::layout::{self, RATE_LANES};
use crate::nonce;
use crate::pack::{self, DOMAIN_KECCAK, DOMAIN_SHA3};
use crate::pipeline::{self, Feed, Lane, Pending, ReadAt, Span, TreeBuffers};
use crate::plan::{self, ParshaForm, Plan, TreePlan};
use crate::{cache, GpuError, SourceError};
use cudarc::driver::{
    CudaContext, CudaFunction, CudaModule, CudaSlice, CudaStream, LaunchConfig, PushKernelArg,
};
use std::collections::HashMap;
use std::ops::RangeInclusive;
use std::sync::{Arc, Mutex};
use std::time::Instant;

/// Threads per block of the one-message-per-thread kernels.
const THREADS: u32 = 256;

/// Streams a batch rotates its chunks over (packing one, copying another, computing a third).
const STREAMS: usize = 3;

fn no_gpu(reason: impl Into<String>) -> GpuError {
    GpuError::NoGpu(reason.into())
}

/// Which 256-bit Keccak.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum KeccakKind {
    /// The original Keccak-256 (domain byte 0x01).
    Keccak256,
    /// FIPS 202 SHA3-256 (domain byte 0x06).
    Sha3_256,
}

impl KeccakKind {
    fn domain(self) -> u8 {
        match self {
            KeccakKind::Keccak256 => DOMAIN_KECCAK,
            KeccakKind::Sha3_256 => DOMAIN_SHA3,
        }
    }
}

/// How a Keccak batch travels to the GPU (seed study 5's two layouts).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum KeccakLayout {
    /// Messages one after another; the GPU pads.
    Packed,
    /// Block-interleaved lanes; the host pads.
    Interleaved,
}

/// Where the time of one GPU call went, in seconds.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct GpuTimes {
    /// Host to device copies (GPU events).
    pub h2d_s: f64,
    /// Kernels alone (GPU events).
    pub kernel_s: f64,
    /// The whole call, host preparation and copies back included (wall clock).
    pub total_s: f64,
}

/// A PARSHA-256 result with the form that ran it and its times.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ParshaRun {
    /// Effective tree height.
    pub t: u32,
    /// The digest.
    pub digest: [u8; 32],
    /// The kernel form (`None` for step 1's short messages, hashed on the host).
    pub form: Option<ParshaForm>,
    /// Times.
    pub times: GpuTimes,
}

/// An open GPU with its kernels.
pub struct Gpu {
    ctx: Arc<CudaContext>,
    stream: Arc<CudaStream>,
    name: String,
    arch: String,
    modules: Mutex<HashMap<&'static str, Arc<CudaModule>>>,
    /// The batches' streams and buffers, kept across calls.
    lanes: Mutex<Vec<Lane>>,
    /// PARSHA-256's buffers (on `stream`), kept across calls once a tree has run.
    tree: Mutex<Option<TreeBuffers>>,
}

impl std::fmt::Debug for Gpu {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Gpu")
            .field("name", &self.name)
            .field("arch", &self.arch)
            .finish()
    }
}

fn grid_for(count: u64) -> LaunchConfig {
    LaunchConfig {
        grid_dim: (count.div_ceil(u64::from(THREADS)).max(1) as u32, 1, 1),
        block_dim: (THREADS, 1, 1),
        shared_mem_bytes: 0,
    }
}

fn count_u32(n: usize, what: &str) -> Result<u32, GpuError> {
    u32::try_from(n).map_err(|_| GpuError::InvalidInput(format!("too many {what} for one batch")))
}

impl Gpu {
    /// Opens GPU 0. Without a driver, a device or NVRTC, this is the one error every GPU request
    /// gives: `no usable CUDA GPU: <reason>`.
    pub fn open() -> Result<Gpu, GpuError> {
        // SAFETY: this only asks the dynamic loader whether `libcuda` can be opened.
        if !unsafe { cudarc::driver::sys::is_culib_present() } {
            return Err(no_gpu(
                "the CUDA driver library (libcuda.so) is not installed on this machine",
            ));
        }
        let count = CudaContext::device_count()
            .map_err(|e| no_gpu(format!("the CUDA driver failed to start ({e})")))?;
        if count < 1 {
            return Err(no_gpu("the CUDA driver reports no device"));
        }
        kernels::nvrtc_available().map_err(|e| no_gpu(e.to_string()))?;
        let ctx = CudaContext::new(0)
            .map_err(|e| no_gpu(format!("device 0 could not be opened ({e})")))?;
        let name = ctx.name()?;
        let (major, minor) = ctx.compute_capability()?;
        let stream = ctx.default_stream();
        Ok(Gpu {
            ctx,
            stream,
            name,
            arch: kernels::arch_name(major as u32, minor as u32),
            modules: Mutex::new(HashMap::new()),
            lanes: Mutex::new(Vec::new()),
            tree: Mutex::new(None),
        })
    }

    /// The device's name, as the driver reports it.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The NVRTC architecture the kernels are compiled for, e.g. `compute_90`.
    pub fn arch(&self) -> &str {
        &self.arch
    }

    /// The multiprocessor count and the peak SM clock in kHz, as the driver reports them (the
    /// lab turns them into the device's integer peak).
    pub fn multiprocessors_and_clock_khz(&self) -> Result<(u32, u32), GpuError> {
        use cudarc::driver::sys::CUdevice_attribute as A;
        let sms = self
            .ctx
            .attribute(A::CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT)?;
        let khz = self.ctx.attribute(A::CU_DEVICE_ATTRIBUTE_CLOCK_RATE)?;
        Ok((sms.max(0) as u32, khz.max(0) as u32))
    }

    fn module(&self, kernel: &Kernel) -> Result<Arc<CudaModule>, GpuError> {
        let mut modules = self.modules.lock().expect("module cache lock");
        if let Some(m) = modules.get(kernel.file) {
            return Ok(m.clone());
        }
        // An NVRTC older than the GPU may not know its architecture: PTX for an older one is
        // compiled on by the driver.
        let ptx = cache::ptx_for(kernel, &self.arch).or_else(|e| match e {
            GpuError::Compile { .. } => cache::ptx_for(kernel, "compute_80"),
            other => Err(other),
        })?;
        let module = self.ctx.load_module(cudarc::nvrtc::Ptx::from_src(ptx))?;
        modules.insert(kernel.file, module.clone());
        Ok(module)
    }

    fn function(&self, kernel: &Kernel, name: &str) -> Result<CudaFunction, GpuError> {
        Ok(self.module(kernel)?.load_function(name)?)
    }

    /// Compiles (or loads from the cache) every kernel now, so later calls time no compilation.
    pub fn warm_up(&self) -> Result<(), GpuError> {
        for k in kernels::ALL {
            self.module(&k)?;
        }
        Ok(())
    }

    /// Host-to-device copy rate from pinned memory, bytes per second, for `bytes` at a time.
    pub fn h2d_rate(&self, bytes: usize) -> Result<f64, GpuError> {
        let bytes = bytes.max(1);
        // SAFETY: the pinned buffer is only copied from (its contents do not matter).
        let pinned = unsafe { self.ctx.alloc_pinned::<u8>(bytes) }?;
        let mut dev = self.stream.alloc_zeros::<u8>(bytes)?;
        self.stream.memcpy_htod(&pinned, &mut dev)?; // first touch
        let span = Span::begin(&self.ctx, &self.stream)?;
        let reps = 5;
        for _ in 0..reps {
            self.stream.memcpy_htod(&pinned, &mut dev)?;
        }
        span.end(&self.stream)?;
        Ok(bytes as f64 * f64::from(reps) / span.seconds()?)
    }

    /// Whether the GPU hashes `algorithm` (sha256, sha3-256 and keccak256 in batches, parsha256 as
    /// a tree); the error says which it does.
    pub fn check_algorithm(algorithm: parhash::Algorithm) -> Result<(), GpuError> {
        use parhash::Algorithm as A;
        match algorithm {
            A::Sha256 | A::Sha3_256 | A::Keccak256 | A::Parsha256 => Ok(()),
            other => Err(GpuError::InvalidInput(format!(
                "the GPU hashes sha256, sha3-256, keccak256 and parsha256, not {}",
                other.info().name
            ))),
        }
    }

    /// The digest of every message with `algorithm`, in order: sha256, sha3-256 and keccak256
    /// one GPU thread per message (the packed layout, which the lab measured fastest end to
    /// end), parsha256 (tree height `tree_height`, an IV of `iv_bits` bits) each message as a
    /// tree. What `parhash sum --device gpu` and Python's `hash_many(..., device="gpu")` run.
    pub fn hash_many(
        &self,
        algorithm: parhash::Algorithm,
        messages: &[&[u8]],
        tree_height: u32,
        iv_bits: u32,
    ) -> Result<Vec<[u8; 32]>, GpuError> {
        use parhash::Algorithm as A;
        Self::check_algorithm(algorithm)?;
        match algorithm {
            A::Sha256 => self.sha256_many(messages),
            A::Sha3_256 => self.keccak_many(messages, KeccakKind::Sha3_256, KeccakLayout::Packed),
            A::Keccak256 => self.keccak_many(messages, KeccakKind::Keccak256, KeccakLayout::Packed),
            _ => messages
                .iter()
                .map(|m| self.parsha256(m, tree_height, iv_bits).map(|(_, d)| d))
                .collect(),
        }
    }

    /// SHA-256 of every message, one GPU thread each (padding on the GPU).
    pub fn sha256_many(&self, messages: &[&[u8]]) -> Result<Vec<[u8; 32]>, GpuError> {
        self.sha256_many_timed(messages).map(|(d, _)| d)
    }

    /// [`Gpu::sha256_many`] with its times (`h2d_s` and `kernel_s` summed over chunks, which
    /// overlap: their sum can exceed `total_s`).
    pub fn sha256_many_timed(
        &self,
        messages: &[&[u8]],
    ) -> Result<(Vec<[u8; 32]>, GpuTimes), GpuError> {
        self.batch(messages, BatchOp::Sha256)
    }

    /// The smallest nonce in `range` for which the double SHA-256 of `header` (nonce in bytes
    /// 76..80, little-endian) is at or below `target` (display order, big-endian), with that
    /// block hash (display order). The hash is recomputed on the CPU before it is returned.
    pub fn search_nonce(
        &self,
        header: &[u8; 80],
        target: [u8; 32],
        range: RangeInclusive<u32>,
    ) -> Result<Option<(u32, [u8; 32])>, GpuError> {
        let func = self.function(&kernels::SHA256, "nonce_search")?;
        let s = &self.stream;
        let params = s.clone_htod(&nonce::kernel_params(header, &target))?;
        for (start, count) in nonce::split_range(range, nonce::NONCES_PER_LAUNCH) {
            let mut found = s.clone_htod(&[u64::MAX])?;
            // A grid-stride loop: enough blocks to fill any GPU, each thread several nonces.
            let cfg = LaunchConfig {
                grid_dim: (
                    u64::from(count).div_ceil(u64::from(THREADS)).min(8192) as u32,
                    1,
                    1,
                ),
                block_dim: (THREADS, 1, 1),
                shared_mem_bytes: 0,
            };
            let mut launch = s.launch_builder(&func);
            launch.arg(&params).arg(&start).arg(&count).arg(&mut found);
            // SAFETY: nonce_search(const u32* params, u32 start, u32 count, u64* found): params
            // holds the 19 words the kernel reads, found is one u64.
            unsafe { launch.launch(cfg) }?;
            let best = s.clone_dtoh(&found)?;
            s.synchronize()?;
            if best[0] != u64::MAX {
                let nonce = best[0] as u32;
                let hash = nonce::block_hash(header, nonce);
                if !nonce::meets_target(&hash, &target) {
                    return Err(GpuError::Driver(format!(
                        "the GPU reported nonce {nonce}, which does not meet the target"
                    )));
                }
                return Ok(Some((nonce, hash)));
            }
        }
        Ok(None)
    }

    /// PARSHA-256(data, T) with an IV of `iv_bits` bits: `(t, digest)`, the kernel form chosen
    /// by height; copies and rounds overlap as in [`Gpu::parsha256_from`].
    pub fn parsha256(
        &self,
        data: &[u8],
        tree_height: u32,
        iv_bits: u32,
    ) -> Result<(u32, [u8; 32]), GpuError> {
        self.parsha256_from(data, data.len() as u64, tree_height, iv_bits, None)
            .map(|r| (r.t, r.digest))
            .map_err(SourceError::in_memory)
    }

    /// PARSHA-256 with a forced kernel form (`None`: chosen by height), and its times. The
    /// whole message is copied before the first launch, so `times.kernel_s` is the kernels
    /// alone (the lab's kernel figures); [`Gpu::parsha256_from`] overlaps them.
    pub fn parsha256_with(
        &self,
        data: &[u8],
        tree_height: u32,
        iv_bits: u32,
        form: Option<ParshaForm>,
    ) -> Result<ParshaRun, GpuError> {
        self.parsha256_run(data, data.len() as u64, tree_height, iv_bits, form, false)
            .map_err(SourceError::in_memory)
    }

    /// PARSHA-256 of the first `len` bytes of `source` (a file, or bytes in memory), read once:
    /// a piece at a time on every core into pinned memory while the piece before is copied to
    /// the device, each round of the tree launched once the bytes it reads have arrived (so
    /// `times.kernel_s` spans the launches, waits for pieces included). The source must hold
    /// exactly `len` bytes until it has been read: one that ends sooner or runs on fails with
    /// [`SourceError::Read`] holding the library's [`parhash::file::FileChangedSize`], as the
    /// CPU's file hashing fails.
    pub fn parsha256_from(
        &self,
        source: &(impl ReadAt + ?Sized),
        len: u64,
        tree_height: u32,
        iv_bits: u32,
        form: Option<ParshaForm>,
    ) -> Result<ParshaRun, SourceError> {
        self.parsha256_run(source, len, tree_height, iv_bits, form, true)
    }

    /// PARSHA-256 of the file at `path`, read once as [`Gpu::parsha256_from`] reads (the kernel
    /// form chosen by height), under the CPU's rules for files: one that changes size or is
    /// modified while it is read fails with the library's [`parhash::file::FileChangedSize`] or
    /// [`parhash::file::FileModified`]; one with no length to plan the tree by (a pipe, a
    /// device) is spooled into memory first as the CPU spools it ([`parhash::file::spool`]).
    /// What `parhash sum --device gpu -a parsha256` and Python's `hash_file(..., device="gpu")`
    /// run.
    pub fn parsha256_file(
        &self,
        path: &std::path::Path,
        tree_height: u32,
        iv_bits: u32,
    ) -> Result<ParshaRun, SourceError> {
        let mut file = std::fs::File::open(path)?;
        let Some(version) = parhash::file::FileVersion::of(&file) else {
            let data = parhash::file::spool(&mut file)?;
            return self.parsha256_from(&data[..], data.len() as u64, tree_height, iv_bits, None);
        };
        let run = self.parsha256_from(&file, version.len(), tree_height, iv_bits, None)?;
        version.check(&file)?;
        Ok(run)
    }

    /// [`Gpu::parsha256_from`], with the rounds overlapping the copies or (`overlap` false)
    /// launched once the whole message is on the device.
    fn parsha256_run(
        &self,
        source: &(impl ReadAt + ?Sized),
        len: u64,
        tree_height: u32,
        iv_bits: u32,
        form: Option<ParshaForm>,
        overlap: bool,
    ) -> Result<ParshaRun, SourceError> {
        let wall = Instant::now();
        let plan = match plan::plan(len, tree_height, iv_bits)? {
            Plan::Short { iv_bits } => {
                let mut data = vec![0u8; len as usize];
                pipeline::read_exact_at(source, &mut data, 0, len)?;
                pipeline::check_ends_at(source, len)?;
                return Ok(ParshaRun {
                    t: 0,
                    digest: plan::short_digest(&data, iv_bits),
                    form: None,
                    times: GpuTimes {
                        total_s: wall.elapsed().as_secs_f64(),
                        ..GpuTimes::default()
                    },
                });
            }
            Plan::Tree(p) => p,
        };
        let form = form.unwrap_or(ParshaForm::for_height(plan.t));
        if !form.supports(plan.t) || plan.t > 30 {
            return Err(GpuError::InvalidInput(format!(
                "the {} form cannot run a tree of height {}",
                form.name(),
                plan.t
            ))
            .into());
        }
        let padded = usize::try_from(plan.padded_bytes).map_err(|_| {
            GpuError::InvalidInput(format!("{len} bytes do not fit this machine's memory"))
        })?;
        let s = &self.stream;
        let mut guard = self.tree.lock().expect("tree buffers lock");
        let bufs = match &mut *guard {
            Some(b) => b,
            empty => empty.insert(TreeBuffers::new(&self.ctx, s)?),
        };
        let final_at = (plan.b > 0).then(|| plan.final_piece_offset());
        let (mut feed, message) = Feed::new(&self.ctx, s, bufs, source, len, padded, final_at)?;
        if !overlap {
            feed.until(len)?;
        }
        let run = Span::begin(&self.ctx, s)?;
        let (z0, z1) = match form {
            ParshaForm::Warp | ParshaForm::Block => {
                feed.until(len)?;
                self.parsha_one_launch(&plan, message, form)?
            }
            ParshaForm::Rounds => self.parsha_rounds(&plan, message, &mut feed)?,
        };
        run.end(s)?;
        feed.check_end()?;
        let digest = plan::finish(&plan, z0, z1, feed.final_piece).map_err(GpuError::Driver)?;
        let mut h2d_s = 0.0;
        for copy in &feed.copies {
            h2d_s += copy.seconds()?;
        }
        Ok(ParshaRun {
            t: plan.t,
            digest,
            form: Some(form),
            times: GpuTimes {
                h2d_s,
                kernel_s: run.seconds()?,
                total_s: wall.elapsed().as_secs_f64(),
            },
        })
    }

    /// The warp or block form: the whole tree in one launch; returns z(0), z(1).
    fn parsha_one_launch(
        &self,
        plan: &TreePlan,
        msg: &CudaSlice<u8>,
        form: ParshaForm,
    ) -> Result<ZPair, GpuError> {
        let s = &self.stream;
        let (name, threads) = match form {
            ParshaForm::Warp => ("parsha_warp", 32),
            _ => ("parsha_block", 1u32 << plan.t),
        };
        let func = self.function(&kernels::PARSHA256, name)?;
        let mut z01 = s.alloc_zeros::<u32>(16)?;
        let mut present = s.alloc_zeros::<u32>(2)?;
        let (t, q, b, iv_words) = (plan.t, plan.q, plan.b as u32, plan.iv_words());
        let mut launch = s.launch_builder(&func);
        launch
            .arg(msg)
            .arg(&t)
            .arg(&q)
            .arg(&b)
            .arg(&iv_words)
            .arg(&mut z01)
            .arg(&mut present);
        let cfg = LaunchConfig {
            grid_dim: (1, 1, 1),
            block_dim: (threads, 1, 1),
            shared_mem_bytes: 0,
        };
        // SAFETY: parsha_warp/parsha_block(const u32* msg, u32 t, u64 q, u32 b, u32 iv_words,
        // u32* z01, u32* present01): msg holds the whole padded message the plan reads, z01 16
        // words, present01 2; one warp (t <= 5) or 2^t <= 1024 threads (t <= 10, checked by
        // `supports`).
        unsafe { launch.launch(cfg) }?;
        let z = s.clone_dtoh(&z01)?;
        let p = s.clone_dtoh(&present)?;
        s.synchronize()?;
        Ok(z_pair(&z[..8], &z[8..], p[0], p[1]))
    }

    /// The per-round form: one launch per round, buffers swapped between rounds.
    /// Each round is launched once `feed` has the bytes it reads on the device, so the rounds
    /// over the start of a long message run while the rest is read and copied.
    fn parsha_rounds(
        &self,
        plan: &TreePlan,
        msg: &CudaSlice<u8>,
        feed: &mut Feed<'_, impl ReadAt + ?Sized>,
    ) -> Result<ZPair, SourceError> {
        let s = &self.stream;
        let func = self.function(&kernels::PARSHA256, "parsha_round")?;
        let procs = plan.processors() as usize;
        let (mut z_in, mut z_out) = (
            s.alloc_zeros::<u32>(8 * procs)?,
            s.alloc_zeros::<u32>(8 * procs)?,
        );
        let (mut p_in, mut p_out) = (s.alloc_zeros::<u32>(procs)?, s.alloc_zeros::<u32>(procs)?);
        let t = plan.t;
        let iv_words = plan.iv_words();
        for (base, shape) in plan.schedule() {
            feed.until(base + shape.bytes())?;
            let base_words = base / 4;
            let int_words = (shape.int_bytes / 4) as u32;
            let int_count = shape.int_count as u32;
            let leaflike = u32::from(shape.leaflike);
            let leaf_words = (shape.leaf_bytes / 4) as u32;
            let leaf_count = shape.leaf_count as u32;
            let mut launch = s.launch_builder(&func);
            launch
                .arg(msg)
                .arg(&base_words)
                .arg(&t)
                .arg(&int_words)
                .arg(&int_count)
                .arg(&leaflike)
                .arg(&leaf_words)
                .arg(&leaf_count)
                .arg(&iv_words)
                .arg(&z_in)
                .arg(&p_in)
                .arg(&mut z_out)
                .arg(&mut p_out);
            // SAFETY: parsha_round(const u32* msg, u64 base, u32 t, u32 int_words, u32 int_count,
            // u32 leaflike, u32 leaf_words, u32 leaf_count, u32 iv_words, const u32* z_in,
            // const u32* present_in, u32* z_out, u32* present_out): 2^t threads, each reading
            // its piece inside the padded message and z/present buffers of 8 * 2^t and 2^t words.
            unsafe { launch.launch(grid_for(procs as u64)) }?;
            std::mem::swap(&mut z_in, &mut z_out);
            std::mem::swap(&mut p_in, &mut p_out);
        }
        // Word k of processor j is z[k * procs + j].
        let z = s.clone_dtoh(&z_in)?;
        let p = s.clone_dtoh(&p_in)?;
        s.synchronize()?;
        let z0: Vec<u32> = (0..8).map(|k| z[k * procs]).collect();
        let z1: Vec<u32> = (0..8).map(|k| z[k * procs + 1]).collect();
        Ok(z_pair(&z0, &z1, p[0], p[1]))
    }

    /// Keccak-256 or SHA3-256 of every message, one thread each, in the given host layout. The
    /// batch is cut into chunks rotated over several streams, each with pinned host buffers, so
    /// one chunk's copies overlap another's kernel.
    pub fn keccak_many(
        &self,
        messages: &[&[u8]],
        kind: KeccakKind,
        layout: KeccakLayout,
    ) -> Result<Vec<[u8; 32]>, GpuError> {
        self.keccak_many_timed(messages, kind, layout)
            .map(|(d, _)| d)
    }

    /// [`Gpu::keccak_many`] with its times (`h2d_s` and `kernel_s` summed over chunks, which
    /// overlap: their sum can exceed `total_s`).
    pub fn keccak_many_timed(
        &self,
        messages: &[&[u8]],
        kind: KeccakKind,
        layout: KeccakLayout,
    ) -> Result<(Vec<[u8; 32]>, GpuTimes), GpuError> {
        self.batch(messages, BatchOp::Keccak(kind, layout))
    }

    /// One message per GPU thread: the batch cut into chunks rotated over the lanes, each chunk
    /// packed on every core straight into its lane's pinned buffer, copied in one piece, hashed,
    /// and its digests copied back in one piece while the next chunks are packed and copied.
    fn batch(
        &self,
        messages: &[&[u8]],
        op: BatchOp,
    ) -> Result<(Vec<[u8; 32]>, GpuTimes), GpuError> {
        let wall = Instant::now();
        count_u32(messages.len(), "messages")?;
        let mut digests = vec![[0u8; 32]; messages.len()];
        let mut times = GpuTimes::default();
        let total: usize = messages.iter().map(|m| m.len()).sum();
        let chunks = pack::chunk_ranges(messages.len(), total, STREAMS);
        if chunks.is_empty() {
            return Ok((digests, times));
        }
        // Each chunk's kernel: a chunk of messages all of one length travels without tables
        // (`pack::Staged::Uniform`).
        let (name, uniform_name, kernel) = match op {
            BatchOp::Sha256 => ("sha256_batch", "sha256_uniform", &kernels::SHA256),
            BatchOp::Keccak(_, KeccakLayout::Packed) => {
                ("keccak_packed", "keccak_uniform", &kernels::KECCAK)
            }
            BatchOp::Keccak(_, KeccakLayout::Interleaved) => {
                ("keccak_interleaved", "keccak_interleaved", &kernels::KECCAK)
            }
        };
        let (func, uniform_func) = (
            self.function(kernel, name)?,
            self.function(kernel, uniform_name)?,
        );
        let mut lanes = self.lanes.lock().expect("lanes lock");
        let streams = STREAMS.min(chunks.len());
        while lanes.len() < streams {
            lanes.push(Lane::new(&self.ctx)?);
        }
        // Every buffer is grown before the first copy: allocating synchronises the device, which
        // would serialise the streams if done between chunks.
        for (l, lane) in lanes.iter_mut().take(streams).enumerate() {
            let mine = chunks.iter().skip(l).step_by(streams);
            let in_bytes = mine
                .clone()
                .map(|r| staged_len(&messages[r.clone()], op))
                .max()
                .unwrap_or(0);
            let out_bytes = 32 * mine.map(|r| r.len()).max().unwrap_or(0);
            lane.reserve(&self.ctx, in_bytes, out_bytes)?;
        }
        let mut take = |p: &Pending, out: &[u8]| {
            for (d, got) in digests[p.first..p.first + p.count]
                .iter_mut()
                .zip(out.chunks_exact(32))
            {
                *d = op.digest(got);
            }
        };
        let mut harvest = |lane: &mut Lane, times: &mut GpuTimes| -> Result<(), GpuError> {
            if let Some(p) = lane.harvest(&mut take)? {
                times.h2d_s += p.copy.seconds()?;
                times.kernel_s += p.run.seconds()?;
            }
            Ok(())
        };
        for (c, range) in chunks.iter().enumerate() {
            let lane = &mut lanes[c % streams];
            // Waits for the lane's chunk before, which frees both its pinned buffers.
            harvest(lane, &mut times)?;
            let chunk = &messages[range.clone()];
            let staged = staged_len(chunk, op);
            let host = &mut lane.host_in.as_mut_slice()?[..staged];
            let layout = stage(chunk, op, host);
            let stream = lane.stream.clone();
            let copy = Span::begin(&self.ctx, &stream)?;
            stream.memcpy_htod(&*host, &mut lane.dev_in.slice_mut(..staged))?;
            copy.end(&stream)?;
            let run = Span::begin(&self.ctx, &stream)?;
            let count = chunk.len() as u32;
            // The tables' cuts, or the stride (a uniform chunk has no tables: its views are
            // empty and not passed).
            let (a, b, uniform) = match layout {
                pack::Staged::Tables {
                    lengths_at,
                    data_at,
                } => (lengths_at, data_at, None),
                pack::Staged::Uniform { len, stride } => (0, 0, Some((len as u64, stride as u64))),
            };
            let table = lane.dev_in.slice(..a);
            let second = lane.dev_in.slice(a..b);
            let payload = lane.dev_in.slice(b..staged);
            let mut out = lane.dev_out.slice_mut(..32 * chunk.len());
            let domain = match op {
                BatchOp::Keccak(kind, _) => u32::from(kind.domain()),
                BatchOp::Sha256 => 0,
            };
            let mut launch = stream.launch_builder(if uniform.is_some() {
                &uniform_func
            } else {
                &func
            });
            // sha256_batch(const u8* data, const u64* offsets, const u64* lengths, u32 count,
            //              u32* digests)
            // sha256_uniform(const u8* data, u64 stride, u64 len, u32 count, u32* digests)
            // keccak_packed(const u8* data, const u64* offsets, const u64* lengths, u32 count,
            //               u32 domain, u64* digests)
            // keccak_uniform(const u8* data, u64 stride, u64 len, u32 count, u32 domain,
            //                u64* digests)
            // keccak_interleaved(const u64* lanes, const u32* blocks, u32 count, u64* digests)
            match (op, &uniform) {
                (BatchOp::Keccak(_, KeccakLayout::Interleaved), _) => {
                    launch.arg(&payload).arg(&table);
                }
                (_, None) => {
                    launch.arg(&payload).arg(&table).arg(&second);
                }
                (_, Some((len, stride))) => {
                    launch.arg(&payload).arg(stride).arg(len);
                }
            }
            launch.arg(&count);
            if let BatchOp::Keccak(_, KeccakLayout::Packed) = op {
                launch.arg(&domain);
            }
            launch.arg(&mut out);
            // SAFETY: the arguments match the signatures above; `stage` laid out the tables
            // (`count` entries each) and the payload the kernel indexes (uniform: `count`
            // messages every `stride` bytes), and `out` holds the 32 bytes of digest each of the
            // `count` threads writes.
            unsafe { launch.launch(grid_for(u64::from(count))) }?;
            run.end(&stream)?;
            let back = &mut lane.host_out.as_mut_slice()?[..32 * chunk.len()];
            stream.memcpy_dtoh(&lane.dev_out.slice(..32 * chunk.len()), back)?;
            lane.done.record(&stream)?;
            lane.pending = Some(Pending {
                first: range.start,
                count: chunk.len(),
                copy,
                run,
            });
        }
        for lane in lanes.iter_mut().take(streams) {
            harvest(lane, &mut times)?;
        }
        times.total_s = wall.elapsed().as_secs_f64();
        Ok((digests, times))
    }
}

/// What a batch runs: one message per GPU thread, 32 bytes of digest each.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum BatchOp {
    Sha256,
    Keccak(KeccakKind, KeccakLayout),
}

impl BatchOp {
    /// A digest from the 32 bytes its kernel wrote: SHA-256's eight state words (native, little
    /// endian on the GPU, big-endian in the digest); Keccak's four lanes are the digest's bytes.
    fn digest(self, got: &[u8]) -> [u8; 32] {
        let mut d: [u8; 32] = got.try_into().expect("32 bytes");
        if self == BatchOp::Sha256 {
            d.chunks_exact_mut(4).for_each(|w| w.reverse());
        }
        d
    }
}

/// Outputs of processors 0 and 1 (`None`: empty).
type ZPair = (Option<[u8; 32]>, Option<[u8; 32]>);

fn z_pair(z0: &[u32], z1: &[u32], p0: u32, p1: u32) -> ZPair {
    let bytes = |w: &[u32]| plan::words_to_bytes(w.try_into().expect("8 words"));
    ((p0 != 0).then(|| bytes(z0)), (p1 != 0).then(|| bytes(z1)))
}

/// The bytes a Keccak batch of `messages` copies to the device in `layout` (one chunk's worth
/// if it were one chunk: the lab's copy time).
pub fn keccak_staged_len(messages: &[&[u8]], layout: KeccakLayout) -> usize {
    staged_len(messages, BatchOp::Keccak(KeccakKind::Sha3_256, layout))
}

/// The length of [`stage`]'s buffer for `chunk`, computed from the lengths alone.
fn staged_len(chunk: &[&[u8]], op: BatchOp) -> usize {
    match op {
        BatchOp::Sha256 | BatchOp::Keccak(_, KeccakLayout::Packed) => pack::staged_len(chunk),
        BatchOp::Keccak(_, KeccakLayout::Interleaved) => {
            let max_blocks = chunk
                .iter()
                .map(|m| pack::keccak_block_count(m.len() as u64) as usize)
                .max()
                .unwrap_or(0);
            (4 * chunk.len()).next_multiple_of(16).max(16)
                + 8 * (max_blocks * RATE_LANES * chunk.len()).max(1)
        }
    }
}

/// Lays a chunk out in `dst` (exactly [`staged_len`] bytes) for one copy, `[table | second
/// table | payload]`, and says how: packed = offsets, lengths, messages, or the messages alone
/// at a fixed stride where they are all of one length (written on every core: `pack`);
/// interleaved = block counts (u32, padded to 16 bytes), nothing, lanes.
fn stage(chunk: &[&[u8]], op: BatchOp, dst: &mut [u8]) -> pack::Staged {
    match op {
        BatchOp::Sha256 | BatchOp::Keccak(_, KeccakLayout::Packed) => pack::stage_into(chunk, dst),
        BatchOp::Keccak(kind, KeccakLayout::Interleaved) => {
            let il = layout::interleave(chunk, kind.domain());
            debug_assert_eq!(
                il.lanes.len().max(1),
                (il.max_blocks * RATE_LANES * il.count).max(1)
            );
            let mut at = 0;
            for b in &il.blocks {
                dst[at..at + 4].copy_from_slice(&b.to_le_bytes());
                at += 4;
            }
            let a = at.next_multiple_of(16).max(16);
            dst[at..a].fill(0);
            at = a;
            for l in &il.lanes {
                dst[at..at + 8].copy_from_slice(&l.to_le_bytes());
                at += 8;
            }
            dst[at..].fill(0);
            pack::Staged::Tables {
                lengths_at: a,
                data_at: a,
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_staged_byte_is_written_and_the_payload_is_aligned() {
        let data: Vec<u8> = (0..5000u32).map(|i| i as u8).collect();
        let batches: Vec<Vec<&[u8]>> = vec![
            vec![&data[..0]],
            vec![&data[..1], &data[..136], &data[..137]],
            (0..40).map(|n| &data[..n * 97]).collect(),
        ];
        let ops = [
            BatchOp::Sha256,
            BatchOp::Keccak(KeccakKind::Sha3_256, KeccakLayout::Packed),
            BatchOp::Keccak(KeccakKind::Keccak256, KeccakLayout::Interleaved),
        ];
        let uniform: Vec<&[u8]> = (0..3000).map(|i| &data[i % 100..i % 100 + 55]).collect();
        let batches = [batches, vec![uniform]].concat();
        for batch in &batches {
            for op in ops {
                // Two reused buffers of different leftovers stage to the same bytes.
                let len = staged_len(batch, op);
                let (mut x, mut y) = (vec![0x00u8; len], vec![0xffu8; len]);
                let split = stage(batch, op, &mut x);
                assert_eq!(stage(batch, op, &mut y), split);
                let payload_at = match split {
                    pack::Staged::Tables { data_at, .. } => data_at,
                    pack::Staged::Uniform { len: n, stride } => {
                        assert_ne!(
                            op,
                            BatchOp::Keccak(KeccakKind::Keccak256, KeccakLayout::Interleaved)
                        );
                        assert_eq!(pack::uniform_len(batch), Some(n), "{op:?}");
                        assert_eq!(len, batch.len() * stride, "{op:?}: no tables");
                        0
                    }
                };
                assert!(x == y, "{op:?}: a byte left unwritten");
                assert_eq!(payload_at % 16, 0, "{op:?}: the payload starts aligned");
                if let BatchOp::Keccak(kind, KeccakLayout::Interleaved) = op {
                    let il = layout::interleave(batch, kind.domain());
                    let lanes: Vec<u64> = x[payload_at..]
                        .chunks_exact(8)
                        .map(|c| u64::from_le_bytes(c.try_into().unwrap()))
                        .collect();
                    assert_eq!(lanes[..il.lanes.len()], il.lanes[..]);
                }
            }
        }
    }

    #[test]
    fn sha256_words_become_big_endian_digest_bytes() {
        let words: Vec<u8> = (0..8u32)
            .flat_map(|w| (w * 0x01010101 + 0x00010203).to_le_bytes())
            .collect();
        let d = BatchOp::Sha256.digest(&words);
        assert_eq!(&d[..4], &0x00010203u32.to_be_bytes());
        let k = BatchOp::Keccak(KeccakKind::Sha3_256, KeccakLayout::Packed).digest(&words);
        assert_eq!(k[..], words[..]);
    }
}
