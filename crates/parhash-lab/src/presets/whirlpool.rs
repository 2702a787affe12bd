//! Placeholder while being written.

use super::Preset;
use crate::lab::LabOptions;
use crate::report::Report;

/// See the module docs.
pub const PRESET: Preset = Preset {
    name: "whirlpool",
    study: "",
    about: "(being written)",
    run,
};

fn run(opts: &LabOptions) -> std::io::Result<Report> {
    let mut r = Report::new("whirlpool", &opts.command, crate::lab::machine(opts));
    r.notes.push("this preset is not written yet".into());
    Ok(r)
}
