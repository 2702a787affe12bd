//! The self-contained HTML report: every table, the plots inline (SVG in the page, PNG as data
//! URIs), no external file. It is written as well-formed XHTML-style HTML5 so that an XML
//! parser can check it (the tests do).

use crate::plots::Plot;
use crate::report::{Report, Table};

/// Escapes text for HTML element content and attribute values.
pub fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            _ => out.push(c),
        }
    }
    out
}

/// Standard base64 with padding (for data URIs).
pub fn base64(data: &[u8]) -> String {
    const ALPHABET: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut out = String::with_capacity(data.len().div_ceil(3) * 4);
    for chunk in data.chunks(3) {
        let b = [
            chunk[0],
            chunk.get(1).copied().unwrap_or(0),
            chunk.get(2).copied().unwrap_or(0),
        ];
        let n = (u32::from(b[0]) << 16) | (u32::from(b[1]) << 8) | u32::from(b[2]);
        for i in 0..4 {
            if i <= chunk.len() {
                out.push(ALPHABET[((n >> (18 - 6 * i)) & 63) as usize] as char);
            } else {
                out.push('=');
            }
        }
    }
    out
}

fn table(t: &Table) -> String {
    let mut s = String::from("<table>\n<thead><tr>");
    for h in &t.headers {
        s.push_str(&format!("<th>{}</th>", escape(h)));
    }
    s.push_str("</tr></thead>\n<tbody>\n");
    for row in &t.rows {
        s.push_str("<tr>");
        for cell in row {
            s.push_str(&format!("<td>{}</td>", escape(cell)));
        }
        s.push_str("</tr>\n");
    }
    s.push_str("</tbody>\n</table>\n");
    s
}

/// Strips an XML declaration or doctype before the `<svg` element, so it can sit inline.
fn inline_svg(svg: &str) -> &str {
    match svg.find("<svg") {
        Some(i) => &svg[i..],
        None => "",
    }
}

const STYLE: &str = "body{font-family:system-ui,sans-serif;margin:2em auto;max-width:1200px;\
color:#222;padding:0 1em}table{border-collapse:collapse;margin:0.5em 0 1.5em;font-size:0.9em}\
th,td{border:1px solid #ccc;padding:0.2em 0.6em;text-align:right}th{background:#f0f0f0}\
td:first-child,th:first-child{text-align:left}figure{margin:1em 0}svg{max-width:100%;height:auto}\
.note{color:#844}details{margin:1em 0}code{background:#f4f4f4;padding:0 0.2em}";

/// The whole page.
pub fn render(report: &Report, plots: &[Plot], extra_notes: &[String]) -> String {
    let mut h = String::new();
    h.push_str(
        "<!DOCTYPE html>\n<html xmlns=\"http://www.w3.org/1999/xhtml\" lang=\"en\">\n<head>\n",
    );
    h.push_str("<meta charset=\"utf-8\"/>\n");
    h.push_str(&format!("<title>{}</title>\n", escape(&report.title)));
    h.push_str(&format!("<style>{STYLE}</style>\n</head>\n<body>\n"));
    h.push_str(&format!("<h1>{}</h1>\n", escape(&report.title)));
    h.push_str(&format!(
        "<p>Machine: {}</p>\n<p>Command: <code>{}</code> ({:.1} s)</p>\n",
        escape(&report.machine.summary()),
        escape(&report.command),
        report.seconds
    ));
    if let Some(t) = report.roofs_table() {
        h.push_str("<h2>Roofs, measured in this run</h2>\n");
        h.push_str(&table(&t));
        for n in &report.roofs.as_ref().expect("roofs").notes {
            h.push_str(&format!("<p class=\"note\">{}</p>\n", escape(n)));
        }
    }
    if let Some(t) = report.summary_table() {
        h.push_str("<h2>Dominating bottleneck on this machine</h2>\n");
        h.push_str(
            "<p>Seed study 5's table: rows single-message (SMH) and multi-message (MMH) hashing \
             from memory or disk; short messages are under 4 KiB. Each cell: the most frequent \
             classification among parhash's configurations in it (count/total).</p>\n",
        );
        h.push_str(&table(&t));
    }
    for s in &report.sections {
        h.push_str(&format!("<h2>{}</h2>\n", escape(&s.title)));
        for p in &s.paragraphs {
            h.push_str(&format!("<p>{}</p>\n", escape(p)));
        }
        if let Some(t) = &s.table {
            h.push_str(&table(t));
        }
    }
    if !plots.is_empty() {
        h.push_str("<h2>Plots</h2>\n");
        for p in plots {
            h.push_str(&format!(
                "<figure id=\"{}\">\n{}\n<figcaption>{}",
                escape(&p.chart_name),
                inline_svg(&p.svg),
                escape(&p.title)
            ));
            if let Some(png) = p.png_path.as_ref().and_then(|p| std::fs::read(p).ok()) {
                h.push_str(&format!(
                    " (<a download=\"{}.png\" href=\"data:image/png;base64,{}\">PNG</a>)",
                    escape(&p.chart_name),
                    base64(&png)
                ));
            }
            h.push_str("</figcaption>\n</figure>\n");
        }
    }
    if let Some(t) = report.peers_table() {
        h.push_str(
            "<h2>Peers, same run</h2>\n<p>Single message, one thread, from memory; \
                    ratio = peer time / parhash time (above 1: parhash faster).</p>\n",
        );
        h.push_str(&table(&t));
    }
    if !report.measurements.is_empty() {
        h.push_str(&format!(
            "<h2>Every measurement ({})</h2>\n<details open=\"open\"><summary>table</summary>\n",
            report.measurements.len()
        ));
        h.push_str(&table(&report.measurements_table()));
        h.push_str("</details>\n");
    }
    let notes: Vec<&String> = report.notes.iter().chain(extra_notes).collect();
    if !notes.is_empty() {
        h.push_str("<h2>Notes</h2>\n<ul>\n");
        for n in notes {
            h.push_str(&format!("<li>{}</li>\n", escape(n)));
        }
        h.push_str("</ul>\n");
    }
    h.push_str("</body>\n</html>\n");
    h
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn base64_known_answers() {
        // RFC 4648 section 10.
        for (i, o) in [
            ("", ""),
            ("f", "Zg=="),
            ("fo", "Zm8="),
            ("foo", "Zm9v"),
            ("foob", "Zm9vYg=="),
            ("fooba", "Zm9vYmE="),
            ("foobar", "Zm9vYmFy"),
        ] {
            assert_eq!(base64(i.as_bytes()), o);
        }
    }

    #[test]
    fn escaping() {
        assert_eq!(escape("a<b & \"c\""), "a&lt;b &amp; &quot;c&quot;");
    }
}
