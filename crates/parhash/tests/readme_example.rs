//! The library guide's example (docs/library.md, "Quick start") is `examples/quickstart.rs`
//! (which `cargo test` builds): every line of the guide's Rust block must appear in the example,
//! in order, so the guide cannot show code that no longer compiles.

#[test]
fn readme_library_example_is_the_compiled_example() {
    let guide = include_str!("../../../docs/library.md");
    let example = include_str!("../examples/quickstart.rs");
    let section = guide
        .split("\n## Quick start\n")
        .nth(1)
        .expect("docs/library.md has a Quick start section");
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
            "docs/library.md line not in examples/quickstart.rs (in this order): {line}"
        );
        shown += 1;
    }
    assert!(shown >= 10, "the guide's block has only {shown} lines");
}
