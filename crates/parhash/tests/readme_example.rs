//! The README's library example is `examples/quickstart.rs` (which `cargo test` builds): every
//! line of the README's Rust block must appear in the example, in order, so the README cannot
//! show code that no longer compiles.

#[test]
fn readme_library_example_is_the_compiled_example() {
    let readme = include_str!("../../../README.md");
    let example = include_str!("../examples/quickstart.rs");
    let section = readme
        .split("\n## Library\n")
        .nth(1)
        .expect("README has a Library section");
    let block = section
        .split("```rust\n")
        .nth(1)
        .and_then(|rest| rest.split("\n```").next())
        .expect("the Library section has a ```rust block");
    let mut example_lines = example.lines().map(str::trim);
    let mut shown = 0;
    for line in block.lines().map(str::trim).filter(|l| !l.is_empty()) {
        assert!(
            example_lines.any(|l| l == line),
            "README line not in examples/quickstart.rs (in this order): {line}"
        );
        shown += 1;
    }
    assert!(shown >= 10, "the README block has only {shown} lines");
}
