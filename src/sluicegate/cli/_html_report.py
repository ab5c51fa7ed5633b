"""`--html report.html`: one self-contained page (inline CSS and SVG, no script, nothing fetched) to read a replay.

Per record it shows what the reader saw (released text, then the fixed notice), and apart from it, marked as
server-side only, the sentence that was blocked and the rule's details (secrets in them redacted). A chart
gives the outcomes by language, stops split by rule. A Content-Security-Policy forbids every external load,
so the file can be attached to a CI run and opened anywhere.
"""

from __future__ import annotations

from collections import Counter
from html import escape
from typing import Any

# Outcome category -> colour (stops get one colour per rule code).
COLOURS = {"released": "#2e7d32", "truncated": "#8d8d8d", "refused": "#1565c0", "error": "#212121"}
RTL = frozenset({"fa", "ar"})  # answers in these languages read right to left
STOP_COLOURS = ("#c62828", "#ef6c00", "#ad1457", "#6a1b9a", "#f9a825", "#4e342e")

CSS = """
body{font:15px/1.45 system-ui,sans-serif;margin:2rem auto;max-width:72rem;padding:0 1rem;color:#1b1b1b}
h1{font-size:1.4rem}h2{font-size:1.15rem;margin-top:2rem}
table.totals{border-collapse:collapse}table.totals td,table.totals th{border:1px solid #ccc;padding:.2rem .6rem}
table.totals th{text-align:left;font-weight:400}
td.n{text-align:right}.bad{color:#b71c1c;font-weight:600}
.rec{border:1px solid #ccc;border-radius:6px;margin:.6rem 0;padding:.3rem .8rem}
.rec>summary{cursor:pointer}.badge{display:inline-block;border-radius:4px;padding:0 .4rem;color:#fff;font-size:.85rem}
.reader{background:#f6f8f6;border-left:4px solid #2e7d32;padding:.4rem .7rem;white-space:pre-wrap}
.notice{display:block;margin-top:.4rem;font-style:italic;color:#444}
.server-only{background:repeating-linear-gradient(45deg,#fff3f3,#fff3f3 8px,#ffe6e6 8px,#ffe6e6 16px);
border:2px dashed #c62828;padding:.4rem .7rem;white-space:pre-wrap}
.server-only .label{display:block;font-weight:700;color:#b71c1c;font-size:.8rem;text-transform:uppercase}
.flag{color:#fff;background:#b71c1c;border-radius:4px;padding:0 .4rem}
.legend span{display:inline-block;margin-right:1rem}.swatch{display:inline-block;width:.9em;height:.9em;
margin-right:.3em;vertical-align:-.1em}
"""


def _categories(doc: dict[str, Any]) -> list[str]:
    codes = sorted({r["codes"][0] for r in doc["records"] if r["outcome"] == "stopped" and r["codes"]})
    stops = [f"stopped: {c}" for c in codes]
    if any(r["outcome"] == "stopped" and not r["codes"] for r in doc["records"]):
        stops.append("stopped")
    present = {r["outcome"] for r in doc["records"]}
    return (
        [c for c in ("released", "truncated", "refused") if c in present]
        + stops
        + (["error"] if "error" in present else [])
    )


def _category(row: dict[str, Any]) -> str:
    if row["outcome"] == "stopped":
        return f"stopped: {row['codes'][0]}" if row["codes"] else "stopped"
    return str(row["outcome"])


def _colour(category: str, categories: list[str]) -> str:
    if category in COLOURS:
        return COLOURS[category]
    stops = [c for c in categories if c.startswith("stopped")]
    return STOP_COLOURS[stops.index(category) % len(STOP_COLOURS)]


def chart(doc: dict[str, Any]) -> str:
    """An SVG of stacked bars: one bar per language, one segment per outcome (stops by their first rule)."""
    categories = _categories(doc)
    per_language: dict[str, Counter[str]] = {}
    for row in doc["records"]:
        per_language.setdefault(row["language"], Counter())[_category(row)] += 1
    if not per_language:
        return "<p>No records were replayed.</p>"
    widest = max(sum(c.values()) for c in per_language.values())
    bar_w, row_h, left = 560, 28, 48
    height = row_h * len(per_language) + 24
    parts = [
        f'<svg id="chart" role="img" aria-label="outcomes by language" width="{left + bar_w + 60}" '
        f'height="{height}" xmlns="http://www.w3.org/2000/svg" font-size="13">'
    ]
    for i, (language, counts) in enumerate(sorted(per_language.items())):
        y = 8 + i * row_h
        parts.append(f'<text x="0" y="{y + 16}">{escape(language)}</text>')
        x = float(left)
        for category in categories:
            n = counts[category]
            if not n:
                continue
            w = bar_w * n / widest
            parts.append(
                f'<rect x="{x:.1f}" y="{y}" width="{w:.1f}" height="{row_h - 6}" fill="{_colour(category, categories)}"'
                f' data-language="{escape(language)}" data-category="{escape(category)}" data-count="{n}">'
                f"<title>{escape(language)}: {escape(category)}: {n}</title></rect>"
            )
            x += w
        parts.append(f'<text x="{x + 6:.1f}" y="{y + 16}">{sum(counts.values())}</text>')
    parts.append("</svg>")
    legend = "".join(
        f'<span><i class="swatch" style="background:{_colour(c, categories)}"></i>{escape(c)}</span>'
        for c in categories
    )
    return "".join(parts) + f'<p class="legend">{legend}</p>'


def _totals_table(t: dict[str, Any]) -> str:
    rows = [("released", t["released"]), ("stopped", t["stopped"])]
    rows += [(f"\u2003{code}", n) for code, n in t["stopped_by_code"].items()]
    rows += [("refused", t["refused"]), ("truncated", t["truncated"]), ("filter errors", t["errors"])]
    rows += [("invalid lines", t["invalid_lines"]), ("chunk-dependent", t["chunk_dependent"])]
    rows += [("labelled", t["labelled"]), ("as expected", t["as_expected"]), ("false stops", t["false_stops"])]
    rows += [("false refusals", t["false_refusals"]), ("missed stops", t["missed_stops"])]
    rows += [("missed refusals", t["missed_refusals"])]
    alarming = {"false stops", "missed stops", "missed refusals", "chunk-dependent", "filter errors"}
    body = "".join(
        f'<tr><th scope="row">{escape(name)}</th><td class="n{" bad" if n and name in alarming else ""}">{n}</td></tr>'
        for name, n in rows
    )
    return f'<table class="totals" id="totals">{body}</table>'


def _record(row: dict[str, Any], categories: list[str]) -> str:
    category = _category(row)
    text_attrs = f'dir="{"rtl" if row["language"] in RTL else "auto"}" lang="{escape(row["language"])}"'
    problem = row["verdict"] not in (None, "ok") or row["chunk_dependent"] or row["outcome"] == "error"
    head = (
        f'<span class="badge" style="background:{_colour(category, categories)}">{escape(row["outcome"])}</span> '
        f"<b>{escape(str(row['id']))}</b> · line {row['line']} · {escape(row['language'])}"
        f" · {row['shown_chars']} chars shown"
    )
    if row["codes"]:
        head += f" · <code>{escape(', '.join(row['codes']))}</code>"
    if row["expected"]:
        head += f" · expected {escape(row['expected'])}: <b>{escape(str(row['verdict']).replace('_', ' '))}</b>"
    if row["truncated"]:
        head += " · cut short by the provider"
    if row["chunk_dependent"]:
        head += f' <span class="flag">chunk-dependent: {escape(", ".join(row["differs_at"]))}</span>'
    shown = escape(row["shown"]) or "<i>(nothing)</i>"
    if row["notice"]:
        shown += f'<span class="notice">{escape(row["notice"])}</span>'
    body = f'<h4>What the reader saw</h4><div class="reader" {text_attrs}>{shown}</div>'
    server = row["server_side"]
    if server["blocked_sentence"] is not None or server["violations"]:
        details = "".join(
            f"<li><code>{escape(v['code'])}</code>: {escape(v['detail'])}</li>" for v in server["violations"]
        )
        blocked = (
            escape(server["blocked_sentence"])
            if server["blocked_sentence"] is not None
            else "<i>(the blocking sentence could not be isolated)</i>"
        )
        body += (
            '<div class="server-only"><span class="label">Server side only: never sent to the reader</span>'
            f'<div class="blocked" {text_attrs}>{blocked}</div><ul>{details}</ul></div>'
        )
    if row.get("error"):
        body += f'<p class="bad">filter error: {escape(row["error"])}</p>'
    open_attr = " open" if problem else ""
    return (
        f'<details class="rec" id="rec-{escape(str(row["id"]))}" data-outcome="{escape(row["outcome"])}"{open_attr}>'
        f"<summary>{head}</summary>{body}</details>"
    )


def render(doc: dict[str, Any]) -> str:
    """The report page for a `summary.report(...)` document (plus an optional `baseline` key)."""
    categories = _categories(doc)
    invalid = "".join(f"<li>line {e['line']}: {escape(e['error'])}</li>" for e in doc["invalid"]) or "<li>none</li>"
    baseline = ""
    if "baseline" in doc:
        b = doc["baseline"]
        new = ", ".join(map(str, b["new_false_stops"])) or "none"
        baseline = f"<h2>Against the baseline</h2><p>New false stops: <b>{escape(new)}</b>; fixed: "
        baseline += f"{len(b['fixed_false_stops'])}; changed outcomes: {len(b['changed'])}.</p>"
    records = "".join(_record(r, categories) for r in doc["records"])
    return f"""<!doctype html>
<html lang="en"><head><meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'; img-src data:">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>sluicegate replay: {escape(doc["file"])}</title><style>{CSS}</style></head>
<body>
<h1>sluicegate replay: {escape(doc["file"])}</h1>
<p>Filter: <code>{escape(doc["filter"])}</code>. Chunkings: {escape(", ".join(doc["chunkings"]))}.
Each record was replayed in its recorded chunking and re-chunked at each of these; counts are whole records.</p>
<h2>Outcomes by language</h2>{chart(doc)}
<h2>Totals</h2>{_totals_table(doc["totals"])}
{baseline}
<h2>Invalid lines</h2><ul id="invalid">{invalid}</ul>
<h2>Records</h2>{records}
</body></html>
"""
