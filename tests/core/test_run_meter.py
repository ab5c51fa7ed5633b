"""`RunMeter`: the usage of a run of several model responses (an agent's turns), each billed as one meter bills."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from sluicegate import RunMeter, UsageMeter


def test_a_stopped_response_is_billed_by_its_bytes_beside_reported_ones() -> None:
    meter = RunMeter()
    meter.observe("tool call")
    meter.report(output_tokens=5, input_tokens=10, cumulative=True)
    meter.next_response()
    meter.observe("héllo")  # 6 bytes, never reported: the stream was stopped
    first, second = meter.responses
    assert (first.output_tokens, first.source) == (5, "provider")
    assert (second.output_tokens, second.source) == (6, "estimate")
    usage = meter.usage
    assert usage.output_tokens == 11 and usage.input_tokens == 10 and usage.source == "estimate"
    assert usage.received_bytes == len("tool call") + 6 and usage.pieces == 2


def test_an_empty_response_adds_nothing_and_keeps_the_source() -> None:
    meter = RunMeter()
    meter.next_response()  # nothing received yet: no empty response recorded
    meter.observe("ab")
    meter.report(output_tokens=1, cumulative=True)
    meter.next_response()
    assert len(meter.responses) == 1 and meter.usage.source == "provider" and meter.usage.output_tokens == 1
    assert RunMeter().usage == UsageMeter().usage  # a run that received nothing: the one meter's zero


@given(st.lists(st.tuples(st.text(max_size=20), st.one_of(st.none(), st.integers(0, 50))), max_size=6))
def test_the_run_is_the_sum_of_one_meter_per_response(responses: list[tuple[str, int | None]]) -> None:
    run = RunMeter()
    total = 0
    for text, reported in responses:
        run.next_response()
        one = UsageMeter()
        for meter in (run, one):
            meter.observe(text)
            if reported is not None:
                meter.report(output_tokens=reported, cumulative=True)
        total += one.usage.output_tokens
    assert run.usage.output_tokens == total
    assert run.usage.output_tokens >= sum(len(t.encode()) for t, r in responses if r is None)
