//! The command-line examples of README.md and docs/*.md, run as written, so that the
//! documentation cannot drift from the binary. Each ```console block is a list of
//! `$ parhash ...` commands with their expected output in trycmd's format (`...` on a line of
//! its own for any lines, `[..]` for any text within a line, `? 1` after a command for its exit
//! status; standard error is merged into standard output). Blocks that need a shell are
//! ```sh blocks, which trycmd leaves alone.
//!
//! Each markdown file's blocks run in order in a fresh copy of `tests/doc-examples/` (the
//! input files the examples name), so a later example may use what an earlier one of the same
//! file wrote, and no example writes into the checkout.
//! `TRYCMD=overwrite cargo test -p parhash-cli --test doc_examples` rewrites the expected
//! output from what parhash prints.

use std::fs;
use std::path::{Path, PathBuf};

/// README.md and every docs/*.md, in a fixed order.
fn documents(root: &Path) -> Vec<PathBuf> {
    let mut docs: Vec<PathBuf> = fs::read_dir(root.join("docs"))
        .expect("the docs folder")
        .map(|entry| entry.unwrap().path())
        .filter(|path| path.extension().is_some_and(|ext| ext == "md"))
        .collect();
    docs.sort();
    docs.insert(0, root.join("README.md"));
    docs
}

fn copy_tree(from: &Path, to: &Path) {
    for entry in fs::read_dir(from).unwrap() {
        let entry = entry.unwrap();
        let target = to.join(entry.file_name());
        if entry.file_type().unwrap().is_dir() {
            fs::create_dir(&target).unwrap();
            copy_tree(&entry.path(), &target);
        } else {
            fs::copy(entry.path(), &target).unwrap();
        }
    }
}

/// How many commands the ```console blocks of `text` hold (trycmd runs exactly those).
fn console_commands(text: &str) -> usize {
    let mut in_console = false;
    let mut count = 0;
    for line in text.lines() {
        if let Some(info) = line.strip_prefix("```") {
            in_console = !in_console && info.trim() == "console";
        } else if in_console && line.starts_with("$ ") {
            count += 1;
        }
    }
    count
}

#[test]
fn documentation_examples_run_as_written() {
    let manifest = Path::new(env!("CARGO_MANIFEST_DIR"));
    let root = manifest.join("../..").canonicalize().unwrap();
    let fixtures = manifest.join("tests/doc-examples");
    let docs = documents(&root);

    // The examples must be there to be tested: a heading renamed to ```sh everywhere, or a
    // folder moved, would otherwise pass without running anything.
    let commands: usize = docs
        .iter()
        .map(|doc| console_commands(&fs::read_to_string(doc).unwrap()))
        .sum();
    assert!(
        commands >= 30,
        "only {commands} console commands in README.md and docs/*.md"
    );
    let readme = fs::read_to_string(&docs[0]).unwrap();
    assert!(
        console_commands(&readme) >= 5,
        "README.md lost its examples"
    );

    let mut failed = Vec::new();
    for doc in &docs {
        let sandbox = tempfile::tempdir().unwrap();
        copy_tree(&fixtures, sandbox.path());
        // Commands run in the current directory (no `.in` folder beside the markdown file);
        // this test is the only one in its binary, so nothing else depends on it.
        std::env::set_current_dir(sandbox.path()).unwrap();
        // trycmd panics on the first failing file; every file's report is worth seeing.
        let ran = std::panic::catch_unwind(|| {
            trycmd::TestCases::new()
                .register_bin("parhash", PathBuf::from(env!("CARGO_BIN_EXE_parhash")))
                .case(doc)
                .run();
        });
        if ran.is_err() {
            failed.push(doc.strip_prefix(&root).unwrap().display().to_string());
        }
    }
    assert!(failed.is_empty(), "examples that fail: {failed:?}");
}
