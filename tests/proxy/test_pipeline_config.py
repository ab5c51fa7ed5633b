"""`[redactor]`, `[refusal]` and `[evidence]` through the proxy: the operator's detectors, own refusal patterns
and evidence threshold change what a client sees; a bad key, entity, category or pattern stops the load."""

from __future__ import annotations

from collections.abc import Callable
from contextlib import AbstractContextManager
from typing import Any

import httpx
import pytest

from sluicegate_proxy import ConfigError, config_from
from tests.dialects import sdk, streams
from tests.proxy.upstream import Upstream, events_of

MakeProxy = Callable[[dict[str, Any]], AbstractContextManager[str]]
EMAIL = "ada@example.org"
TEXT = f"Your key is {streams.SECRET} and mail goes to {EMAIL} today. Bye."
OPEN = {"threshold": 0.0, "min_matches": 1}  # an evidence gate that lets any on-topic question through


def _answer(url: str, upstream: Upstream, text: str, **body: Any) -> tuple[str, str, int]:
    """(shown text, end, upstream calls made) for one streamed Chat request."""
    count = len(upstream.seen)
    upstream.play(events_of(streams.chat(streams.pieces(text))))
    r = httpx.post(url + "/v1/chat/completions", json=streams.request_body("chat", **body), timeout=10)
    assert r.status_code == 200
    seen = sdk.chat_stream(r.content)
    return seen.text, str(seen.end), len(upstream.seen) - count


def test_redactor_entities_choose_the_detectors(make_proxy: MakeProxy, upstream: Upstream) -> None:
    with make_proxy({}) as url:
        shown, _, _ = _answer(url, upstream, TEXT)
        assert streams.SECRET not in shown and EMAIL not in shown
    with make_proxy({"redactor": {"entities": ["EMAIL_ADDRESS"]}}) as url:
        shown, _, _ = _answer(url, upstream, TEXT)
        assert streams.SECRET in shown and EMAIL not in shown  # the operator left OPENAI_KEY out
    with make_proxy({"redactor": {"allow": [EMAIL]}}) as url:
        shown, _, _ = _answer(url, upstream, TEXT)
        assert streams.SECRET not in shown and EMAIL in shown


def test_redactor_entities_apply_after_the_gate(make_proxy: MakeProxy, upstream: Upstream) -> None:
    with make_proxy({"redactor": {"entities": ["OPENAI_KEY"]}}) as url:
        shown, end, _ = _answer(url, upstream, streams.GROUNDED, sources=streams.SOURCES)
        assert end == "stop"
        assert "help.desk@citylib.example" in shown  # EMAIL_ADDRESS not chosen: the sourced address is shown


def test_refusal_patterns_refuse_before_the_model(make_proxy: MakeProxy, upstream: Upstream) -> None:
    question = "Can I rent books when the library is open?"
    base = {"pipeline": {"preflight": True}, "evidence": OPEN}
    with make_proxy(base) as url:
        _, end, calls = _answer(url, upstream, streams.GROUNDED, sources=streams.SOURCES, question=question)
        assert calls == 1 and end == "stop"
    with make_proxy({**base, "refusal": {"patterns": {"rentals": {"en": [r"\brent(s|ing)?\b"]}}}}) as url:
        shown, end, calls = _answer(url, upstream, streams.GROUNDED, sources=streams.SOURCES, question=question)
        assert calls == 0 and end == sdk.STOPPED["chat"] and shown


def test_evidence_threshold_from_the_config(make_proxy: MakeProxy, upstream: Upstream) -> None:
    with make_proxy({"pipeline": {"preflight": True}}) as url:
        _, end, calls = _answer(url, upstream, streams.GROUNDED, sources=streams.SOURCES)
        assert calls == 1 and end == "stop"
    with make_proxy({"pipeline": {"preflight": True}, "evidence": {"threshold": 0.99}}) as url:
        shown, end, calls = _answer(url, upstream, streams.GROUNDED, sources=streams.SOURCES)
        assert calls == 0 and end == sdk.STOPPED["chat"] and shown


@pytest.mark.parametrize(
    "config",
    [
        {"redactor": {"entities": ["NOT_A_DETECTOR"]}},
        {"redactor": {"entities": []}},
        {"redactor": {"entities": "EMAIL_ADDRESS"}},
        {"redactor": {"operator": "mask"}},
        {"refusal": {"categories": ["no_such_category"]}},
        {"refusal": {"patterns": {"fees": {"en": ["(unclosed"]}}}},
        {"refusal": {"patterns": {"fees": ["a list, not languages"]}}},
        {"refusal": {"rules": "x"}},
        {"evidence": {"threshold": 1.5}},
        {"evidence": {"threshold": "0.3"}},
        {"evidence": {"min_matches": -1}},
        {"evidence": {"top_k": 3}},
    ],
)
def test_bad_pipeline_config_is_refused_at_load(config: dict[str, Any]) -> None:
    with pytest.raises(ConfigError):
        config_from(config, upstream="http://127.0.0.1:1")


def test_the_guides_toml_example_loads() -> None:
    import re
    import tomllib
    from pathlib import Path

    guide = Path(__file__).resolve().parents[2] / "docs" / "proxy.md"
    blocks = re.findall(r"```toml\n(.*?)```", guide.read_text(encoding="utf-8"), re.S)
    config = config_from(tomllib.loads(blocks[0]))
    assert config.redactor["entities"] == ("OPENAI_KEY", "ANTHROPIC_KEY", "EMAIL_ADDRESS")
    assert "fees" in config.refusal["entries"] and config.evidence == {"threshold": 0.35, "min_matches": 2}
    assert config.rate_limits is not None and config.rate_limits.per_minute == 10
