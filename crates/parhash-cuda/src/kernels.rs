//! The CUDA C sources (`kernels/*.cu`, embedded) and their compilation to PTX with NVRTC, which
//! is loaded at run time: compiling needs NVRTC but no GPU, so CI compiles every kernel.

use crate::GpuError;

/// SHA-256's compression function, prepended to the kernels that use it (NVRTC reads no files).
const SHA256_CORE: &str = include_str!("../kernels/sha256_core.cuh");

/// One `.cu` file: its name and the functions it defines.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Kernel {
    /// File name under `kernels/`.
    pub file: &'static str,
    /// The `extern "C" __global__` functions it defines.
    pub functions: &'static [&'static str],
    body: &'static str,
    needs_sha256_core: bool,
}

impl Kernel {
    /// The full source given to NVRTC.
    pub fn source(&self) -> String {
        if self.needs_sha256_core {
            format!("{SHA256_CORE}\n{}", self.body)
        } else {
            self.body.to_string()
        }
    }
}

/// Batched SHA-256 and the nonce search.
pub const SHA256: Kernel = Kernel {
    file: "sha256.cu",
    functions: &["sha256_batch", "sha256_uniform", "nonce_search"],
    body: include_str!("../kernels/sha256.cu"),
    needs_sha256_core: true,
};

/// PARSHA-256: per-round, warp and block forms.
pub const PARSHA256: Kernel = Kernel {
    file: "parsha256.cu",
    functions: &["parsha_round", "parsha_warp", "parsha_block"],
    body: include_str!("../kernels/parsha256.cu"),
    needs_sha256_core: true,
};

/// Batched Keccak-256 / SHA3-256, both layouts.
pub const KECCAK: Kernel = Kernel {
    file: "keccak.cu",
    functions: &["keccak_packed", "keccak_uniform", "keccak_interleaved"],
    body: include_str!("../kernels/keccak.cu"),
    needs_sha256_core: false,
};

/// Every kernel file (the PTX test compiles each of them).
pub const ALL: [Kernel; 3] = [SHA256, PARSHA256, KECCAK];

/// NVRTC's architecture name for compute capability `major.minor`, for example `compute_90`.
pub fn arch_name(major: u32, minor: u32) -> String {
    format!("compute_{major}{minor}")
}

/// Whether NVRTC's library can be loaded (it is searched on the dynamic loader's path, e.g.
/// `LD_LIBRARY_PATH`).
pub fn nvrtc_available() -> Result<(), GpuError> {
    // SAFETY: this only asks the dynamic loader to open `libnvrtc` under its usual names; the
    // library's initialisers are NVIDIA's and run only if it exists.
    if unsafe { cudarc::nvrtc::sys::is_culib_present() } {
        Ok(())
    } else {
        Err(GpuError::NoNvrtc(
            "libnvrtc was not found on the library path (install the CUDA toolkit or the \
             nvidia-cuda-nvrtc-cu12 wheel and add its lib folder to LD_LIBRARY_PATH)"
                .to_string(),
        ))
    }
}

/// Compiles `kernel` to PTX for `arch` (an NVRTC name such as `compute_90`).
pub fn compile_ptx(kernel: &Kernel, arch: &str) -> Result<String, GpuError> {
    nvrtc_available()?;
    // cudarc's options take a 'static arch name; the few names ever used are interned here.
    let arch: &'static str = Box::leak(arch.to_string().into_boxed_str());
    let opts = cudarc::nvrtc::CompileOptions {
        arch: Some(arch),
        name: Some(kernel.file.to_string()),
        options: vec!["--std=c++14".to_string()],
        ..Default::default()
    };
    let ptx = cudarc::nvrtc::compile_ptx_with_opts(kernel.source(), opts).map_err(|e| {
        let log = match &e {
            cudarc::nvrtc::CompileError::CompileError { log, .. } => {
                log.to_string_lossy().into_owned()
            }
            other => format!("{other:?}"),
        };
        GpuError::Compile {
            kernel: kernel.file,
            log,
        }
    })?;
    Ok(ptx.to_src())
}
