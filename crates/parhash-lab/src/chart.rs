//! What a chart shows, as data: the series and roofs a report carries and a preset may add.
//! Drawing them is `plots`' job; keeping the data here lets the report hold charts without
//! depending on the drawing code (which reads reports).

use serde::{Deserialize, Serialize};

/// One drawn line.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Series {
    pub name: String,
    pub points: Vec<(f64, f64)>,
}

/// What a chart shows.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Chart {
    /// File stem, e.g. `ns-per-byte-1`.
    pub name: String,
    pub title: String,
    pub x_label: String,
    pub y_label: String,
    pub log_x: bool,
    pub log_y: bool,
    pub series: Vec<Series>,
    /// Horizontal reference lines (roofs): name and value.
    pub roofs: Vec<(String, f64)>,
    /// Draw y = x (ideal speed-up).
    pub diagonal: bool,
}
