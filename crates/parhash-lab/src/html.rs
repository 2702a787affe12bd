//! The self-contained HTML report: every table, the plots inline (SVG in the page, PNG as data
//! URIs), no external file. It is written as well-formed XHTML-style HTML5 so that an XML
//! parser can check it (the tests do).

use crate::plots::Plot;
use crate::report::{Report, Table};
use crate::summary;

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
    // Numbers right-aligned, words left-aligned, as in the terminal.
    let numeric = t.numeric_columns();
    let class = |i: usize| {
        if numeric.get(i).copied().unwrap_or(false) {
            ""
        } else {
            " class=\"t\""
        }
    };
    let mut s = String::from("<table>\n<thead><tr>");
    for (i, h) in t.headers.iter().enumerate() {
        s.push_str(&format!("<th{}>{}</th>", class(i), escape(h)));
    }
    s.push_str("</tr></thead>\n<tbody>\n");
    for row in &t.rows {
        s.push_str("<tr>");
        for (i, cell) in row.iter().enumerate() {
            s.push_str(&format!("<td{}>{}</td>", class(i), escape(cell)));
        }
        s.push_str("</tr>\n");
    }
    s.push_str("</tbody>\n</table>\n");
    s
}

/// Escapes `text` and sets Markdown-style `code` spans (between backticks) in `<code>`.
pub fn inline_text(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for (i, piece) in text.split('`').enumerate() {
        // Odd pieces lie between a pair of backticks; an unpaired last one stays as typed.
        let paired = i % 2 == 1 && text.split('`').count() > i + 1;
        if paired {
            out.push_str(&format!("<code>{}</code>", escape(piece)));
        } else {
            if i % 2 == 1 {
                out.push('`');
            }
            out.push_str(&escape(piece));
        }
    }
    out
}

/// `text` with its first letter in upper case (a heading made from a terminal view's title).
fn capitalized(text: &str) -> String {
    let mut chars = text.chars();
    match chars.next() {
        Some(first) => first.to_uppercase().chain(chars).collect(),
        None => String::new(),
    }
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
.t{text-align:left}figure{margin:1em 0}svg{max-width:100%;height:auto}\
.note{color:#844}details{margin:1em 0}code{background:#f4f4f4;padding:0 0.2em}\
dt{font-weight:bold;margin-top:0.4em}ol.footnotes{font-size:0.9em}";

fn figure(p: &Plot) -> String {
    let mut h = format!(
        "<figure id=\"{}\">\n{}\n<figcaption>{}",
        escape(&p.chart_name),
        inline_svg(&p.svg),
        escape(&p.title)
    );
    if let Some(png) = p.png_path.as_ref().and_then(|p| std::fs::read(p).ok()) {
        h.push_str(&format!(
            " (<a download=\"{}.png\" href=\"data:image/png;base64,{}\">PNG</a>)",
            escape(&p.chart_name),
            base64(&png)
        ));
    }
    h.push_str("</figcaption>\n</figure>\n");
    h
}

/// The whole page: the verdict and the tables that answer "how fast is this machine and what
/// limits it" first, then parhash beside its peers per algorithm, then every row.
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
    let verdict = summary::verdict(report);
    if !verdict.is_empty() {
        h.push_str("<h2 id=\"verdict\">Verdict</h2>\n<ul>\n");
        for v in verdict {
            h.push_str(&format!("<li>{}</li>\n", inline_text(&v)));
        }
        h.push_str("</ul>\n");
    }
    if let Some(t) = report.roofs_table() {
        h.push_str("<h2 id=\"roofs\">Roofs, measured in this run</h2>\n");
        h.push_str(&table(&t));
        for n in &report.roofs.as_ref().expect("roofs").notes {
            h.push_str(&format!("<p class=\"note\">{}</p>\n", inline_text(n)));
        }
    }
    if let Some(t) = summary::bottleneck_table(report) {
        h.push_str("<h2 id=\"bottlenecks\">What limits hashing on this machine</h2>\n");
        h.push_str(&format!(
            "<p>Rows: one message at a time or many messages at once, read from memory or \
             from a cold disk; columns: short messages (under 4 KiB) and long ones. Each cell: \
             the most frequent bottleneck among parhash's forms measured in it (count/total; \
             {}; the verdict counts the same cells). The table follows the study of Keccak and \
             SIMD on an FPGA-accelerated Xeon.</p>\n",
            escape(crate::classify::COUNTED)
        ));
        h.push_str(&table(&t));
    }
    let is = |p: &&Plot, prefix: &str| p.chart_name.starts_with(prefix);
    if let Some(t) = summary::headline_peers_table(report) {
        h.push_str(
            "<h2 id=\"peers\">parhash against its peers</h2>\n<p>Same algorithm, one message, \
             one thread, from memory: parhash's fastest form on each length against the best \
             peer (OpenSSL, RustCrypto, the blake3 crate); above 1, parhash is faster.</p>\n",
        );
        h.push_str(&table(&t));
        if let Some(note) = summary::headline_note(report) {
            h.push_str(&format!("<p>{}.</p>\n", escape(&note)));
        }
        for p in plots.iter().filter(|p| is(p, "parhash-vs-best-peer")) {
            h.push_str(&figure(p));
        }
    }
    let per_algorithm: Vec<&Plot> = plots.iter().filter(|p| is(p, "algorithm-")).collect();
    if !per_algorithm.is_empty() {
        let stand_ins: Vec<String> = crate::plots::STAND_IN_PEERS
            .iter()
            .map(|(a, other)| format!("{a} against {other}"))
            .collect();
        h.push_str(&format!(
            "<h2 id=\"algorithms\">Each algorithm: parhash's forms and its peers</h2>\n<p>One \
             message on one thread, from memory; solid lines are parhash's forms, dashed lines \
             its peers. An algorithm no other library implements is set against the hash it \
             is built on, where the run measured that one ({}); a chart without dashed lines \
             had no peer to show. A point without a line was measured at that length only.</p>\n",
            escape(&stand_ins.join("; "))
        ));
        for p in per_algorithm {
            h.push_str(&figure(p));
        }
    }
    if let Some(t) = report.peers_table() {
        h.push_str(
            "<h3>Every comparison, like with like</h3>\n<p>Each row: a piece of work a peer \
             was measured on, against parhash's fastest form on that same work; ratio = peer \
             time / parhash time.</p>\n",
        );
        h.push_str(&table(&t));
        if let Some(note) = report.paired_note() {
            h.push_str(&format!("<p>{}.</p>\n", escape(&note)));
        }
    }
    let others: Vec<&Plot> = plots
        .iter()
        .filter(|p| !is(p, "algorithm-") && !is(p, "parhash-vs-best-peer"))
        .collect();
    if !others.is_empty() {
        h.push_str("<h2 id=\"plots\">More plots</h2>\n");
        for p in others.iter().copied() {
            h.push_str(&figure(p));
        }
    }
    // Where the speed-up plot was not drawn (fewer than three thread counts), its table.
    if !others.iter().any(|p| is(p, crate::plots::SPEEDUP_CHART)) {
        if let Some(t) = report.speedup_table() {
            h.push_str(&format!(
                "<h2 id=\"speedup\">{}</h2>\n<p>Per form: how many of its configurations \
                 earned at least half the ideal gain, and its best and worst speed-up ([n]: why, \
                 listed under the next table).</p>\n",
                escape(&capitalized(&summary::speedup_title(report)))
            ));
            h.push_str(&table(&t));
        }
    }
    if let Some(t) = report.not_scaling_table(summary::NOT_SCALING_ROWS) {
        h.push_str(&format!(
            "<h2 id=\"not-scaling\">{}</h2>\n<p>Configurations that got less than half the \
             ideal gain from their threads, the lowest speed-up first.</p>\n",
            escape(&capitalized(&summary::not_scaling_title(report)))
        ));
        h.push_str(&table(&t));
        h.push_str("<p>Why cells did not scale:</p>\n<ol class=\"footnotes\">\n");
        for f in report.scaling_footnotes() {
            h.push_str(&format!("<li>{}</li>\n", inline_text(&f)));
        }
        h.push_str("</ol>\n");
    }
    for s in &report.sections {
        h.push_str(&format!("<h2>{}</h2>\n", escape(&s.title)));
        for p in &s.paragraphs {
            h.push_str(&format!("<p>{}</p>\n", inline_text(p)));
        }
        if let Some(t) = &s.table {
            h.push_str(&table(t));
        }
    }
    if !report.measurements.is_empty() {
        h.push_str(&format!(
            "<h2 id=\"measurements\">Every measurement ({})</h2>\n<p>Median of the samples; \
             x1thr: speed-up against the same configuration on one thread{}; xbase: against \
             <code>--baseline</code>.</p>\n<details><summary>show the table</summary>\n",
            report.measurements.len(),
            if report.not_scaling().is_empty() {
                ""
            } else {
                ", [n] after it: why it did not scale (listed under <a \
                 href=\"#not-scaling\">threads that did not scale</a>)"
            }
        ));
        h.push_str(&table(&report.measurements_table()));
        h.push_str("</details>\n");
    }
    if let Some(t) = report.forms_table() {
        h.push_str("<h2 id=\"forms\">parhash's forms measured</h2>\n");
        h.push_str(&table(&t));
    }
    h.push_str("<h2 id=\"terms\">Terms</h2>\n<dl>\n");
    for (term, meaning) in summary::TERMS {
        h.push_str(&format!(
            "<dt>{}</dt><dd>{}</dd>\n",
            escape(term),
            inline_text(meaning)
        ));
    }
    h.push_str("</dl>\n");
    let notes: Vec<&String> = report.notes.iter().chain(extra_notes).collect();
    if !notes.is_empty() {
        h.push_str("<h2 id=\"notes\">Notes</h2>\n<ul>\n");
        for n in notes {
            h.push_str(&format!("<li>{}</li>\n", inline_text(n)));
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

    #[test]
    fn backticks_become_code() {
        assert_eq!(
            inline_text("sandstorm's `threads` <engine>"),
            "sandstorm&#39;s <code>threads</code> &lt;engine&gt;"
        );
        assert_eq!(inline_text("a `b` and `c"), "a <code>b</code> and `c");
        assert_eq!(inline_text("plain"), "plain");
    }
}
