"""UsageMeter: the provider's figure where reported, else one token per UTF-8 byte of the received text."""

from __future__ import annotations

from itertools import pairwise

import pytest
from hypothesis import given
from hypothesis import strategies as st

from sluicegate import UsageMeter


def test_estimate_is_one_token_per_utf8_byte_of_everything_received() -> None:
    m = UsageMeter()
    for piece in ["Héllo", " ", "wörld", "😀", ""]:
        m.observe(piece)
    u = m.usage
    text = "Héllo wörld😀"
    assert u.source == "estimate"
    assert u.output_tokens == len(text.encode("utf-8")) == 17
    assert (u.received_chars, u.received_bytes, u.pieces, u.input_tokens) == (len(text), 17, 5, None)


def test_provider_figure_wins_over_the_estimate() -> None:
    m = UsageMeter()
    m.observe("a fairly long answer with many bytes")
    m.report(output_tokens=8, input_tokens=120)
    u = m.usage
    assert (u.output_tokens, u.input_tokens, u.source) == (8, 120, "provider")
    assert u.received_bytes == len("a fairly long answer with many bytes")


def test_incremental_reports_add_up_and_cumulative_replace() -> None:
    m = UsageMeter()
    m.report(input_tokens=10)  # Anthropic style: input first, output later
    assert m.usage.source == "estimate" and m.usage.input_tokens == 10
    m.report(output_tokens=1)
    m.report(output_tokens=2)
    assert m.usage.output_tokens == 3
    m.report(output_tokens=5, cumulative=True)
    assert m.usage.output_tokens == 5 and m.usage.source == "provider"


def test_input_only_report_leaves_output_estimated() -> None:
    m = UsageMeter()
    m.observe("abc")
    m.report(input_tokens=4)
    assert (m.usage.output_tokens, m.usage.source, m.usage.input_tokens) == (3, "estimate", 4)


@pytest.mark.parametrize("bad", [-1, 1.5, "3"])
def test_bad_reports_are_rejected(bad: object) -> None:
    with pytest.raises(ValueError):
        UsageMeter().report(output_tokens=bad)  # type: ignore[arg-type]


@given(st.text(), st.lists(st.integers(0, 30)))
def test_estimate_does_not_depend_on_chunking(text: str, cuts: list[int]) -> None:
    bounds = sorted({0, len(text), *(c for c in cuts if c <= len(text))})
    whole, parts = UsageMeter(), UsageMeter()
    whole.observe(text)
    for a, b in pairwise(bounds):
        parts.observe(text[a:b])
    assert parts.usage.output_tokens == whole.usage.output_tokens
    assert parts.usage.output_tokens >= len(text)  # never under one token per character either


def test_a_zero_output_placeholder_does_not_hide_received_text() -> None:
    m = UsageMeter()
    m.report(input_tokens=12, output_tokens=0)  # message_start of an Anthropic-style stream
    m.observe("It opens at nine.")
    assert (m.usage.output_tokens, m.usage.source) == (17, "estimate")
    m.report(output_tokens=5)
    assert (m.usage.output_tokens, m.usage.source) == (5, "provider")
