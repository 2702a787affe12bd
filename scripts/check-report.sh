#!/usr/bin/env bash
# Renders a `parhash bench` report in headless Chromium and fails on a broken page: a plot that
# renders empty or without text, an image that does not decode (the PNG links included), a
# section heading with nothing under it, a table without rows, raw Markdown backticks, "NaN",
# a script error. Also takes a screenshot of the page (report-screenshot.png beside it) for a
# person to look at.
#   scripts/check-report.sh [REPORT_DIR]
# Without REPORT_DIR it runs a tiny tour (`parhash bench --tiny`, seconds) into a temporary
# folder, with the `parhash` on PATH or target/debug/parhash. Needs chromium (Debian:
# `apt-get install chromium`) and python3. Exit status 0 only if the page checks out.
set -euo pipefail
cd "$(dirname "$0")/.."

browser=""
for b in chromium chromium-browser google-chrome; do
  if command -v "$b" >/dev/null; then
    browser="$b"
    break
  fi
done
if [ -z "$browser" ]; then
  echo "check-report: no chromium found (Debian: apt-get install -y chromium)" >&2
  exit 2
fi

dir="${1:-}"
if [ -z "$dir" ]; then
  parhash="$(command -v parhash || echo target/debug/parhash)"
  if [ ! -x "$parhash" ]; then
    echo "check-report: no parhash binary (cargo build -p parhash-cli)" >&2
    exit 2
  fi
  dir="$(mktemp -d)/report"
  "$parhash" bench --tiny --no-progress --quiet --out "$dir" >/dev/null
fi
report="$(cd "$dir" && pwd)/report.html"
if [ ! -s "$report" ]; then
  echo "check-report: $report is missing or empty" >&2
  exit 2
fi

work="$(mktemp -d)"
profile="$(mktemp -d)"
trap 'rm -rf "$work" "$profile"' EXIT
cp "$report" "$work/report.html"

# The checker page loads the report in a frame (same folder, so the browser lets it look inside
# with --allow-file-access-from-files), measures what the browser laid out, and writes its
# verdict into its own page, which --dump-dom prints.
cat >"$work/check.html" <<'HTML'
<!DOCTYPE html>
<html><head><meta charset="utf-8"><title>check</title></head>
<body>
<pre id="result">PENDING</pre>
<iframe id="report" src="report.html" style="width:1280px;height:2400px"></iframe>
<script>
const problems = [];
window.addEventListener('error', e => problems.push('script error: ' + e.message));
function finish(summary) {
  document.getElementById('result').textContent =
    problems.length ? 'FAIL\n' + problems.join('\n') : 'OK ' + summary;
}
document.getElementById('report').addEventListener('load', async () => {
  const d = document.getElementById('report').contentDocument;
  if (!d || !d.body) { problems.push('cannot read the report page'); finish(''); return; }
  const text = d.body.innerText;
  if (d.querySelectorAll('h1').length !== 1) problems.push('expected one h1');
  const svgs = [...d.querySelectorAll('figure svg')];
  svgs.forEach((s, i) => {
    const r = s.getBoundingClientRect();
    const id = s.closest('figure').id;
    if (r.width < 200 || r.height < 100) problems.push(`plot ${id} renders ${r.width}x${r.height}`);
    if (s.querySelectorAll('text').length < 3) problems.push(`plot ${id} has no labels`);
    if (s.querySelectorAll('polyline, path, line, circle, rect').length < 5)
      problems.push(`plot ${id} draws nothing`);
  });
  const images = [...d.querySelectorAll('img')].map(img => img.src)
    .concat([...d.querySelectorAll('a[href^="data:image/"]')].map(a => a.href));
  await Promise.all(images.map(src => new Promise(done => {
    const im = new Image();
    im.onload = () => { if (im.naturalWidth < 100) problems.push('tiny image'); done(); };
    im.onerror = () => { problems.push('image does not decode: ' + src.slice(0, 40)); done(); };
    im.src = src;
  })));
  for (const h of d.querySelectorAll('h2, h3')) {
    let n = h.nextElementSibling, filled = false;
    while (n && !/^H[23]$/.test(n.tagName)) {
      if (n.tagName === 'DETAILS' || n.getBoundingClientRect().height > 0) filled = true;
      n = n.nextElementSibling;
    }
    if (!filled) problems.push('empty section: ' + h.textContent);
  }
  for (const t of d.querySelectorAll('table')) {
    if (t.querySelectorAll('tbody tr').length === 0) problems.push('table without rows');
  }
  if (text.includes('`')) problems.push('raw Markdown backticks in the text');
  if (/\bNaN\b|\bundefined\b/.test(text)) problems.push('NaN or undefined in the text');
  finish(`${svgs.length} plots, ${images.length} images, ` +
    `${d.querySelectorAll('table').length} tables, ${d.querySelectorAll('h2').length} sections`);
});
</script>
</body></html>
HTML

flags=(--headless --no-sandbox --disable-gpu --disable-quic --no-first-run
  --disable-background-networking --disable-component-update --disable-sync
  --user-data-dir="$profile")
dom="$(timeout 120 "$browser" "${flags[@]}" --allow-file-access-from-files \
  --virtual-time-budget=20000 --dump-dom "file://$work/check.html" 2>"$work/stderr" || true)"
result="$(printf '%s' "$dom" | python3 -c '
import html, re, sys
m = re.search(r"<pre id=\"result\">(.*?)</pre>", sys.stdin.read(), re.S)
print(html.unescape(m.group(1)) if m else "FAIL\nthe checker page did not render")
')"
if grep -q "Uncaught" "$work/stderr"; then
  result="FAIL
$(grep "Uncaught" "$work/stderr")
$result"
fi

shot="$(dirname "$report")/report-screenshot.png"
timeout 120 "$browser" "${flags[@]}" --hide-scrollbars --window-size=1280,2400 \
  --screenshot="$shot" "file://$report" >/dev/null 2>&1 || true
if [ ! -s "$shot" ]; then
  result="FAIL
no screenshot taken
$result"
else
  # A page that rendered is not one colour: count the distinct pixel values of a sample.
  colours="$(python3 - "$shot" <<'PY'
import struct, sys, zlib
data = open(sys.argv[1], "rb").read()
pos, idat, width, height, kind = 8, b"", 0, 0, 0
while pos < len(data):
    n, = struct.unpack(">I", data[pos:pos + 4])
    tag, body = data[pos + 4:pos + 8], data[pos + 8:pos + 8 + n]
    if tag == b"IHDR":
        width, height, _, kind = struct.unpack(">IIBB", body[:10])
    elif tag == b"IDAT":
        idat += body
    pos += 12 + n
raw = zlib.decompress(idat)
# Filtered rows still differ where the picture does; that is enough to tell blank from drawn.
print(len(set(raw[i:i + 3] for i in range(0, len(raw), 997))))
PY
)"
  if [ "${colours:-0}" -lt 20 ]; then
    result="FAIL
the screenshot is blank ($colours values)
$result"
  fi
fi

echo "check-report: $report"
echo "check-report: screenshot $shot"
echo "$result"
case "$result" in
  OK*) exit 0 ;;
  *) exit 1 ;;
esac
