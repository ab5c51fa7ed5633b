"""`sluicegate conform` end to end: real targets on real uvicorn, the command's own scripted upstream behind them."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

import pytest

from sluicegate import redact
from sluicegate.cli import main
from sluicegate.cli._conform_checks import Case, cases, leak, longest_fragment, read_stream
from tests.services.ports import free_port
from tests.services.uvicorn_server import UvicornServer

from .targets import guard_app, passthrough_app, per_chunk_app


@contextmanager
def _target(make: Callable[[str], Any]) -> Iterator[tuple[str, int]]:
    """A target app forwarding to the port the command's scripted upstream will take: (target URL, port)."""
    port = free_port()
    server = UvicornServer(make(f"http://127.0.0.1:{port}/v1"))
    server.start()
    try:
        yield server.url, port
    finally:
        server.stop()


def _conform(capsys: pytest.CaptureFixture[str], url: str, port: int, *extra: str) -> tuple[int, dict[str, Any]]:
    code = main(["conform", url, "--serve-upstream", str(port), "--json", "--interval", "0.002", *extra])
    out = capsys.readouterr().out
    return code, json.loads(out)


def _rows(report: dict[str, Any]) -> dict[tuple[str, str], dict[str, Any]]:
    return {(r["dialect"], r["entity"]): r for r in report["rows"]}


def test_every_planted_value_is_one_our_redactor_redacts_and_its_context_is_clean() -> None:
    all_cases = cases()
    values = [c for c in all_cases if c.kind == "value"]
    assert {c.entity for c in values} >= {"EMAIL_ADDRESS", "PHONE_NUMBER", "OPENAI_KEY", "IBAN_CODE"}
    control = next(c for c in all_cases if c.kind == "control")
    for c in values:
        assert redact(c.text) == f"{c.before}<{c.entity}>{c.after}", c.entity
        # No run of min_prefix characters of the value occurs in what a clean answer would show.
        assert longest_fragment(c.value, [c.before, c.after, f"<{c.entity}>", control.text])[0] < c.min_prefix
    stop = next(c for c in all_cases if c.kind == "stop")
    from sluicegate.redaction import DEFAULT_NOTICE

    assert longest_fragment(stop.value, [stop.before, stop.after, DEFAULT_NOTICE])[0] < stop.min_prefix
    assert len(stop.value) > 8192  # past the Redactor's default max_hold: a guarding stream must stop


def test_a_split_value_is_seen_across_frames() -> None:
    case = Case("EMAIL_ADDRESS", "jane.doe@example.com", "to ", ".", 4)
    frames = [
        ("", json.dumps({"choices": [{"index": 0, "delta": {"content": "to jane.d"}, "finish_reason": None}]})),
        ("", json.dumps({"choices": [{"index": 0, "delta": {"content": "<EMAIL>"}, "finish_reason": "stop"}]})),
        ("", json.dumps({"choices": [{"index": 0, "delta": {"content": "late"}, "finish_reason": None}]})),
        ("", "[DONE]"),
    ]
    seen = read_stream("chat", frames)
    assert seen.text == "to jane.d<EMAIL>" and seen.stop == "stop"
    assert seen.after_stop == 1 and seen.after_stop_text == "late"
    assert leak(case, seen) == (6, 6)


def test_the_upstream_itself_leaks_every_value(capsys: pytest.CaptureFixture[str]) -> None:
    code, report = _conform(capsys, "upstream", 0, "--quick", "--dialect", "all")
    assert code == 1
    rows = _rows(report)
    for dialect in ("chat", "responses", "anthropic"):
        assert rows[(dialect, "EMAIL_ADDRESS")]["leaked"] and rows[(dialect, "PRIVATE_KEY")]["leaked"]
        assert rows[(dialect, "CONTROL")]["verdict"] == "ok"


@pytest.mark.parametrize("dialect", ["chat", "responses", "anthropic"])
def test_a_leaky_passthrough_fails_and_names_each_leak(capsys: pytest.CaptureFixture[str], dialect: str) -> None:
    with _target(passthrough_app) as (url, port):
        code, report = _conform(capsys, url, port, "--quick", "--dialect", dialect)
    assert code == 1
    leaked = {r["entity"] for r in report["rows"] if r["leaked"]}
    assert leaked == {c.entity for c in cases() if c.kind != "control"}
    assert report["errors"] == 0


def test_a_per_chunk_redactor_leaks_only_the_split_values(capsys: pytest.CaptureFixture[str]) -> None:
    """The failure mode conform exists for: every whole value is caught, every split one is shown in part."""
    with _target(per_chunk_app) as (url, port):
        code, report = _conform(capsys, url, port, "--dialect", "chat", "--dialect", "anthropic")
    assert code == 1
    for row in report["rows"]:
        if row["kind"] != "value":
            continue
        assert row["leaked"] and row["whole_run"] < row["min_prefix"], row["entity"]
        assert row["leaked_streams"] > 0
        if row["entity"] == "EMAIL_ADDRESS":  # "j" + "ane.doe@example.com": the rest is an address too
            assert row["leaked_streams"] < row["streams"]
        assert not row["matches_whole"] and row["verdict"] == "LEAK"


def test_the_table_names_the_leaks(capsys: pytest.CaptureFixture[str]) -> None:
    with _target(per_chunk_app) as (url, port):
        code = main(["conform", url, "--serve-upstream", str(port), "--quick", "--interval", "0.002"])
    out = capsys.readouterr().out
    assert code == 1
    assert "LEAK chat EMAIL_ADDRESS: splits" in out and "LEAK chat IBAN_CODE" in out
    assert "a leak is 4+ consecutive characters" in out


def test_a_guarding_target_passes_at_every_offset(capsys: pytest.CaptureFixture[str]) -> None:
    with _target(guard_app) as (url, port):
        code, report = _conform(capsys, url, port, "--dialect", "chat", "--strict")
    assert code == 0, [r for r in report["rows"] if r["verdict"] != "ok"]
    rows = _rows(report)
    assert report["leaks"] == 0 and report["after_stop"] == 0 and report["errors"] == 0
    assert rows[("chat", "EMAIL_ADDRESS")]["streams"] == len("jane.doe@example.com")  # 19 splits + one per char
    assert rows[("chat", "PRIVATE_KEY")]["stopped"] == 1
    assert rows[("chat", "CONTROL")]["intact"] is True


@pytest.mark.parametrize("dialect", ["chat", "responses", "anthropic"])
def test_sluicegate_proxy_passes_at_every_offset(capsys: pytest.CaptureFixture[str], dialect: str) -> None:
    from sluicegate_proxy import config_from, create_app

    with _target(lambda upstream: create_app(config_from({}, upstream=upstream))) as (url, port):
        code, report = _conform(capsys, url, port, "--dialect", dialect, "--strict")
    assert code == 0, [r for r in report["rows"] if r["verdict"] != "ok"]
    assert report["leaks"] == report["after_stop"] == report["errors"] == 0
    rows = _rows(report)
    assert rows[(dialect, "PRIVATE_KEY")]["stopped"] == 1  # the key block ends the stream with the dialect's stop
    assert rows[(dialect, "CONTROL")]["intact"] is True


def test_an_unreachable_target_is_not_a_pass(capsys: pytest.CaptureFixture[str]) -> None:
    code = main(["conform", f"http://127.0.0.1:{free_port()}", "--wait", "0.2"])
    assert code == 2
    assert "nothing listens" in capsys.readouterr().err
