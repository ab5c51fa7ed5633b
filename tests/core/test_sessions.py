"""Per-stream state shared by the adapters: the verdict read back from the filter and the driver's Outcome."""

from __future__ import annotations

from sluicegate import Pipeline, Redactor, SentenceGate, drive
from sluicegate._sessions import Session
from tests.support import HoldUntilPeriod

SOURCES = ["Late fees were abolished in 2021."]
BAD = "Late fees ended in 2021 [S1]. They ended in 2019 [S1]. "


def run(session: Session, text: str) -> str:
    return "".join(s.text for s in drive([text], session.filter, outcome=session.outcome, meter=session.meter))


def test_a_stopped_stream_reports_codes_and_server_side_details() -> None:
    session = Session(SentenceGate(SOURCES))
    assert (session.stopped, session.reasons, session.violations) == (False, (), ())
    assert run(session, BAD) == "Late fees ended in 2021."
    assert session.stopped and session.reasons == ("unsupported_value",)
    assert [v.code for v in session.violations] == ["unsupported_value"]
    assert session.stop_message == "sluicegate stopped the stream: unsupported_value"
    assert session.meter.usage.output_tokens == len(BAD.encode())


def test_violations_are_read_through_a_pipeline() -> None:
    gate = SentenceGate(SOURCES)
    session = Session(Pipeline(gate, Redactor()))
    run(session, BAD)
    assert session.violations == tuple(gate.violations) and len(session.violations) == 1
    assert Pipeline(HoldUntilPeriod(), HoldUntilPeriod()).violations == ()


def test_stop_message_without_a_guard_event_falls_back_to_the_violation_code_then_to_stopped() -> None:
    toy = HoldUntilPeriod()
    session = Session(toy)
    toy.feed("It was 2019. ")  # fed directly: no Outcome, so no Guard event recorded
    assert session.stopped and session.reasons == ()
    assert session.stop_message == "sluicegate stopped the stream: stopped"  # toy violations carry no code

    class Coded:
        code = "unsupported_value"

    toy.violations[:] = [Coded()]
    assert session.stop_message == "sluicegate stopped the stream: unsupported_value"
