//! The crate's one error type.

use std::fmt;

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
    /// The caller's arguments are out of range (for example a PARSHA-256 tree height).
    InvalidInput(String),
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
        }
    }
}

impl std::error::Error for GpuError {}

impl From<cudarc::driver::DriverError> for GpuError {
    fn from(e: cudarc::driver::DriverError) -> Self {
        GpuError::Driver(e.to_string())
    }
}

impl From<parhash::algo::parsha256::ParshaError> for GpuError {
    fn from(e: parhash::algo::parsha256::ParshaError) -> Self {
        GpuError::InvalidInput(e.to_string())
    }
}
