//! What a chart shows, as data: the series and roofs a report carries and a preset may add.
//! Drawing them is `plots`' job; keeping the data here lets the report hold charts without
//! depending on the drawing code (which reads reports).

use serde::{Deserialize, Serialize};

/// One drawn line.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Series {
    pub name: String,
    pub points: Vec<(f64, f64)>,
    /// A peer's line (drawn dashed), not one of parhash's.
    #[serde(default)]
    pub peer: bool,
}

impl Series {
    /// parhash's line through `points`.
    pub fn new(name: impl Into<String>, points: Vec<(f64, f64)>) -> Series {
        Series {
            name: name.into(),
            points,
            peer: false,
        }
    }
}

/// What a chart shows. Lines are drawn only between neighbouring x values that every series of
/// the chart could have: a series missing an x that another has is broken there, not drawn
/// across it.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Chart {
    /// File stem, e.g. `ns-per-byte-1`.
    pub name: String,
    pub title: String,
    pub x_label: String,
    pub y_label: String,
    pub log_x: bool,
    pub log_y: bool,
    /// The x values are byte sizes: a log axis labelled in powers of two (64 B, 4 KiB, 1 MiB).
    #[serde(default)]
    pub x_bytes: bool,
    pub series: Vec<Series>,
    /// Horizontal reference lines (roofs, parity): name as the legend shows it, and value.
    pub roofs: Vec<(String, f64)>,
    /// Draw y = x (ideal speed-up).
    pub diagonal: bool,
}
