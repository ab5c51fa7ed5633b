"""The `--html` report, written by the CLI (a subprocess) and opened in real headless Chromium."""

from __future__ import annotations

import io
from pathlib import Path
from typing import Any

from PIL import Image

from sluicegate._notices import notice
from tests.cli.support import EXAMPLES, run_cli, write_jsonl

GREEN, RED = (0x2E, 0x7D, 0x32), (0xC6, 0x28, 0x28)  # released; the first stop rule's colour


def near(pixel: tuple[int, ...], colour: tuple[int, int, int], tol: int = 12) -> bool:
    return all(abs(a - b) <= tol for a, b in zip(pixel[:3], colour, strict=True))


def count_colour(png: bytes, colour: tuple[int, int, int]) -> int:
    raw = Image.open(io.BytesIO(png)).convert("RGB").tobytes()
    return sum(1 for i in range(0, len(raw), 3) if near(tuple(raw[i : i + 3]), colour))


def open_report(chromium: Any, tmp_path: Path) -> tuple[Any, Any, list[str]]:
    html = tmp_path / "report.html"
    proc = run_cli("replay", str(EXAMPLES / "replay" / "answers.jsonl"), "--html", str(html))
    assert proc.returncode == 0, proc.stderr
    context = chromium.new_context(viewport={"width": 1200, "height": 900})
    page = context.new_page()
    requests: list[str] = []
    page.on("request", lambda r: requests.append(r.url))
    page.goto(html.as_uri())
    return context, page, requests


def test_the_report_shows_what_the_reader_saw_and_marks_the_blocked_sentence_server_side(
    chromium: Any, tmp_path: Path
) -> None:
    context, page, requests = open_report(chromium, tmp_path)
    try:
        assert requests == [(tmp_path / "report.html").as_uri()], "self-contained: nothing else is fetched"
        record = page.locator("#rec-en-invented-year")
        assert record.get_attribute("open") is None, "only problem records start open"
        record.locator("summary").click()
        reader = record.locator(".reader").inner_text()
        assert reader.startswith("The library opens at nine.") and "2019" not in reader
        assert reader.rstrip().endswith(notice("en", "stopped")), "the fixed notice comes last"
        server = record.locator(".server-only")
        assert server.is_visible()
        assert "server side only" in server.locator(".label").inner_text().casefold()
        assert "Late fees ended in 2019" in server.locator(".blocked").inner_text()
        assert "unsupported_value" in server.inner_text()
        # The false stop is open from the start, with its rule.
        false_stop = page.locator("#rec-en-abbreviation")
        assert false_stop.get_attribute("open") is not None
        assert "false stop" in false_stop.locator("summary").inner_text()
        assert "citation_missing" in false_stop.locator("summary").inner_text()
        # No secret anywhere on the page, blocked or shown.
        assert "sk-proj" not in page.content()
        assert page.locator("#totals").inner_text().count("false stops") == 1
    finally:
        context.close()


def test_the_chart_counts_every_record_and_is_drawn(chromium: Any, tmp_path: Path) -> None:
    context, page, _ = open_report(chromium, tmp_path)
    try:
        bars = page.locator("#chart rect")
        counts = [int(bars.nth(i).get_attribute("data-count")) for i in range(bars.count())]
        records = page.locator("details.rec").count()
        lines = (EXAMPLES / "replay" / "answers.jsonl").read_text("utf-8").split("\n")
        assert sum(counts) == records == sum(1 for line in lines if line.strip())
        languages = {bars.nth(i).get_attribute("data-language") for i in range(bars.count())}
        assert languages == {"de", "en", "es", "fa", "fr", "ru", "zh"}
        categories = {bars.nth(i).get_attribute("data-category") for i in range(bars.count())}
        assert {"released", "refused", "truncated", "stopped: unsupported_value"} <= categories
        shot = page.locator("#chart").screenshot()
        (tmp_path / "chart.png").write_bytes(shot)
        assert count_colour(shot, GREEN) > 500, "the released segments are painted"
        stop_colours = [c for c in categories if c and c.startswith("stopped")]
        assert stop_colours and count_colour(shot, RED) > 100, "the first stop rule's segments are painted"
        box = page.locator("#rec-en-abbreviation .server-only").screenshot()
        assert count_colour(box, RED) > 50, "the server-side box carries its red dashed border"
    finally:
        context.close()


def test_recorded_text_is_shown_as_text_never_as_markup(chromium: Any, tmp_path: Path) -> None:
    evil = '<img src="http://127.0.0.1:9/x.png" onerror="document.title=\'pwned\'"><b>bold</b>'
    record = {
        "id": "<i>id</i>",
        "question": "q",
        "language": "en",
        "sources": ["The library opens at nine."],
        "answer": f"It opens at nine [S1]. {evil} [S1].",
    }
    path = write_jsonl(tmp_path / "a.jsonl", [record])
    html = tmp_path / "report.html"
    assert run_cli("replay", str(path), "--html", str(html)).returncode == 0
    context = chromium.new_context()
    page = context.new_page()
    requests: list[str] = []
    page.on("request", lambda r: requests.append(r.url))
    try:
        page.goto(html.as_uri())
        assert page.locator("img").count() == 0 and page.locator("details.rec b").count() == 1  # only our <b> id
        assert page.title() != "pwned" and requests == [html.as_uri()]
        page.locator("details.rec summary").click()
        assert "<img" in page.locator("details.rec").inner_text()  # shown as the text it is
    finally:
        context.close()
