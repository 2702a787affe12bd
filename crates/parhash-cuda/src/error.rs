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
