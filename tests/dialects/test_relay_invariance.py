"""Chunk invariance at the wire: the same upstream bytes cut anywhere give the client the same bytes.

The relay's frames depend only on the upstream's events (its own SSE parser reassembles them), and the
filters are chunk-invariant, so with fixed ids the whole client stream is byte-identical for every cut:
every position into two reads, and random chunkings (Hypothesis).
"""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tests.dialects import streams
from tests.dialects.helpers import relay

CALL = ("call_1", "get_weather", '{"city": "Bern", "days": 2}')
CASES = {
    "secret": lambda d: (streams.BUILD[d](streams.pieces(streams.WITH_SECRET, 16)), streams.request_body(d)),
    "stop": lambda d: (
        streams.BUILD[d](streams.pieces(streams.PLANTED, 24)),
        streams.request_body(d, sources=streams.SOURCES),
    ),
    "tool": lambda d: (
        {
            "chat": streams.chat(["Checking. "], calls=[CALL], finish="tool_calls"),
            "anthropic": streams.anthropic(["Checking. "], calls=[CALL], stop="tool_use"),
            "responses": streams.responses(["Checking. "], calls=[CALL]),
        }[d],
        streams.request_body(d, tools=True),
    ),
}
DIALECTS = ["chat", "responses", "anthropic"]


# Every byte position for the compact dialects (about 2 kB a stream, 4-5 ms a relay); Responses' streams are
# three times longer: every position of its tool case, the other two by the random chunkings below.
EXHAUSTIVE = [(d, c) for d in ("chat", "anthropic") for c in sorted(CASES)] + [("responses", "tool")]


@pytest.mark.parametrize(("dialect", "case"), EXHAUSTIVE)
def test_every_two_read_cut_gives_the_same_client_bytes(dialect: str, case: str) -> None:
    upstream, body = CASES[case](dialect)
    whole, first = relay(dialect, body, upstream)
    for cut in range(1, len(upstream)):
        out, r = relay(dialect, body, upstream, cuts=[cut])
        assert out == whole, cut
        assert r.reason == first.reason


@pytest.mark.parametrize("dialect", DIALECTS)
@given(data=st.data())
def test_random_chunkings_give_the_same_client_bytes(dialect: str, data: st.DataObject) -> None:
    case = data.draw(st.sampled_from(sorted(CASES)))
    upstream, body = CASES[case](dialect)
    cuts = sorted(data.draw(st.sets(st.integers(1, len(upstream) - 1), max_size=40)))
    whole, _ = relay(dialect, body, upstream)
    out, _ = relay(dialect, body, upstream, cuts=cuts)
    assert out == whole
