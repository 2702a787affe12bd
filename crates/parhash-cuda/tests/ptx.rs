//! Every `.cu` kernel compiles to PTX with NVRTC for the architectures we target, and the PTX
//! defines every entry point the host launches. NVRTC needs no GPU, only `libnvrtc` on the
//! library path: `.ci/run` installs the `nvidia-cuda-nvrtc-cu12` wheel and runs this test with
//! `--ignored` (see `scripts/install-nvrtc.sh`).

use parhash_cuda::kernels;

/// Ampere (A100) and Hopper (H100): the data-centre GPUs of the benchmarks.
const ARCHES: [&str; 2] = ["compute_80", "compute_90"];

#[test]
#[ignore = "needs NVRTC (libnvrtc) on the library path; .ci/run installs it and runs this with --ignored"]
fn every_kernel_compiles_to_ptx_with_its_entry_points() {
    if let Err(e) = kernels::nvrtc_available() {
        panic!("{e}");
    }
    for arch in ARCHES {
        for kernel in kernels::ALL {
            let ptx = kernels::compile_ptx(&kernel, arch)
                .unwrap_or_else(|e| panic!("{} for {arch}: {e}", kernel.file));
            let target = format!(".target sm_{}", arch.trim_start_matches("compute_"));
            assert!(
                ptx.contains(&target),
                "{} for {arch}: no `{target}`",
                kernel.file
            );
            for function in kernel.functions {
                assert!(
                    ptx.contains(&format!(".entry {function}(")),
                    "{} for {arch}: no entry point {function}",
                    kernel.file
                );
            }
            println!("{} -> {arch}: {} bytes of PTX", kernel.file, ptx.len());
        }
    }
}

#[test]
fn every_kernel_file_in_the_folder_is_compiled_by_the_test() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("kernels");
    let mut on_disk: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.ends_with(".cu"))
        .collect();
    on_disk.sort();
    let mut listed: Vec<String> = kernels::ALL.iter().map(|k| k.file.to_string()).collect();
    listed.sort();
    assert_eq!(on_disk, listed, "kernels::ALL must list every .cu file");
}
