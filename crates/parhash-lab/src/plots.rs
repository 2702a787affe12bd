//! Plots of a report, as SVG and PNG (`plotters`): ns/byte against message length (log-log),
//! speed-up against threads, throughput against multiplicity; the roofs drawn as lines.
//!
//! Log axes are drawn as linear axes over log10 of the values, with tick labels written back
//! as powers; this keeps one drawing routine for every plot. Text needs a TrueType font:
//! `PARHASH_FONT` or a system DejaVu/Liberation font; without one, plots are skipped and the
//! report says so.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use plotters::coord::Shift;
use plotters::prelude::*;

use crate::chart::{Chart, Series};
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

fn axis_value(v: f64, log: bool) -> f64 {
    if log {
        v.max(1e-300).log10()
    } else {
        v
    }
}

fn tick_text(v: f64, log: bool) -> String {
    if !log {
        return crate::units::sig3(v);
    }
    let x = 10f64.powf(v);
    if x < 1000.0 {
        return crate::units::sig3(x);
    }
    let exponent = x.log10().floor();
    let mantissa = x / 10f64.powf(exponent);
    if (mantissa - mantissa.round()).abs() < 0.05 {
        format!("{}e{}", mantissa.round(), exponent)
    } else {
        format!("{mantissa:.1}e{exponent}")
    }
}

/// (x, y) points of one series.
type Points = Vec<(f64, f64)>;

type DrawResult = Result<(), Box<dyn std::error::Error>>;

fn draw<DB: DrawingBackend>(root: DrawingArea<DB, Shift>, chart: &Chart) -> DrawResult
where
    DB::ErrorType: 'static,
{
    root.fill(&WHITE)?;
    let xs = chart
        .series
        .iter()
        .flat_map(|s| s.points.iter().map(|p| axis_value(p.0, chart.log_x)));
    let ys = chart
        .series
        .iter()
        .flat_map(|s| s.points.iter().map(|p| axis_value(p.1, chart.log_y)))
        .chain(chart.roofs.iter().map(|r| axis_value(r.1, chart.log_y)));
    let (mut x0, mut x1) = xs.fold((f64::INFINITY, f64::NEG_INFINITY), |(a, b), v| {
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
    pad(&mut x0, &mut x1, chart.log_x);
    pad(&mut y0, &mut y1, chart.log_y);
    if !chart.log_y && y0 > 0.0 {
        y0 = 0.0;
    }
    let mut ctx = ChartBuilder::on(&root)
        .caption(&chart.title, (FONT, 22))
        .margin(12)
        .x_label_area_size(44)
        .y_label_area_size(64)
        .build_cartesian_2d(x0..x1, y0..y1)?;
    let (log_x, log_y) = (chart.log_x, chart.log_y);
    ctx.configure_mesh()
        .x_desc(chart.x_label.as_str())
        .y_desc(chart.y_label.as_str())
        .x_label_formatter(&|v| tick_text(*v, log_x))
        .y_label_formatter(&|v| tick_text(*v, log_y))
        .label_style((FONT, 13))
        .axis_desc_style((FONT, 15))
        .light_line_style(RGBColor(235, 235, 235))
        .draw()?;
    for (i, r) in chart.roofs.iter().enumerate() {
        let y = axis_value(r.1, log_y);
        let color = [
            RGBColor(120, 120, 120),
            RGBColor(180, 60, 60),
            RGBColor(60, 120, 60),
        ][i % 3];
        ctx.draw_series(DashedLineSeries::new(
            vec![(x0, y), (x1, y)],
            6,
            4,
            color.stroke_width(2),
        ))?
        .label(format!("roof: {}", r.0))
        .legend(move |(x, y)| PathElement::new(vec![(x, y), (x + 18, y)], color));
    }
    if chart.diagonal {
        let lo = x0.max(y0);
        let hi = x1.min(y1);
        if hi > lo {
            ctx.draw_series(LineSeries::new(vec![(lo, lo), (hi, hi)], BLACK.mix(0.4)))?
                .label("ideal")
                .legend(|(x, y)| PathElement::new(vec![(x, y), (x + 18, y)], BLACK.mix(0.4)));
        }
    }
    for (i, s) in chart.series.iter().enumerate() {
        let color = Palette99::pick(i).to_rgba();
        let pts: Vec<(f64, f64)> = s
            .points
            .iter()
            .map(|p| (axis_value(p.0, log_x), axis_value(p.1, log_y)))
            .collect();
        ctx.draw_series(LineSeries::new(pts.clone(), color.stroke_width(2)))?
            .label(s.name.as_str())
            .legend(move |(x, y)| {
                PathElement::new(vec![(x, y), (x + 18, y)], color.stroke_width(2))
            });
        ctx.draw_series(pts.into_iter().map(|p| Circle::new(p, 3, color.filled())))?;
    }
    ctx.configure_series_labels()
        .background_style(WHITE.mix(0.85))
        .border_style(BLACK.mix(0.3))
        .label_font((FONT, 12))
        .position(SeriesLabelPosition::UpperRight)
        .draw()?;
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

fn smh_memory_1t(m: &Measurement) -> bool {
    m.messages == 1 && m.threads == 1 && m.source == Source::Memory
}

/// The charts a report calls for (those with data), then those its preset added.
pub fn charts(report: &Report) -> Vec<Chart> {
    let mut out = Vec::new();
    let roofs = report.roofs.as_ref();

    // ns/byte vs length, single message, one thread, from memory; 8 engines per chart.
    let mut by_engine: BTreeMap<String, Vec<(f64, f64)>> = BTreeMap::new();
    for m in report.measurements.iter().filter(|m| smh_memory_1t(m)) {
        by_engine
            .entry(m.label())
            .or_default()
            .push((m.message_len.max(1) as f64, m.ns_per_byte));
    }
    let series: Vec<Series> = by_engine
        .into_iter()
        .filter(|(_, p)| p.len() >= 2)
        .map(|(name, mut points)| {
            points.sort_by(|a, b| a.0.total_cmp(&b.0));
            Series { name, points }
        })
        .collect();
    let groups: Vec<&[Series]> = series.chunks(8).collect();
    for (i, group) in groups.iter().enumerate() {
        let mut r = Vec::new();
        if let Some(roofs) = roofs {
            r.push(("memory, 1 thread".to_string(), 1e9 / roofs.memory_1t));
        }
        out.push(Chart {
            name: format!("ns-per-byte-{}", i + 1),
            title: format!(
                "Unit execution time, single message, 1 thread, memory ({}/{})",
                i + 1,
                groups.len()
            ),
            x_label: "message length (bytes)".into(),
            y_label: "ns per byte".into(),
            log_x: true,
            log_y: true,
            series: group.to_vec(),
            roofs: r,
            diagonal: false,
        });
    }

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
        speedups.push(Series {
            name: format!(
                "{label} {} x{msgs} {}",
                crate::units::format_size(len),
                source.name()
            ),
            points,
        });
    }
    if !speedups.is_empty() {
        speedups.truncate(12);
        out.push(Chart {
            name: "speedup-vs-threads".into(),
            title: "Speed-up against 1 thread".into(),
            x_label: "threads".into(),
            y_label: "speed-up".into(),
            log_x: false,
            log_y: false,
            series: speedups,
            roofs: Vec::new(),
            diagonal: true,
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
                Series {
                    name: label.clone(),
                    points,
                }
            })
            .collect();
        let mut r = Vec::new();
        if let Some(roofs) = roofs {
            r.push(("memory, 1 thread".to_string(), roofs.memory_1t / 1e9));
            r.push(("page cache".to_string(), roofs.page_cache.bandwidth / 1e9));
            r.push(("disk".to_string(), roofs.disk.bandwidth / 1e9));
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
            diagonal: false,
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
    fn log_ticks_read_as_values() {
        assert_eq!(tick_text(2.0, true), "100");
        assert_eq!(tick_text(6.0, true), "1e6");
        assert_eq!(tick_text(4.5, true), "3.2e4");
        assert_eq!(tick_text(0.5, false), "0.500");
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
            series: vec![Series {
                name: "a".into(),
                points: vec![(8.0, 10.0), (4096.0, 1.0)],
            }],
            roofs: vec![("r".into(), 0.5)],
            diagonal: false,
        };
        let p = render(&chart, &dir).unwrap();
        assert!(p.svg.contains("<svg"));
        let png = std::fs::read(p.png_path.unwrap()).unwrap();
        assert_eq!(&png[1..4], b"PNG");
        let _ = std::fs::remove_dir_all(dir);
    }
}
