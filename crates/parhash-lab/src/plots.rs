//! Plots of a report, as SVG and PNG (`plotters`): per algorithm, parhash's forms and every
//! peer on the same axes (GB/s against message length); parhash's fastest form over the best
//! peer against message length; speed-up against threads; throughput against messages per
//! batch; the roofs drawn as lines.
//!
//! Log axes are drawn as linear axes over the logarithm of the values ([`Scale`]), ticked at
//! round values (powers of two written as sizes for lengths, 1-2-5 for rates, whole numbers for
//! threads). The legend sits in a panel beside the plot, never over the data, and lines join
//! only neighbouring measured values ([`runs`]). Text needs a TrueType font: `PARHASH_FONT` or a
//! system DejaVu/Liberation font; without one, plots are skipped and the report says so.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use plotters::coord::Shift;
use plotters::prelude::*;

use crate::chart::{Chart, Series};
use crate::engine::Provider;
use crate::measure::Measurement;
use crate::report::Report;
use crate::source::Source;

/// A drawn chart: its SVG text and the PNG written beside it.
#[derive(Clone, Debug)]
pub struct Plot {
    pub chart_name: String,
    pub title: String,
    pub svg: String,
    pub png_path: Option<PathBuf>,
}

const SIZE: (u32, u32) = (960, 560);
const FONT: &str = "sans-serif";

/// Registers a TrueType font once; `Err` says why there is none.
pub fn font() -> Result<(), String> {
    static FONT_STATE: OnceLock<Result<(), String>> = OnceLock::new();
    FONT_STATE
        .get_or_init(|| {
            let mut candidates: Vec<PathBuf> = Vec::new();
            if let Some(p) = std::env::var_os("PARHASH_FONT") {
                candidates.push(p.into());
            }
            for p in [
                "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf",
                "/usr/share/fonts/TTF/DejaVuSans.ttf",
                "/usr/share/fonts/dejavu/DejaVuSans.ttf",
                "/usr/share/fonts/truetype/liberation/LiberationSans-Regular.ttf",
                "/usr/share/fonts/liberation-sans/LiberationSans-Regular.ttf",
                "/Library/Fonts/Arial.ttf",
            ] {
                candidates.push(p.into());
            }
            for path in &candidates {
                if let Ok(bytes) = std::fs::read(path) {
                    // Registered fonts live for the whole program.
                    let bytes: &'static [u8] = Box::leak(bytes.into_boxed_slice());
                    if plotters::style::register_font(FONT, FontStyle::Normal, bytes).is_ok() {
                        return Ok(());
                    }
                }
            }
            Err(format!(
                "plots skipped: no TrueType font found (set PARHASH_FONT; looked in {})",
                candidates
                    .iter()
                    .map(|p| p.display().to_string())
                    .collect::<Vec<_>>()
                    .join(", ")
            ))
        })
        .clone()
}

/// Font sizes, all even: plotters' bitmap text places each glyph by half the font size
/// truncated to whole pixels, so at odd sizes a decimal point floats half-way up ("1·00").
const CAPTION_FONT: u32 = 22;
const AXIS_FONT: u32 = 16;
const LABEL_FONT: u32 = 14;
const LEGEND_FONT: u32 = 14;
/// Every size text is drawn at (the test checks them).
pub const FONT_SIZES: [u32; 4] = [CAPTION_FONT, AXIS_FONT, LABEL_FONT, LEGEND_FONT];

/// How values map onto an axis.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Scale {
    Linear,
    /// Linear, labelled only at whole numbers (threads, counts).
    Integers,
    /// log10 of the value, labelled at 1, 2 and 5 times powers of ten.
    Log10,
    /// log2 of a byte size, labelled at powers of two as sizes (64 B, 4 KiB, 1 MiB).
    Bytes,
}

impl Scale {
    fn of_x(chart: &Chart) -> Scale {
        let all_whole = chart
            .series
            .iter()
            .flat_map(|s| s.points.iter())
            .all(|p| p.0.fract() == 0.0);
        if chart.x_bytes {
            Scale::Bytes
        } else if chart.log_x {
            Scale::Log10
        } else if all_whole {
            Scale::Integers
        } else {
            Scale::Linear
        }
    }

    fn of_y(chart: &Chart) -> Scale {
        if chart.log_y {
            Scale::Log10
        } else {
            Scale::Linear
        }
    }

    /// Where `v` lies on the axis.
    pub fn to_axis(self, v: f64) -> f64 {
        match self {
            Scale::Linear | Scale::Integers => v,
            Scale::Log10 => v.max(1e-300).log10(),
            Scale::Bytes => v.max(1e-300).log2(),
        }
    }

    /// The label of the tick at axis position `v` ("" for none); `span` is the axis' length in
    /// axis units.
    pub fn tick_label(self, v: f64, span: f64) -> String {
        let whole = (v - v.round()).abs() < 1e-6;
        match self {
            Scale::Linear => plain_number(v),
            Scale::Integers if whole => format!("{}", v.round() as i64),
            Scale::Integers => String::new(),
            Scale::Bytes if whole && v >= -1e-6 => {
                crate::units::format_size(2f64.powi(v.round() as i32) as usize)
            }
            Scale::Bytes => String::new(),
            Scale::Log10 => {
                let x = 10f64.powf(v);
                let mantissa = x / 10f64.powf(x.log10().floor());
                let round = [1.0, 2.0, 5.0, 10.0]
                    .iter()
                    .any(|m| (mantissa - m).abs() < 0.02 * m);
                // Short axes (under a decade) label every tick plotters picks.
                if round || span < 1.0 {
                    plain_number(x)
                } else {
                    String::new()
                }
            }
        }
    }
}

impl Scale {
    /// Where ticks go on an axis from `lo` to `hi` (axis units): round values of the scale,
    /// about ten of them.
    pub fn key_points(self, lo: f64, hi: f64) -> Vec<f64> {
        let every = |first: f64, step: f64| -> Vec<f64> {
            let mut out = Vec::new();
            let mut v = (first / step).ceil() * step;
            while v <= hi + 1e-9 && out.len() < 100 {
                out.push(v);
                v += step;
            }
            out
        };
        match self {
            Scale::Linear => {
                let raw = ((hi - lo) / 8.0).max(f64::MIN_POSITIVE);
                let magnitude = 10f64.powf(raw.log10().floor());
                let step = [1.0, 2.0, 5.0, 10.0]
                    .iter()
                    .map(|m| m * magnitude)
                    .find(|s| *s >= raw)
                    .unwrap_or(10.0 * magnitude);
                every(lo, step)
            }
            Scale::Integers | Scale::Bytes => {
                let first = if self == Scale::Bytes {
                    lo.max(0.0)
                } else {
                    lo
                };
                let count = (hi - first).max(1.0);
                every(first, (count / 10.0).ceil().max(1.0))
            }
            Scale::Log10 => {
                let mut out = Vec::new();
                let mut multiples: &[f64] = &[1.0, 2.0, 5.0];
                if hi - lo > 5.0 {
                    multiples = &[1.0];
                } else if hi - lo < 1.0 {
                    multiples = &[1.0, 1.5, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0];
                }
                for decade in (lo.floor() as i32)..=(hi.ceil() as i32) {
                    for m in multiples {
                        let v = (m * 10f64.powi(decade)).log10();
                        if v >= lo - 1e-9 && v <= hi + 1e-9 {
                            out.push(v);
                        }
                    }
                }
                out
            }
        }
    }
}

/// An f64 axis ticked at chosen values (plotters' own f64 axis picks its ticks itself, and
/// its key-point wrapper loses the tick formatter).
struct Ticked {
    inner: plotters::coord::types::RangedCoordf64,
    keys: Vec<f64>,
}

impl Ticked {
    fn new(lo: f64, hi: f64, keys: Vec<f64>) -> Ticked {
        Ticked {
            inner: (lo..hi).into(),
            keys,
        }
    }
}

impl Ranged for Ticked {
    type FormatOption = plotters::coord::ranged1d::DefaultFormatting;
    type ValueType = f64;

    fn map(&self, value: &f64, limit: (i32, i32)) -> i32 {
        self.inner.map(value, limit)
    }

    fn key_points<Hint: plotters::coord::ranged1d::KeyPointHint>(&self, hint: Hint) -> Vec<f64> {
        // Bold lines at the chosen ticks; no light lines between them.
        if hint.weight().allow_light_points() {
            Vec::new()
        } else {
            self.keys.clone()
        }
    }

    fn range(&self) -> std::ops::Range<f64> {
        self.inner.range()
    }
}

/// A number as people write it: at most three significant digits, no trailing zeros, `k`, `M`,
/// `G` past a thousand, always a "." decimal point.
pub fn plain_number(x: f64) -> String {
    if !x.is_finite() {
        return "-".into();
    }
    let (value, suffix) = [(1e9, " G"), (1e6, " M"), (1e3, " k")]
        .iter()
        .find(|(unit, _)| x.abs() >= *unit * 0.9995)
        .map_or((x, ""), |(unit, s)| (x / unit, *s));
    let digits = if value.abs() >= 100.0 {
        0
    } else if value.abs() >= 10.0 {
        1
    } else if value.abs() >= 1.0 {
        2
    } else {
        3
    };
    let mut text = format!("{value:.digits$}");
    if text.contains('.') {
        text = text.trim_end_matches('0').trim_end_matches('.').to_string();
    }
    if text == "-0" {
        text = "0".into();
    }
    format!("{text}{suffix}")
}

/// (x, y) points of one series.
type Points = Vec<(f64, f64)>;

/// Splits `points` (sorted by x) into runs that skip no x of `grid` between neighbours: a line
/// is drawn only between lengths measured next to each other.
pub fn runs(points: &[(f64, f64)], grid: &[f64]) -> Vec<Points> {
    let mut out: Vec<Points> = Vec::new();
    for (i, &p) in points.iter().enumerate() {
        let joined = i > 0 && {
            let prev = points[i - 1].0;
            !grid.iter().any(|&g| g > prev && g < p.0)
        };
        match out.last_mut() {
            Some(run) if joined => run.push(p),
            _ => out.push(vec![p]),
        }
    }
    out
}

type DrawResult = Result<(), Box<dyn std::error::Error>>;

/// Distinct colours that read on white (Tableau 10), then darker shades of them.
fn color(i: usize) -> RGBColor {
    const BASE: [(u8, u8, u8); 10] = [
        (31, 119, 180),
        (255, 127, 14),
        (44, 160, 44),
        (214, 39, 40),
        (148, 103, 189),
        (140, 86, 75),
        (227, 119, 194),
        (127, 127, 127),
        (188, 189, 34),
        (23, 190, 207),
    ];
    let (r, g, b) = BASE[i % BASE.len()];
    let shade = |c: u8| (f64::from(c) * 0.6f64.powi((i / BASE.len()) as i32)) as u8;
    RGBColor(shade(r), shade(g), shade(b))
}

const ROOF_COLORS: [RGBColor; 3] = [
    RGBColor(90, 90, 90),
    RGBColor(170, 50, 50),
    RGBColor(50, 120, 50),
];

/// How a legend entry is drawn.
enum Mark {
    Solid(RGBColor),
    Dashed(RGBColor),
}

/// Width of the legend panel beside the plot: enough for the longest name, within limits.
fn legend_width(chart: &Chart) -> u32 {
    let longest = chart
        .series
        .iter()
        .map(|s| s.name.chars().count())
        .chain(chart.roofs.iter().map(|r| r.0.chars().count() + 6))
        .max()
        .unwrap_or(0) as u32;
    (longest * LEGEND_FONT * 6 / 10 + 50).clamp(140, 380)
}

/// The legend in its own panel, so it never covers data; entries past the panel's height are
/// summed up in a last line.
fn draw_legend<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    entries: &[(String, Mark)],
) -> DrawResult
where
    DB::ErrorType: 'static,
{
    let row = (LEGEND_FONT + 8) as i32;
    let top = 60;
    let (_, height) = area.dim_in_pixel();
    let fits = ((height as i32 - top - 10) / row).max(1) as usize;
    let style = TextStyle::from((FONT, LEGEND_FONT)).color(&BLACK);
    for (i, (name, mark)) in entries.iter().enumerate() {
        let y = top + i as i32 * row;
        if i + 1 == fits && entries.len() > fits {
            area.draw(&Text::new(
                format!("... and {} more (in the tables)", entries.len() - i),
                (8, y - 7),
                style.clone(),
            ))?;
            break;
        }
        match mark {
            Mark::Solid(c) => {
                area.draw(&PathElement::new(vec![(8, y), (34, y)], c.stroke_width(3)))?;
                area.draw(&Circle::new((21, y), 3, c.filled()))?;
            }
            Mark::Dashed(c) => {
                for x in [8, 18, 28] {
                    area.draw(&PathElement::new(
                        vec![(x, y), (x + 6, y)],
                        c.stroke_width(3),
                    ))?;
                }
            }
        }
        area.draw(&Text::new(name.clone(), (42, y - 7), style.clone()))?;
    }
    Ok(())
}

fn draw<DB: DrawingBackend>(root: DrawingArea<DB, Shift>, chart: &Chart) -> DrawResult
where
    DB::ErrorType: 'static,
{
    root.fill(&WHITE)?;
    let (xs_scale, ys_scale) = (Scale::of_x(chart), Scale::of_y(chart));
    let xs = chart
        .series
        .iter()
        .flat_map(|s| s.points.iter().map(|p| xs_scale.to_axis(p.0)));
    let ys = chart
        .series
        .iter()
        .flat_map(|s| s.points.iter().map(|p| ys_scale.to_axis(p.1)))
        .chain(chart.roofs.iter().map(|r| ys_scale.to_axis(r.1)));
    let (mut x0, mut x1) = xs
        .filter(|v| v.is_finite())
        .fold((f64::INFINITY, f64::NEG_INFINITY), |(a, b), v| {
            (a.min(v), b.max(v))
        });
    let (mut y0, mut y1) = ys
        .filter(|v| v.is_finite())
        .fold((f64::INFINITY, f64::NEG_INFINITY), |(a, b), v| {
            (a.min(v), b.max(v))
        });
    if !x0.is_finite() || !y0.is_finite() {
        return Err("nothing to plot".into());
    }
    let pad = |a: &mut f64, b: &mut f64, log: bool| {
        let span = (*b - *a).max(if log { 0.2 } else { (b.abs() * 0.1).max(0.1) });
        *a -= span * 0.05;
        *b += span * 0.05;
    };
    pad(
        &mut x0,
        &mut x1,
        xs_scale != Scale::Linear && xs_scale != Scale::Integers,
    );
    pad(&mut y0, &mut y1, chart.log_y);
    if !chart.log_y && y0 > 0.0 {
        y0 = 0.0;
    }
    let titled = root.titled(&chart.title, (FONT, CAPTION_FONT))?;
    let (width, _) = titled.dim_in_pixel();
    let (plot_area, legend_area) = titled.split_horizontally(width - legend_width(chart));
    let mut ctx = ChartBuilder::on(&plot_area)
        .margin(12)
        .x_label_area_size(48)
        .y_label_area_size(70)
        .build_cartesian_2d(
            Ticked::new(x0, x1, xs_scale.key_points(x0, x1)),
            Ticked::new(y0, y1, ys_scale.key_points(y0, y1)),
        )?;
    let (x_span, y_span) = (x1 - x0, y1 - y0);
    ctx.configure_mesh()
        .x_desc(chart.x_label.as_str())
        .y_desc(chart.y_label.as_str())
        .x_label_formatter(&|v| xs_scale.tick_label(*v, x_span))
        .y_label_formatter(&|v| ys_scale.tick_label(*v, y_span))
        .label_style((FONT, LABEL_FONT))
        .axis_desc_style((FONT, AXIS_FONT))
        .light_line_style(WHITE)
        .bold_line_style(RGBColor(225, 225, 225))
        .draw()?;
    let mut legend: Vec<(String, Mark)> = Vec::new();
    for (i, r) in chart.roofs.iter().enumerate() {
        let y = ys_scale.to_axis(r.1);
        let c = ROOF_COLORS[i % ROOF_COLORS.len()];
        ctx.draw_series(DashedLineSeries::new(
            vec![(x0, y), (x1, y)],
            6,
            4,
            c.stroke_width(2),
        ))?;
        legend.push((r.0.clone(), Mark::Dashed(c)));
    }
    if chart.diagonal {
        let lo = x0.max(y0);
        let hi = x1.min(y1);
        if hi > lo {
            let c = RGBColor(150, 150, 150);
            ctx.draw_series(LineSeries::new(vec![(lo, lo), (hi, hi)], c.stroke_width(1)))?;
            legend.push(("ideal".into(), Mark::Solid(c)));
        }
    }
    let mut grid: Vec<f64> = chart
        .series
        .iter()
        .flat_map(|s| s.points.iter().map(|p| p.0))
        .collect();
    grid.sort_by(f64::total_cmp);
    grid.dedup();
    for (i, s) in chart.series.iter().enumerate() {
        let c = color(i);
        let mut points = s.points.clone();
        points.sort_by(|a, b| a.0.total_cmp(&b.0));
        for run in runs(&points, &grid) {
            let pts: Points = run
                .iter()
                .map(|p| (xs_scale.to_axis(p.0), ys_scale.to_axis(p.1)))
                .collect();
            if s.peer {
                ctx.draw_series(DashedLineSeries::new(pts.clone(), 8, 5, c.stroke_width(2)))?;
                ctx.draw_series(
                    pts.into_iter()
                        .map(|p| TriangleMarker::new(p, 5, c.filled())),
                )?;
            } else {
                ctx.draw_series(LineSeries::new(pts.clone(), c.stroke_width(2)))?;
                ctx.draw_series(pts.into_iter().map(|p| Circle::new(p, 3, c.filled())))?;
            }
        }
        legend.push((
            s.name.clone(),
            if s.peer {
                Mark::Dashed(c)
            } else {
                Mark::Solid(c)
            },
        ));
    }
    draw_legend(&legend_area, &legend)?;
    root.present()?;
    Ok(())
}

/// Draws `chart` as SVG (returned) and PNG (written under `dir`).
pub fn render(chart: &Chart, dir: &Path) -> Result<Plot, String> {
    font()?;
    let mut svg = String::new();
    {
        let root = SVGBackend::with_string(&mut svg, SIZE).into_drawing_area();
        draw(root, chart).map_err(|e| format!("{}: {e}", chart.name))?;
    }
    std::fs::create_dir_all(dir).map_err(|e| e.to_string())?;
    std::fs::write(dir.join(format!("{}.svg", chart.name)), &svg).map_err(|e| e.to_string())?;
    let png = dir.join(format!("{}.png", chart.name));
    let png_path = {
        let root = BitMapBackend::new(&png, SIZE).into_drawing_area();
        draw(root, chart).map_err(|e| format!("{}: {e}", chart.name))?;
        Some(png)
    };
    Ok(Plot {
        chart_name: chart.name.clone(),
        title: chart.title.clone(),
        svg,
        png_path,
    })
}

fn one_message_memory_1t(m: &Measurement) -> bool {
    m.messages == 1 && m.threads == 1 && m.source == Source::Memory
}

/// A series' name in a chart of one algorithm: `parhash sha-ni`, `openssl OpenSSL 3.0.19`.
fn form_name(m: &Measurement) -> String {
    match m.provider {
        Provider::Parhash => format!("parhash {}", m.variant),
        p => {
            let v = m.variant.trim_start_matches(p.name()).trim();
            format!("{} {}", p.name(), if v.is_empty() { &m.variant } else { v })
        }
    }
}

/// Algorithms no other library implements, and the one measured beside them instead: the hash
/// they are built on. PARSHA-256 is a tree of SHA-256 compressions, so SHA-256's lines (parhash's
/// fastest form and every peer) are what its chart sets it against.
pub const STAND_IN_PEERS: &[(&str, &str)] = &[("parsha256", "sha256")];

/// One chart per algorithm: parhash's forms and every peer of it, GB/s against message length
/// (one message, one thread, memory), with the one-thread memory roof. An algorithm without
/// peers of its own gets its [`STAND_IN_PEERS`] algorithm's lines when the run measured it, and
/// a title that promises no peer otherwise.
fn algorithm_charts(report: &Report) -> Vec<Chart> {
    let mut order: Vec<&str> = Vec::new();
    let mut by_algorithm: BTreeMap<&str, BTreeMap<(bool, String), Points>> = BTreeMap::new();
    for m in report
        .measurements
        .iter()
        .filter(|m| one_message_memory_1t(m))
    {
        if !order.contains(&m.algorithm.as_str()) {
            order.push(&m.algorithm);
        }
        by_algorithm
            .entry(&m.algorithm)
            .or_default()
            .entry((m.provider != Provider::Parhash, form_name(m)))
            .or_default()
            .push((m.message_len.max(1) as f64, m.gb_per_s));
    }
    let roofs: Vec<(String, f64)> = report
        .roofs
        .iter()
        .map(|r| ("memory roof, 1 thread".to_string(), r.memory_1t / 1e9))
        .collect();
    let mut out = Vec::new();
    for algorithm in order {
        let lines = &by_algorithm[algorithm];
        let lengths: std::collections::BTreeSet<u64> = lines
            .values()
            .flat_map(|p| p.iter().map(|q| q.0 as u64))
            .collect();
        // A single length says nothing "against length"; a chart of peers alone (the blake3
        // anchor) has no parhash to compare.
        if lengths.len() < 2 || lines.keys().all(|(peer, _)| *peer) {
            continue;
        }
        let mut series: Vec<Series> = lines
            .iter()
            .map(|((peer, name), points)| Series {
                name: name.clone(),
                points: points.clone(),
                peer: *peer,
            })
            .collect();
        let has_peers = lines.keys().any(|(peer, _)| *peer);
        let stand_in = STAND_IN_PEERS
            .iter()
            .find(|(a, _)| *a == algorithm)
            .and_then(|(_, other)| by_algorithm.get(other).map(|l| (*other, l)))
            .filter(|_| !has_peers);
        let title = match stand_in {
            Some((other, other_lines)) => {
                series.extend(stand_in_series(other, other_lines));
                format!(
                    "{algorithm}: parhash's forms and {other} as its peer (one message, 1 thread)"
                )
            }
            None if has_peers => {
                format!("{algorithm}: parhash's forms and its peers (one message, 1 thread)")
            }
            None => format!(
                "{algorithm}: parhash's forms (no peer implements it; one message, 1 thread)"
            ),
        };
        out.push(Chart {
            name: format!("algorithm-{algorithm}"),
            title,
            x_label: "message length".into(),
            y_label: "GB/s (higher is faster)".into(),
            log_x: true,
            log_y: true,
            x_bytes: true,
            series,
            roofs: roofs.clone(),
            diagonal: false,
        });
    }
    out
}

/// The lines of `algorithm` drawn as peers in another algorithm's chart: parhash's fastest form
/// at each length, and every peer, each named after `algorithm`.
fn stand_in_series(algorithm: &str, lines: &BTreeMap<(bool, String), Points>) -> Vec<Series> {
    let mut fastest: BTreeMap<u64, f64> = BTreeMap::new();
    for (_, points) in lines.iter().filter(|((peer, _), _)| !*peer) {
        for &(len, gb) in points {
            let best = fastest.entry(len as u64).or_insert(gb);
            *best = best.max(gb);
        }
    }
    let mut out = Vec::new();
    if !fastest.is_empty() {
        out.push(Series {
            name: format!("{algorithm}: parhash, fastest form"),
            points: fastest.into_iter().map(|(l, g)| (l as f64, g)).collect(),
            peer: true,
        });
    }
    out.extend(
        lines
            .iter()
            .filter(|((peer, _), _)| *peer)
            .map(|((_, name), points)| Series {
                name: format!("{algorithm}: {name}"),
                points: points.clone(),
                peer: true,
            }),
    );
    out
}

/// parhash's fastest form over the best peer, per algorithm, against message length.
fn ratio_chart(report: &Report) -> Option<Chart> {
    let mut order: Vec<&str> = Vec::new();
    let mut lines: BTreeMap<&str, Points> = BTreeMap::new();
    for c in report.peer_comparisons() {
        if !one_message_memory_1t(c.parhash) {
            continue;
        }
        let Some((_, ratio)) = c.best_peer() else {
            continue;
        };
        if !order.contains(&c.algorithm()) {
            order.push(c.algorithm());
        }
        lines
            .entry(c.algorithm())
            .or_default()
            .push((c.message_len().max(1) as f64, ratio));
    }
    let series: Vec<Series> = order
        .iter()
        .map(|a| Series::new(*a, lines[a].clone()))
        .collect();
    if series.iter().all(|s| s.points.len() < 2) {
        return None;
    }
    Some(Chart {
        name: "parhash-vs-best-peer".into(),
        title: "parhash's fastest form against the best peer (above 1: parhash faster)".into(),
        x_label: "message length".into(),
        y_label: "speed ratio, parhash / best peer".into(),
        log_x: true,
        log_y: true,
        x_bytes: true,
        series,
        roofs: vec![("parity (as fast as the peer)".into(), 1.0)],
        diagonal: false,
    })
}

/// The file stem of the speed-up plot.
pub const SPEEDUP_CHART: &str = "speedup-vs-threads";

/// Thread counts the speed-up plot needs: with two (1 and N), every line is one segment, and
/// [`Report::speedup_table`] says the same in fewer words.
pub const MIN_THREAD_COUNTS_TO_PLOT: usize = 3;

/// The charts a report calls for (those with data), then those its preset added.
pub fn charts(report: &Report) -> Vec<Chart> {
    let mut out = algorithm_charts(report);
    out.extend(ratio_chart(report));
    let roofs = report.roofs.as_ref();

    // Speed-up vs threads.
    let mut by_point: BTreeMap<(String, usize, usize, Source), Points> = BTreeMap::new();
    for m in &report.measurements {
        let s = if m.threads == 1 {
            Some(1.0)
        } else {
            m.speedup_vs_1_thread
        };
        if let Some(s) = s {
            by_point
                .entry((m.label(), m.message_len, m.messages, m.source))
                .or_default()
                .push((m.threads as f64, s));
        }
    }
    // Per engine, its two longest message lengths (scaling shows best there).
    let mut candidates: Vec<_> = by_point.into_iter().filter(|(_, p)| p.len() >= 2).collect();
    candidates.sort_by(|a, b| {
        (&a.0 .0, std::cmp::Reverse(a.0 .1)).cmp(&(&b.0 .0, std::cmp::Reverse(b.0 .1)))
    });
    let mut per_engine: BTreeMap<String, usize> = BTreeMap::new();
    let mut speedups: Vec<Series> = Vec::new();
    for ((label, len, msgs, source), mut points) in candidates {
        let n = per_engine.entry(label.clone()).or_insert(0);
        if *n >= 2 {
            continue;
        }
        *n += 1;
        points.sort_by(|a, b| a.0.total_cmp(&b.0));
        speedups.push(Series::new(
            format!(
                "{label} {} x{msgs} {}",
                crate::units::format_size(len),
                source.name()
            ),
            points,
        ));
    }
    let enough_thread_counts = report.speedup_thread_counts().len() >= MIN_THREAD_COUNTS_TO_PLOT;
    if !speedups.is_empty() && enough_thread_counts {
        speedups.truncate(12);
        out.push(Chart {
            name: SPEEDUP_CHART.into(),
            title: "Speed-up against 1 thread".into(),
            x_label: "threads".into(),
            y_label: "speed-up".into(),
            series: speedups,
            diagonal: true,
            ..Chart::default()
        });
    }

    // Throughput vs multiplicity, one thread, memory, at the longest length measured.
    let mut by_mult: BTreeMap<(String, usize), Points> = BTreeMap::new();
    for m in report
        .measurements
        .iter()
        .filter(|m| m.threads == 1 && m.source == Source::Memory)
    {
        by_mult
            .entry((m.label(), m.message_len))
            .or_default()
            .push((m.messages as f64, m.gb_per_s));
    }
    let multi: Vec<((String, usize), Points)> =
        by_mult.into_iter().filter(|(_, p)| p.len() >= 2).collect();
    if let Some(len) = multi
        .iter()
        .map(|((_, l), _)| *l)
        .filter(|&l| l <= 4096)
        .max()
    {
        let series: Vec<Series> = multi
            .iter()
            .filter(|((_, l), _)| *l == len)
            .take(10)
            .map(|((label, _), points)| {
                let mut points = points.clone();
                points.sort_by(|a, b| a.0.total_cmp(&b.0));
                Series::new(label.clone(), points)
            })
            .collect();
        let mut r = Vec::new();
        if let Some(roofs) = roofs {
            r.push(("memory roof, 1 thread".to_string(), roofs.memory_1t / 1e9));
            r.push((
                "page-cache roof".to_string(),
                roofs.page_cache.bandwidth / 1e9,
            ));
            r.push(("disk roof".to_string(), roofs.disk.bandwidth / 1e9));
        }
        out.push(Chart {
            name: "throughput-vs-messages".into(),
            title: format!(
                "Throughput against messages per batch ({} messages, 1 thread, memory)",
                crate::units::format_size(len)
            ),
            x_label: "messages per batch".into(),
            y_label: "GB/s".into(),
            log_x: true,
            log_y: true,
            series,
            roofs: r,
            ..Chart::default()
        });
    }
    out.extend(report.charts.iter().cloned());
    out
}

/// Draws every chart of `report` into `dir`; returns the plots and notes on what was skipped.
pub fn render_all(report: &Report, dir: &Path) -> (Vec<Plot>, Vec<String>) {
    let mut plots = Vec::new();
    let mut notes = Vec::new();
    let charts = charts(report);
    if charts.is_empty() {
        return (plots, notes);
    }
    if let Err(e) = font() {
        notes.push(e);
        return (plots, notes);
    }
    for c in &charts {
        match render(c, dir) {
            Ok(p) => plots.push(p),
            Err(e) => notes.push(format!("plot {} skipped: {e}", c.name)),
        }
    }
    (plots, notes)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tick_labels_read_as_values() {
        // Sizes one way, at powers of two only.
        assert_eq!(Scale::Bytes.tick_label(6.0, 12.0), "64 B");
        assert_eq!(Scale::Bytes.tick_label(12.0, 12.0), "4 KiB");
        assert_eq!(Scale::Bytes.tick_label(20.0, 12.0), "1 MiB");
        assert_eq!(Scale::Bytes.tick_label(10.0, 12.0), "1 KiB");
        assert_eq!(Scale::Bytes.tick_label(6.5, 12.0), "");
        assert_eq!(Scale::Bytes.to_axis(4096.0), 12.0);
        // Threads: whole numbers only.
        assert_eq!(Scale::Integers.tick_label(2.0, 1.0), "2");
        assert_eq!(Scale::Integers.tick_label(1.5, 1.0), "");
        assert_eq!(Scale::Integers.tick_label(1.1, 1.0), "");
        // Powers of ten, and 2 and 5 times them, on long log axes; every tick on short ones.
        assert_eq!(Scale::Log10.tick_label(2.0, 3.0), "100");
        assert_eq!(Scale::Log10.tick_label(6.0, 3.0), "1 M");
        assert_eq!(Scale::Log10.tick_label(-1.0, 3.0), "0.1");
        assert_eq!(Scale::Log10.tick_label(5f64.log10(), 3.0), "5");
        assert_eq!(Scale::Log10.tick_label(4.5, 3.0), "");
        assert_eq!(Scale::Log10.tick_label(0.1, 0.5), "1.26");
        assert_eq!(Scale::Linear.tick_label(0.5, 1.0), "0.5");
        assert_eq!(plain_number(1.0), "1");
        assert_eq!(plain_number(1500.0), "1.5 k");
        assert_eq!(plain_number(0.25), "0.25");
    }

    #[test]
    fn ticks_fall_on_round_values() {
        // Threads 1 and 2 (padded): ticks at 1 and 2 only.
        assert_eq!(Scale::Integers.key_points(0.95, 2.05), vec![1.0, 2.0]);
        // 8 B to 256 KiB: powers of two, every other one.
        let bytes = Scale::Bytes.key_points(3.0f64.log2(), 18.2);
        assert_eq!(bytes.first(), Some(&2.0));
        assert!(
            bytes.iter().all(|v| v.fract() == 0.0) && bytes.len() <= 10,
            "{bytes:?}"
        );
        // 0.2 to 30 GB/s: 0.2, 0.5, 1, 2, 5, 10, 20.
        let gb: Vec<String> = Scale::Log10
            .key_points(0.2f64.log10(), 30f64.log10())
            .iter()
            .map(|v| Scale::Log10.tick_label(*v, 2.2))
            .collect();
        assert_eq!(gb, ["0.2", "0.5", "1", "2", "5", "10", "20"]);
        assert_eq!(Scale::Linear.key_points(0.0, 1.0).len(), 6);
    }

    #[test]
    fn lines_break_where_a_length_was_not_measured() {
        let grid = [8.0, 64.0, 576.0, 1536.0, 4096.0];
        let r = runs(&[(64.0, 1.0), (4096.0, 2.0)], &grid);
        assert_eq!(r, vec![vec![(64.0, 1.0)], vec![(4096.0, 2.0)]]);
        let r = runs(
            &[(8.0, 1.0), (64.0, 2.0), (576.0, 3.0), (4096.0, 4.0)],
            &grid,
        );
        assert_eq!(r.len(), 2);
        assert_eq!(r[0].len(), 3);
    }

    #[test]
    fn decimal_points_sit_on_the_baseline_in_pngs() {
        if font().is_err() {
            eprintln!("skipped: no font on this machine");
            return;
        }
        for size in FONT_SIZES {
            let (w, h) = (200u32, 80u32);
            let mut buf = vec![255u8; (w * h * 3) as usize];
            {
                let root = BitMapBackend::with_buffer(&mut buf, (w, h)).into_drawing_area();
                root.draw(&Text::new(
                    "1.1",
                    (10, 20),
                    (FONT, size).into_font().color(&BLACK),
                ))
                .unwrap();
                root.present().unwrap();
            }
            // The lowest inked row of each column run: the digits' and the point's bottoms.
            let dark = |x: u32, y: u32| buf[((y * w + x) * 3) as usize] < 128;
            let mut bottoms = Vec::new();
            let mut x = 0;
            while x < w {
                if (0..h).any(|y| dark(x, y)) {
                    let start = x;
                    while x < w && (0..h).any(|y| dark(x, y)) {
                        x += 1;
                    }
                    let bottom = (0..h)
                        .rev()
                        .find(|&y| (start..x).any(|c| dark(c, y)))
                        .unwrap();
                    bottoms.push(bottom);
                }
                x += 1;
            }
            assert_eq!(bottoms.len(), 3, "size {size}: 1, point, 1: {bottoms:?}");
            assert!(
                bottoms.iter().all(|&b| b == bottoms[0]),
                "size {size}: glyph bottoms {bottoms:?}"
            );
        }
    }

    #[test]
    fn renders_svg_and_png() {
        if font().is_err() {
            eprintln!("skipped: no font on this machine");
            return;
        }
        let dir = std::env::temp_dir().join(format!("parhash-lab-plot-{}", std::process::id()));
        let chart = Chart {
            name: "t".into(),
            title: "test".into(),
            x_label: "x".into(),
            y_label: "y".into(),
            log_x: true,
            log_y: true,
            x_bytes: true,
            series: vec![Series::new("a", vec![(8.0, 10.0), (4096.0, 1.0)])],
            roofs: vec![("r".into(), 0.5)],
            ..Chart::default()
        };
        let p = render(&chart, &dir).unwrap();
        assert!(p.svg.contains("<svg"));
        let png = std::fs::read(p.png_path.unwrap()).unwrap();
        assert_eq!(&png[1..4], b"PNG");
        let _ = std::fs::remove_dir_all(dir);
    }
}
