//! The GPU itself: opening it, loading the kernels (NVRTC, cached per architecture) and running
//! them. Everything else in the crate is host logic that runs without a GPU.
//!
//! Kernel launches are `unsafe` in cudarc (the driver cannot check argument types against the
//! kernel's signature); each launch below passes exactly the arguments its `.cu` signature names,
//! in order, and buffers sized for the grid it launches.

use crate::kernels::{self, Kernel};
use crate::layout::{self, RATE_LANES};
use crate::nonce;
use crate::pack::{self, DOMAIN_KECCAK, DOMAIN_SHA3};
use crate::plan::{self, ParshaForm, Plan, TreePlan};
use crate::{cache, GpuError};
use cudarc::driver::sys::CUevent_flags;
use cudarc::driver::{
    CudaContext, CudaEvent, CudaFunction, CudaModule, CudaSlice, CudaStream, LaunchConfig,
    PushKernelArg,
};
use std::collections::HashMap;
use std::ops::RangeInclusive;
use std::sync::{Arc, Mutex};
use std::time::Instant;

/// Threads per block of the one-message-per-thread kernels.
const THREADS: u32 = 256;

/// Streams the Keccak batch rotates its chunks over (copy of one, compute of another).
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
}

impl std::fmt::Debug for Gpu {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Gpu")
            .field("name", &self.name)
            .field("arch", &self.arch)
            .finish()
    }
}

/// Event pair timing one stretch of a stream.
struct Span {
    start: CudaEvent,
    end: CudaEvent,
}

impl Span {
    fn begin(ctx: &Arc<CudaContext>, stream: &CudaStream) -> Result<Span, GpuError> {
        let start = ctx.new_event(Some(CUevent_flags::CU_EVENT_DEFAULT))?;
        let end = ctx.new_event(Some(CUevent_flags::CU_EVENT_DEFAULT))?;
        start.record(stream)?;
        Ok(Span { start, end })
    }

    fn end(&self, stream: &CudaStream) -> Result<(), GpuError> {
        Ok(self.end.record(stream)?)
    }

    /// Seconds between the two events (after they completed).
    fn seconds(&self) -> Result<f64, GpuError> {
        self.end.synchronize()?;
        Ok(f64::from(self.start.elapsed_ms(&self.end)?) / 1e3)
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

    /// SHA-256 of every message, one GPU thread each (padding on the GPU).
    pub fn sha256_many(&self, messages: &[&[u8]]) -> Result<Vec<[u8; 32]>, GpuError> {
        self.sha256_many_timed(messages).map(|(d, _)| d)
    }

    /// [`Gpu::sha256_many`] with its times.
    pub fn sha256_many_timed(
        &self,
        messages: &[&[u8]],
    ) -> Result<(Vec<[u8; 32]>, GpuTimes), GpuError> {
        let wall = Instant::now();
        if messages.is_empty() {
            return Ok((Vec::new(), GpuTimes::default()));
        }
        let count = count_u32(messages.len(), "messages")?;
        let func = self.function(&kernels::SHA256, "sha256_batch")?;
        let packed = pack::pack(messages);
        let s = &self.stream;
        let copy = Span::begin(&self.ctx, s)?;
        let data = s.clone_htod(&packed.data)?;
        let offsets = s.clone_htod(&packed.offsets)?;
        let lengths = s.clone_htod(&packed.lengths)?;
        copy.end(s)?;
        let mut out = s.alloc_zeros::<u32>(8 * messages.len())?;
        let run = Span::begin(&self.ctx, s)?;
        let mut launch = s.launch_builder(&func);
        launch
            .arg(&data)
            .arg(&offsets)
            .arg(&lengths)
            .arg(&count)
            .arg(&mut out);
        // SAFETY: sha256_batch(const u8*, const u64*, const u64*, u32, u32*): `count` threads
        // read their offset/length (both `count` long) and write 8 words of `out` (8 * count).
        unsafe { launch.launch(grid_for(u64::from(count))) }?;
        run.end(s)?;
        let words = s.clone_dtoh(&out)?;
        s.synchronize()?;
        let digests = words
            .chunks_exact(8)
            .map(|w| plan::words_to_bytes(w.try_into().expect("8 words")))
            .collect();
        let times = GpuTimes {
            h2d_s: copy.seconds()?,
            kernel_s: run.seconds()?,
            total_s: wall.elapsed().as_secs_f64(),
        };
        Ok((digests, times))
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
    /// by height.
    pub fn parsha256(
        &self,
        data: &[u8],
        tree_height: u32,
        iv_bits: u32,
    ) -> Result<(u32, [u8; 32]), GpuError> {
        self.parsha256_with(data, tree_height, iv_bits, None)
            .map(|r| (r.t, r.digest))
    }

    /// PARSHA-256 with a forced kernel form (`None`: chosen by height), and its times.
    pub fn parsha256_with(
        &self,
        data: &[u8],
        tree_height: u32,
        iv_bits: u32,
        form: Option<ParshaForm>,
    ) -> Result<ParshaRun, GpuError> {
        let wall = Instant::now();
        let plan = match plan::plan(data.len() as u64, tree_height, iv_bits)? {
            Plan::Short { iv_bits } => {
                return Ok(ParshaRun {
                    t: 0,
                    digest: plan::short_digest(data, iv_bits),
                    form: None,
                    times: GpuTimes {
                        total_s: wall.elapsed().as_secs_f64(),
                        ..GpuTimes::default()
                    },
                })
            }
            Plan::Tree(p) => p,
        };
        let form = form.unwrap_or(ParshaForm::for_height(plan.t));
        if !form.supports(plan.t) || plan.t > 30 {
            return Err(GpuError::InvalidInput(format!(
                "the {} form cannot run a tree of height {}",
                form.name(),
                plan.t
            )));
        }
        let s = &self.stream;
        let mut msg = s.alloc_zeros::<u8>(plan.padded_bytes as usize)?;
        let copy = Span::begin(&self.ctx, s)?;
        s.memcpy_htod(data, &mut msg.slice_mut(..data.len()))?;
        copy.end(s)?;
        let run = Span::begin(&self.ctx, s)?;
        let (z0, z1) = match form {
            ParshaForm::Warp | ParshaForm::Block => self.parsha_one_launch(&plan, &msg, form)?,
            ParshaForm::Rounds => self.parsha_rounds(&plan, &msg)?,
        };
        run.end(s)?;
        let digest = plan::finish(&plan, z0, z1, plan::final_piece(&plan, data))
            .map_err(GpuError::Driver)?;
        Ok(ParshaRun {
            t: plan.t,
            digest,
            form: Some(form),
            times: GpuTimes {
                h2d_s: copy.seconds()?,
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
    fn parsha_rounds(&self, plan: &TreePlan, msg: &CudaSlice<u8>) -> Result<ZPair, GpuError> {
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
        let wall = Instant::now();
        count_u32(messages.len(), "messages")?;
        let func = match layout {
            KeccakLayout::Packed => self.function(&kernels::KECCAK, "keccak_packed")?,
            KeccakLayout::Interleaved => self.function(&kernels::KECCAK, "keccak_interleaved")?,
        };
        let total: usize = messages.iter().map(|m| m.len()).sum();
        let chunks = pack::chunk_ranges(messages.len(), total, STREAMS);
        let mut digests = vec![[0u8; 32]; messages.len()];
        let mut times = GpuTimes::default();
        if chunks.is_empty() {
            return Ok((digests, times));
        }
        // Every buffer is allocated before the first copy: allocating pinned memory synchronises
        // the device, which would serialise the streams if done between chunks.
        let streams = STREAMS.min(chunks.len());
        let mut slots = Vec::with_capacity(streams);
        for s in 0..streams {
            let mine = chunks.iter().skip(s).step_by(streams);
            let in_bytes = mine
                .clone()
                .map(|r| staged_len(&messages[r.clone()], layout))
                .max()
                .unwrap_or(16);
            let out_lanes = 4 * mine.map(|r| r.len()).max().unwrap_or(1);
            let stream = self.ctx.new_stream()?;
            slots.push(StreamSlot {
                // SAFETY: the pinned buffers are written (input) or copied into (output) before
                // any byte of them is read.
                pinned_in: unsafe { self.ctx.alloc_pinned::<u8>(in_bytes) }?,
                // SAFETY: as for `pinned_in`.
                pinned_out: unsafe { self.ctx.alloc_pinned::<u64>(out_lanes) }?,
                dev_in: stream.alloc_zeros::<u8>(in_bytes)?,
                dev_out: stream.alloc_zeros::<u64>(out_lanes)?,
                stream,
                pending: None,
            });
        }
        let domain = u32::from(kind.domain());
        for (c, range) in chunks.iter().enumerate() {
            let slot = &mut slots[c % streams];
            slot.harvest(&mut digests, &mut times)?;
            let chunk = &messages[range.clone()];
            let staged = stage_keccak(chunk, kind, layout);
            // Waits for this buffer's previous copy to the device, then refills it.
            slot.pinned_in.as_mut_slice()?[..staged.bytes.len()].copy_from_slice(&staged.bytes);
            let stream = slot.stream.clone();
            let copy = Span::begin(&self.ctx, &stream)?;
            stream.memcpy_htod(&slot.pinned_in, &mut slot.dev_in)?;
            copy.end(&stream)?;
            let run = Span::begin(&self.ctx, &stream)?;
            let count = chunk.len() as u32;
            let (a, b) = staged.split;
            let table = slot.dev_in.slice(..a);
            let second = slot.dev_in.slice(a..b);
            let payload = slot.dev_in.slice(b..);
            let mut launch = stream.launch_builder(&func);
            match layout {
                KeccakLayout::Packed => {
                    // keccak_packed(const u8* data, const u64* offsets, const u64* lengths,
                    // u32 count, u32 domain, u64* digests)
                    launch
                        .arg(&payload)
                        .arg(&table)
                        .arg(&second)
                        .arg(&count)
                        .arg(&domain)
                        .arg(&mut slot.dev_out);
                }
                KeccakLayout::Interleaved => {
                    // keccak_interleaved(const u64* lanes, const u32* blocks, u32 count,
                    // u64* digests)
                    launch
                        .arg(&payload)
                        .arg(&table)
                        .arg(&count)
                        .arg(&mut slot.dev_out);
                }
            }
            // SAFETY: the arguments match the signatures above; `stage_keccak` laid out the
            // tables (`count` entries each) and the payload the kernel indexes, and `dev_out`
            // holds at least 4 * count lanes (sized for this stream's largest chunk).
            unsafe { launch.launch(grid_for(u64::from(count))) }?;
            run.end(&stream)?;
            stream.memcpy_dtoh(&slot.dev_out, &mut slot.pinned_out)?;
            slot.pending = Some(Pending {
                first: range.start,
                count: chunk.len(),
                copy,
                run,
            });
        }
        for slot in &mut slots {
            slot.harvest(&mut digests, &mut times)?;
        }
        times.total_s = wall.elapsed().as_secs_f64();
        Ok((digests, times))
    }
}

/// Outputs of processors 0 and 1 (`None`: empty).
type ZPair = (Option<[u8; 32]>, Option<[u8; 32]>);

fn z_pair(z0: &[u32], z1: &[u32], p0: u32, p1: u32) -> ZPair {
    let bytes = |w: &[u32]| plan::words_to_bytes(w.try_into().expect("8 words"));
    ((p0 != 0).then(|| bytes(z0)), (p1 != 0).then(|| bytes(z1)))
}

/// One stream of a Keccak batch with its reusable buffers (sized for its largest chunk).
struct StreamSlot {
    stream: Arc<CudaStream>,
    pinned_in: cudarc::driver::PinnedHostSlice<u8>,
    pinned_out: cudarc::driver::PinnedHostSlice<u64>,
    dev_in: CudaSlice<u8>,
    dev_out: CudaSlice<u64>,
    pending: Option<Pending>,
}

/// The chunk a stream is working on.
struct Pending {
    first: usize,
    count: usize,
    copy: Span,
    run: Span,
}

impl StreamSlot {
    /// Waits for the stream's chunk in flight, if any, and copies its digests out.
    fn harvest(&mut self, digests: &mut [[u8; 32]], times: &mut GpuTimes) -> Result<(), GpuError> {
        let Some(p) = self.pending.take() else {
            return Ok(());
        };
        let lanes = self.pinned_out.as_slice()?;
        for i in 0..p.count {
            let d = &mut digests[p.first + i];
            for (k, lane) in lanes[4 * i..4 * i + 4].iter().enumerate() {
                d[8 * k..8 * k + 8].copy_from_slice(&lane.to_le_bytes());
            }
        }
        times.h2d_s += p.copy.seconds()?;
        times.kernel_s += p.run.seconds()?;
        Ok(())
    }
}

/// The length of [`stage_keccak`]'s buffer for `chunk`, computed from the lengths alone.
fn staged_len(chunk: &[&[u8]], layout: KeccakLayout) -> usize {
    match layout {
        KeccakLayout::Packed => {
            16 * chunk.len() + pack::offsets_for(chunk.iter().map(|m| m.len())).1
        }
        KeccakLayout::Interleaved => {
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

/// A chunk's bytes for the device: `[table | second table | payload]`, `split` the two cuts.
struct Staged {
    bytes: Vec<u8>,
    split: (usize, usize),
}

/// Lays a Keccak chunk out as one buffer (one copy): packed = offsets, lengths, messages;
/// interleaved = block counts (u32, padded to 16 bytes), nothing, lanes.
fn stage_keccak(chunk: &[&[u8]], kind: KeccakKind, layout: KeccakLayout) -> Staged {
    let mut bytes = Vec::new();
    match layout {
        KeccakLayout::Packed => {
            let p = pack::pack(chunk);
            p.offsets.iter().for_each(|o| bytes.extend(o.to_le_bytes()));
            let a = bytes.len();
            p.lengths.iter().for_each(|l| bytes.extend(l.to_le_bytes()));
            let b = bytes.len();
            bytes.extend(&p.data);
            Staged {
                bytes,
                split: (a, b),
            }
        }
        KeccakLayout::Interleaved => {
            let il = layout::interleave(chunk, kind.domain());
            debug_assert_eq!(
                il.lanes.len().max(1),
                (il.max_blocks * RATE_LANES * il.count).max(1)
            );
            il.blocks.iter().for_each(|b| bytes.extend(b.to_le_bytes()));
            bytes.resize(bytes.len().next_multiple_of(16).max(16), 0);
            let a = bytes.len();
            il.lanes.iter().for_each(|l| bytes.extend(l.to_le_bytes()));
            Staged {
                bytes,
                split: (a, a),
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn staged_lengths_are_known_before_staging() {
        let data: Vec<u8> = (0..5000u32).map(|i| i as u8).collect();
        let batches: Vec<Vec<&[u8]>> = vec![
            vec![&data[..0]],
            vec![&data[..1], &data[..136], &data[..137]],
            (0..40).map(|n| &data[..n * 97]).collect(),
        ];
        for batch in &batches {
            for layout in [KeccakLayout::Packed, KeccakLayout::Interleaved] {
                let staged = stage_keccak(batch, KeccakKind::Sha3_256, layout);
                assert_eq!(staged.bytes.len(), staged_len(batch, layout), "{layout:?}");
                assert_eq!(staged.split.1 % 16, 0, "the payload starts aligned");
            }
        }
    }
}
