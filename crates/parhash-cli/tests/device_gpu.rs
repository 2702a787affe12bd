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

/// Files `f0`, `f1`, ... of these lengths (byte k = k mod 251) in `dir`; their paths.
fn write_files(dir: &std::path::Path, lens: &[usize]) -> Vec<String> {
    lens.iter()
        .enumerate()
        .map(|(i, &len)| {
            let path = dir.join(format!("f{i}"));
            std::fs::write(&path, (0..len).map(|k| (k % 251) as u8).collect::<Vec<_>>()).unwrap();
            path.to_string_lossy().into_owned()
        })
        .collect()
}

#[test]
fn gpu_sum_fails_cleanly_without_a_gpu_or_matches_the_cpu() {
    let dir = tempfile::tempdir().unwrap();
    let names = write_files(dir.path(), &[0, 3, 64, 1000, 100_000]);
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

/// `-r`, missing files and directories named without `-r`: the GPU's lines, messages and exit
/// status are the CPU's.
#[test]
fn gpu_walks_trees_and_fails_files_as_the_cpu_does() {
    let dir = tempfile::tempdir().unwrap();
    let tree = dir.path().join("tree");
    std::fs::create_dir_all(tree.join("a/b")).unwrap();
    write_files(&tree, &[0, 55, 4096]);
    write_files(&tree.join("a"), &[1, 70_000]);
    write_files(&tree.join("a/b"), &[136]);
    let tree = tree.to_string_lossy().into_owned();
    let missing = dir.path().join("missing").to_string_lossy().into_owned();
    let loose = write_files(dir.path(), &[3]);
    let runs: [&[&str]; 4] = [
        &["-a", "sha256", "-r", &tree, &loose[0]],
        &["-a", "sha3-256", "-r", &missing, &tree],
        &["-a", "keccak256", &tree, &loose[0]],
        &["-a", "parsha256", "-r", &tree, &missing],
    ];
    for args in runs {
        let cpu = parhash(&[&["sum"], args].concat());
        let gpu = parhash(&[&["sum", "--device", "gpu"], args].concat());
        let stderr = String::from_utf8_lossy(&gpu.stderr);
        if stderr.contains("no usable CUDA GPU: ") {
            assert!(
                std::env::var_os("PARHASH_REQUIRE_GPU").is_none(),
                "PARHASH_REQUIRE_GPU is set but {stderr}"
            );
            continue;
        }
        assert_eq!(gpu.stdout, cpu.stdout, "{args:?}");
        assert_eq!(gpu.stderr, cpu.stderr, "{args:?}");
        assert_eq!(gpu.status.code(), cpu.status.code(), "{args:?}");
    }
}

#[test]
fn other_algorithms_are_refused_on_the_gpu() {
    let out = parhash(&["sum", "--device", "gpu", "-a", "md5", "-"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("not md5"));
}

/// `parhash` with `PARHASH_CUDA_CACHE` set to `cache` (where the kernels' PTX and the lab's
/// `gpu-wins` record live).
fn parhash_with_cache(cache: &std::path::Path, args: &[&str]) -> std::process::Output {
    let binary = std::env::var_os("PARHASH_BIN")
        .unwrap_or_else(|| OsString::from(env!("CARGO_BIN_EXE_parhash")));
    Command::new(binary)
        .args(args)
        .env("PARHASH_CUDA_CACHE", cache)
        .output()
        .expect("run parhash")
}

fn has_ptx(dir: &std::path::Path) -> bool {
    std::fs::read_dir(dir)
        .unwrap()
        .any(|e| e.unwrap().path().extension().is_some_and(|x| x == "ptx"))
}

/// The GPU's name where `sum --device gpu` runs here (`None`: no usable GPU), by `nvidia-smi`.
fn this_gpu(files: &[&str]) -> Option<String> {
    let probe_cache = tempfile::tempdir().unwrap();
    let args = [&["sum", "--device", "gpu"], files].concat();
    let probe = parhash_with_cache(probe_cache.path(), &args);
    let gpu_name = probe.status.success().then(|| {
        let smi = Command::new("nvidia-smi")
            .args(["--query-gpu=name", "--format=csv,noheader"])
            .output()
            .expect("a GPU machine has nvidia-smi");
        String::from_utf8_lossy(&smi.stdout)
            .lines()
            .next()
            .unwrap_or("")
            .trim()
            .to_string()
    });
    if std::env::var_os("PARHASH_REQUIRE_GPU").is_some() {
        assert!(
            gpu_name.is_some(),
            "PARHASH_REQUIRE_GPU is set but there is no GPU"
        );
    }
    gpu_name
}

/// `sum --device auto ARGS FILES` under each record (`{gpu}` stands for this GPU's name): the
/// CPU's lines every time, no message, and the kernels ran (their PTX was cached) exactly where
/// the record says `gpu` and there is a GPU.
fn check_auto(args: &[&str], files: &[&str], records: &[(Option<&str>, bool)]) {
    let sum = |extra: &[&str]| -> Vec<String> {
        [&["sum"], args, extra, files]
            .concat()
            .into_iter()
            .map(String::from)
            .collect()
    };
    let cpu = parhash(&sum(&[]).iter().map(String::as_str).collect::<Vec<_>>());
    assert!(cpu.status.success());
    let gpu_name = this_gpu(&[args, files].concat());
    let this_gpu = gpu_name
        .clone()
        .unwrap_or_else(|| "NVIDIA H100 80GB HBM3".into());
    for (k, (record, on_gpu)) in records.iter().enumerate() {
        let cache = tempfile::tempdir().unwrap();
        if let Some(text) = record {
            let text = text.replace("{gpu}", &this_gpu);
            std::fs::write(cache.path().join("gpu-wins"), text).unwrap();
        }
        let args = sum(&["--device", "auto"]);
        let auto = parhash_with_cache(
            cache.path(),
            &args.iter().map(String::as_str).collect::<Vec<_>>(),
        );
        let stderr = String::from_utf8_lossy(&auto.stderr);
        assert!(auto.status.success(), "record {k}: {stderr}");
        assert!(stderr.is_empty(), "record {k}: {stderr}");
        assert_eq!(auto.stdout, cpu.stdout, "record {k}");
        let gpu_ran = *on_gpu && gpu_name.is_some();
        assert_eq!(
            has_ptx(cache.path()),
            gpu_ran,
            "record {k}: did the GPU run?"
        );
    }
}

#[test]
fn auto_uses_the_gpu_only_where_the_record_says_it_wins() {
    let dir = tempfile::tempdir().unwrap();
    let names = write_files(dir.path(), &[10, 5000, 200_000]);
    let files: Vec<&str> = names.iter().map(|s| s.as_str()).collect();
    // No record, another GPU's record, parameters not measured, a measurement the GPU lost,
    // this GPU's record above the largest file, and at it.
    check_auto(
        &["-a", "parsha256"],
        &files,
        &[
            (None, false),
            (
                Some("device not this GPU\nparsha256 T=13 l=256 from 4096\n"),
                false,
            ),
            (
                Some("device {gpu}\nparsha256 T=12 l=256 from 4096\n"),
                false,
            ),
            (Some("device {gpu}\nparsha256 T=13 l=256 never\n"), false),
            (
                Some("device {gpu}\nparsha256 T=13 l=256 from 200001\n"),
                false,
            ),
            (Some("device {gpu}\nsha256 files from 1\n"), false),
            (Some("device {gpu}\nparsha256 T=13 l=256 from 4096\n"), true),
        ],
    );
}

#[test]
fn auto_batches_on_the_gpu_from_the_recorded_number_of_files() {
    let dir = tempfile::tempdir().unwrap();
    let names = write_files(dir.path(), &[0, 55, 1024, 70_000]);
    let files: Vec<&str> = names.iter().map(|s| s.as_str()).collect();
    for alg in ["sha256", "sha3-256", "keccak256"] {
        let record = |line: &str| Some(format!("device {{gpu}}\n{alg} {line}\n"));
        let (more, at, never) = (
            record("files from 5"),
            record("files from 4"),
            record("files never"),
        );
        check_auto(
            &["-a", alg],
            &files,
            &[
                (None, false),
                (
                    Some(&format!("device not this GPU\n{alg} files from 1\n")),
                    false,
                ),
                (Some("device {gpu}\nparsha256 T=13 l=256 from 1\n"), false),
                (never.as_deref(), false),
                (more.as_deref(), false),
                (at.as_deref(), true),
            ],
        );
    }
}
