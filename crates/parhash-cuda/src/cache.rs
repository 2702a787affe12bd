//! Compiled PTX cached on disk per architecture, so NVRTC runs once per kernel, GPU kind and
//! kernel source.

use crate::kernels::{self, Kernel};
use crate::GpuError;
use std::path::{Path, PathBuf};

/// The cache folder: `$PARHASH_CUDA_CACHE`, else `$XDG_CACHE_HOME/parhash/cuda`, else
/// `~/.cache/parhash/cuda`; `None` when none can be named (then nothing is cached).
pub fn cache_dir() -> Option<PathBuf> {
    if let Some(dir) = std::env::var_os("PARHASH_CUDA_CACHE") {
        return Some(PathBuf::from(dir));
    }
    let base = std::env::var_os("XDG_CACHE_HOME")
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".cache")))?;
    Some(base.join("parhash").join("cuda"))
}

/// The file a kernel's PTX is cached in: named by kernel, architecture and a digest of the
/// source, so an edited kernel is never served stale.
pub fn cache_file_name(kernel: &Kernel, arch: &str) -> String {
    let digest = parhash::hash(parhash::Algorithm::Sha256, kernel.source().as_bytes()).to_hex();
    let stem = kernel.file.trim_end_matches(".cu");
    format!("{stem}-{arch}-{}.ptx", &digest[..16])
}

/// The PTX of `kernel` for `arch`: from the cache, or compiled and then cached. A cache that
/// cannot be written is not an error.
pub fn ptx_for(kernel: &Kernel, arch: &str) -> Result<String, GpuError> {
    ptx_in(cache_dir().as_deref(), kernel, arch)
}

/// [`ptx_for`] with the cache in `dir` (`None`: no cache).
pub fn ptx_in(dir: Option<&Path>, kernel: &Kernel, arch: &str) -> Result<String, GpuError> {
    let path = dir.map(|d| d.join(cache_file_name(kernel, arch)));
    if let Some(ptx) = path.as_ref().and_then(|p| std::fs::read_to_string(p).ok()) {
        return Ok(ptx);
    }
    let ptx = kernels::compile_ptx(kernel, arch)?;
    if let Some(path) = path {
        if let Some(dir) = path.parent() {
            let _ = std::fs::create_dir_all(dir);
        }
        // Write then rename, so a concurrent reader never sees half a file.
        let tmp = path.with_extension(format!("tmp{}", std::process::id()));
        if std::fs::write(&tmp, &ptx).is_ok() {
            let _ = std::fs::rename(&tmp, &path);
        }
    }
    Ok(ptx)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_differ_by_kernel_and_architecture() {
        let a = cache_file_name(&kernels::SHA256, "compute_80");
        assert!(a.starts_with("sha256-compute_80-") && a.ends_with(".ptx"));
        assert_ne!(a, cache_file_name(&kernels::SHA256, "compute_90"));
        assert_ne!(a, cache_file_name(&kernels::KECCAK, "compute_80"));
    }

    #[test]
    fn a_cached_ptx_is_served_without_nvrtc() {
        let dir = std::env::temp_dir().join(format!("parhash-ptx-cache-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let name = cache_file_name(&kernels::PARSHA256, "compute_75");
        std::fs::write(dir.join(&name), "// cached").unwrap();
        let got = ptx_in(Some(&dir), &kernels::PARSHA256, "compute_75").unwrap();
        assert_eq!(got, "// cached");
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn without_nvrtc_an_uncached_kernel_is_a_clear_error() {
        if kernels::nvrtc_available().is_ok() {
            return; // compiled for real instead (the PTX test covers it)
        }
        match ptx_in(None, &kernels::KECCAK, "compute_80") {
            Err(GpuError::NoNvrtc(reason)) => assert!(reason.contains("libnvrtc")),
            other => panic!("{other:?}"),
        }
    }
}
