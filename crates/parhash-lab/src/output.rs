//! Writing a report to its folder: `results.csv` (one row per measurement), `report.json`
//! (everything), `report.txt` (the terminal view), plots (`plots/*.svg`, `plots/*.png`) and the
//! self-contained `report.html`.

use std::path::{Path, PathBuf};

use crate::measure::Measurement;
use crate::report::Report;

/// Errors while writing a report.
#[derive(Debug)]
pub enum OutputError {
    Io(std::io::Error),
    Csv(csv::Error),
    Json(serde_json::Error),
}

impl std::fmt::Display for OutputError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            OutputError::Io(e) => write!(f, "{e}"),
            OutputError::Csv(e) => write!(f, "CSV: {e}"),
            OutputError::Json(e) => write!(f, "JSON: {e}"),
        }
    }
}

impl std::error::Error for OutputError {}

/// `From` each error an output can meet, for `?`.
macro_rules! from_errors {
    ($($variant:ident($error:ty)),+) => {$(
        impl From<$error> for OutputError {
            fn from(e: $error) -> Self {
                OutputError::$variant(e)
            }
        }
    )+};
}
from_errors!(Io(std::io::Error), Csv(csv::Error), Json(serde_json::Error));

/// Writes the measurements as CSV.
pub fn write_csv(measurements: &[Measurement], path: &Path) -> Result<(), OutputError> {
    let mut w = csv::Writer::from_path(path)?;
    for m in measurements {
        w.serialize(m)?;
    }
    w.flush()?;
    Ok(())
}

/// Reads measurements back from CSV.
pub fn read_csv(path: &Path) -> Result<Vec<Measurement>, OutputError> {
    let mut r = csv::Reader::from_path(path)?;
    let mut out = Vec::new();
    for row in r.deserialize() {
        out.push(row?);
    }
    Ok(out)
}

/// Reads a report back from JSON.
pub fn read_json(path: &Path) -> Result<Report, OutputError> {
    Ok(serde_json::from_slice(&std::fs::read(path)?)?)
}

/// Writes every file of the report into `dir` and returns their paths.
pub fn write_all(report: &Report, dir: &Path) -> Result<Vec<PathBuf>, OutputError> {
    std::fs::create_dir_all(dir)?;
    let mut written = Vec::new();
    let csv = dir.join("results.csv");
    write_csv(&report.measurements, &csv)?;
    written.push(csv);
    let json = dir.join("report.json");
    std::fs::write(&json, serde_json::to_vec_pretty(report)?)?;
    written.push(json);
    let text = dir.join("report.txt");
    std::fs::write(&text, crate::summary::full_text(report))?;
    written.push(text);
    let (plots, notes) = crate::plots::render_all(report, &dir.join("plots"));
    for p in &plots {
        written.push(dir.join("plots").join(format!("{}.svg", p.chart_name)));
        written.extend(p.png_path.iter().cloned());
    }
    let html = dir.join("report.html");
    std::fs::write(&html, crate::html::render(report, &plots, &notes))?;
    written.push(html);
    Ok(written)
}
