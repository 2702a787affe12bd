//! The crate's one error type.

use std::fmt;

use parhash::parsha256::ParshaError;

/// Why a GPU request failed.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum GpuError {
    /// No CUDA driver, no device, or no NVRTC: the one message every GPU request gives on a
    /// machine without a usable GPU (`no usable CUDA GPU: <reason>`).
    NoGpu(String),
    /// NVRTC is missing (only for [`crate::kernels::compile_ptx`], which needs no GPU).
    NoNvrtc(String),
    /// NVRTC rejected a kernel (the log is included).
    Compile { kernel: &'static str, log: String },
    /// A CUDA driver call failed after the GPU was opened.
    Driver(String),
    /// The caller's arguments are out of range (too many messages for one batch, a kernel form
    /// that cannot run a tree of that height).
    InvalidInput(String),
    /// PARSHA-256's parameters (T, l) or message length, refused by the library's own checks
    /// (`parhash::parsha256::check_params`): the GPU accepts exactly what the CPU does.
    Parsha(ParshaError),
}

impl fmt::Display for GpuError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            GpuError::NoGpu(reason) => write!(f, "no usable CUDA GPU: {reason}"),
            GpuError::NoNvrtc(reason) => write!(f, "NVRTC is not available: {reason}"),
            GpuError::Compile { kernel, log } => {
                write!(f, "NVRTC could not compile {kernel}: {log}")
            }
            GpuError::Driver(what) => write!(f, "CUDA driver error: {what}"),
            GpuError::InvalidInput(what) => write!(f, "invalid input: {what}"),
            GpuError::Parsha(e) => write!(f, "invalid input: {e}"),
        }
    }
}

impl std::error::Error for GpuError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            GpuError::Parsha(e) => Some(e),
            _ => None,
        }
    }
}

impl From<cudarc::driver::DriverError> for GpuError {
    fn from(e: cudarc::driver::DriverError) -> Self {
        GpuError::Driver(e.to_string())
    }
}

impl From<ParshaError> for GpuError {
    fn from(e: ParshaError) -> Self {
        GpuError::Parsha(e)
    }
}

/// Why hashing a source (a file, or bytes in memory) on the GPU failed: reading it, which is the
/// source's failure alone, or the GPU.
#[derive(Debug)]
pub enum SourceError {
    /// Reading the source failed, or it changed length while it was read.
    Read(std::io::Error),
    /// The GPU failed, or the request was refused.
    Gpu(GpuError),
}

impl fmt::Display for SourceError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SourceError::Read(e) => e.fmt(f),
            SourceError::Gpu(e) => e.fmt(f),
        }
    }
}

impl std::error::Error for SourceError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            SourceError::Read(e) => Some(e),
            SourceError::Gpu(e) => Some(e),
        }
    }
}

impl SourceError {
    /// The error of a run over bytes in memory, which cannot fail to be read: the GPU's (a
    /// read failure, were there one, is said as invalid input rather than assumed away).
    pub fn in_memory(self) -> GpuError {
        match self {
            SourceError::Gpu(e) => e,
            SourceError::Read(e) => GpuError::InvalidInput(e.to_string()),
        }
    }
}

impl From<GpuError> for SourceError {
    fn from(e: GpuError) -> Self {
        SourceError::Gpu(e)
    }
}

impl From<std::io::Error> for SourceError {
    fn from(e: std::io::Error) -> Self {
        SourceError::Read(e)
    }
}

impl From<cudarc::driver::DriverError> for SourceError {
    fn from(e: cudarc::driver::DriverError) -> Self {
        SourceError::Gpu(e.into())
    }
}

impl From<ParshaError> for SourceError {
    fn from(e: ParshaError) -> Self {
        SourceError::Gpu(e.into())
    }
}
