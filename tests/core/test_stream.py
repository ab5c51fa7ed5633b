"""The filter contract: Step/Guard/Done, Pipeline composition, and that the invariance assertion can fail."""

from __future__ import annotations

import pytest

from sluicegate import Done, Guard, Pipeline, Step
from sluicegate.testing import assert_chunk_invariant, run_filter


class HoldToPeriod:
    """A real, invariant filter: releases text up to the last '.', stops on a forbidden word."""

    def __init__(self, forbidden: str = "2019") -> None:
        self.buf = ""
        self.forbidden = forbidden
        self._stopped = False

    @property
    def stopped(self) -> bool:
        return self._stopped

    @property
    def held(self) -> int:
        return len(self.buf)

    def feed(self, piece: str) -> Step:
        if self._stopped:
            return Step(stopped=True)
        self.buf += piece
        cut = self.buf.rfind(".") + 1
        ready, self.buf = self.buf[:cut], self.buf[cut:]
        return self._judge(ready)

    def flush(self, *, truncated: bool = False) -> Step:
        if self._stopped:
            return Step(stopped=True)
        ready, self.buf = ("" if truncated else self.buf), ""
        step = self._judge(ready)
        if step.stopped:
            return step
        return Step(step.text, False, (Done("truncated" if truncated else "complete"),))

    def _judge(self, ready: str) -> Step:
        bad = ready.find(self.forbidden)
        if bad < 0:
            return Step(ready)
        self._stopped = True
        keep = ready[: ready.rfind(".", 0, bad) + 1]
        return Step(keep, True, (Guard(("forbidden",), "held back"), Done("stopped")))


class PerChunkUpper:
    """A broken filter: judges each chunk alone (upper-cases a chunk that contains 'ab')."""

    stopped = False

    def feed(self, piece: str) -> Step:
        return Step(piece.upper() if "ab" in piece else piece)

    def flush(self, *, truncated: bool = False) -> Step:
        return Step("", False, (Done("complete"),))


def test_done_reason_is_validated() -> None:
    with pytest.raises(ValueError, match="complete"):
        Done("finished")


def test_steps_and_events_are_frozen() -> None:
    with pytest.raises(AttributeError):
        Step("x").text = "y"  # type: ignore[misc]
    with pytest.raises(AttributeError):
        Guard(("a",), "n").notice = "m"  # type: ignore[misc]


def test_invariant_filter_passes_and_reports_liveness() -> None:
    run = assert_chunk_invariant(HoldToPeriod, "It opens. It closes in 2019. Later.")
    assert run.text == "It opens."
    assert run.stopped
    assert run.events == (Guard(("forbidden",), "held back"), Done("stopped"))
    assert run.max_held > 0


def test_the_assertion_fails_on_a_per_chunk_filter() -> None:
    with pytest.raises(AssertionError, match="chunk invariance broken"):
        assert_chunk_invariant(PerChunkUpper, "xxabyy")


def test_pipeline_feeds_each_stage_what_the_previous_released() -> None:
    run = run_filter(lambda: Pipeline(HoldToPeriod("zzz"), HoldToPeriod("2019")), ["A. B 20", "19. C."])
    assert run.text == "A."
    assert run.stopped
    assert run.events == (Guard(("forbidden",), "held back"), Done("stopped"))


def test_pipeline_is_invariant_and_folds_done_events() -> None:
    text = "One. Two. Three 2019. Four."
    run = assert_chunk_invariant(lambda: Pipeline(HoldToPeriod("Four"), HoldToPeriod("2019")), text)
    assert run.text == "One. Two."
    assert [type(e) for e in run.events] == [Guard, Done]


def test_pipeline_when_first_stage_stops_later_stages_flush_approved_text() -> None:
    class Tail(HoldToPeriod):  # holds everything until flush
        def feed(self, piece: str) -> Step:
            self.buf += piece
            return Step()

    run = run_filter(lambda: Pipeline(HoldToPeriod("2019"), Tail("never")), ["One. Two 2019. x"])
    assert run.text == "One."
    assert run.events[-1] == Done("stopped")


def test_pipeline_truncation_and_stickiness() -> None:
    p = Pipeline(HoldToPeriod(), HoldToPeriod())
    assert p.feed("One. Tw").text == "One."
    end = p.flush(truncated=True)
    assert end.events == (Done("truncated"),)
    assert p.feed("more.") == Step()
    assert p.flush() == Step()


def test_stop_is_sticky() -> None:
    p = Pipeline(HoldToPeriod())
    assert p.feed("x 2019.").stopped
    assert p.feed("More.") == Step(stopped=True)
    assert p.flush() == Step(stopped=True)


def test_pipeline_rejects_non_str_and_needs_a_stage() -> None:
    with pytest.raises(TypeError, match="decode"):
        Pipeline(HoldToPeriod()).feed(b"bytes")  # type: ignore[arg-type]
    with pytest.raises(ValueError):
        Pipeline()


def test_pipeline_reports_the_first_stop_in_reading_order_whatever_the_chunking() -> None:
    """Review finding: redactor-then-gate, where the gate refuses before the redactor fails closed."""
    from sluicegate import Redactor, SentenceGate

    text = "NO_ANSWER " + "sk-ant-" + "a" * 300
    make = lambda: Pipeline(Redactor(max_hold=64), SentenceGate(["x"]))  # noqa: E731
    run = assert_chunk_invariant(make, text, max_size=12, random_runs=10)
    assert run.events == (Done("refused"),)


@pytest.mark.parametrize("order", ["redactor first", "gate first"])
def test_gate_and_redactor_pipelines_are_chunk_invariant(order: str) -> None:
    from hypothesis import given, settings
    from hypothesis import strategies as st

    from sluicegate import Redactor, SentenceGate

    sources = ["The library opens at 9. Mail desk@example.org."]

    def make() -> Pipeline:
        stages = [Redactor(max_hold=24), SentenceGate(sources)]
        return Pipeline(*(stages if order == "redactor first" else stages[::-1]))

    atoms = [
        "NO_ANSWER",
        " ",
        ". ",
        "It opens at 9 [S1]",
        "[S2]",
        "2019",
        "jane@exa",
        "mple.com",
        "-----BEGIN ",
        "PRIVATE KEY-----",
        "sk-ant-",
        "aaaa",
        "\n\n",
        "We",
        "!",
    ]

    @settings(max_examples=150, deadline=None)
    @given(st.lists(st.sampled_from(atoms), max_size=14), st.data())
    def check(parts: list[str], data: st.DataObject) -> None:
        text = "".join(parts)
        cuts = sorted(data.draw(st.lists(st.integers(0, len(text)), max_size=8)))
        chunks = [text[a:b] for a, b in zip([0, *cuts], [*cuts, len(text)], strict=True)]
        whole = run_filter(make, [text])
        got = run_filter(make, chunks)
        assert (got.text, got.stopped, got.events) == (whole.text, whole.stopped, whole.events)

    check()


def test_pipeline_gathers_its_stages_violations() -> None:
    """So Outcome.violations (read by the driver) is filled for a gate+redactor pipeline too."""
    from sluicegate import Redactor, SentenceGate

    gated = Pipeline(Redactor(), SentenceGate(["x"]))
    gated.feed("It was 2019 [S1]. More")
    assert gated.flush().stopped
    assert [v.code for v in gated.violations] == ["unsupported_value"]
    assert Pipeline(HoldToPeriod()).violations == ()
