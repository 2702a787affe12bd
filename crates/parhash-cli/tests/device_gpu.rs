//! `parhash sum --device gpu`: on a machine without a usable GPU it fails with the backend's one
//! message and exit status 1; with a GPU its lines equal the CPU's (parsha256 included).
//!
//! With `PARHASH_REQUIRE_GPU` set, a missing GPU fails the test instead.
//!
//! `scripts/gpu-check.sh` runs this test prebuilt on a GPU machine without cargo, where the path
//! cargo compiled in does not exist: there `PARHASH_BIN` names the `parhash` binary to run.

use std::ffi::OsString;
use std::process::Command;

fn parhash(args: &[&str]) -> std::process::Output {
    let binary = std::env::var_os("PARHASH_BIN")
        .unwrap_or_else(|| OsString::from(env!("CARGO_BIN_EXE_parhash")));
    Command::new(binary)
        .args(args)
        .output()
        .expect("run parhash")
}

#[test]
fn gpu_sum_fails_cleanly_without_a_gpu_or_matches_the_cpu() {
    let dir = tempfile::tempdir().unwrap();
    let mut names = Vec::new();
    for (i, len) in [0usize, 3, 64, 1000, 100_000].iter().enumerate() {
        let path = dir.path().join(format!("f{i}"));
        std::fs::write(
            &path,
            (0..*len).map(|k| (k % 251) as u8).collect::<Vec<_>>(),
        )
        .unwrap();
        names.push(path.to_string_lossy().into_owned());
    }
    let files: Vec<&str> = names.iter().map(|s| s.as_str()).collect();
    let runs: [&[&str]; 5] = [
        &["-a", "sha256"],
        &["-a", "sha3-256"],
        &["-a", "keccak256", "--tag"],
        &["-a", "parsha256"],
        &[
            "-a",
            "parsha256",
            "--tree-height",
            "4",
            "--iv-bits",
            "128",
            "--tag",
        ],
    ];
    for alg in runs {
        let cpu = parhash(&[&["sum"], alg, files.as_slice()].concat());
        let gpu = parhash(&[&["sum", "--device", "gpu"], alg, files.as_slice()].concat());
        let stderr = String::from_utf8_lossy(&gpu.stderr);
        if stderr.contains("no usable CUDA GPU: ") {
            // scripts/gpu-check.sh sets this: on the GPU machine, no GPU is a failure.
            assert!(
                std::env::var_os("PARHASH_REQUIRE_GPU").is_none(),
                "PARHASH_REQUIRE_GPU is set but {stderr}"
            );
            assert_eq!(gpu.status.code(), Some(1));
            assert!(gpu.stdout.is_empty());
            assert_eq!(stderr.lines().count(), 1, "one clear message: {stderr}");
        } else {
            assert!(gpu.status.success(), "{stderr}");
            assert_eq!(gpu.stdout, cpu.stdout, "{alg:?}");
        }
    }
}

#[test]
fn other_algorithms_are_refused_on_the_gpu() {
    let out = parhash(&["sum", "--device", "gpu", "-a", "md5", "-"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("not md5"));
}
